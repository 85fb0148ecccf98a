//! Kitchen traces (`gatecrew cos --trace DIR`): the same run writes the same bytes,
//! tracing changes no figure, `gatecrew analyze` reads them back to the CoS `gatecrew
//! cos` printed, a folder mixing construction and kitchen traces reports both, and a
//! damaged kitchen trace is refused naming its file, line and fault.

use std::collections::BTreeMap;

use gatecrew_kitchen::trace::{KitchenReader, TraceDir};
use gatecrew_kitchen::{PolicyKind, RunSpec, TimingMode, cos_table, cos_table_traced};

use super::common::cuisine;
use super::common::files;
use crate::cli::gatecrew;

#[test]
fn the_same_run_writes_the_same_bytes_and_tracing_changes_no_figure() {
    let c = cuisine();
    let levels = ["level_0".to_owned(), "level_4".to_owned()];
    let policies = PolicyKind::ALL;
    let spec = RunSpec { timing: TimingMode::Oracle, ..RunSpec::new(0, 3) };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rows_a =
        cos_table_traced(&c, Some(&levels), &policies, &[2, 3], &spec, &TraceDir::create(a.path()).unwrap()).unwrap();
    let rows_b =
        cos_table_traced(&c, Some(&levels), &policies, &[2, 3], &spec, &TraceDir::create(b.path()).unwrap()).unwrap();
    let (fa, fb) = (files(a.path()), files(b.path()));
    assert_eq!(fa.len(), 2 * 3 * 2 * 5, "one file per level, policy, crew and factor");
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (name, bytes) in &fa {
        assert!(bytes == &fb[name], "{name} differs between two runs of the same seed");
    }
    assert!(fa.contains_key("level_4-gated-a3-x2.5-oracle-scripted-s3.jsonl"), "{:?}", fa.keys());
    // Recording only reads the episode.
    assert_eq!(rows_a, cos_table(&c, Some(&levels), &policies, &[2, 3], &spec).unwrap());
    assert_eq!(rows_a, rows_b);
    // Another seed draws other orders, so other bytes.
    let d = tempfile::tempdir().unwrap();
    let other = RunSpec { seed: 4, ..spec };
    cos_table_traced(&c, Some(&levels), &policies, &[2], &other, &TraceDir::create(d.path()).unwrap()).unwrap();
    let fd = files(d.path());
    let a0 = &fa["level_4-gated-a2-x1-oracle-scripted-s3.jsonl"];
    assert!(fd["level_4-gated-a2-x1-oracle-scripted-s4.jsonl"] != *a0);
}

