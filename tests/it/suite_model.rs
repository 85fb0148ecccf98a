//! `suite run --bots model`: a split's episodes with model-driven bots, live or replayed
//! from the traces of an earlier run, and `analyze`'s table of their calls per policy.
//! An in-process fake endpoint drives the counts; one short live test runs an episode
//! against the real llama.cpp server with SmolLM2-135M.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gatecrew_protocol::trace::EventKind;

use crate::llm::fake::Fake;
use crate::llm::server::{live_turn, live_url};
use crate::llm::{MODEL, gatecrew, trace};

/// Calls, invalid replies, fallbacks, prompt and completion tokens.
type Counts = [u64; 5];

/// What the traces of `dir/<policy>/` hold of model calls, per policy; and every
/// trace's bytes by its path under `dir`.
fn tally(dir: &Path) -> (BTreeMap<String, Counts>, BTreeMap<PathBuf, Vec<u8>>) {
    let (mut counts, mut bytes) = (BTreeMap::new(), BTreeMap::new());
    for p in std::fs::read_dir(dir).unwrap() {
        let p = p.unwrap().path();
        let policy = p.file_name().unwrap().to_string_lossy().into_owned();
        for f in std::fs::read_dir(&p).unwrap() {
            let f = f.unwrap().path();
            bytes.insert(f.strip_prefix(dir).unwrap().to_owned(), std::fs::read(&f).unwrap());
            let c: &mut Counts = counts.entry(policy.clone()).or_default();
            for e in trace(&f) {
                if let EventKind::ModelCall { error, fallback, prompt_tokens, completion_tokens, .. } = e.kind {
                    c[0] += 1;
                    c[1] += u64::from(error.is_some());
                    c[2] += u64::from(fallback);
                    c[3] += u64::from(prompt_tokens);
                    c[4] += u64::from(completion_tokens);
                }
            }
        }
    }
    (counts, bytes)
}

/// `analyze --json`'s model counts of each policy's `all` group.
fn analysed(dir: &Path) -> BTreeMap<String, Counts> {
    let out = ok(&["analyze", dir.to_str().unwrap(), "--json", "--ci", "none", "--by", "policy"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut m = BTreeMap::new();
    for g in v["report"]["groups"].as_array().unwrap().iter().filter(|g| g["key"] == "all") {
        let u = &g["model"];
        let n = |k: &str| u[k].as_u64().unwrap();
        m.insert(
            g["policy"].as_str().unwrap().to_owned(),
            [n("calls"), n("invalid"), n("fallbacks"), n("prompt_tokens"), n("completion_tokens")],
        );
    }
    m
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = gatecrew(args);
    assert_eq!(code, 0, "gatecrew {args:?}:\n{out}\n{err}");
    out
}

fn suite_args<'a>(split_filter: &'a str, policies: &'a str, out: &'a str) -> Vec<&'a str> {
    vec!["suite", "run", "--split", "test", "--filter", split_filter, "--policy", policies, "--out", out]
}

#[test]
fn a_split_of_model_bots_is_counted_per_policy_and_replays_from_its_traces() {
    let fake = Fake::start(crate::model_bots::always_asks);
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let again = dir.path().join("again");
    let (live_s, again_s) = (live.to_str().unwrap(), again.to_str().unwrap());
    // Five pyramid episodes (classes A-D, two and three bots) under two policies.
    let mut args = suite_args("04-pyramid-5", "gated,no_gate", live_s);
    args.extend(["--bots", "model", "--llm-url", &fake.url, "--model", MODEL, "--jobs", "2"]);
    let out = ok(&args);
    assert!(out.contains("ran 10 episodes"), "{out}");
    let (counts, bytes) = tally(&live);
    assert_eq!(counts.keys().collect::<Vec<_>>(), ["gated", "no_gate"]);
    for (policy, c) in &counts {
        assert!(c[0] > 0, "{policy}: the bots asked their model");
        // Each fallback follows two unusable replies (the garbage at command points).
        assert!(c[1] >= 2 * c[2], "{policy}: {c:?}");
        // Every reply of the fake is a 200 whose usage says 100 prompt tokens.
        assert_eq!((c[3], c[4]), (100 * c[0], 14 * c[0]), "{policy}");
    }
    assert_eq!(analysed(&live), counts, "analyze counts what the traces hold");
    let table = ok(&["analyze", live_s, "--ci", "none", "--by", "policy"]);
    assert!(table.contains("model-driven bots") && table.contains("invalid replies"), "{table}");
    // No server: the recordings answer, trace for trace the same bytes.
    drop(fake);
    let mut args = suite_args("04-pyramid-5", "gated,no_gate", again_s);
    args.extend(["--replay-model", live_s]);
    ok(&args);
    assert!(tally(&again).1 == bytes, "a replayed trace differs from its recording");
    // A policy that was never recorded has nothing to replay.
    let mut args = suite_args("04-pyramid-5-A-s0", "rule_only", again_s);
    args.extend(["--replay-model", live_s]);
    let (code, _, err) = gatecrew(&args);
    assert_ne!(code, 0);
    assert!(err.contains("no recording") && err.contains("rule_only"), "{err}");
    // Scripted bots take no endpoint here.
    let (code, _, err) = gatecrew(&["suite", "run", "--llm-url", "http://127.0.0.1:9/v1", "--model", MODEL]);
    assert_ne!(code, 0);
    assert!(err.contains("--bots model"), "{err}");
}

#[test]
fn a_live_suite_episode_of_model_bots_replays_byte_for_byte() {
    let url = live_url();
    let _turn = live_turn();
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let again = dir.path().join("again");
    // The smallest test episode of the pyramid: three decisions by the scripted run.
    let one = "04-pyramid-5-A-s0";
    let mut args = suite_args(one, "gated", live.to_str().unwrap());
    // 60 s a call: a decision on the shared, loaded test machine can take many seconds
    // (docs/benchmarks.md), and a slow answer is not what this test is about.
    args.extend(["--bots", "model", "--llm-url", &url, "--model", MODEL, "--llm-timeout-ms", "60000"]);
    ok(&args);
    let (counts, bytes) = tally(&live);
    let c = counts["gated"];
    assert!(c[0] > 0, "the crew made no model calls");
    // The schema admits only the options: the real server answers in form, and its
    // usage counts every prompt.
    assert_eq!((c[1], c[2]), (0, 0), "invalid replies or fallbacks: {c:?}");
    assert!(c[3] >= 100 * c[0] && c[4] > 0, "{c:?}");
    assert_eq!(analysed(&live), counts);
    let mut args = suite_args(one, "gated", again.to_str().unwrap());
    args.extend(["--replay-model", live.to_str().unwrap()]);
    ok(&args);
    assert!(tally(&again).1 == bytes, "the replay differs from the recording");
}
