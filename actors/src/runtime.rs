//! Which tokio runtime a crew's actors run on.
//!
//! The lockstep wakes the awake agents once a tick and waits for all of them. With few
//! agents a tick, a second worker thread only adds hand-offs: the world wakes an agent
//! on the other thread, the answer wakes the world back, and an idle worker parks and
//! is woken by a system call every tick. With many, the agents' steps run in parallel.
//! Measured on a 2-core machine (docs/benchmarks.md, "The runtime by crew size"), the
//! default house, medians, actors against the stepper writing its trace:
//!
//! | bots | one thread | 2 workers |
//! |-----:|-----------:|----------:|
//! | 3    | 1.15x      | 1.33x     |
//! | 100  | 1.18x      | 1.46x     |
//! | 300  | 1.42x      | 1.56x     |
//! | 500  | 1.43x      | 1.18x     |
//! | 700  | 1.44x      | 1.25x     |
//!
//! So a crew smaller than [`ONE_THREAD_BELOW`] runs on tokio's current-thread runtime
//! and a larger one on a multi-thread runtime with a worker per core. `gatecrew run
//! --workers N` overrides the choice.

use tokio::runtime::{Builder, Runtime};

/// Crews below this many bots run on one thread: the midpoint between 300 bots, the
/// largest crew measured where one thread was faster, and 500, the smallest where two
/// workers were (see the module docs). Measured again on 2026-11-29 (docs/benchmarks.md,
/// seventh pass): one thread ahead below 400, the two level from 500 to 1,000, two
/// workers ahead from 1,400; nothing there argues for another value.
pub const ONE_THREAD_BELOW: usize = 400;

/// How many worker threads a crew of `agents` gets on a machine with `cores`: 1 (one
/// thread) below [`ONE_THREAD_BELOW`], every core above.
pub fn workers_for(agents: usize, cores: usize) -> usize {
    if agents < ONE_THREAD_BELOW { 1 } else { cores.max(1) }
}

/// A runtime with `workers` threads: tokio's current-thread runtime for 1, its
/// multi-thread runtime otherwise.
///
/// # Errors
/// When tokio cannot start it (no threads, no I/O driver).
pub fn with_workers(workers: usize) -> std::io::Result<Runtime> {
    match workers {
        0 | 1 => Builder::new_current_thread().enable_all().build(),
        n => Builder::new_multi_thread().worker_threads(n).enable_all().build(),
    }
}

/// The runtime a crew of `agents` runs on by default, on this machine.
///
/// # Errors
/// As [`with_workers`].
pub fn for_crew(agents: usize) -> std::io::Result<Runtime> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    with_workers(workers_for(agents, cores))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::runtime::RuntimeFlavor;

    #[test]
    fn small_crews_run_on_one_thread_and_large_ones_on_every_core() {
        assert_eq!(workers_for(3, 8), 1);
        assert_eq!(workers_for(ONE_THREAD_BELOW - 1, 8), 1);
        assert_eq!(workers_for(ONE_THREAD_BELOW, 8), 8);
        assert_eq!(workers_for(10_000, 2), 2);
        assert_eq!(workers_for(10_000, 0), 1);
        assert_eq!(with_workers(1).unwrap().handle().runtime_flavor(), RuntimeFlavor::CurrentThread);
        assert_eq!(with_workers(2).unwrap().handle().runtime_flavor(), RuntimeFlavor::MultiThread);
        assert_eq!(for_crew(3).unwrap().handle().runtime_flavor(), RuntimeFlavor::CurrentThread);
    }
}
