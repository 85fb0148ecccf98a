//! Ctrl-C in a live session: the trace written so far is flushed, whole lines only,
//! under its `.partial` name, and the command exits with 130. Runs the command line in
//! a child process of this test binary (a signal must hit a whole process).

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::default_config;

const CHILD_DIR: &str = "GATECREW_SIGNAL_TEST_DIR";

fn partial(dir: &std::path::Path) -> std::path::PathBuf {
    dir.join("t.jsonl.partial")
}

#[test]
fn an_interrupted_live_session_keeps_its_trace() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["hostile::signals::child_process", "--exact", "--include-ignored", "--nocapture", "--test-threads", "1"])
        .env(CHILD_DIR, dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The session is paced at 20 ms a tick: wait until it has surely written events.
    let started = Instant::now();
    while !partial(dir.path()).exists() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the child did not stop within 30 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().unwrap();
    let logs = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(code, Some(130), "{logs}");
    assert!(!dir.path().join("t.jsonl").exists(), "an interrupted trace is not passed off as whole");
    let text = std::fs::read(partial(dir.path())).unwrap();
    assert!(text.ends_with(b"\n"), "only whole lines: {logs}");
    let lines: Vec<String> = text.lines().map(Result::unwrap).collect();
    assert!(lines.len() >= 2, "the events written before Ctrl-C are kept ({} lines)\n{logs}", lines.len());
    assert!(lines[0].contains("\"episode_start\""));
    for l in &lines {
        serde_json::from_str::<serde_json::Value>(l).unwrap();
    }
}

/// The child, started by the test above; ignored on its own.
#[test]
#[ignore = "the child of an_interrupted_live_session_keeps_its_trace"]
fn child_process() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
    let dir = std::path::PathBuf::from(dir);
    gatecrew_cli::interrupt::install();
    let cfg = default_config();
    let trace = dir.join("t.jsonl");
    let (code, out, err) = crate::cli::gatecrew(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "--quiet",
        "--interactive",
        "--no-memory",
        "--parser",
        "--tick-ms",
        "20",
    ]);
    // Reached only if the session ended before the signal.
    panic!("the session ended by itself ({code}):\n{out}{err}");
}
