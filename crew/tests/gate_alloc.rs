//! A gate decision allocates nothing once the agent's buffers have grown: the
//! decision of `benches/gate.rs` (the 200-cell yard of `gate/decision_200_nodes`) and
//! one for every item the agent places, each counted after one call that lets the
//! buffers grow. The allocator of this test binary counts each thread's allocations.

use std::path::Path;

use gatecrew_crew::plan::{NodeKind, Task};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_gating::Issue;

#[test]
fn a_gate_decision_allocates_nothing() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let overrides = Overrides { blueprint: Some(root.join("benches/fixtures/yard200.toml")), ..Overrides::default() };
    let setup = Setup::load(&root.join("configs/crew.toml"), &overrides).expect("bench config loads");
    let agent = setup.agents().remove(0);
    let plan = agent.plan();
    let places = plan.children(plan.agent_root(agent.id()).expect("agent root"));
    let mut cases = Vec::new();
    for &node in &places {
        let NodeKind::Task(Task::Place { item, .. }) = plan.node(node).kind else { continue };
        if cases.iter().all(|(i, _): &(Issue, _)| *i != Issue::MissingMaterial { item, count: 10 }) {
            cases.push((Issue::MissingMaterial { item, count: 10 }, node));
        }
    }
    assert!(!cases.is_empty());
    // The counter is live: the plan's allocating walk is seen.
    let walk = allocation_counter::measure(|| drop(std::hint::black_box(plan.descendants(cases[0].1))));
    assert!(walk.count_total > 0);
    for &(issue, node) in &cases {
        let first = agent.evaluate(issue, Some(node));
        let mut again = None;
        let info = allocation_counter::measure(|| again = Some(agent.evaluate(issue, Some(node))));
        assert_eq!(info.count_total, 0, "{issue:?} on {node:?}: {} allocations", info.count_total);
        assert_eq!(again.map(|e| (e.features, e.decision)), Some((first.features, first.decision)));
    }
}
