//! `--metrics`: a scrape of `/metrics` while a suite runs parses as Prometheus text
//! (checked with the Prometheus project's own Python parser and `promtool check
//! metrics`), follows the naming rules, and at the end its trace-derived counters equal
//! the traces' totals.

mod families;
mod prometheus;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gatecrew_protocol::trace::{Decision, EventKind, Tier, TraceReader, WindowEvent};

use crate::common::{python_checks, root};

/// Forwards what the command writes to its error stream (where it says its address).
struct Tx(mpsc::Sender<Vec<u8>>);

impl Write for Tx {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let _ = self.0.send(b.to_vec());
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn scrape(addr: SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"), "{head}");
    body.to_owned()
}

/// `name{labels}` with the labels sorted (the exposition's order is its own).
fn normal(name: &str, mut labels: Vec<String>) -> String {
    labels.sort();
    if labels.is_empty() { name.to_owned() } else { format!("{name}{{{}}}", labels.join(",")) }
}

/// Sample key -> value.
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l.rsplit_once(' ').unwrap();
            let key = match k.split_once('{') {
                Some((name, rest)) => {
                    let labels = rest.trim_end_matches('}').split(',').filter(|x| !x.is_empty());
                    normal(name, labels.map(str::to_owned).collect())
                }
                None => k.to_owned(),
            };
            (key, v.parse::<f64>().unwrap())
        })
        .collect()
}

fn value(s: &BTreeMap<String, f64>, name: &str, labels: &[(&str, &str)]) -> f64 {
    let key = normal(name, labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect());
    s.get(&key).copied().unwrap_or(0.0)
}

const PARSE: &str = r#"
import sys
from prometheus_client.parser import text_string_to_metric_families
n = 0
for path in sys.argv[1:]:
    for fam in text_string_to_metric_families(open(path).read()):
        n += len(fam.samples)
print(n)
"#;

/// Parses the scrapes with `prometheus_client` (the tests' Python venv).
fn strict_parse(scrapes: &[&Path]) {
    let out = Command::new(python_checks()).arg("-c").arg(PARSE).args(scrapes).output().unwrap();
    assert!(out.status.success(), "not Prometheus text: {}", String::from_utf8_lossy(&out.stderr));
    let n: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!(n > 10, "{n} samples");
}

#[derive(Default)]
struct Totals {
    kinds: BTreeMap<&'static str, u64>,
    board: BTreeMap<String, u64>,
    gates: BTreeMap<(&'static str, &'static str), u64>,
    closes: BTreeMap<String, u64>,
    prompt: u64,
    completion: u64,
    correct: u64,
    missing: u64,
    ends: BTreeMap<String, u64>,
}

fn totals(dir: &Path) -> Totals {
    let mut t = Totals::default();
    let mut files = Vec::new();
    for p in std::fs::read_dir(dir).unwrap() {
        let p = p.unwrap().path();
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        }
    }
    assert!(!files.is_empty());
    for f in files {
        for ev in TraceReader::new(std::io::BufReader::new(std::fs::File::open(&f).unwrap())) {
            let ev = ev.unwrap();
            *t.kinds.entry(ev.kind.name()).or_default() += 1;
            match &ev.kind {
                EventKind::Board { msg, .. } => *t.board.entry(msg.as_str().to_owned()).or_default() += 1,
                EventKind::Gate { tier, decision, .. } => {
                    let tier = match tier {
                        Tier::Rules => "1",
                        Tier::Score => "2",
                        Tier::Adjudicator => "3",
                        Tier::Policy => "policy",
                    };
                    let d = if *decision == Decision::Escalate { "escalate" } else { "stay_local" };
                    *t.gates.entry((tier, d)).or_default() += 1;
                }
                EventKind::Window { event: WindowEvent::Close, outcome, .. } => {
                    *t.closes.entry(outcome.map(|o| o.as_str().to_owned()).unwrap_or_default()).or_default() += 1;
                }
                EventKind::Adjudication { prompt_tokens, completion_tokens, .. } => {
                    t.prompt += u64::from(*prompt_tokens);
                    t.completion += u64::from(*completion_tokens);
                }
                EventKind::EpisodeEnd { correct_blocks, blueprint_blocks, reason, .. } => {
                    *t.ends.entry(reason.as_str().to_owned()).or_default() += 1;
                    t.correct += u64::from(*correct_blocks);
                    t.missing += u64::from(blueprint_blocks - correct_blocks);
                }
                _ => {}
            }
        }
    }
    t
}

