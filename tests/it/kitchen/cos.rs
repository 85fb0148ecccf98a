//! CoS by hand on scripted episodes, and determinism.

use std::sync::Arc;

use gatecrew_kitchen::{CosRow, PolicyKind, RunSpec, run_episode, run_with};

use super::common::{Scripted, cuisine, meatcake_script, world};

#[test]
fn cos_by_hand_on_a_scripted_episode() {
    let c = cuisine();
    // level_0, interval 5, lifetime 10: orders arrive at times 0, 5, 10, 15.
    // 16 steps: #0 served at step 8; #1 (arrived 5) fails at the end of step 14;
    // #2 and #3 are pending. Rates 1/2 and 1/4.
    let mut p = Scripted { steps: meatcake_script(&c), at: 0 };
    let a = run_with(world(&c, "level_0", 2, 5, 10), &mut p, "scripted", 1.0, 16);
    assert_eq!((a.completed, a.failed, a.pending), (1, 1, 2));
    assert_eq!(a.rate_pending_excluded(), 0.5);
    assert_eq!(a.rate_pending_failed(), 0.25);
    // 9 steps: #0 served, #1 pending. Rates 1/1 and 1/2.
    let mut p = Scripted { steps: meatcake_script(&c), at: 0 };
    let b = run_with(world(&c, "level_0", 2, 5, 10), &mut p, "scripted", 1.5, 9);
    assert_eq!((b.completed, b.failed, b.pending), (1, 0, 1));
    let row = CosRow::from_episodes("level_0", PolicyKind::Dispatcher, RunSpec::new(2, 0), vec![a, b]);
    assert_eq!(row.cos_pending_excluded, (0.5 + 1.0) / 2.0);
    assert_eq!(row.cos_pending_failed, (0.25 + 0.5) / 2.0);
}

#[test]
fn same_seed_same_outcome() {
    let c = cuisine();
    let level = c.level("level_1").unwrap();
    for policy in PolicyKind::ALL {
        let run = |seed| run_episode(&c.book, level, policy, 1.0, &RunSpec::new(2, seed));
        assert_eq!(run(7), run(7), "{policy}");
    }
    // The seed drives the order draws.
    let draws = |seed| {
        let mut w =
            gatecrew_kitchen::World::new(Arc::clone(level), Arc::clone(&c.book), 2, level.file_timing(1.0), seed);
        (0..60).flat_map(|_| w.step(&[]).arrived).count();
        w.pending().iter().map(|o| o.dish).collect::<Vec<_>>()
    };
    assert_ne!((0..8).map(draws).collect::<Vec<_>>().windows(2).filter(|w| w[0] != w[1]).count(), 0);
}
