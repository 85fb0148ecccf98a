//! Tier 3 inside episodes, with the fake server: the circuit breaker's transitions,
//! consults of different agents in flight at once, replays byte for byte, and nothing
//! changing without an LLM.

use gatecrew_crew::Setup;
use gatecrew_protocol::trace::EventKind;
use gatecrew_protocol::trace::FallbackReason::{BreakerOpen, Http};

use super::fake::{Fake, Reply, answer, answer_body};
use super::{WIDE_GRAY, adjudications, config_with, gatecrew, trace};
use crate::common::default_setup;
use crate::episode::{events, stepper_trace};

/// With a wide gray zone, twelve bots and verdicts entering one tick after their consult,
/// several consults come close together; the breaker opens after 2 failures and
/// half-opens 100 ticks later.
const BREAKER: &str = "[llm]\nfallback = \"stay_local\"\ntimeout_ms = 2000\nverdict_delay_ticks = 1\nbreaker = { failures = 2, half_open_ticks = 100 }\n";
const DELAY: u64 = 1;
const BOTS: &str = "12";

fn run(cfg: &str, url: &str, trace: &std::path::Path, stepper: bool) -> serde_json::Value {
    run_with(cfg, url, trace, stepper, &[])
}

fn run_with(cfg: &str, url: &str, trace: &std::path::Path, stepper: bool, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["run", "--config", cfg, "--json", "--llm-url", url, "--model", "m"];
    args.extend_from_slice(extra);
    args.push("--trace");
    args.push(trace.to_str().unwrap());
    if stepper {
        args.push("--stepper");
    }
    let (code, out, err) = gatecrew(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(out.trim()).unwrap()
}

fn replay(cfg: &str, recorded: &std::path::Path, out: &std::path::Path, stepper: bool, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["run", "--config", cfg, "--json", "--replay-adjudications", recorded.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(["--trace", out.to_str().unwrap()]);
    if stepper {
        args.push("--stepper");
    }
    let (code, _, err) = gatecrew(&args);
    assert_eq!(code, 0, "{err}");
    std::fs::read(out).unwrap()
}

#[test]
fn the_breaker_opens_after_n_failures_half_opens_after_m_ticks_and_closes_on_a_good_trial() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config_with(dir.path(), &format!("{WIDE_GRAY}{BREAKER}"));
    let cfg = cfg.to_str().unwrap();

    // A dead endpoint: open, refuse, trial fails, open again, ...
    let dead = Fake::start(|_, _| Reply::Full { status: 500, body: b"down".to_vec() });
    let t = dir.path().join("dead.jsonl");
    run_with(cfg, &dead.url, &t, true, &["--agents", BOTS]);
    let adj = adjudications(&trace(&t));
    let tags: Vec<_> = adj.iter().map(|(_, f, _)| f.unwrap()).collect();
    assert!(adj.len() >= 4, "{tags:?}");
    assert_eq!(&tags[..3], [Http(500), Http(500), BreakerOpen], "opens after 2 consecutive failures");
    // The breaker's state is a function of the verdicts: replay it here. A consult at
    // tick c (its verdict enters at c + DELAY) is refused while c < opened + 100.
    let mut opened: Option<u64> = None;
    let mut fails = 0;
    for (entered, tag, _) in &adj {
        let consulted = entered - DELAY;
        let refused = opened.is_some_and(|o| consulted < o + 100);
        assert_eq!(*tag == Some(BreakerOpen), refused, "at {consulted}: {tags:?}");
        if !refused {
            fails += 1;
            if fails >= 2 || opened.is_some() {
                opened = Some(*entered);
            }
        }
    }
    let calls = tags.iter().filter(|t| **t != BreakerOpen).count();
    assert_eq!(dead.hits(), calls, "no request while the breaker is open");

    // An endpoint that recovers: two failures, then good answers. The half-open trial
    // succeeds and closes the breaker: later consults reach the model again.
    let flaky =
        Fake::start(
            |n, _| if n < 2 { Reply::Full { status: 503, body: Vec::new() } } else { answer("stay_local", 0.9) },
        );
    let t = dir.path().join("flaky.jsonl");
    run_with(cfg, &flaky.url, &t, true, &["--agents", BOTS]);
    let tags: Vec<_> = adjudications(&trace(&t)).into_iter().map(|(_, f, _)| f).collect();
    assert_eq!(tags[..2], [Some(Http(503)), Some(Http(503))], "{tags:?}");
    // However many consults come while it is open, the half-open trial then succeeds.
    let refused = tags[2..].iter().take_while(|t| **t == Some(BreakerOpen)).count();
    assert!(refused >= 1, "opens after 2 consecutive failures: {tags:?}");
    assert!(tags.len() > 2 + refused, "a consult after the half-open time: {tags:?}");
    assert!(tags[2 + refused..].iter().all(Option::is_none), "closed after the good trial: {tags:?}");
    assert_eq!(flaky.hits(), tags.iter().filter(|t| **t != Some(BreakerOpen)).count());
}

#[test]
fn consults_of_different_agents_are_in_flight_at_once_and_the_episode_replays_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config_with(dir.path(), &format!("{WIDE_GRAY}[llm]\ntimeout_ms = 5000\n"));
    let cfg = cfg.to_str().unwrap();
    // Every answer takes 700 ms: two agents' consults overlap only if both are out.
    let slow = Fake::start(|n, _| Reply::Late {
        after: std::time::Duration::from_millis(700),
        body: answer_body(if n % 2 == 0 { "escalate" } else { "stay_local" }, 0.8),
    });
    let recorded = dir.path().join("live.jsonl");
    let summary = run(cfg, &slow.url, &recorded, false);
    let evs = trace(&recorded);
    let adj = adjudications(&evs);
    let agents: std::collections::BTreeSet<_> = evs
        .iter()
        .filter_map(|e| if let EventKind::Adjudication { agent, .. } = e.kind { Some(agent) } else { None })
        .collect();
    assert!(adj.len() >= 2 && agents.len() >= 2, "{adj:?}");
    assert_eq!(summary["adjudication"]["model_verdicts"], adj.len() as u64);
    // The fake counts the calls out at once: two means two agents' consults overlapped.
    // (A bound on the run's wall time would say the same less surely: under load the
    // whole run, process start included, can exceed two answers' time with a peak of 2.)
    assert!(slow.peak() >= 2, "the actor runtime had {} calls out at once", slow.peak());
    // Every issue is gated (a blocker met again is gated again under the same id), and
    // no gate event is about an issue never detected.
    let issues: std::collections::BTreeSet<_> = evs
        .iter()
        .filter_map(|e| if let EventKind::Issue { issue_id, .. } = e.kind { Some(issue_id) } else { None })
        .collect();
    let gated: std::collections::BTreeSet<_> = evs
        .iter()
        .filter_map(|e| if let EventKind::Gate { issue_id, .. } = e.kind { Some(issue_id) } else { None })
        .collect();
    assert_eq!(issues, gated);

    // No server: the recorded verdicts reproduce the trace, on both runtimes.
    drop(slow);
    let recorded_bytes = std::fs::read(&recorded).unwrap();
    let a = replay(cfg, &recorded, &dir.path().join("r1.jsonl"), true, &[]);
    assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(recorded_bytes.clone()).unwrap());
    let b = replay(cfg, &recorded, &dir.path().join("r2.jsonl"), false, &[]);
    assert_eq!(b, recorded_bytes);
}

