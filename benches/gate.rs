//! One gate decision (features + rules + score) on a 200-node task graph: the cost an
//! agent pays each time it detects an issue. `gate/*` in wall time, `gate_cpu/*` the
//! same decisions in the thread's CPU time (the machine is shared).

use std::path::Path;

use criterion::measurement::Measurement;
use criterion::{Criterion, criterion_group, criterion_main};
use gatecrew_benches::ThreadCpu;
use gatecrew_crew::plan::{NodeKind, Task};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_gating::Issue;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn gate(c: &mut Criterion) {
    decisions(c, "gate");
}

fn gate_cpu(c: &mut Criterion<ThreadCpu>) {
    decisions(c, "gate_cpu");
}

fn decisions<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let overrides = Overrides { blueprint: Some(root().join("benches/fixtures/yard200.toml")), ..Overrides::default() };
    let setup = Setup::load(&root().join("configs/crew.toml"), &overrides).expect("bench config loads");
    assert_eq!(setup.blueprint.len(), 200);
    let agent = setup.agents().remove(0);
    let plan = agent.plan();
    let places = plan.children(plan.agent_root(agent.id()).expect("agent root"));
    // The first node of the share: the one with the most dependents.
    let node = places[0];
    let NodeKind::Task(Task::Place { item, .. }) = plan.node(node).kind else { panic!("a place node") };
    let issue = Issue::MissingMaterial { item, count: 10 };
    let mut g = c.benchmark_group(group);
    g.bench_function("decision_200_nodes", |b| b.iter(|| std::hint::black_box(agent.evaluate(issue, Some(node)))));
    g.bench_function("score_only", |b| {
        let gate = gatecrew_gating::Gate::new(setup.gate, gatecrew_crew::style::of(setup.policy).gate());
        let q = gatecrew_gating::GateQuery {
            features: gatecrew_gating::Features::new(2, 1, 2, 0, 0).expect("levels in range"),
            ctx: gatecrew_gating::RuleContext { requestable: true, teammate_reachable: true, other_work: true },
        };
        b.iter(|| std::hint::black_box(gate.assess(q)))
    });
    g.finish();
}

criterion_group!(benches, gate);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpu::default());
    targets = gate_cpu
}
criterion_main!(benches, cpu);
