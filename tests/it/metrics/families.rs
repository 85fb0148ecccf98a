//! Every metric family the workspace records is described (HELP, unit, type), and the
//! process gauges read `/proc/self` right.

use std::path::Path;

use gatecrew_viewer::metrics::families::{self, Kind};
use gatecrew_viewer::metrics::process::Sample;

use crate::common::root;

/// `(macro, name)` of every `metrics::counter!("name"` (and gauge, histogram) in `dir`.
fn recorded(dir: &Path, out: &mut Vec<(String, String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if !["target", "node_modules", ".git", "fuzz"].contains(&name.as_str()) {
                recorded(&p, out);
            }
        } else if name.ends_with(".rs") && !p.ends_with("tests/it/metrics/families.rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            for kind in ["counter", "gauge", "histogram"] {
                let needle = format!("metrics::{kind}!(\"");
                for (at, _) in text.match_indices(&needle) {
                    let rest = &text[at + needle.len()..];
                    let metric = rest.split('"').next().unwrap().to_owned();
                    out.push((kind.to_owned(), metric, p.display().to_string()));
                }
            }
        }
    }
}

#[test]
fn every_family_the_workspace_records_is_described_with_its_type_and_unit() {
    let mut found = Vec::new();
    recorded(&root(), &mut found);
    assert!(found.len() > 25, "found the library call sites: {found:?}");
    let all: Vec<_> = families::all().collect();
    for (kind, name, file) in &found {
        // The exporter serves `_ms` histograms in seconds.
        let served = name.strip_suffix("_ms").map_or(name.clone(), |b| format!("{b}_seconds"));
        let f = all.iter().find(|f| f.name == served);
        let f = f.unwrap_or_else(|| panic!("{file}: {served} has no entry in viewer/src/metrics/families.rs"));
        let want = match kind.as_str() {
            "counter" => Kind::Counter,
            "gauge" => Kind::Gauge,
            _ => Kind::Histogram,
        };
        assert_eq!(f.kind, want, "{file}: {served}");
    }
    for f in &all {
        assert!(!f.help.is_empty(), "{}", f.name);
        let base = f.name.strip_suffix("_total").unwrap_or(f.name);
        assert_eq!(f.kind == Kind::Counter, base != f.name, "{}: counters and only counters end in _total", f.name);
        // What a counter counts is said in its HELP; anything else ends with its unit.
        if f.kind != Kind::Counter {
            assert!(base.ends_with(&format!("_{}", f.unit)), "{}: the name ends with its unit ({})", f.name, f.unit);
        }
        assert!(f.name.starts_with("gatecrew_") || f.name.starts_with("process_"), "{}", f.name);
    }
    // Game time is ticks: no trace-derived family is in seconds except the wall-clock
    // round trips the trace recorded as such.
    for f in families::TRACE.iter().filter(|f| f.unit == "seconds") {
        assert!(f.help.contains("wall seconds"), "{}: {}", f.name, f.help);
    }
}

const STATUS: &str = "Name:\tgatecrew\nVmPeak:\t  300000 kB\nVmSize:\t  250000 kB\nVmHWM:\t   71000 kB\n\
                      VmRSS:\t   60000 kB\nThreads:\t9\n";
// A command name with spaces and a parenthesis, as the kernel allows.
const STAT: &str = "4242 (gate crew) x) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 50 0 0 20 0 9 0 12000 \
                    256000000 15000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

#[test]
fn the_process_gauges_read_proc_self() {
    let s = Sample::parse(STATUS, STAT, "cpu  1 2 3\nbtime 1700000000\n", Some(12));
    assert_eq!(s.rss, Some(60000.0 * 1024.0));
    assert_eq!(s.rss_max, Some(71000.0 * 1024.0));
    assert_eq!(s.virtual_bytes, Some(250000.0 * 1024.0));
    assert_eq!(s.threads, Some(9.0));
    // utime 250 + stime 50 ticks at 100 a second.
    assert_eq!(s.cpu_seconds, Some(3.0));
    assert_eq!(s.start_time, Some(1_700_000_120.0));
    assert_eq!(s.open_fds, Some(12.0));
    // This process, on Linux (where the tests run).
    let now = Sample::read();
    assert!(now.rss.is_some_and(|b| b > 1e6), "{now:?}");
    assert!(now.threads.is_some_and(|t| t >= 1.0) && now.cpu_seconds.is_some() && now.start_time.is_some(), "{now:?}");
}
