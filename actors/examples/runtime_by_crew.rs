//! The measurement behind `gatecrew_actors::runtime::ONE_THREAD_BELOW`: for each crew
//! size given, the default house through the stepper writing its trace, through the
//! actors on one thread and through the actors on two workers, interleaved rep by rep
//! so that drift on the machine hits all three alike; medians in milliseconds.
//!
//! `cargo run --release -p gatecrew-actors --example runtime_by_crew -- 3 100 300 500 700 1000`

#![allow(clippy::print_stdout)] // An example prints its result.

use std::path::Path;
use std::time::Instant;

use gatecrew_actors::run_episode;
use gatecrew_actors::runtime::with_workers;
use gatecrew_crew::{Overrides, Setup};
use gatecrew_protocol::trace::{Event, TraceWriter};

// As the `gatecrew` binary.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn millis(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/crew.toml"));
    let (one, two) = (with_workers(1)?, with_workers(2)?);
    let sizes: Vec<usize> = std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    if sizes.is_empty() {
        return Err("give the crew sizes, e.g. 3 100 300 500 700 1000".into());
    }
    println!("{:>6} {:>14} {:>18} {:>18}", "bots", "stepper_trace", "one thread", "2 workers");
    for n in sizes {
        let setup = Setup::load(cfg, &Overrides { agents: Some(n), ..Overrides::default() })?;
        // About three seconds a size on this machine, and never fewer than 15 reps.
        let reps = (3000 / n).clamp(15, 200);
        let (mut s, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..reps {
            let t = Instant::now();
            let mut w = TraceWriter::new(std::io::sink());
            let mut failed = None;
            std::hint::black_box(gatecrew_crew::run(&setup, &mut |e: &Event| {
                if let Err(e) = w.write(e) {
                    failed = Some(e);
                }
            }));
            if let Some(e) = failed {
                return Err(e.into());
            }
            s.push(millis(t));
            for (rt, out) in [(&one, &mut a), (&two, &mut b)] {
                let t = Instant::now();
                rt.block_on(run_episode(&setup, Box::new(std::io::sink()), None))?;
                out.push(millis(t));
            }
        }
        let (s, a, b) = (median(s), median(a), median(b));
        println!("{n:>6} {s:>11.3} ms {a:>9.3} ms {:>5.2}x {b:>9.3} ms {:>5.2}x", a / s, b / s);
    }
    Ok(())
}
