//! `gatecrew cos`: the table's figures are the library's, both CoS variants are named,
//! and bad levels, policies and folders are refused with what was wrong.

use gatecrew_kitchen::{FACTORS, PolicyKind, RunSpec, cos};

use super::common::cuisine;
use crate::cli::gatecrew;
use crate::common::write;

#[test]
fn cos_json_is_the_librarys_cos() {
    let (code, out, err) =
        gatecrew(&["cos", "--levels", "level_0,level_2", "--policy", "gated,dispatcher", "--agents", "2,3", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * 2 * 2, "levels x policies x crews");
    let c = cuisine();
    for r in rows {
        let level = c.level(r["level"].as_str().unwrap()).unwrap();
        let policy: PolicyKind = r["policy"].as_str().unwrap().parse().unwrap();
        let agents = r["spec"]["agents"].as_u64().unwrap() as usize;
        let want = cos(&c.book, level, policy, &RunSpec::new(agents, 0));
        assert_eq!(r["episodes"].as_array().unwrap().len(), FACTORS.len());
        assert_eq!(r["cos_pending_excluded"].as_f64().unwrap(), want.cos_pending_excluded);
        assert_eq!(r["cos_pending_failed"].as_f64().unwrap(), want.cos_pending_failed);
        // Counting pending orders as failed can only lower the score.
        assert!(want.cos_pending_failed <= want.cos_pending_excluded);
    }
    assert_eq!(v["means"].as_array().unwrap().len(), 2 * 2);
    let (code, table, _) = gatecrew(&["cos", "--levels", "level_0", "--timing", "oracle"]);
    assert_eq!(code, 0);
    assert!(table.contains("CoS pending excluded: ") && table.contains("pending = failed: "), "{table}");
    assert!(table.contains("oracle") && table.contains("dispatcher") && table.contains("flatcomm"), "{table}");
}

#[test]
fn cos_refuses_what_it_cannot_run() {
    let (code, _, err) = gatecrew(&["cos", "--levels", "level_99"]);
    assert_eq!(code, 2);
    assert!(err.contains("level_99") && err.contains("tasks_level_final.json"), "{err}");
    let (code, _, err) = gatecrew(&["cos", "--policy", "central_dag"]);
    assert_eq!(code, 2);
    assert!(err.contains("central_dag"), "{err}");
    let (code, _, err) = gatecrew(&["cos", "--agents", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--agents"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "recipe.json",
        "{\"cake\": {\"ingredients\": [\"egg\"], \"location\": \"blender\", \"colour\": 1}}",
    );
    write(dir.path(), "tasks_level_final.json", "{}");
    let (code, _, err) = gatecrew(&["cos", "--tasks", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("recipe.json") && err.contains("colour"), "{err}");
}

#[test]
fn cos_under_the_llm_executor_reports_calls_tokens_and_mistakes() {
    let args = ["cos", "--levels", "level_0", "--policy", "dispatcher,flatcomm", "--agents", "2", "--json"];
    let (code, out, err) = gatecrew(&[&args[..], &["--executor", "llm"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["executor"]["kind"], "llm");
    assert_eq!(v["executor"]["model"], "gpt-4o-2024-05-13");
    let c = cuisine();
    let level = c.level("level_0").unwrap();
    let executor = gatecrew_kitchen::Executor::llm_builtin(1.0).unwrap();
    for r in v["rows"].as_array().unwrap() {
        let policy: PolicyKind = r["policy"].as_str().unwrap().parse().unwrap();
        let want = cos(&c.book, level, policy, &RunSpec { executor: executor.clone(), ..RunSpec::new(2, 0) });
        assert_eq!(r["cos_pending_excluded"].as_f64().unwrap(), want.cos_pending_excluded);
        assert_eq!(r["calls"].as_u64().unwrap(), want.model.calls);
        assert_eq!(r["mistakes"].as_u64().unwrap(), want.model.mistakes);
        assert_eq!(r["prompt_tokens"].as_u64().unwrap(), want.model.prompt_tokens);
        assert!(want.model.mistakes > 0 && want.model.completion_tokens > 0);
        let per_step = if policy == PolicyKind::Dispatcher { 1 } else { 2 };
        assert_eq!(want.model.calls, 5 * 60 * per_step);
        assert_eq!(r["episodes"][0]["calls"].as_u64().unwrap(), 60 * per_step);
    }
    for m in v["means"].as_array().unwrap() {
        assert!(m["prompt_tokens_per_call"].as_f64().unwrap() > 500.0, "{m}");
    }
    // Scripted: the same fields, zero.
    let (_, out, _) = gatecrew(&args);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["executor"]["kind"], "scripted");
    assert_eq!(v["rows"][0]["calls"], 0);
    // The table adds the model's columns under llm only.
    let (code, table, _) = gatecrew(&["cos", "--levels", "level_0", "--executor", "llm", "--error-scale", "0.5"]);
    assert_eq!(code, 0);
    assert!(
        table.contains("0.5 x") && table.lines().any(|l| l.starts_with('│') && l.matches('┆').count() == 13),
        "{table}"
    );
    let (_, table, _) = gatecrew(&["cos", "--levels", "level_0"]);
    assert!(!table.contains("mistakes"), "{table}");
}

#[test]
fn cos_refuses_a_bad_profile_naming_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let good = include_str!("../../../configs/llm-profiles/gpt-4o-published.toml");
    write(dir.path(), "bad.toml", &good.replace("p0 = 0.72", "p0 = 7.2"));
    let path = dir.path().join("bad.toml");
    let (code, _, err) =
        gatecrew(&["cos", "--levels", "level_0", "--executor", "llm", "--llm-profile", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.toml") && err.contains("errors.p0"), "{err}");
    write(dir.path(), "short.toml", &good.replace("a = 5.5", ""));
    let path = dir.path().join("short.toml");
    let (code, _, err) =
        gatecrew(&["cos", "--levels", "level_0", "--executor", "llm", "--llm-profile", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("short.toml") && err.contains("`a`"), "{err}");
    let (code, _, err) = gatecrew(&["cos", "--executor", "llm", "--llm-profile", "/nonexistent/p.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/p.toml"), "{err}");
    // A profile of its own is used: p0 = 0 and p1 = 0 make no mistakes.
    write(dir.path(), "calm.toml", &good.replace("p0 = 0.72", "p0 = 0.0").replace("p1 = 0.1", "p1 = 0.0"));
    let path = dir.path().join("calm.toml");
    let (code, out, err) = gatecrew(&[
        "cos",
        "--levels",
        "level_0",
        "--policy",
        "gated",
        "--executor",
        "llm",
        "--llm-profile",
        path.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rows"][0]["mistakes"], 0);
    assert_eq!(v["rows"][0]["calls"], 5 * 60 * 2);
    for bad in [
        &["cos", "--executor", "llm", "--error-scale", "-1"][..],
        &["cos", "--error-scale", "2"],
        &["cos", "--executor", "gpt"],
    ] {
        let (code, _, err) = gatecrew(bad);
        assert_eq!(code, 2, "{bad:?}: {err}");
    }
}