#[test]
fn a_fault_ridden_episode_replays_byte_for_byte_and_a_foreign_trace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config_with(dir.path(), &format!("{WIDE_GRAY}{BREAKER}"));
    let cfg = cfg.to_str().unwrap();
    let mixed = Fake::start(|n, _| match n % 3 {
        0 => Reply::Full { status: 500, body: b"x".to_vec() },
        1 => answer("escalate", 0.3),
        _ => answer("stay_local", 0.95),
    });
    let recorded = dir.path().join("live.jsonl");
    run_with(cfg, &mixed.url, &recorded, false, &["--agents", BOTS]);
    drop(mixed);
    let bytes = std::fs::read(&recorded).unwrap();
    assert!(adjudications(&events(&bytes)).len() >= 3);
    assert_eq!(replay(cfg, &recorded, &dir.path().join("r.jsonl"), true, &["--agents", BOTS]), bytes);

    // Another seed is another episode: refused before it starts, naming the hashes.
    let (code, _, err) = gatecrew(&[
        "run",
        "--config",
        cfg,
        "--seed",
        "8",
        "--replay-adjudications",
        recorded.to_str().unwrap(),
        "--trace",
        dir.path().join("x.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("config hash") && err.contains("live.jsonl"), "{err}");
}

#[test]
fn without_an_llm_nothing_changes() {
    let setup: Setup = default_setup();
    assert!(!setup.consults() && setup.llm.is_none());
    let evs = events(&stepper_trace(&setup));
    assert!(adjudications(&evs).is_empty());
    assert!(
        evs.iter().any(|e| matches!(e.kind, EventKind::Gate { tier: gatecrew_protocol::trace::Tier::Adjudicator, .. }))
    );
}
