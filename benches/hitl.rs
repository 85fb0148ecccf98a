//! Graph-update latency of the human partner's interventions on the 12-, 120- and
//! 215-node benchmark plans (docs/hitl.md): what the session does for one line after
//! classification: resolution, the update, rule-based repair, the preview.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use gatecrew_hitl::goal::Goal;
use gatecrew_hitl::plan::repair::repair;
use gatecrew_hitl::plan::{Kind, Origin};
use gatecrew_hitl::recipe::{PlannerConfig, RecipePlanner};
use gatecrew_hitl::resolve::{Resolution, resolve};
use gatecrew_hitl::words::Vocabulary;
use gatecrew_hitl_app::eval;
use gatecrew_world::GameData;

fn updates(c: &mut Criterion) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let data = GameData::load(&root.join("configs/data/minecraft-1.20.4.json")).expect("data loads");
    let vocab = Vocabulary::new(&data).expect("vocabulary fits the data");
    let k = eval::Blank::new(&data);
    let stick = data.item("stick").expect("known item");
    for (name, plan) in eval::plans(&data, &vocab) {
        let mut g = c.benchmark_group(format!("hitl_{name}_{}", plan.len()));
        let leaves: Vec<_> = plan.ids().into_iter().filter(|n| plan.step(*n).kind.is_leaf()).collect();
        let target = plan.label(leaves[leaves.len() / 2]).to_owned();
        let goal = *plan.children(plan.root()).last().expect("a goal");
        let or = plan.ids().into_iter().find(|n| matches!(plan.step(*n).kind, Kind::Obtain { .. }) && *n != goal);
        g.bench_function("switch", |b| {
            b.iter_batched(
                || plan.clone(),
                |mut p| {
                    if let Resolution::One(n) = resolve(&p, &target, &vocab, &data) {
                        let _ = p.switch_to(n);
                    }
                    repair(&mut p);
                    p.preview()
                },
                criterion::BatchSize::SmallInput,
            )
        });
        g.bench_function("delete", |b| {
            b.iter_batched(
                || plan.clone(),
                |mut p| {
                    let _ = p.delete(goal);
                    repair(&mut p);
                    p.preview()
                },
                criterion::BatchSize::SmallInput,
            )
        });
        let four = gatecrew_protocol::Count::new(4).expect("4 is a count");
        g.bench_function("add", |b| {
            b.iter_batched(
                || plan.clone(),
                |mut p| {
                    let mut pl = RecipePlanner::new(&data, &vocab, &k, PlannerConfig::default(), Origin::Person);
                    let sub = pl.plan_goal(&mut p, &Goal::Obtain { item: stick, count: four });
                    if let Some(or) = or {
                        let _ = p.attach(or, sub, pl.added(), false);
                    }
                    repair(&mut p);
                    p.preview()
                },
                criterion::BatchSize::SmallInput,
            )
        });
        g.bench_function("stop", |b| {
            b.iter_batched(
                || plan.clone(),
                |mut p| {
                    p.stop();
                    p.preview()
                },
                criterion::BatchSize::SmallInput,
            )
        });
        g.finish();
    }
}

criterion_group!(benches, updates);
criterion_main!(benches);
