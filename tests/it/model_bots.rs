//! Bots a language model drives (`--bots model`): every decision point a real call to
//! the llama.cpp server with SmolLM2-135M (`scripts/llm-server.py`), recorded and
//! replayed with no server byte for byte; an in-process fake endpoint for the faults
//! (garbage, options not offered, 500s, hangs, a dead port) and for a model that
//! always proposes to ask. What a 135M model decides is not judged: only that the
//! machinery carries every decision through to verified outcomes.

use std::time::{Duration, Instant};

use gatecrew_protocol::trace::{Event, EventKind, Tier};

use crate::llm::fake::{Fake, Reply, completion};
use crate::llm::server::{live_turn, live_url};
use crate::llm::{MODEL, gatecrew, model_config, trace};

fn run(args: &[&str]) -> String {
    let (code, out, err) = gatecrew(args);
    assert_eq!(code, 0, "gatecrew {args:?}:\n{out}\n{err}");
    out
}

struct Call<'a> {
    t: u64,
    point: &'a str,
    issue_id: Option<u64>,
    attempt: u8,
    choice: Option<&'a str>,
    error: Option<&'a str>,
    fallback: bool,
    tokens: (u32, u32),
    latency_ms: u64,
}

fn calls(evs: &[Event]) -> Vec<Call<'_>> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::ModelCall {
                point,
                issue_id,
                attempt,
                choice,
                error,
                fallback,
                prompt_tokens,
                completion_tokens,
                latency_ms,
                ..
            } => Some(Call {
                t: e.t,
                point,
                issue_id: issue_id.map(|i| i.0),
                attempt: *attempt,
                choice: choice.as_deref(),
                error: error.as_deref(),
                fallback: *fallback,
                tokens: (*prompt_tokens, *completion_tokens),
                latency_ms: *latency_ms,
            }),
            _ => None,
        })
        .collect()
}

/// The `gate` event of an issue: its tier.
fn gate_tier(evs: &[Event], issue: u64) -> Option<Tier> {
    evs.iter().find_map(|e| match &e.kind {
        EventKind::Gate { issue_id, tier, .. } if issue_id.0 == issue => Some(*tier),
        _ => None,
    })
}

/// Every node left unfinished says why, and the episode says how it ended.
fn ends_with_reasons(evs: &[Event]) -> bool {
    let end = evs.iter().find_map(|e| match &e.kind {
        EventKind::EpisodeEnd { complete, .. } => Some(*complete),
        _ => None,
    });
    let unfinished: Vec<&String> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Unfinished { why, .. } => Some(why),
            _ => None,
        })
        .collect();
    match end {
        Some(true) => unfinished.is_empty(),
        Some(false) => !unfinished.is_empty() && unfinished.iter().all(|w| !w.is_empty()),
        None => false,
    }
}

#[test]
fn a_three_bot_house_of_model_decisions_ends_with_reasons_and_replays_byte_for_byte() {
    let url = live_url();
    let _turn = live_turn();
    let dir = tempfile::tempdir().unwrap();
    // 60 s a call: a decision on the shared, loaded test machine can take many seconds
    // (docs/benchmarks.md), and a slow answer is not what this test is about.
    let cfg = model_config(dir.path(), 60_000);
    let cfg = cfg.to_str().unwrap();
    let live = dir.path().join("live.jsonl");
    run(&[
        "run",
        "--config",
        cfg,
        "--llm-url",
        &url,
        "--model",
        MODEL,
        "--stepper",
        "--quiet",
        "--trace",
        live.to_str().unwrap(),
    ]);
    let bytes = std::fs::read(&live).unwrap();
    let evs = trace(&live);
    let cs = calls(&evs);
    assert!(!cs.is_empty(), "the crew made no model calls");
    for c in &cs {
        // The schema admits only the options: the real server answers in form.
        assert_eq!(c.error, None, "call at t={} ({}): {:?}", c.t, c.point, c.error);
        assert!(c.choice.is_some() && c.tokens.0 > 0 && c.tokens.1 > 0 && c.latency_ms > 0, "t={}", c.t);
    }
    // Proposal and gate decision apart: to stay local is the bot's own (tier policy),
    // a proposal to ask is decided by the gate's tiers.
    for c in cs.iter().filter(|c| c.point == "issue") {
        let tier = gate_tier(&evs, c.issue_id.unwrap()).expect("every issue has its gate event");
        match c.choice {
            Some("ask") => assert_ne!(tier, Tier::Policy, "the gate decided the ask at t={}", c.t),
            _ => assert_eq!(tier, Tier::Policy),
        }
    }
    assert!(ends_with_reasons(&evs), "the episode ends complete, or with a reason for each unfinished node");
    // No server: the recorded replies answer, and the trace is the same, byte for byte.
    let again = dir.path().join("replay.jsonl");
    let started = Instant::now();
    run(&[
        "run",
        "--config",
        cfg,
        "--replay-model",
        live.to_str().unwrap(),
        "--stepper",
        "--quiet",
        "--trace",
        again.to_str().unwrap(),
    ]);
    assert!(std::fs::read(&again).unwrap() == bytes, "the replay differs from the recording");
    assert!(started.elapsed() < Duration::from_secs(60));
}

