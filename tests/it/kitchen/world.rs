//! The world's rules: lifetimes, occupancy, completion.

use gatecrew_kitchen::{Action, Refusal};

use super::common::{BLENDER, STORAGE, TABLE, cuisine, meatcake_script, world};

#[test]
fn an_order_expires_exactly_at_its_lifetime() {
    let c = cuisine();
    let mut w = world(&c, "level_0", 2, 1000, 10);
    for step in 0..9 {
        let r = w.step(&[]);
        assert!(r.failed.is_empty(), "step {step}");
    }
    assert_eq!(w.pending()[0].remaining, 1);
    let r = w.step(&[]);
    assert_eq!((r.step, r.failed.len()), (9, 1), "fails at the end of step T+L-1");
    assert!(w.pending().is_empty());
}

#[test]
fn a_put_in_the_last_step_of_the_lifetime_completes() {
    let c = cuisine();
    // The script serves at step 8: lifetime 9 is just enough, 8 is not.
    for (lifetime, done) in [(9, true), (8, false)] {
        let mut w = world(&c, "level_0", 2, 1000, lifetime);
        let (mut completed, mut failed) = (0, 0);
        for actions in meatcake_script(&c) {
            let r = w.step(&actions);
            completed += r.completed.len();
            failed += r.failed.len();
        }
        assert_eq!((completed == 1, failed == 1), (done, !done), "lifetime {lifetime}");
    }
}

#[test]
fn an_occupied_tool_refuses_a_second_agent() {
    let c = cuisine();
    let mut w = world(&c, "level_0", 2, 1000, 50);
    let script = meatcake_script(&c);
    for actions in &script[..5] {
        for (a, r) in w.step(actions).outcomes {
            assert!(r.is_ok(), "{a:?}: {r:?}");
        }
    }
    // Activated at step 4 (blender occupies 2): during step 5 nobody may use it.
    assert!(w.location(BLENDER).is_occupied());
    let r = w.step(&[Action::Noop, Action::Get { at: BLENDER, item: None }]);
    assert_eq!(r.outcomes[1].1, Err(Refusal::ToolOccupied));
    let r = w.step(&[Action::Noop, Action::Get { at: BLENDER, item: None }]);
    assert_eq!(r.outcomes[1].1, Ok(()), "free again one step later");
    assert_eq!(w.agents()[1].holding, c.book.item("salmonMeatcake"));
}

#[test]
fn refusals_follow_mindagent() {
    let c = cuisine();
    let mut w = world(&c, "level_0", 2, 1000, 50);
    let flour = c.book.item("flour");
    let meatcake = c.book.item("salmonMeatcake");
    let r = w.step(&[Action::Get { at: STORAGE, item: flour }, Action::Goto(STORAGE)]);
    assert_eq!(r.outcomes[0].1, Err(Refusal::NotThere));
    let r = w.step(&[Action::Goto(STORAGE), Action::Get { at: STORAGE, item: meatcake }]);
    assert_eq!(r.outcomes[1].1, Err(Refusal::NotStocked), "storage stocks raw ingredients only");
    let r = w.step(&[Action::Get { at: STORAGE, item: flour }, Action::Goto(TABLE)]);
    assert!(r.outcomes[0].1.is_ok());
    let r = w.step(&[Action::Goto(TABLE), Action::Noop]);
    assert!(r.outcomes[0].1.is_ok());
    let r = w.step(&[Action::Put(TABLE), Action::Noop]);
    assert_eq!(r.outcomes[0].1, Err(Refusal::NotOrdered));
    let r = w.step(&[Action::Goto(BLENDER), Action::Noop]);
    assert!(r.outcomes[0].1.is_ok());
    let r = w.step(&[Action::Put(BLENDER), Action::Goto(BLENDER)]);
    assert!(r.outcomes[0].1.is_ok());
    let r = w.step(&[Action::Activate(BLENDER), Action::Noop]);
    assert_eq!(r.outcomes[0].1, Err(Refusal::Waste), "flour alone makes nothing in a blender");
    let r = w.step(&[Action::Get { at: BLENDER, item: None }, Action::Noop]);
    assert_eq!(r.outcomes[0].1, Err(Refusal::NotPickable), "raw content stays until cooked");
}
