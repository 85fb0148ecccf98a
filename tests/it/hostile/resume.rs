//! A resumed calibration checks what its results depend on: a rerun into the same
//! folder with the suite, the filter, the grid, the executor, the policies or the
//! binary changed is refused, told the difference, and nothing there changes.

use std::io::Write;
use std::path::Path;
use std::process::Command;

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
    for (key, edited) in [
        ("version", "\"version\": \"0.0.1\""),
        ("build", "\"build\": \"0123456789abcdef\""),
        ("policies", "\"policies\": [\"no_gate\"]"),
    ] {
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

const CHILD_OUT: &str = "GATECREW_RESUME_TEST_OUT";

/// Run by [`another_binary_does_not_resume`] in a child process: calibrates into
/// `$GATECREW_RESUME_TEST_OUT` and prints what it evaluated, or the error.
#[test]
#[ignore = "a child of another_binary_does_not_resume"]
fn child_calibrates() {
    let Some(out) = std::env::var_os(CHILD_OUT) else { return };
    let grid = Grid::parse(GRID, Path::new("grid.toml")).unwrap();
    match calibrate(&grid, &calibrate_options(Path::new(&out)), &|_| {}) {
        Ok(r) => println!("evaluated_now={}", r.evaluated_now),
        Err(e) => println!("refused: {e}"),
    }
}

/// The same test binary resumes its own results; a copy of it one byte longer (another
/// build of the same version, as far as the results know) is refused.
#[test]
fn another_binary_does_not_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("res");
    let me = std::env::current_exe().unwrap();
    let other = dir.path().join("other-build");
    std::fs::copy(&me, &other).unwrap();
    std::fs::OpenOptions::new().append(true).open(&other).unwrap().write_all(b"\0").unwrap();
    let child = |exe: &Path| {
        // A fork elsewhere in this process may hold the new file open for a moment.
        for _ in 0..50 {
            match Command::new(exe)
                .args(["hostile::resume::child_calibrates", "--exact", "--include-ignored", "--nocapture"])
                .env(CHILD_OUT, &out)
                .output()
            {
                Ok(o) => return String::from_utf8_lossy(&o.stdout).into_owned(),
                Err(e) if e.raw_os_error() == Some(26) => std::thread::sleep(std::time::Duration::from_millis(100)),
                Err(e) => panic!("{}: {e}", exe.display()),
            }
        }
        panic!("{} stayed busy", exe.display());
    };
    let first = child(&me);
    assert!(first.contains("evaluated_now=") && !first.contains("evaluated_now=0"), "{first}");
    let before = std::fs::read(out.join("points.jsonl")).unwrap();
    let refused = child(&other);
    assert!(refused.contains("refused") && refused.contains("build: was"), "{refused}");
    assert_eq!(std::fs::read(out.join("points.jsonl")).unwrap(), before, "results changed");
    let again = child(&me);
    assert!(again.contains("evaluated_now=0"), "{again}");
}
