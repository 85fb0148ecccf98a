//! A resumed calibration checks what its results depend on: a rerun into the same
//! folder with the suite, the filter, the grid, the executor, the policies or the
//! version changed is refused, told the difference, and nothing there changes.

use std::path::Path;

use gatecrew_calibrate::run::Options;
use gatecrew_calibrate::{Grid, calibrate};
use gatecrew_crew::executor::{Executor, ExecutorKind, ExecutorSpec};

use crate::common::{calibrate_options, root};

const GRID: &str = "[weights]\nc = [0.35]\na = [0.2]\nd = [0.2]\nr = [0.1, 0.2]\nh = [0.05]\n[thresholds]\ntheta_low = [0.6]\ntheta_high = [0.9]\n";

fn refused(grid: &Grid, opts: &Options, want: &str) {
    let before = std::fs::read(opts.out.join("points.jsonl")).unwrap();
    let err = calibrate(grid, opts, &|_| {}).unwrap_err().to_string();
    assert!(err.contains("run.json") && err.contains(want), "{want}: {err}");
    assert_eq!(std::fs::read(opts.out.join("points.jsonl")).unwrap(), before, "{want}: results changed");
}

#[test]
fn a_resume_with_any_input_changed_is_refused() {
    let grid = Grid::parse(GRID, Path::new("grid.toml")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let opts = calibrate_options(out.path());
    let first = calibrate(&grid, &opts, &|_| {}).unwrap();
    // The same inputs resume everything.
    let again = calibrate(&grid, &opts, &|_| {}).unwrap();
    assert_eq!((again.evaluated_now, again.points.len()), (0, first.points.len()));

    refused(&grid, &Options { filter: Some("-s1".into()), ..opts.clone() }, "filter: was \"-s0\", now \"-s1\"");
    refused(&grid, &Options { filter: None, ..opts.clone() }, "filter: was");
    // Another suite folder, even one holding the same files.
    let other = tempfile::tempdir().unwrap();
    let link = other.path().join("suite-v1");
    std::os::unix::fs::symlink(root().join("configs/suite"), &link).unwrap();
    refused(&grid, &Options { suite: link, ..opts.clone() }, "suite: was");
    refused(&grid, &Options { suite: root().join("configs/suite-v2"), ..opts.clone() }, "episodes: was");
    let other_grid = Grid::parse(&GRID.replace("h = [0.05]", "h = [0.075]"), Path::new("g2.toml")).unwrap();
    refused(&other_grid, &opts, "grid: was");
    let spec = ExecutorSpec { kind: ExecutorKind::Llm, ..ExecutorSpec::default() };
    let llm = Executor::resolve(&spec, &root()).unwrap();
    refused(&grid, &Options { executor: Some(llm), ..opts.clone() }, "executor: was null");
    // The version and the policies are in the record too: one edited is refused.
    let record = out.path().join("run.json");
    let text = std::fs::read_to_string(&record).unwrap();
    for (key, edited) in [("version", "\"version\": \"0.0.1\""), ("policies", "\"policies\": [\"no_gate\"]")] {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let (k, val) = edited.split_once(": ").unwrap();
        v[k.trim_matches('"')] = serde_json::from_str(val).unwrap();
        std::fs::write(&record, v.to_string()).unwrap();
        refused(&grid, &opts, &format!("{key}: was"));
    }
    std::fs::write(&record, &text).unwrap();
    // Results with no record of what computed them are refused too.
    std::fs::remove_file(&record).unwrap();
    refused(&grid, &opts, "nothing records what computed them");
}
