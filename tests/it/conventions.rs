//! Command-line conventions: a panic is an error with exit 1 and the trace
//! kept, SIGTERM is said and exits 143, shells get completions, and an export of
//! traces holding no construction episode is refused instead of writing empty tables.

mod color;
mod json;
mod tables;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::cli::gatecrew;
use crate::common::default_config;

/// An output stream that panics at its `n`-th write: a bug in the middle of a command.
struct PanicsAt(usize);

impl Write for PanicsAt {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_sub(1);
        assert!(self.0 > 0, "a bug in the middle of the run");
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_panic_is_an_error_with_exit_1_and_the_trace_so_far_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let cfg = default_config();
    let mut err = Vec::new();
    // The board lines go to the output as the episode runs: the 6th write panics.
    let code = gatecrew_cli::main_with(
        ["gatecrew", "run", "--stepper", "--config", cfg.to_str().unwrap(), "--trace", trace.to_str().unwrap()],
        &mut PanicsAt(6),
        &mut err,
    );
    let err = String::from_utf8(err).unwrap();
    assert_eq!(code, std::process::ExitCode::FAILURE, "{err}");
    assert!(err.contains("error: internal error: a bug in the middle of the run"), "{err}");
    assert!(err.contains("this is a bug in gatecrew"), "{err}");
    assert!(!trace.exists(), "an unfinished trace is not under its final name");
    let partial = dir.path().join("t.jsonl.partial");
    let kept = std::fs::read_to_string(&partial).unwrap_or_default();
    assert!(kept.contains("\"episode_start\""), "the trace so far is kept as {}: {kept:?}", partial.display());
}

const CHILD_ARGS: &str = "GATECREW_TEST_SIGNAL_ARGS";

/// The command line named in [`CHILD_ARGS`] with the binary's signal handling.
#[test]
fn child_runs_with_signal_handling() {
    let Ok(args) = std::env::var(CHILD_ARGS) else { return };
    gatecrew_cli::interrupt::install();
    let argv: Vec<&str> = std::iter::once("gatecrew").chain(args.lines()).collect();
    gatecrew_cli::main_with(argv, &mut std::io::stdout(), &mut std::io::stderr());
}

#[test]
fn sigterm_is_said_and_exits_143() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    // After the episode a --serve run serves until it is told to stop.
    let args = format!("run\n--stepper\n--quiet\n--serve\n127.0.0.1:0\n--trace\n{}", trace.display());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["conventions::child_runs_with_signal_handling", "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD_ARGS, args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        said.push_str(&line);
        said.push('\n');
        if line.contains("serving its last state until Ctrl-C") {
            break;
        }
    }
    assert!(said.contains("until Ctrl-C"), "{said}");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    for line in lines {
        said.push_str(&line.unwrap());
        said.push('\n');
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{said}");
    assert!(said.contains("SIGTERM received"), "{said}");
    assert!(trace.is_file(), "the finished trace is in place");
}

#[test]
fn completions_are_printed_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = gatecrew(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for word in ["gatecrew", "soak", "metrics", "linger"] {
            assert!(out.contains(word), "{shell}: no {word}");
        }
    }
    let (code, _, err) = gatecrew(&["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn exporting_kitchen_traces_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("kitchen");
    let (code, _, err) =
        gatecrew(&["cos", "--levels", "level_0", "--agents", "2", "--trace", traces.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let out = dir.path().join("out");
    let (code, stdout, err) =
        gatecrew(&["export", traces.to_str().unwrap(), "--format", "csv", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{err}");
    assert!(err.contains("nothing to export") && err.contains("gatecrew analyze"), "{err}");
    assert!(err.lines().filter(|l| l.starts_with("warning:")).count() <= 11, "a few warnings, then a count:\n{err}");
}

#[test]
fn readmes_run_synopsis_names_every_flag_of_run() {
    let readme = std::fs::read_to_string(crate::common::root().join("README.md")).unwrap();
    let section = readme.split("### `gatecrew run`").nth(1).expect("README has a `gatecrew run` section");
    let synopsis = section.split("```text\n").nth(1).and_then(|b| b.split("```").next()).expect("a synopsis block");
    let (code, help, err) = gatecrew(&["run", "--help"]);
    assert_eq!(code, 0, "{err}");
    let flags: Vec<&str> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")))
        .map(|w| w.trim_end_matches(','))
        .filter(|f| *f != "--help")
        .collect();
    assert!(flags.len() > 30, "read clap's flags: {flags:?}");
    let missing: Vec<&&str> = flags
        .iter()
        .filter(|f| !synopsis.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).any(|w| w == **f))
        .collect();
    assert!(missing.is_empty(), "README's `gatecrew run` synopsis lacks {missing:?}");
}

#[test]
fn memory_list_json_without_a_database_is_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    let (code, out, err) = gatecrew(&["memory", "list", "--memory-db", db.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["exists"], false);
    assert_eq!(v["records"].as_array().map(Vec::len), Some(0));
    assert!(!db.exists(), "listing creates no database");
}
