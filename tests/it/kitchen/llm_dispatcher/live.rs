//! `gatecrew cos --llm-url` against the real local llama.cpp server (SmolLM2-135M,
//! started once per test binary by `scripts/llm-server.py` through
//! [`crate::llm::server`]): the dispatcher's decisions come from the model. A live
//! model is not held to same-run determinism; what is held: calls were made and
//! counted, the server's usage was read, every reply was either parsed or counted as
//! invalid or a fallback, the episode ran to its end, and the trace reads back.

use crate::cli::gatecrew;
use crate::llm::MODEL;
use crate::llm::server::{live_turn, live_url};

#[test]
fn a_short_cos_run_of_level_0_with_the_local_model_as_dispatcher() {
    let url = live_url();
    let _turn = live_turn();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let horizon = 8;
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
        "8",
        "--llm-url",
        &url,
        "--model",
        MODEL,
        "--llm-timeout-ms",
        "60000",
        "--trace",
        d,
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    eprintln!("{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = &v["rows"][0];
    let e = &row["episodes"][0];
    assert_eq!(e["steps"], horizon, "the episode ran to its end");
    assert_eq!(row["calls"], horizon, "one call a step");
    let calls = row["calls"].as_u64().unwrap();
    let fallbacks = row["fallbacks"].as_u64().unwrap_or(0);
    assert!(row["prompt_tokens"].as_u64().unwrap() > 0, "usage was read: {row}");
    assert!(
        fallbacks < calls,
        "some replies came back and parsed (a server of 512 context tokens a slot answers 400 to this ~1,000-token prompt; the helper starts one of 2,048): {err}"
    );
    // Every call in the trace is either a parsed reply or a labelled fallback.
    let trace = std::fs::read_to_string(dir.path().join("level_0-dispatcher-a2-x1-file-live-s0.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = trace.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let llm: Vec<&serde_json::Value> = lines.iter().filter(|l| l["kind"] == "llm_call").collect();
    assert_eq!(llm.len() as u64, calls);
    let labelled = llm.iter().filter(|l| l.get("fallback").is_some()).count() as u64;
    assert_eq!(labelled, fallbacks);
    assert_eq!(lines[0]["live_model"], MODEL);
    let (code, out, err) = gatecrew(&["analyze", d, "--json"]);
    assert_eq!(code, 0, "{err}");
    let an: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(an["kitchen"]["report"]["rows"][0]["cos_pending_excluded"], row["cos_pending_excluded"]);
}
