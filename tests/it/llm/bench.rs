//! `gatecrew bench-llm`: the latency profile of the `llm` executor model,
//! fitted from a real server's own token counts; bad endpoints fail with what was wrong.

use gatecrew_gating::llm::LlmProfile;

use super::fake::{Fake, Reply};
use super::server::{live_turn, live_url};
use super::{MODEL, gatecrew};

#[test]
fn a_profile_is_fitted_from_the_live_servers_token_counts() {
    let url = live_url();
    let _turn = live_turn();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("profile.toml");
    let args = [
        "bench-llm",
        "--llm-url",
        &url,
        "--model",
        MODEL,
        "--prompts",
        "40,200",
        "--completions",
        "4,16",
        "--repeat",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, _, err) = gatecrew(&args);
    assert_eq!(code, 0, "{err}");
    let p = LlmProfile::load(&out).unwrap();
    assert_eq!((p.model.as_str(), p.latency.samples), (MODEL, 4));
    assert!(p.source.starts_with("measured: gatecrew bench-llm") && p.source.contains("4 requests"), "{}", p.source);
    assert!(p.latency.r2.is_some());
    // The table of samples: the server's counts, larger prompts counted larger.
    let rows: Vec<(u32, u32)> = err
        .lines()
        .filter_map(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            (v.len() == 3).then(|| Some((v[0].parse().ok()?, v[1].parse().ok()?))).flatten()
        })
        .collect();
    assert_eq!(rows.len(), 4, "{err}");
    assert!(rows[2].0 > rows[0].0 + 100, "prompt tokens as the server counted them: {rows:?}");
    assert!(rows.iter().all(|r| r.1 <= 16), "{rows:?}");
}

#[test]
fn endpoints_that_cannot_be_measured_say_why() {
    // Counts that never change: the line is not determined.
    let same = Fake::start(|_, _| Reply::Full { status: 200, body: super::fake::completion("1 2 3") });
    let (code, _, err) = gatecrew(&["bench-llm", "--llm-url", &same.url, "--model", "m", "--repeat", "1"]);
    assert_eq!(code, 1);
    assert!(err.contains("vary prompt and completion sizes independently"), "{err}");
    // No `usage` in the replies.
    let body = serde_json::json!({ "choices": [{ "message": { "content": "hi" } }] }).to_string().into_bytes();
    let no_usage = Fake::start(move |_, _| Reply::Full { status: 200, body: body.clone() });
    let (code, _, err) = gatecrew(&["bench-llm", "--llm-url", &no_usage.url, "--model", "m"]);
    assert_eq!(code, 1);
    assert!(err.contains("reports no token usage") && err.contains("warm-up"), "{err}");
    // Nobody listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dead = format!("http://127.0.0.1:{port}/v1");
    let (code, _, err) = gatecrew(&["bench-llm", "--llm-url", &dead, "--model", "m"]);
    assert_eq!(code, 1);
    assert!(err.contains(&format!("127.0.0.1:{port}")) && err.contains("failed"), "{err}");
    // Bad flags and bad profiles.
    let (code, _, err) = gatecrew(&["bench-llm", "--llm-url", &dead, "--model", "m", "--prompts", "0"]);
    assert_eq!((code, err.contains("sizes of at least 1")), (2, true), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("p.toml");
    std::fs::write(&bad, "model = \"m\"\nsource = \"\"\n[latency]\na = 1.0\nb = 0.0\nc = 1.0\n").unwrap();
    assert!(LlmProfile::load(&bad).unwrap_err().to_string().contains("source: say where the figures come from"));
    std::fs::write(&bad, "model = \"m\"\nsource = \"x\"\n[latency]\na = -1.0\nb = 0.0\nc = 1.0\n").unwrap();
    assert!(LlmProfile::load(&bad).unwrap_err().to_string().contains("latency.a: -1"));
    std::fs::write(&bad, "model = \"m\"\nsource = \"x\"\nspeed = 3\n[latency]\na = 1.0\nb = 0.0\nc = 1.0\n").unwrap();
    assert!(LlmProfile::load(&bad).unwrap_err().to_string().contains("speed"));
}

#[test]
fn the_shipped_profiles_load_and_say_where_their_numbers_come_from() {
    let dir = crate::common::root().join("configs/llm-profiles");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let p = LlmProfile::load(&path).unwrap_or_else(|err| panic!("{err}"));
        assert!(p.source.starts_with("measured: ") || p.source.starts_with("published: "), "{}", path.display());
        // A 300-token prompt and a 30-token answer: between a tick and a minute.
        assert!((1..=1200).contains(&p.latency.ticks(300, 30)), "{}: {:?}", path.display(), p.latency);
        n += 1;
    }
    assert!(n >= 1);
}
