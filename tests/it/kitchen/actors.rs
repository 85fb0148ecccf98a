//! The kitchen on the actor runtime (`gatecrew cos --runtime actors`): for several
//! levels, every policy, crews of 2 to 4, under the scripted and the llm executor, the
//! traces are byte-identical to the stepper's and the CoS figures equal; the same
//! actor run twice writes the same bytes.

use super::common::files;
use crate::cli::gatecrew;
use std::collections::BTreeMap;

/// `gatecrew cos --json --trace` on `runtime` with `extra` flags: the JSON and the traces.
fn cos(runtime: &str, extra: &[&str]) -> (String, BTreeMap<String, Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().to_str().unwrap();
    let mut args = vec!["cos", "--levels", "level_0,level_4,level_9", "--agents", "2,3,4", "--json"];
    args.extend(["--policy", "dispatcher,gated,flatcomm", "--runtime", runtime, "--trace", trace]);
    args.extend(extra);
    let (code, out, err) = gatecrew(&args);
    assert_eq!(code, 0, "{err}");
    (out, files(dir.path()))
}

fn same(a: &(String, BTreeMap<String, Vec<u8>>), b: &(String, BTreeMap<String, Vec<u8>>), what: &str) {
    assert_eq!(a.1.len(), 3 * 3 * 3 * 5, "{what}: one trace per level, policy, crew and factor");
    assert_eq!(a.1.keys().collect::<Vec<_>>(), b.1.keys().collect::<Vec<_>>(), "{what}");
    for (name, bytes) in &a.1 {
        assert!(bytes == &b.1[name], "{what}: {name} differs");
    }
    // The rows, CoS both ways, messages and model use: the whole report.
    assert_eq!(a.0, b.0, "{what}: the CoS report differs");
}

#[test]
fn actors_write_the_steppers_traces_and_figures_scripted() {
    for timing in ["oracle", "file"] {
        let stepper = cos("stepper", &["--timing", timing]);
        let actors = cos("actors", &["--timing", timing]);
        same(&stepper, &actors, &format!("scripted, {timing} timing"));
    }
}

#[test]
fn actors_write_the_steppers_traces_and_figures_llm() {
    let flags = ["--timing", "oracle", "--executor", "llm", "--seed", "5"];
    let stepper = cos("stepper", &flags);
    let actors = cos("actors", &flags);
    same(&stepper, &actors, "llm executor");
    // The model calls were made and traced, so they were compared too.
    let calls = actors.1.values().filter(|b| String::from_utf8_lossy(b).contains("\"kind\":\"llm_call\"")).count();
    assert_eq!(calls, actors.1.len(), "every llm episode traces its model calls");
}

#[test]
fn the_same_actor_run_twice_writes_the_same_bytes() {
    let flags = ["--timing", "oracle", "--seed", "2"];
    let a = cos("actors", &flags);
    let b = cos("actors", &flags);
    same(&a, &b, "two actor runs");
}

#[test]
fn an_unknown_runtime_is_refused() {
    let (code, _, err) = gatecrew(&["cos", "--levels", "level_0", "--runtime", "threads"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("threads"), "{err}");
}
