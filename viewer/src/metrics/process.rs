//! Process gauges from `/proc/self`, read at each scrape (Linux; elsewhere the
//! files are absent and the gauges are not served).

/// Clock ticks per second of `/proc/*/stat`'s times: the kernel's USER_HZ, which is
/// 100 on every architecture Linux exposes to user space today (proc(5): "sysconf
/// (_SC_CLK_TCK)"; reading it needs libc, and the crate forbids unsafe code).
const USER_HZ: f64 = 100.0;

/// What one read of `/proc/self` found.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Sample {
    /// `VmRSS`, bytes.
    pub rss: Option<f64>,
    /// `VmHWM`, bytes.
    pub rss_max: Option<f64>,
    /// `VmSize`, bytes.
    pub virtual_bytes: Option<f64>,
    /// `Threads`.
    pub threads: Option<f64>,
    /// utime + stime, seconds.
    pub cpu_seconds: Option<f64>,
    /// Seconds since the epoch.
    pub start_time: Option<f64>,
    /// Entries of `/proc/self/fd`.
    pub open_fds: Option<f64>,
}

/// A `kB` field of `/proc/self/status`, in bytes.
fn status_kib(status: &str, field: &str) -> Option<f64> {
    let line = status.lines().find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    let v: f64 = line[field.len() + 1..].split_whitespace().next()?.parse().ok()?;
    Some(v * 1024.0)
}

/// Fields of `/proc/self/stat` after the command name (which may hold spaces and
/// parentheses: the last `)` ends it), numbered from 3 as in proc(5).
fn stat_field(stat: &str, n: usize) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(n - 3)?.parse().ok()
}

impl Sample {
    /// Parses the files' texts (separate from reading them, for the tests).
    pub fn parse(status: &str, stat: &str, proc_stat: &str, open_fds: Option<usize>) -> Self {
        let boot = proc_stat.lines().find_map(|l| l.strip_prefix("btime ")).and_then(|v| v.trim().parse::<f64>().ok());
        let cpu = stat_field(stat, 14).zip(stat_field(stat, 15)).map(|(u, s)| (u + s) / USER_HZ);
        Sample {
            rss: status_kib(status, "VmRSS"),
            rss_max: status_kib(status, "VmHWM"),
            virtual_bytes: status_kib(status, "VmSize"),
            threads: status.lines().find_map(|l| l.strip_prefix("Threads:")).and_then(|v| v.trim().parse().ok()),
            cpu_seconds: cpu,
            start_time: boot.zip(stat_field(stat, 22)).map(|(b, t)| b + t / USER_HZ),
            open_fds: open_fds.map(|n| n as f64),
        }
    }

    /// Reads this process's files now.
    pub fn read() -> Self {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let fds = std::fs::read_dir("/proc/self/fd").ok().map(Iterator::count);
        Sample::parse(&read("/proc/self/status"), &read("/proc/self/stat"), &read("/proc/stat"), fds)
    }
}

/// The process families as exposition text, appended to the recorder's (written here:
/// the recorder's counters are integers, and CPU seconds are not).
pub(super) fn render(s: &Sample) -> String {
    use std::fmt::Write;
    let values = [s.rss, s.rss_max, s.virtual_bytes, s.cpu_seconds, s.threads, s.open_fds, s.start_time];
    let mut text = String::new();
    for (f, v) in super::families::PROCESS.iter().zip(values) {
        let Some(v) = v else { continue };
        let kind = match f.kind {
            super::families::Kind::Counter => "counter",
            super::families::Kind::Gauge => "gauge",
            super::families::Kind::Histogram => "histogram",
        };
        let _ = write!(text, "# HELP {} {} ({})\n# TYPE {} {kind}\n{} {v}\n", f.name, f.help, f.unit, f.name, f.name);
    }
    text
}
