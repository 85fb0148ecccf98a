//! `gatecrew cos`: the table's figures are the library's, both CoS variants are named,
//! and bad levels, policies and folders are refused with what was wrong.

use gatecrew_kitchen::{FACTORS, PolicyKind, RunSpec, cos};

use super::common::cuisine;
use crate::common::write;

fn gatecrew(args: &[&str]) -> (u8, String, String) {
    let argv = std::iter::once("gatecrew").chain(args.iter().copied());
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let code = gatecrew_cli::main_with(argv, &mut o, &mut e);
    let code = if code == std::process::ExitCode::SUCCESS {
        0
    } else if code == std::process::ExitCode::from(2) {
        2
    } else {
        1
    };
    (code, String::from_utf8(o).unwrap(), String::from_utf8(e).unwrap())
}

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
    assert!(table.contains("CoS (pending excluded)") && table.contains("CoS (pending = failed)"), "{table}");
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
