//! Solid floors on 100 bots: `configs/slab-20.toml` and `configs/slab-40.toml` on the
//! stepper. Read the ratio of the two rows against the cells: the 40 x 40 has four
//! times the cells of the 20 x 20, so a cost linear in the cells takes four times as
//! long, a little more for the longer walks onto a wider floor (docs/benchmarks.md,
//! "Solid floors").

use std::path::Path;

// What the `gatecrew` binary runs on (docs/benchmarks.md, "The allocator").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, EventKind};

fn floors(c: &mut Criterion) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut g = c.benchmark_group("floor");
    g.sample_size(10);
    for n in [20, 40] {
        let ov = Overrides { agents: Some(100), ..Overrides::default() };
        let setup = Setup::load(&root.join(format!("configs/slab-{n}.toml")), &ov).expect("config loads");
        g.bench_with_input(BenchmarkId::new("stepper_100_bots", n), &setup, |b, setup| {
            b.iter(|| {
                let mut complete = false;
                gatecrew_crew::run(setup, &mut |e: &Event| {
                    if let EventKind::EpisodeEnd { complete: c, .. } = e.kind {
                        complete = c;
                    }
                });
                assert!(complete, "the {n} x {n} floor completes");
            })
        });
    }
    g.finish();
}

criterion_group!(benches, floors);
criterion_main!(benches);
