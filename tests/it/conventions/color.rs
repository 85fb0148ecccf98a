//! `--color auto|always|never`: colour only on a terminal, never with NO_COLOR (any
//! value but empty) or TERM=dumb under `auto`; for clap's help and errors, the tables,
//! the progress bar and the log lines. The binary's own `main` runs in a child process
//! (this test binary, re-run), its streams piped or on a pseudo-terminal (`script`,
//! util-linux's, part of every Debian).

use std::process::{Command, Stdio};

use crate::cli::gatecrew;

const CHILD_ARGS: &str = "GATECREW_TEST_BINARY_ARGS";
/// What the child prints before the binary runs: what the test harness printed is
/// before it.
const MARK: &str = "--- gatecrew starts ---";

/// The command line in [`CHILD_ARGS`] (one argument a line) through the binary's `main`.
#[test]
fn child_runs_as_the_binary() {
    let Ok(args) = std::env::var(CHILD_ARGS) else { return };
    println!("{MARK}");
    eprintln!("{MARK}");
    let argv = std::iter::once("gatecrew").chain(args.lines()).map(Into::into).collect();
    let code = gatecrew_cli::binary::main_from(argv);
    let code = [0u8, 1, 2].into_iter().find(|c| std::process::ExitCode::from(*c) == code).unwrap_or(255);
    std::process::exit(i32::from(code));
}

fn child(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["conventions::color::child_runs_as_the_binary", "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD_ARGS, args.join("\n"))
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

fn after_mark(s: &[u8]) -> String {
    let s = String::from_utf8_lossy(s);
    s.split_once(MARK).map_or_else(|| s.to_string(), |(_, r)| r.to_owned())
}

/// The binary with its streams piped: exit code, stdout, stderr.
fn piped(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = child(args, env).output().unwrap();
    (out.status.code().unwrap_or(-1), after_mark(&out.stdout), after_mark(&out.stderr))
}

/// The binary on a pseudo-terminal: exit code and what the terminal showed.
fn on_terminal(args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let c = child(args, env);
    let mut line = format!("'{}'", c.get_program().to_str().unwrap());
    for a in c.get_args() {
        line.push_str(&format!(" '{}'", a.to_str().unwrap()));
    }
    let mut s = Command::new("script");
    s.args(["-qec", &line, "/dev/null"]).stdin(Stdio::null());
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => s.env(k, v),
            None => s.env_remove(k),
        };
    }
    let out = s.output().expect("util-linux's `script` runs (apt-get install bsdutils)");
    (out.status.code().unwrap_or(-1), after_mark(&out.stdout))
}

const ESC: char = '\u{1b}';
/// clap's bold, a table header's bold, tracing's level colours.
const BOLD: &str = "\u{1b}[1m";

