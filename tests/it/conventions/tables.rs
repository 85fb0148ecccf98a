//! Every table a command prints fits 100 columns into a pipe (cells wrap), as README's
//! and docs' samples do; the run table's rows keep issues and gate decisions apart, and
//! README's sample run is what `gatecrew run` prints.

use crate::cli::gatecrew;
use crate::common::root;

const WIDTH: usize = 100;

/// Every line of `out` fits; says which command and line does not.
fn fits(what: &str, out: &str) {
    assert!(out.contains('┌'), "{what} printed a table:\n{out}");
    for l in out.lines() {
        let n = l.chars().count();
        // Only a table's lines are held to the width (a trace path is what it is).
        if l.starts_with(['┌', '│', '╞', '├', '└']) {
            assert!(n <= WIDTH, "{what}: {n} columns:\n{l}\n{out}");
        }
    }
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = gatecrew(args);
    assert_eq!(code, 0, "gatecrew {args:?}:\n{out}\n{err}");
    out
}

#[test]
fn every_table_fits_100_columns() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    fits("run", &ok(&["run", "--stepper", "--quiet", "--trace", t.to_str().unwrap()]));
    let kitchen = dir.path().join("kitchen");
    let cos = ok(&["cos", "--levels", "level_0,level_1", "--agents", "2,3", "--trace", kitchen.to_str().unwrap()]);
    fits("cos", &cos);
    fits("analyze (kitchen)", &ok(&["analyze", kitchen.to_str().unwrap(), "--ci", "none"]));
    let runs = dir.path().join("runs");
    let suite = root().join("configs/suite");
    ok(&[
        "suite",
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--split",
        "test",
        "--filter",
        "pyramid-5",
        "--policy",
        "gated,no_gate,rule_only,flatcomm,central_dag",
        "--jobs",
        "2",
        "--out",
        runs.to_str().unwrap(),
    ]);
    let r = runs.to_str().unwrap();
    fits("analyze --by class", &ok(&["analyze", r, "--ci", "200"]));
    fits("analyze --by agents", &ok(&["analyze", r, "--by", "agents", "--ci", "200"]));
    fits("analyze --paired", &ok(&["analyze", r, "--paired", "no_gate", "--ci", "200"]));
    let task = root().join("tests/fixtures/external/villagerbench/examples_task_0_25_50_64.json");
    let (_, listing, _) = gatecrew(&["run", "--task", task.to_str().unwrap()]);
    fits("run --task (listing)", &listing);
}

#[test]
fn the_run_table_keeps_issues_and_gate_decisions_apart() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    let out = ok(&["run", "--stepper", "--quiet", "--trace", t.to_str().unwrap()]);
    let (code, json, _) = gatecrew(&["run", "--stepper", "--json", "--trace", t.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let n = |k: &str| v[k].as_u64().unwrap();
    assert_eq!(n("gate_decisions"), n("stayed_local") + n("escalated"), "{v}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("│ {name} ")))
            .unwrap_or_else(|| panic!("no {name} row:\n{out}"))
            .to_owned()
    };
    assert!(row("issues").contains(&format!("{} detected", n("issues"))), "{out}");
    assert!(!row("issues").contains("escalate"), "{out}");
    let want = format!("{} ({} stay local, {} escalate)", n("gate_decisions"), n("stayed_local"), n("escalated"));
    assert!(row("gate decisions").contains(&want), "{out}");
}

/// README's "What a run looks like" is what `gatecrew run` prints on the default crew
/// (the board lines and the table; its trace row names the default trace path).
#[test]
fn readmes_sample_run_is_what_the_command_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block = readme
        .split("## What a run looks like")
        .nth(1)
        .and_then(|s| s.split("```text\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("README's sample run");
    let shown: Vec<&str> = block.lines().skip(1).collect();
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    let (code, out, err) = gatecrew(&["run", "--trace", t.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let out = out.replace(&t.display().to_string(), "runs/default-house-gated-s7.jsonl");
    // The trace row's column is as wide as the path in it.
    let normal = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ").replace(['─', '═'], "");
    let got: Vec<String> = out.lines().map(normal).collect();
    let want: Vec<String> = shown.iter().map(|l| normal(l)).collect();
    assert_eq!(got, want, "README's sample run differs from the command's output:\n{out}");
}

/// docs/hitl.md's scripted session is the command's whole output, as it says.
#[test]
fn the_hitl_docs_transcript_is_what_the_command_prints() {
    let doc = std::fs::read_to_string(root().join("docs/hitl.md")).unwrap();
    let block = doc
        .split("```text\n$ cat s.txt\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("docs/hitl.md's transcript");
    let (script, rest) = block.split_once("$ gatecrew ").expect("the command line");
    let (command, shown) = rest.split_once('\n').unwrap();
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.txt");
    std::fs::write(&s, script).unwrap();
    let t = dir.path().join("t.jsonl");
    let mut args: Vec<String> = command
        .split_whitespace()
        .map(|w| match w {
            "s.txt" => s.display().to_string(),
            w if w.starts_with("configs/") => root().join(w).display().to_string(),
            w => w.to_owned(),
        })
        .collect();
    args.extend(["--trace".to_owned(), t.display().to_string()]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = gatecrew(&argv);
    assert_eq!(code, 0, "{err}");
    let said = format!("{err}{out}")
        .replace(&t.display().to_string(), "runs/hitl-partner-gated-s11.jsonl")
        .replace(&s.display().to_string(), "s.txt");
    let normal = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ").replace(['─', '═'], "");
    let mut got: Vec<String> = said.lines().map(normal).collect();
    let mut want: Vec<String> = shown.lines().map(normal).collect();
    // Which stream a line went to is not the transcript's to say: compare as sets of
    // lines in order within each stream.
    got.sort();
    want.sort();
    assert_eq!(got, want, "docs/hitl.md's transcript differs from the command's output:\n{err}{out}");
}