#[test]
fn every_line_reads_back_and_holds_what_the_brief_lists() {
    let c = cuisine();
    let levels = ["level_3".to_owned()];
    let dir = tempfile::tempdir().unwrap();
    let spec = RunSpec { executor: gatecrew_kitchen::Executor::llm_builtin(1.0).unwrap(), ..RunSpec::new(0, 0) };
    cos_table_traced(&c, Some(&levels), &PolicyKind::ALL, &[2], &spec, &TraceDir::create(dir.path()).unwrap()).unwrap();
    for (name, bytes) in files(dir.path()) {
        let mut kinds = BTreeMap::<&'static str, usize>::new();
        let mut last_line = 0;
        for item in KitchenReader::new(bytes.as_slice()) {
            let (line, rec) = item.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(rec.v, 1);
            assert_eq!(format!("{}.jsonl", rec.ep), name);
            *kinds.entry(rec.event.kind()).or_default() += 1;
            last_line = line;
        }
        assert_eq!(kinds["kitchen_start"], 1, "{name}");
        assert_eq!(kinds["kitchen_end"], 1, "{name}");
        assert_eq!(kinds["action"], 2 * 60, "{name}: one per agent per step");
        assert!(kinds["order_arrived"] > 0 && kinds["llm_call"] > 0 && kinds["message"] > 0, "{name}: {kinds:?}");
        assert_eq!(last_line, bytes.iter().filter(|&&b| b == b'\n').count() as u64);
        let text = String::from_utf8(bytes).unwrap();
        if name.contains("-gated-") {
            assert!(text.contains(r#""channel":"board","msg":"REQUEST_MATERIAL""#), "{name}");
        }
        if name.contains("-dispatcher-") {
            assert!(text.contains(r#""from":"dispatcher","to":1,"channel":"dispatch""#), "{name}");
            assert!(text.contains(r#""caller":"dispatcher""#), "{name}");
        }
    }
}

/// Runs `gatecrew cos ARGS --trace DIR --json` and `gatecrew analyze DIR --json`, and
/// checks that analyze's CoS rows are cos's, to the bit, and its means within rounding.
fn analyze_matches_cos(args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut cmd = vec!["cos"];
    cmd.extend_from_slice(args);
    cmd.extend_from_slice(&["--trace", d, "--json"]);
    let (code, out, err) = gatecrew(&cmd);
    assert_eq!(code, 0, "{err}");
    let cos: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (code, out, err) = gatecrew(&["analyze", d, "--json"]);
    assert_eq!(code, 0, "{err}");
    let an: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(an.get("report").is_none(), "no construction section without construction traces");
    let k = &an["kitchen"]["report"];
    let rows = k["rows"].as_array().unwrap();
    assert_eq!(rows.len(), cos["rows"].as_array().unwrap().len());
    for r in cos["rows"].as_array().unwrap() {
        let (level, policy, agents) = (&r["level"], &r["policy"], &r["spec"]["agents"]);
        let a = rows
            .iter()
            .find(|x| &x["level"] == level && &x["policy"] == policy && &x["agents"] == agents)
            .unwrap_or_else(|| panic!("no analyze row for {level} {policy} {agents}"));
        for key in ["cos_pending_excluded", "cos_pending_failed"] {
            assert_eq!(a[key].as_f64().unwrap(), r[key].as_f64().unwrap(), "{level} {policy} {agents} {key}");
        }
        let eps = r["episodes"].as_array().unwrap();
        for (f, e) in a["factors"].as_array().unwrap().iter().zip(eps) {
            assert_eq!(f["factor"], e["factor"]);
            for key in ["completed", "failed", "pending"] {
                assert_eq!(f[key], e[key], "{level} {policy} {agents} x{} {key}", e["factor"]);
            }
        }
        let messages = r["messages"].as_f64().unwrap() / eps.len() as f64;
        assert_eq!(a["messages_per_episode"].as_f64().unwrap(), messages);
        let calls = r["calls"].as_f64().unwrap();
        assert_eq!(a["llm_calls_per_episode"].as_f64().unwrap(), calls / eps.len() as f64);
        if calls > 0.0 {
            let prompt = r["prompt_tokens"].as_f64().unwrap() / calls;
            assert_eq!(a["prompt_tokens_per_call"].as_f64().unwrap(), prompt);
        }
    }
    let means = k["means"].as_array().unwrap();
    assert_eq!(means.len(), cos["means"].as_array().unwrap().len());
    for m in cos["means"].as_array().unwrap() {
        let a = means.iter().find(|x| x["policy"] == m["policy"] && x["agents"] == m["agents"]).unwrap();
        let keys = [
            ("cos_pending_excluded", "cos_pending_excluded"),
            ("cos_pending_failed", "cos_pending_failed"),
            ("messages_per_episode", "messages_per_episode"),
            ("llm_calls_per_episode", "calls_per_episode"),
            ("prompt_tokens_per_call", "prompt_tokens_per_call"),
            ("completion_tokens_per_call", "completion_tokens_per_call"),
        ];
        for (ours, theirs) in keys {
            let (x, y) = (a[ours].as_f64().unwrap(), m[theirs].as_f64().unwrap());
            // Sums over levels may be added in another order: equal within rounding.
            assert!((x - y).abs() <= 1e-12 * y.abs().max(1.0), "{} {} {ours}: {x} vs {y}", m["policy"], m["agents"]);
        }
    }
}

#[test]
fn analyze_reports_the_cos_that_cos_printed() {
    analyze_matches_cos(&["--levels", "level_0,level_3,level_10,level_9", "--agents", "2,3"]);
}

#[test]
fn analyze_reports_the_cos_that_cos_printed_under_the_llm_executor() {
    analyze_matches_cos(&[
        "--levels",
        "level_1,level_5",
        "--policy",
        "dispatcher,gated,flatcomm",
        "--agents",
        "2",
        "--timing",
        "oracle",
        "--executor",
        "llm",
        "--error-scale",
        "0.25",
    ]);
}

#[test]
fn a_folder_of_both_kinds_reports_both_and_the_construction_part_as_alone() {
    let dir = tempfile::tempdir().unwrap();
    let build = dir.path().join("build");
    std::fs::create_dir(&build).unwrap();
    let trace = build.join("house.jsonl");
    let (code, _, err) = gatecrew(&["run", "--quiet", "--trace", trace.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let b = build.to_str().unwrap();
    let (code, alone, err) = gatecrew(&["analyze", b, "--json", "--ci", "none"]);
    assert_eq!(code, 0, "{err}");
    let k = dir.path().join("kitchen");
    let (code, _, err) = gatecrew(&["cos", "--levels", "level_2", "--trace", k.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let d = dir.path().to_str().unwrap();
    let (code, both, err) = gatecrew(&["analyze", d, "--json", "--ci", "none"]);
    assert_eq!(code, 0, "{err}");
    let (alone, both): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&alone).unwrap(), serde_json::from_str(&both).unwrap());
    for key in ["report", "files", "episodes", "bytes", "warnings"] {
        assert_eq!(alone[key], both[key], "{key}");
    }
    assert!(alone.get("kitchen").is_none());
    assert_eq!(both["kitchen"]["files"], 15, "level_2 x 3 policies x 5 factors");
    assert_eq!(both["kitchen"]["report"]["episodes"], 15);
    let (code, text, err) = gatecrew(&["analyze", d, "--ci", "none"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.starts_with("1 episodes from 1 traces"), "{text}");
    assert!(text.contains("15 kitchen episodes from 15 traces"), "{text}");
    assert!(text.contains("pending excluded: ") && text.contains("pending = failed: "), "{text}");
    assert!(text.contains("the paper's formula") && text.contains("MindAgent's script"), "{text}");
    // Only kitchen traces: no construction section, and nothing to plot.
    let kd = k.to_str().unwrap();
    let (code, text, _) = gatecrew(&["analyze", kd]);
    assert_eq!(code, 0);
    assert!(text.starts_with("15 kitchen episodes"), "{text}");
    let svg = dir.path().join("p.svg");
    let (code, _, err) = gatecrew(&["analyze", kd, "--plot", svg.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("kitchen episodes only"), "{err}");
}
