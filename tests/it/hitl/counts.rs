//! Counts typed in chat: a count is read once into the protocol's `Count` (1 to
//! 2304); 0, a fraction or more than one bot can carry gets a clear answer quoting the
//! count as it was said, the plan is left as it was, and nothing panics or is clamped.

use super::{plan_ops, run_script, said};

#[test]
fn counts_out_of_bounds_are_answered_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let script = "0 get 1100000000 crafting tables\n10 get 0 sticks\n20 make me zero torches instead\n30 get 1.5 sticks\n40 get 2304 planks\n50 stop\n";
    let (code, out, ev) = run_script(dir.path(), "counts", script, &["--no-memory"]);
    assert_eq!(code, 0, "{out}");
    let s = said(&ev);
    // A line is answered once its merge window (5 ticks) has passed.
    let at =
        |t: u64| s.iter().filter(|(u, _, _)| (t..t + 10).contains(u)).map(|(_, _, x)| x.clone()).collect::<Vec<_>>();
    assert!(
        at(0)
            .iter()
            .any(|x| x
                .starts_with("I cannot get 1100000000 crafting table: one bot carries at most 2304 (36 stacks of 64)")),
        "{:?}",
        at(0)
    );
    assert!(
        at(10).iter().any(|x| x.starts_with("I cannot get 0 stick: say how many, from 1 to 2304.")),
        "{:?}",
        at(10)
    );
    assert!(at(20).iter().any(|x| x.starts_with("I cannot get zero torch")), "{:?}", at(20));
    assert!(
        at(30)
            .iter()
            .any(|x| x.starts_with("I cannot get 1.5 stick: a count is a whole number; say one from 1 to 2304.")),
        "{:?}",
        at(30)
    );
    // No plan change for the bad counts: only the start.
    let ops = plan_ops(&ev);
    assert!(ops.iter().filter(|(t, ..)| *t < 40).all(|(_, op, _)| op == "start"), "{ops:?}");
    // The bound itself is a count: it is planned.
    assert!(ops.iter().any(|(t, op, _)| (40..50).contains(t) && (op == "add" || op == "new_task")), "{ops:?}");
    assert!(at(40).iter().any(|x| x.contains("obtain 2304 oak planks")), "{:?}", at(40));
}
