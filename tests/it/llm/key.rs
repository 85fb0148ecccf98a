//! A planted API key never appears in a trace or a log. The check runs the command line
//! in a child process of this test binary, with the key in its environment (the only
//! place a key may be) and every tracing event of every crate, reqwest and hyper
//! included, written to its stderr at TRACE level. The parent then looks for the key in
//! everything the child printed, logged and wrote.

use std::process::Command;

use gatecrew_gating::Deterministic;
use gatecrew_gating::llm::LlmClient;

use super::fake::{Fake, Reply, answer};
use super::live::LIVE_TIMEOUT_MS;
use super::server::{URL_VAR, live_turn, live_url};
use super::{MODEL, adjudications, config_with, gatecrew, trace};

const CHILD_DIR: &str = "GATECREW_KEY_TEST_DIR";
const KEY_VAR: &str = "GATECREW_PLANTED_KEY";

#[test]
fn a_planted_api_key_never_appears_in_any_trace_or_log() {
    let dir = tempfile::tempdir().unwrap();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let key = format!("sk-planted-{}-{nanos:09}", std::process::id());
    let live = live_url();
    let _turn = live_turn();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["llm::key::child_process", "--exact", "--include-ignored", "--nocapture", "--test-threads", "1"])
        .env(CHILD_DIR, dir.path())
        .env(KEY_VAR, &key)
        .env(URL_VAR, live)
        .output()
        .unwrap();
    let logs = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the child failed:\n{logs}");
    // It ran (a filter that matched nothing would pass with nothing checked).
    assert!(logs.contains("test llm::key::child_process ... ok") && logs.contains("1 passed"), "{logs}");
    // The check means something only if the child logged the requests in detail.
    for expected in ["adjudicate", "chat/completions", "TRACE", "ApiKey([redacted])"] {
        assert!(logs.contains(expected), "the child's log lacks {expected}:\n{logs}");
    }
    assert!(!logs.contains(&key), "the key is in the log");
    let mut files = 0;
    for entry in walk(dir.path()) {
        let text = String::from_utf8_lossy(&std::fs::read(&entry).unwrap()).into_owned();
        assert!(!text.contains(&key), "the key is in {}", entry.display());
        files += 1;
    }
    assert!(files >= 6, "traces and outputs were written ({files} files)");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}

/// The child, started by the test above with the key in its environment; ignored on
/// its own, so that no run counts it as passed without having checked anything.
#[test]
#[ignore = "the child of a_planted_api_key_never_appears_in_any_trace_or_log"]
fn child_process() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let key = std::env::var(KEY_VAR).unwrap();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let cfg = config_with(&dir, &format!("[llm]\napi_key_env = \"{KEY_VAR}\"\ntimeout_ms = {LIVE_TIMEOUT_MS}\n"));
    let cfg = cfg.to_str().unwrap();
    let save = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();

    // The key is read, and redacted in Debug output.
    let spec = super::spec("http://127.0.0.1:9/v1", 1000);
    let spec = gatecrew_gating::llm::LlmSpec { api_key_env: Some(KEY_VAR.into()), ..spec };
    let client = LlmClient::new(spec, Deterministic { midpoint: 0.75 }).unwrap();
    tracing::info!(?client, "client built");

    // A server that wants the key: a model verdict proves it was sent.
    let wanted = format!("authorization: bearer {}", key.to_ascii_lowercase());
    let strict = Fake::start(move |_, seen| {
        if seen.head.to_ascii_lowercase().contains(&wanted) {
            answer("escalate", 0.9)
        } else {
            Reply::Full { status: 401, body: b"{\"error\":\"no key\"}".to_vec() }
        }
    });
    let t = dir.join("strict.jsonl");
    let (code, out, err) = gatecrew(&[
        "run",
        "--config",
        cfg,
        "--stepper",
        "--json",
        "--llm-url",
        &strict.url,
        "--model",
        "m",
        "--trace",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    save("strict.out", &format!("{out}{err}"));
    assert!(adjudications(&trace(&t)).iter().all(|(_, f, _)| f.is_none()), "the key was sent and accepted");

    // A server that quotes the key back (as OpenAI's 401 does): cut from the reply.
    let echo = Fake::start(|_, seen| {
        let auth = seen.head.lines().find(|l| l.to_ascii_lowercase().starts_with("authorization:")).unwrap_or("");
        let body = serde_json::json!({ "error": { "message": format!("Incorrect API key provided: {auth}") } });
        Reply::Full { status: 401, body: body.to_string().into_bytes() }
    });
    let t = dir.join("echo.jsonl");
    let (code, out, err) = gatecrew(&[
        "run",
        "--config",
        cfg,
        "--stepper",
        "--json",
        "--llm-url",
        &echo.url,
        "--model",
        "m",
        "--trace",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    save("echo.out", &format!("{out}{err}"));
    let text = std::fs::read_to_string(&t).unwrap();
    assert!(text.contains("http_401") && text.contains("[redacted]"), "{text}");

    // The strict server again, on the actor runtime.
    let t = dir.join("actors.jsonl");
    let (code, out, err) = gatecrew(&[
        "run",
        "--config",
        cfg,
        "--json",
        "--llm-url",
        &strict.url,
        "--model",
        "m",
        "--trace",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    save("actors.out", &format!("{out}{err}"));
    assert!(adjudications(&trace(&t)).iter().all(|(_, f, _)| f.is_none()));

    // And the real server, through `adjudicate`.
    let live = live_url();
    let card = dir.join("card.json");
    save(
        "card.json",
        r#"{"issue":"missing_tool","item":"stone_pickaxe","n":1,"f":{"C":2,"A":2,"D":1,"R":1,"H":0},"s":0.7,"opts":["LOCAL_RECOVER","REQUEST_MATERIAL"]}"#,
    );
    let (code, out, err) = gatecrew(&[
        "adjudicate",
        "--config",
        cfg,
        "--card",
        card.to_str().unwrap(),
        "--llm-url",
        &live,
        "--model",
        MODEL,
    ]);
    save("adjudicate.out", &format!("{out}{err}"));
    assert!(code == 0 || err.contains("below_floor"), "{out}{err}");
}
