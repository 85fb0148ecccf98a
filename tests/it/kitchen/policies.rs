//! Every policy gets orders out on level_0 with two agents.

use gatecrew_kitchen::{PolicyKind, RunSpec, TimingMode, run_episode};

use super::common::cuisine;

#[test]
fn each_policy_completes_orders_on_level_0() {
    let c = cuisine();
    let level = c.level("level_0").unwrap();
    for policy in PolicyKind::ALL {
        for factor in [1.0, 3.0] {
            let e = run_episode(&c.book, level, policy, factor, &RunSpec::new(2, 0));
            assert!(e.completed >= 2, "{policy} at {factor}: {e:?}");
        }
    }
}

#[test]
fn the_gated_crew_talks_less_than_flatcomm_and_the_dispatcher() {
    let c = cuisine();
    let level = c.level("level_0").unwrap();
    let msgs = |p| run_episode(&c.book, level, p, 1.0, &RunSpec::new(2, 0)).counters;
    let (g, f, d) = (msgs(PolicyKind::Gated), msgs(PolicyKind::Flatcomm), msgs(PolicyKind::Dispatcher));
    assert!(g.gate_decisions > 0 && g.escalations > 0, "{g:?}");
    assert!(g.messages < f.messages && f.messages < d.messages, "{g:?} {f:?} {d:?}");
    assert_eq!(d.messages, 120, "one command per agent per step");
}

#[test]
fn oracle_timing_runs() {
    let c = cuisine();
    let level = c.level("level_3").unwrap();
    let spec = RunSpec { timing: TimingMode::Oracle, ..RunSpec::new(3, 0) };
    let e = run_episode(&c.book, level, PolicyKind::Dispatcher, 3.0, &spec);
    assert!(e.completed > 0, "{e:?}");
}
