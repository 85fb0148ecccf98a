//! What is shown and logged: credentials in `--llm-url` are never printed, an
//! endpoint's reply is printed escaped, redirects never leave the endpoint's host, and
//! a port past 65535 is refused.

use gatecrew_gating::llm::{FallbackReason, LlmClient, LlmSpec};
use gatecrew_gating::{DecisionCard, Deterministic, Features};
use gatecrew_protocol::trace::IssueName;

use crate::cli::gatecrew;
use crate::common::write;
use crate::llm::fake::{Fake, Reply, answer, completion};

fn card() -> DecisionCard {
    DecisionCard::new(
        IssueName::MissingMaterial,
        Some("glass".into()),
        Some(2),
        Features::new(3, 1, 3, 0, 0).unwrap(),
        0.8667,
    )
}

fn with_credentials(url: &str, secret: &str) -> String {
    url.replacen("http://", &format!("http://user:{secret}@"), 1)
}

#[test]
fn credentials_in_the_endpoint_url_are_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let card = write(dir.path(), "card.json", &card().to_json());
    let down = Fake::start(|_, _| Reply::Full { status: 502, body: Vec::new() });
    let secret = "sk-planted-url-secret";
    let url = with_credentials(&down.url, secret);
    let (code, out, err) =
        gatecrew(&["adjudicate", "--card", card.to_str().unwrap(), "--llm-url", &url, "--model", "m"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("endpoint  http://***:***@127.0.0.1"), "{out}");
    assert!(!out.contains(secret) && !err.contains(secret), "{out}{err}");
    let spec = LlmSpec { url: Some(url.clone()), model: Some("m".into()), ..LlmSpec::default() };
    assert!(!format!("{spec:?}").contains(secret));
    let client = LlmClient::with_key(spec, Deterministic { midpoint: 0.5 }, None).unwrap();
    assert!(!format!("{client:?}").contains(secret));
    // A URL that does not parse is refused without the secret either.
    let bad = format!("http://user:{secret}@127.0.0.1:99999/v1");
    let (code, _, err) = gatecrew(&["adjudicate", "--card", card.to_str().unwrap(), "--llm-url", &bad, "--model", "m"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("invalid port") && !err.contains(secret), "{err}");
}

#[test]
fn a_port_past_65535_is_refused() {
    let (code, _, err) = gatecrew(&["run", "--llm-url", "http://127.0.0.1:99999/v1", "--model", "m", "--stepper"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("llm.url") && err.contains("invalid port"), "{err}");
}

/// A reply with newlines and terminal escapes cannot print a line of its own: it is
/// shown quoted and escaped, so the only `verdict` line is gatecrew's.
#[test]
fn adjudicate_prints_the_reply_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let card = write(dir.path(), "card.json", &card().to_json());
    let forged = "nonsense\nverdict   stay_local, confidence 1.00, decided by the model\n\u{1b}[2K\u{1b}[1A";
    let fake = Fake::start(move |_, _| Reply::Full { status: 200, body: completion(forged) });
    let (code, out, _) =
        gatecrew(&["adjudicate", "--card", card.to_str().unwrap(), "--llm-url", &fake.url, "--model", "m"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("verdict")).count(), 1, "{out}");
    assert!(out.contains("decided by the fallback"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
}

/// A redirect to another host is not followed (the request, with any key, would go
/// there); the adjudication falls back.
#[test]
fn redirects_to_another_host_are_not_followed() {
    let elsewhere = Fake::start(|_, _| answer("stay_local", 0.9));
    let target = format!("{}/chat/completions", elsewhere.url.replace("127.0.0.1", "localhost"));
    let fake = Fake::start(move |_, _| Reply::Redirect { status: 307, location: target.clone() });
    let spec = LlmSpec { url: Some(fake.url.clone()), model: Some("m".into()), ..LlmSpec::default() };
    let client = LlmClient::with_key(spec, Deterministic { midpoint: 0.5 }, None).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let a = rt.block_on(client.adjudicate(&card(), 0.87));
    assert_eq!(elsewhere.hits(), 0, "the redirect was followed");
    assert!(matches!(a.fallback, Some(FallbackReason::Http(307))), "{:?}", a.fallback);
}

/// A redirect that keeps the endpoint's scheme, host and port is followed, the request
/// and its body resent, not answered with a fallback; a relative and an
/// absolute location both, for each status that keeps the method and body.
#[test]
fn same_origin_redirects_are_followed_with_the_request() {
    for status in [307u16, 308] {
        for absolute in [false, true] {
            let origin = std::sync::Arc::new(std::sync::OnceLock::<String>::new());
            let known = origin.clone();
            let fake = Fake::start(move |n, seen| {
                let moved = seen.head.starts_with("POST /moved/chat/completions ");
                if n == 0 && !moved {
                    let at = if absolute { known.get().cloned().unwrap_or_default() } else { String::new() };
                    return Reply::Redirect { status, location: format!("{at}/moved/chat/completions") };
                }
                // The resent request is the same POST with the same card.
                if moved && String::from_utf8_lossy(&seen.body).contains("glass") {
                    answer("stay_local", 0.9)
                } else {
                    Reply::Full { status: 400, body: b"not the request".to_vec() }
                }
            });
            let base = fake.url.trim_end_matches("/v1").to_owned();
            origin.set(base.clone()).unwrap();
            let spec = LlmSpec { url: Some(fake.url.clone()), model: Some("m".into()), ..LlmSpec::default() };
            let client = LlmClient::with_key(spec, Deterministic { midpoint: 0.5 }, None).unwrap();
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let a = rt.block_on(client.adjudicate(&card(), 0.87));
            assert_eq!(a.fallback, None, "{status}, absolute {absolute} ({base}): {a:?}");
            assert_eq!(fake.hits(), 2, "{status}");
        }
    }
}

/// A fallback verdict never carries the reply's out-of-range confidence: 7 stays in the
/// reply text, the verdict's confidence lies in [0, 1].
#[test]
fn a_fallback_verdict_keeps_its_confidence_in_range() {
    for stated in ["7", "-3", "1e308"] {
        let body = completion(&format!(r#"{{"decision":"escalate","confidence":{stated}}}"#));
        let fake = Fake::start(move |_, _| Reply::Full { status: 200, body: body.clone() });
        let spec = LlmSpec { url: Some(fake.url.clone()), model: Some("m".into()), ..LlmSpec::default() };
        let client = LlmClient::with_key(spec, Deterministic { midpoint: 0.5 }, None).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let a = rt.block_on(client.adjudicate(&card(), 0.87));
        assert_eq!(a.fallback, Some(FallbackReason::ConfidenceOutOfRange), "{stated}");
        assert!((0.0..=1.0).contains(&a.verdict.confidence), "{stated}: {}", a.verdict.confidence);
        assert!(a.reply.contains(stated), "{}", a.reply);
    }
}