/// A fake model: asks at every issue, refuses at every request, and gives garbage at
/// command points (so the scripted choice stands in there).
pub(crate) fn always_asks(_: usize, seen: &crate::llm::fake::Seen) -> Reply {
    let body = String::from_utf8_lossy(&seen.body);
    let content = if body.contains("You need") {
        r#"{"choice":"ask"}"#
    } else if body.contains("asks you for") {
        r#"{"choice":"cannot_supply"}"#
    } else {
        "place it somewhere"
    };
    Reply::Full { status: 200, body: completion(content) }
}

#[test]
fn a_proposal_to_ask_goes_through_the_gate_and_the_trace_keeps_both() {
    let fake = Fake::start(always_asks);
    let dir = tempfile::tempdir().unwrap();
    let cfg = model_config(dir.path(), 2_000);
    let t = dir.path().join("t.jsonl");
    for policy in ["gated", "no_gate"] {
        run(&[
            "run",
            "--config",
            cfg.to_str().unwrap(),
            "--llm-url",
            &fake.url,
            "--model",
            MODEL,
            "--stepper",
            "--quiet",
            "--policy",
            policy,
            "--trace",
            t.to_str().unwrap(),
        ]);
        let evs = trace(&t);
        let asks: Vec<u64> = calls(&evs)
            .iter()
            .filter(|c| c.point == "issue" && c.choice == Some("ask"))
            .map(|c| c.issue_id.unwrap())
            .collect();
        assert!(!asks.is_empty(), "{policy}: the default house has issues");
        for issue in asks {
            // The model_call comes first, then the gate's own event for that issue.
            let call_at = evs
                .iter()
                .position(|e| matches!(&e.kind, EventKind::ModelCall { issue_id: Some(i), .. } if i.0 == issue))
                .unwrap();
            let gate_at = evs
                .iter()
                .position(|e| matches!(&e.kind, EventKind::Gate { issue_id, .. } if issue_id.0 == issue))
                .unwrap();
            assert!(call_at < gate_at, "{policy}: proposal before decision");
            let tier = gate_tier(&evs, issue).unwrap();
            match policy {
                // Under no_gate every proposal goes through.
                "no_gate" => assert_eq!(tier, Tier::Policy),
                _ => assert_ne!(tier, Tier::Policy, "the gate's tiers decided"),
            }
        }
        // Garbage at command points: fed back once, then the scripted choice.
        let cs = calls(&evs);
        assert!(cs.iter().filter(|c| c.point == "command").all(|c| c.error == Some("malformed_reply")));
        assert!(cs.iter().filter(|c| c.point == "command" && c.attempt == 2).all(|c| c.fallback));
        assert!(ends_with_reasons(&evs));
    }
}

#[test]
fn a_faulty_or_dead_endpoint_makes_bots_fall_back_within_the_timeout() {
    let timeout = Duration::from_millis(300);
    // Each request gets the next fault in turn.
    let fake = Fake::start(|n, _| match n % 4 {
        0 => Reply::Full { status: 200, body: completion("sure, I will build") },
        1 => Reply::Full { status: 200, body: completion(r#"{"choice":"fly to the moon"}"#) },
        2 => Reply::Full { status: 500, body: b"internal error".to_vec() },
        _ => Reply::Hang,
    });
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = model_config(dir.path(), timeout.as_millis() as u64);
    let scripted = dir.path().join("scripted.jsonl");
    run(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--bots",
        "scripted",
        "--stepper",
        "--quiet",
        "--trace",
        scripted.to_str().unwrap(),
    ]);
    let scripted = trace(&scripted);
    let end = |evs: &[Event]| {
        evs.iter()
            .find_map(|e| match &e.kind {
                EventKind::EpisodeEnd { complete, correct_blocks, .. } => Some((*complete, *correct_blocks)),
                _ => None,
            })
            .unwrap()
    };
    for (name, url) in [("faulty", fake.url.as_str()), ("dead", dead.as_str())] {
        let t = dir.path().join(format!("{name}.jsonl"));
        let started = Instant::now();
        run(&[
            "run",
            "--config",
            cfg.to_str().unwrap(),
            "--llm-url",
            url,
            "--model",
            MODEL,
            "--stepper",
            "--quiet",
            "--trace",
            t.to_str().unwrap(),
        ]);
        let wall = started.elapsed();
        let evs = trace(&t);
        let cs = calls(&evs);
        assert!(!cs.is_empty(), "{name}");
        // Nothing usable came back: every decision fed back once, then fell back.
        assert!(cs.iter().all(|c| c.choice.is_none() && c.error.is_some()), "{name}");
        assert!(cs.iter().filter(|c| c.attempt == 2).all(|c| c.fallback), "{name}");
        assert!(
            cs.iter().all(|c| c.latency_ms <= timeout.as_millis() as u64 + 1_000),
            "{name}: a call outlived its timeout"
        );
        // The crew never waited longer than the calls' timeouts in all.
        assert!(wall < timeout * cs.len() as u32 + Duration::from_secs(30), "{name}: {wall:?} for {} calls", cs.len());
        // The scripted decisions stood in: the house ends as the scripted crew's does.
        assert_eq!(end(&evs), end(&scripted), "{name}");
        let errors: std::collections::BTreeSet<&str> = cs.iter().filter_map(|c| c.error).collect();
        match name {
            "dead" => assert_eq!(errors, ["connection_refused"].into()),
            _ => assert!(
                ["malformed_reply", "not_an_option", "http_500", "timeout"].iter().all(|e| errors.contains(e)),
                "{errors:?}"
            ),
        }
    }
}
