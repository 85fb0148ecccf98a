//! One default episode (three bots, the 96-block house) through the synchronous
//! stepper and through the actor runtime, in the same run, so their ratio is the
//! overhead of the actors (on the runtime and the allocator `gatecrew run` uses).

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::Event;

// What the `gatecrew` binary runs on (docs/benchmarks.md, "The allocator").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn episode(c: &mut Criterion) {
    let cfg = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/crew.toml"));
    let setup = Setup::load(cfg, &Overrides::default()).expect("default config loads");
    // The runtime `gatecrew run` picks for three bots (one thread).
    let rt = gatecrew_actors::runtime::for_crew(setup.roster().len()).expect("runtime");
    let mut g = c.benchmark_group("default_episode");
    g.sample_size(30);
    g.bench_function("stepper", |b| {
        b.iter(|| {
            let mut n = 0u64;
            let f = gatecrew_crew::run(&setup, &mut |_: &Event| n += 1);
            std::hint::black_box((f, n))
        })
    });
    g.bench_function("actors", |b| {
        b.iter(|| {
            let f = rt
                .block_on(gatecrew_actors::run_episode(&setup, Box::new(std::io::sink()), None))
                .expect("episode runs");
            std::hint::black_box(f)
        })
    });
    g.finish();
}

criterion_group!(benches, episode);
criterion_main!(benches);
