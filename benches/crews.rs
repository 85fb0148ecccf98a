//! The default house with crews of 3, 100 and 1,000 bots, on the stepper and
//! on the actor runtime in the same run: how time grows with the crew, and the actors'
//! overhead at each size. Bots beyond the three listed start around the site and the
//! listed materials are dealt out by share (`--agents`); memory per bot is measured
//! outside criterion (docs/benchmarks.md, "Large crews").
//!
//! The actor runtime always writes its trace (its recorder actor serialises every
//! event); `stepper_trace` does the same work on the stepper, through the same
//! `TraceWriter` into a sink, so `actors / stepper_trace` compares like with like.
//! `stepper` only counts the events: the core's cost alone. `actors` runs on the
//! runtime `gatecrew run` picks for the crew (`gatecrew_actors::runtime::for_crew`: one
//! thread below 400 bots, every core from 400); `actors_current_thread` and
//! `actors_2_workers` run on the one and on two workers whatever the crew, so the
//! choice can be checked. The bench runs on the binary's allocator (mimalloc).

use std::path::Path;

// What the `gatecrew` binary runs on (docs/benchmarks.md, "The allocator").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, TraceWriter};

fn crews(c: &mut Criterion) {
    let cfg = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/crew.toml"));
    let one = gatecrew_actors::runtime::with_workers(1).expect("runtime");
    let two = gatecrew_actors::runtime::with_workers(2).expect("runtime");
    let mut g = c.benchmark_group("crew");
    g.sample_size(10);
    for agents in [3usize, 100, 1000] {
        let setup =
            Setup::load(cfg, &Overrides { agents: Some(agents), ..Overrides::default() }).expect("config loads");
        g.bench_with_input(BenchmarkId::new("stepper", agents), &setup, |b, setup| {
            b.iter(|| {
                let mut n = 0u64;
                let f = gatecrew_crew::run(setup, &mut |_: &Event| n += 1);
                std::hint::black_box((f, n))
            })
        });
        g.bench_with_input(BenchmarkId::new("stepper_trace", agents), &setup, |b, setup| {
            b.iter(|| {
                let mut w = TraceWriter::new(std::io::sink());
                let f = gatecrew_crew::run(setup, &mut |e: &Event| w.write(e).expect("a sink takes every write"));
                std::hint::black_box(f)
            })
        });
        let chosen = gatecrew_actors::runtime::for_crew(agents).expect("runtime");
        for (name, rt) in [("actors", &chosen), ("actors_current_thread", &one), ("actors_2_workers", &two)] {
            g.bench_with_input(BenchmarkId::new(name, agents), &setup, |b, setup| {
                b.iter(|| {
                    let f = rt
                        .block_on(gatecrew_actors::run_episode(setup, Box::new(std::io::sink()), None))
                        .expect("episode runs");
                    std::hint::black_box(f)
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, crews);
criterion_main!(benches);
