//! One policy over the 200 episodes of the suite (calibration + test splits) on the
//! stepper: all cores with rayon, and one core, in the same run.

use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::Event;
use gatecrew_suite::Manifest;
use rayon::prelude::*;

fn suite(c: &mut Criterion) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let dir = root.join("configs/suite");
    let manifest = Manifest::load(&dir).expect("the committed suite loads");
    let data =
        Arc::new(gatecrew_world::GameData::load(&root.join("configs/data/minecraft-1.20.4.json")).expect("data"));
    let setups: Vec<Setup> = manifest
        .episode
        .iter()
        .filter(|e| e.split != gatecrew_protocol::trace::Split::Standard)
        .map(|e| Setup::load_with_data(&dir.join(&e.file), &Overrides::default(), data.clone()).expect("episode loads"))
        .collect();
    assert_eq!(setups.len(), 200);
    let run = |s: &Setup| {
        let mut n = 0u64;
        gatecrew_crew::run(s, &mut |_: &Event| n += 1);
        n
    };
    let mut g = c.benchmark_group("suite_200_gated");
    g.sample_size(10);
    g.bench_function("all_cores", |b| b.iter(|| setups.par_iter().map(run).sum::<u64>()));
    g.bench_function("one_core", |b| b.iter(|| setups.iter().map(run).sum::<u64>()));
    g.finish();
}

criterion_group!(benches, suite);
criterion_main!(benches);