#[test]
fn a_scrape_during_a_suite_run_parses_and_its_counters_equal_the_trace_totals() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let suite = root().join("configs/suite");
    let args: Vec<String> = [
        "gatecrew",
        "suite",
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--split",
        "test",
        "--policy",
        "gated,no_gate",
        "--jobs",
        "1",
        "--out",
        runs.to_str().unwrap(),
        "--metrics",
        "127.0.0.1:0",
    ]
    .map(String::from)
    .to_vec();
    let (tx, rx) = mpsc::channel();
    let run = std::thread::spawn(move || {
        let mut out = Vec::new();
        let code = gatecrew_cli::main_with(args, &mut out, &mut Tx(tx));
        (code, String::from_utf8(out).unwrap())
    });
    // The address comes first on the error stream.
    let mut said = String::new();
    let addr: SocketAddr = loop {
        said.push_str(&String::from_utf8(rx.recv_timeout(Duration::from_secs(60)).unwrap()).unwrap());
        if let Some(rest) = said.split("metrics: http://").nth(1) {
            if let Some((a, _)) = rest.split_once("/metrics") {
                break a.parse().unwrap();
            }
        }
    };
    let mut during = Vec::new();
    let started = Instant::now();
    while !run.is_finished() && started.elapsed() < Duration::from_secs(300) {
        during.push(scrape(addr));
        std::thread::sleep(Duration::from_millis(50));
    }
    let (code, out) = run.join().unwrap();
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{out}");
    assert!(!during.is_empty(), "at least one scrape while the suite ran");
    let end = scrape(addr);

    let mid = dir.path().join("mid.prom");
    let last = dir.path().join("end.prom");
    std::fs::write(&mid, &during[during.len() / 2]).unwrap();
    std::fs::write(&last, &end).unwrap();
    strict_parse(&[&mid, &last]);
    prometheus::promtool_check(&mid);
    prometheus::promtool_check(&last);

    // Naming: the prefix, `_total` on counters, histograms not summaries, HELP for each.
    for line in end.lines().filter(|l| l.starts_with("# TYPE ")) {
        let mut parts = line.split_whitespace().skip(2);
        let (name, kind) = (parts.next().unwrap(), parts.next().unwrap());
        assert!(name.starts_with("gatecrew_") || name.starts_with("process_"), "{line}");
        if kind == "counter" {
            assert!(name.ends_with("_total"), "{line}");
        }
        assert_ne!(kind, "summary", "histograms can be summed across runs, summaries cannot: {line}");
        assert!(!name.ends_with("_ms"), "base units: {line}");
        assert!(end.lines().any(|l| l.starts_with(&format!("# HELP {name} "))), "no HELP: {line}");
    }
    assert!(value(&samples(&end), "process_resident_memory_bytes", &[]) > 1e6, "the process gauges are served");
    let s = samples(&end);
    for key in s.keys() {
        for bad in ["agent=", "window=", "issue_id=", "item=", "pos=", "x=", "episode=", "ep="] {
            assert!(!key.contains(&format!("{{{bad}")) && !key.contains(&format!(",{bad}")), "{key}");
        }
    }
    assert_eq!(value(&s, "gatecrew_build_info", &[("version", env!("CARGO_PKG_VERSION"))]), 1.0);

    // Every counter derived from the trace equals the traces' totals.
    let t = totals(&runs);
    assert!(t.kinds.get("board").copied().unwrap_or(0) > 0, "the suite used the board");
    for (kind, n) in &t.kinds {
        assert_eq!(value(&s, "gatecrew_trace_events_total", &[("kind", kind)]), *n as f64, "{kind}");
    }
    for (msg, n) in &t.board {
        assert_eq!(value(&s, "gatecrew_board_messages_total", &[("kind", msg)]), *n as f64, "{msg}");
    }
    for ((tier, d), n) in &t.gates {
        assert_eq!(value(&s, "gatecrew_gate_decisions_total", &[("decision", d), ("tier", tier)]), *n as f64);
    }
    for (outcome, n) in &t.closes {
        assert_eq!(value(&s, "gatecrew_transfers_total", &[("outcome", outcome)]), *n as f64, "{outcome}");
    }
    assert_eq!(value(&s, "gatecrew_llm_tokens_total", &[("type", "prompt")]), t.prompt as f64);
    assert_eq!(value(&s, "gatecrew_llm_tokens_total", &[("type", "completion")]), t.completion as f64);
    assert_eq!(value(&s, "gatecrew_episode_blocks_total", &[("state", "correct")]), t.correct as f64);
    assert_eq!(value(&s, "gatecrew_episode_blocks_total", &[("state", "missing")]), t.missing as f64);
    let confirmed = t.closes.get("confirmed").copied().unwrap_or(0);
    assert!(confirmed > 0);
    assert_eq!(value(&s, "gatecrew_request_to_confirm_ticks_count", &[]), confirmed as f64);
    // Episodes as the traces recorded their ends, and their lengths in ticks.
    let ended: u64 = t.ends.values().sum();
    assert!(ended > 0);
    for (reason, n) in &t.ends {
        assert_eq!(value(&s, "gatecrew_episodes_total", &[("reason", reason)]), *n as f64, "{reason}");
    }
    assert_eq!(value(&s, "gatecrew_episode_ticks_count", &[]), ended as f64);
    assert!(s.keys().any(|k| k.starts_with("gatecrew_episode_ticks_bucket{")), "episode lengths are a histogram");
    // After the suite, no episode is running: the blueprint gauges are back to zero.
    assert_eq!(value(&s, "gatecrew_blueprint_blocks", &[("state", "placed")]), 0.0);
}
