//! The faults the real server will not produce on demand, from the in-process fake
//! ([`crate::llm::fake`]): a hang past the timeout, a body that is not a completion, a
//! completion with no command in it. Each is a counted, labelled fallback; nothing
//! panics; the episode completes; the run takes about the timeouts, never a hang.

use std::time::{Duration, Instant};

use crate::cli::gatecrew;
use crate::llm::fake::{Fake, Reply, completion};

#[test]
fn a_hang_a_garbage_body_and_prose_are_counted_fallbacks() {
    let fake = Fake::start(|i, _| match i {
        0 => Reply::Hang,
        1 => Reply::Full { status: 200, body: b"<html>not a completion</html>".to_vec() },
        2 => Reply::Full { status: 200, body: completion("Let us cook something nice.") },
        3 => Reply::Full { status: 500, body: b"{}".to_vec() },
        _ => Reply::Full { status: 200, body: completion("-action:\ngoto_agent0_storage0\nteleport_agent1\n") },
    });
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let started = Instant::now();
    let (code, out, err) = gatecrew(&[
        "cos",
        "--levels",
        "level_0",
        "--policy",
        "dispatcher",
        "--agents",
        "2",
        "--factors",
        "1.0",
        "--horizon",
        "6",
        "--llm-url",
        &fake.url,
        "--model",
        "fake",
        "--llm-timeout-ms",
        "300",
        "--trace",
        d,
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(started.elapsed() < Duration::from_secs(20), "bounded by the timeout");
    assert_eq!(fake.hits(), 6);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = &v["rows"][0];
    assert_eq!(row["episodes"][0]["steps"], 6);
    assert_eq!(row["calls"], 6);
    assert_eq!(row["fallbacks"], 4, "hang, garbage, prose, 500");
    assert_eq!(row["invalid_commands"], 2, "teleport_agent1 in each of the last two replies");
    let trace = std::fs::read_to_string(dir.path().join("level_0-dispatcher-a2-x1-file-live-s0.jsonl")).unwrap();
    for tag in ["timeout", "malformed_json", "no_commands", "http_500"] {
        assert!(trace.contains(&format!(r#""fallback":"{tag}""#)), "{tag} in the trace");
    }
    assert!(err.contains("4 fallbacks"), "progress names the fallbacks: {err}");
    let (code, _, err) = gatecrew(&["analyze", d]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn the_live_flags_refuse_what_does_not_combine() {
    let cases: [&[&str]; 4] = [
        &["cos", "--policy", "gated", "--llm-url", "http://127.0.0.1:9/v1", "--model", "m"],
        &["cos", "--policy", "dispatcher", "--llm-url", "http://127.0.0.1:9/v1"],
        &["cos", "--policy", "dispatcher", "--llm-url", "http://127.0.0.1:9/v1", "--model", "m", "--executor", "llm"],
        &["cos", "--policy", "dispatcher", "--llm-url", "http://127.0.0.1:9/v1", "--model", "m", "--runtime", "actors"],
    ];
    for args in cases {
        let (code, _, err) = gatecrew(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("--llm-url"), "{err}");
    }
    let (code, _, err) = gatecrew(&["cos", "--factors", "1.0"]);
    assert_eq!(code, 2, "--factors needs --llm-url: {err}");
}