#[test]
fn help_and_errors_are_plain_into_a_pipe_and_coloured_when_asked() {
    for args in [&["--help"][..], &["--color", "auto", "run", "--help"], &["--color=never", "--help"]] {
        let (code, out, err) = piped(args, &[]);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(out.contains("Usage:") && !out.contains(ESC), "{args:?}: {out:?}");
        assert!(out.contains("--color <WHEN>"), "{out}");
    }
    let (code, out, _) = piped(&["--color", "always", "--help"], &[("NO_COLOR", "1")]);
    assert_eq!(code, 0);
    assert!(out.contains(BOLD) && out.contains("Usage:"), "always colours even into a pipe: {out:?}");
    let (code, _, err) = piped(&["run", "--bogus"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("error:") && !err.contains(ESC), "{err:?}");
    // A bad flag is reported in the colour asked for, wherever --color is.
    let (code, _, err) = piped(&["run", "--bogus", "--color=always"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("\u{1b}[1m\u{1b}[31merror:") || err.contains("\u{1b}[31m\u{1b}[1merror:"), "{err:?}");
    let (code, _, err) = piped(&["--color", "sometimes", "run"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("sometimes") && err.contains("always") && !err.contains(ESC), "{err:?}");
}

#[test]
fn auto_colours_a_terminal_unless_no_color_or_a_dumb_terminal() {
    let (code, shown) = on_terminal(&["--help"], &[]);
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains(BOLD) && shown.contains("Usage:"), "a terminal is coloured: {shown:?}");
    for (args, env) in [
        (&["--help"][..], &[("NO_COLOR", "1")][..]),
        (&["--help"], &[("NO_COLOR", "0")]),
        (&["--help"], &[("TERM", "dumb")]),
        (&["--color", "never", "--help"], &[]),
    ] {
        let (code, shown) = on_terminal(args, env);
        assert_eq!(code, 0, "{shown}");
        assert!(shown.contains("Usage:") && !shown.contains(ESC), "{args:?} {env:?}: {shown:?}");
    }
    let (_, shown) = on_terminal(&["--help"], &[("NO_COLOR", "")]);
    assert!(shown.contains(BOLD), "an empty NO_COLOR is no NO_COLOR: {shown:?}");
}

/// The run's progress bar (on a terminal only) is cyan in colour, plain without; its
/// table's header is bold in colour; its log lines too.
#[test]
fn the_progress_bar_the_table_and_the_log_lines_follow_the_choice() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let t = trace.to_str().unwrap();
    let cyan = "\u{1b}[36m";
    let (code, shown) = on_terminal(&["run", "--stepper", "--trace", t], &[("GATECREW_LOG", "info")]);
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains(cyan), "the bar is cyan on a colour terminal: {shown:?}");
    assert!(shown.contains(&format!("{BOLD} metric")), "the table's header is bold: {shown:?}");
    assert!(shown.contains("episode ended") && shown.contains("\u{1b}[32m"), "an info line in green: {shown:?}");
    let (code, shown) =
        on_terminal(&["run", "--stepper", "--trace", t], &[("GATECREW_LOG", "info"), ("NO_COLOR", "1")]);
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("blocks") && shown.contains("episode ended"), "{shown:?}");
    for sgr in [cyan, BOLD, "\u{1b}[32m", "\u{1b}[2m"] {
        assert!(!shown.contains(sgr), "no colour with NO_COLOR ({sgr:?}): {shown:?}");
    }
    // Piped: no bar, no colour; asked for: colour in the table and the log lines.
    let (code, out, err) = piped(&["run", "--stepper", "--quiet", "--trace", t], &[("GATECREW_LOG", "info")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("metric") && err.contains("episode ended"), "{out}{err}");
    assert!(!out.contains(ESC) && !err.contains(ESC), "{out:?}{err:?}");
    let (code, out, err) =
        piped(&["--color", "always", "run", "--stepper", "--quiet", "--trace", t], &[("GATECREW_LOG", "info")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("{BOLD} metric")), "{out:?}");
    assert!(err.contains("\u{1b}[32m") && err.contains("episode ended"), "{err:?}");
}

/// In-process, as the tests drive the command line: `always` and `never` hold whatever
/// the streams are, and the colour a command's output carries is only the escapes of
/// colour (a bad flag's value with a terminal escape in it is still shown escaped).
#[test]
fn in_process_always_colours_and_outside_escapes_stay_escaped() {
    let (code, out, _) = gatecrew(&["--color", "always", "completions", "bash"]);
    assert_eq!(code, 0);
    assert!(!out.contains(ESC), "a completion script has no colour to show");
    let (code, _, err) = gatecrew(&["--color", "always", "run", "--policy", "x\u{1b}]0;pwned\u{7}"]);
    assert_eq!(code, 2);
    assert!(err.contains("\u{1b}[") && err.contains("\\u{1b}]0;pwned\\u{7}"), "{err:?}");
    assert!(!err.contains("\u{1b}]"), "the title escape is not passed: {err:?}");
}
