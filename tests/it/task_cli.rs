//! `gatecrew run --task FILE [--task-id ID]`, driven in-process.

use crate::cli::gatecrew;
use crate::common::root;

fn fixture(rel: &str) -> String {
    root().join("tests/fixtures/external").join(rel).display().to_string()
}

#[test]
fn a_task_run_reports_both_scores() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("p.jsonl");
    let file = fixture("minecollab/pyramid.json");
    let (code, out, err) = gatecrew(&["run", "--task", &file, "--json", "--trace", trace.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (v["episode"].as_str(), v["agents"].as_u64(), v["complete"].as_bool()),
        (Some("pyramid"), Some(2), Some(true))
    );
    assert_eq!((v["mindcraft_accuracy"].as_f64(), v["villager_recall"].as_f64()), (Some(1.0), Some(1.0)));
    assert!(v["confirmed_transfers"].as_u64().unwrap() >= 1);
    let last = std::fs::read_to_string(&trace).unwrap().lines().last().unwrap().to_owned();
    assert!(last.contains(r#""kind":"episode_end""#) && last.contains(r#""mindcraft_accuracy":1.0"#), "{last}");
    // The table shows them too.
    let (code, out, _) = gatecrew(&["run", "--task", &file, "--stepper", "--trace", trace.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("MindCraft acc.") && out.contains("168 matches, 0 mismatches"), "{out}");
    assert!(out.contains("recall 1.000 (168/168 blocks, facing checked)"), "{out}");
}

#[test]
fn several_tasks_are_listed_and_one_is_picked_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("v.jsonl");
    let file = fixture("villagerbench/examples_task_0_25_50_64.json");
    let (code, out, err) = gatecrew(&["run", "--task", &file]);
    assert_eq!(code, 2, "{out}{err}");
    for id in ["task_0", "task_25", "task_50", "task_64"] {
        assert!(out.contains(id), "{out}");
    }
    assert!(err.contains("pick one with --task-id"), "{err}");
    let (code, out, err) =
        gatecrew(&["run", "--task", &file, "--task-id", "task_64", "--json", "--trace", trace.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!((v["episode"].as_str(), v["villager_recall"].as_f64()), (Some("task_64"), Some(1.0)));
    let (code, _, err) = gatecrew(&["run", "--task", &file, "--task-id", "task_7"]);
    assert_eq!(code, 2);
    assert!(err.contains("no task \"task_7\""), "{err}");
}

#[test]
fn bad_task_files_exit_2_with_the_json_path() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.json");
    std::fs::write(
        &p,
        r#"{"t": {"type": "construction", "agent_count": 2, "blueprint": {"levels": [{"placement": []}]}}}"#,
    )
    .unwrap();
    let (code, _, err) = gatecrew(&["run", "--task", p.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("$.t.blueprint.levels[0]") && err.contains("coordinates"), "{err}");
    let (code, _, err) = gatecrew(&["run", "--task", p.to_str().unwrap(), "--blueprint", "x.toml"]);
    assert_eq!(code, 2, "--task and --blueprint conflict: {err}");
}
