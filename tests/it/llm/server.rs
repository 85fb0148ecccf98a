//! The real llama.cpp server, started once per test binary by the project's launcher
//! (`scripts/llm-server.py`, which installs its pinned wheels on first use). Its stdin
//! is a pipe this process holds until it exits: then the pipe closes and the server
//! stops, however the tests ended.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::common::root;

/// Set to the base URL of a running OpenAI-compatible server to use it instead.
pub const URL_VAR: &str = "GATECREW_TEST_LLM_URL";

/// One live test at a time: a 135M model on two shared cores answers in seconds, and
/// tests piling requests onto it would only measure the pile. The turn is shared with
/// the Minecraft tests (`crate::common::live_turn`).
pub fn live_turn() -> MutexGuard<'static, ()> {
    crate::common::live_turn()
}

/// The base URL of the live server, starting it on first use.
pub fn live_url() -> String {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| match std::env::var(URL_VAR) {
        Ok(u) if !u.is_empty() => u,
        _ => start(),
    })
    .clone()
}

fn start() -> String {
    static KEEP: OnceLock<Mutex<(Child, ChildStdin)>> = OnceLock::new();
    let log_path = root().join("target/llm-server.log");
    let log = std::fs::File::create(&log_path).expect("target/ is writable");
    let mut child = Command::new("python3")
        .arg(root().join("scripts/llm-server.py"))
        // 2,048 context tokens a slot (the launcher's default is 512): the kitchen
        // dispatcher's prompt (system prompt, recipe book, state, 15 history lines) is
        // about 1,100 tokens on level_0; the adjudicator's 72-77 fit either way.
        .args(["--ctx", "2048"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("python3 runs scripts/llm-server.py");
    let stdin = child.stdin.take().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "the LLM server did not start; its log:\n{}",
        std::fs::read_to_string(&log_path).unwrap_or_default()
    );
    let _ = KEEP.set(Mutex::new((child, stdin)));
    url
}
