//! Benchmarks live in `benches/`; this library holds what several of them share.
//!
//! [`ThreadCpu`]: a criterion measurement of the benchmarking thread's CPU time. On
//! the shared development machine wall time is the CPU share the process got; the
//! thread's CPU clock counts only the time it ran, so a row measured under load
//! stays comparable with one measured idle (preemption still costs some cache).

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};

/// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), reported in the units
/// of wall time.
pub struct ThreadCpu {
    /// Formats the values as wall time's are (both are durations in nanoseconds).
    wall: WallTime,
}

impl Default for ThreadCpu {
    fn default() -> Self {
        ThreadCpu { wall: WallTime }
    }
}

/// CPU time of the calling thread since it started.
pub fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

impl Measurement for ThreadCpu {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, d: &Duration) -> f64 {
        d.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}
