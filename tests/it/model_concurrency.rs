//! How many calls of a model-driven crew are in flight at one endpoint: never more than
//! `--llm-concurrency N` (by default the slots the server reports), and, with N > 1 and
//! several bots, more than one at a time, so that the bound is not met by serialising.
//! A real server cannot report its queue on demand; an in-process endpoint holds each
//! request a while and records the most it had open at once.

use std::time::Duration;

use gatecrew_protocol::trace::{Event, EventKind};

use crate::llm::fake::{Fake, Reply, Seen, completion};
use crate::llm::{MODEL, gatecrew, model_config, trace};

/// Long enough that calls made in the same round of the crew's steps meet at the
/// endpoint (the round's bots start their calls within microseconds of each other),
/// short enough that an episode of the house takes seconds.
const HOLD: Duration = Duration::from_millis(150);

/// A model that answers after [`HOLD`]: asks at issues, refuses requests, and picks the
/// first cell offered; a server with `slots` slots to `GET /props`.
fn held(slots: Option<u64>) -> impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static {
    move |_, seen| {
        if seen.head.starts_with("GET /props") {
            return match slots {
                Some(n) => {
                    Reply::Full { status: 200, body: serde_json::json!({ "total_slots": n }).to_string().into() }
                }
                None => Reply::Full { status: 404, body: b"not found".to_vec() },
            };
        }
        if seen.head.starts_with("GET ") {
            return Reply::Full { status: 404, body: b"not found".to_vec() };
        }
        let body = String::from_utf8_lossy(&seen.body);
        let content = if body.contains("You need") {
            r#"{"choice":"ask"}"#.to_owned()
        } else if body.contains("asks you for") {
            r#"{"choice":"cannot_supply"}"#.to_owned()
        } else {
            // The first option the schema offers.
            let req: serde_json::Value = serde_json::from_slice(&seen.body).unwrap_or_default();
            let first = req.pointer("/response_format/json_schema/schema/properties/choice/enum/0").cloned();
            serde_json::json!({ "choice": first.unwrap_or_default() }).to_string()
        };
        Reply::Late { after: HOLD, body: completion(&content) }
    }
}

/// Runs the default house with three model-driven bots that start with nothing against
/// `url`; `extra` are more flags. The trace's model calls. Bots that start with nothing
/// all meet an issue at tick 0, so their calls come in one round: with the default
/// inventories the bots' decision points fall on different ticks and no two calls
/// would meet whatever the bound.
fn run(url: &str, extra: &[&str], dir: &std::path::Path) -> Vec<Event> {
    let cfg = model_config(dir, 10_000);
    let text = std::fs::read_to_string(&cfg).unwrap();
    let empty: Vec<String> = text
        .lines()
        .map(|l| if l.starts_with("inventory = ") { "inventory = {}".to_owned() } else { l.to_owned() })
        .collect();
    assert_eq!(empty.iter().filter(|l| *l == "inventory = {}").count(), 3, "the default crew has three bots");
    std::fs::write(&cfg, empty.join("\n")).unwrap();
    let t = dir.join("t.jsonl");
    let mut args = vec![
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--llm-url",
        url,
        "--model",
        MODEL,
        "--quiet",
        "--trace",
        t.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = gatecrew(&args);
    assert_eq!(code, 0, "{args:?}:\n{out}\n{err}");
    trace(&t).into_iter().filter(|e| matches!(e.kind, EventKind::ModelCall { .. })).collect()
}

/// Every call was answered: none timed out queueing, so the peak is of real calls.
fn all_answered(calls: &[Event]) -> bool {
    calls.iter().all(|e| matches!(&e.kind, EventKind::ModelCall { error: None, .. }))
}

#[test]
fn calls_in_flight_never_exceed_llm_concurrency_and_do_overlap_under_it() {
    let dir = tempfile::tempdir().unwrap();
    // Unbounded in effect (more than the bots): all three bots' calls meet, which is
    // what a bound of 2 must cut.
    let wide = Fake::start(held(None));
    let calls = run(&wide.url, &["--stepper", "--llm-concurrency", "8"], dir.path());
    assert!(all_answered(&calls) && calls.len() >= 3, "{} calls", calls.len());
    assert_eq!(wide.peak(), 3, "three bots, eight allowed: all three at once");
    for n in [1usize, 2] {
        let fake = Fake::start(held(None));
        let calls = run(&fake.url, &["--stepper", "--llm-concurrency", &n.to_string()], dir.path());
        assert!(all_answered(&calls), "N={n}");
        assert_eq!(fake.peak(), n, "--llm-concurrency {n}: the most in flight at once");
    }
    // The actor runtime steps a crew this small on one thread (actors/src/runtime.rs), and
    // a bot's step waits for its call there: its calls never meet. Only the bound holds.
    let fake = Fake::start(held(None));
    let calls = run(&fake.url, &["--llm-concurrency", "2"], dir.path());
    assert!(all_answered(&calls) && calls.len() >= 3, "actors: {} calls", calls.len());
    assert!(fake.peak() <= 2, "actors --llm-concurrency 2: {} at once", fake.peak());
}

#[test]
fn by_default_calls_in_flight_are_the_servers_slots_and_one_for_a_server_that_says_none() {
    let dir = tempfile::tempdir().unwrap();
    for (slots, expect) in [(Some(2), 2usize), (None, 1)] {
        let fake = Fake::start(held(slots));
        let calls = run(&fake.url, &["--stepper"], dir.path());
        assert!(all_answered(&calls) && calls.len() >= 3, "slots {slots:?}: {} calls", calls.len());
        assert_eq!(fake.peak(), expect, "a server with slots {slots:?}");
    }
}
