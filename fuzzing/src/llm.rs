//! LLM replies: arbitrary bytes read as a chat-completions response body or as the
//! model's answer, through the functions the HTTP client runs on every reply.
//!
//! The first byte picks the path and the confidence floor; for a body, optionally an
//! HTTP status from the next two. Checks: a body gives an answer only when it is UTF-8,
//! has a 2xx status and a first choice with text; every failure is the fallback reason
//! its bytes call for; a verdict has a confidence in `[floor, 1]` and survives the trip
//! through its JSON form (the trace records it and replays it bit for bit); fallback
//! tags read back as the reason; the kept reply never holds the API key.

use gatecrew_gating::llm::{ChatResponse, FallbackReason, keep_reply, parse_verdict, read_reply_body};
use gatecrew_protocol::trace::Decision;

/// A key as the client would hold it; the dictionary plants it in inputs.
const KEY: &str = "sk-fuzz-0123456789";

/// The `llm_reply` target.
pub fn llm_reply(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let floor = f64::from(mode & 0x3f) / 63.0;
    if mode & 0x80 != 0 {
        if let Ok(content) = std::str::from_utf8(rest) {
            answer(content, floor);
            keep(content, usize::from(mode & 0x3f) * 16);
        }
        return;
    }
    let (status, body) = match (mode & 0x40 != 0, rest) {
        (true, [hi, lo, body @ ..]) => (u16::from_be_bytes([*hi, *lo]), body),
        _ => (200, rest),
    };
    body_path(status, body, floor);
}

fn body_path(status: u16, body: &[u8], floor: f64) {
    let text = std::str::from_utf8(body);
    match read_reply_body(status, body.to_vec()) {
        Ok((content, _usage)) => {
            let text = text.expect("an answer from a body that is not UTF-8");
            assert!((200..300).contains(&status), "an answer with status {status}");
            let parsed: ChatResponse = serde_json::from_str(text).expect("an answer from a body that does not parse");
            assert_eq!(parsed.content().map(|(c, _)| c), Some(content.as_str()), "not the first choice's text");
            answer(&content, floor);
        }
        Err((reason, kept, _)) => {
            tag_round_trip(reason);
            match text {
                Err(_) => assert_eq!(reason, FallbackReason::NonUtf8),
                Ok(t) => {
                    assert_eq!(kept, t, "the failed body is not kept as it came");
                    if !(200..300).contains(&status) {
                        assert_eq!(reason, FallbackReason::Http(status));
                    } else {
                        assert!(
                            matches!(reason, FallbackReason::MalformedJson | FallbackReason::TruncatedJson),
                            "{reason:?} for a readable 2xx body"
                        );
                    }
                }
            }
        }
    }
}

/// The model's answer: `{"decision": ..., "confidence": ...}` and nothing else.
fn answer(content: &str, floor: f64) {
    match parse_verdict(content, floor) {
        Ok(v) => {
            assert!((0.0..=1.0).contains(&v.confidence) && v.confidence >= floor, "{v:?} with floor {floor}");
            let value: serde_json::Value = serde_json::from_str(content.trim()).expect("a verdict from bad JSON");
            let said = value.get("decision").and_then(serde_json::Value::as_str);
            assert_eq!(said, Some(decision_name(v.decision)));
            // The trace writes the verdict and the replay reads it back: exactly.
            let written = serde_json::json!({"decision": decision_name(v.decision), "confidence": v.confidence});
            let again = parse_verdict(&written.to_string(), floor);
            assert_eq!(again.map(|a| (a.decision, a.confidence.to_bits())), Ok((v.decision, v.confidence.to_bits())));
        }
        Err((reason, stated)) => {
            tag_round_trip(reason);
            match reason {
                FallbackReason::BelowFloor => {
                    let c = stated.expect("below the floor without a confidence");
                    assert!((0.0..floor).contains(&c), "{c} is not below {floor}");
                }
                FallbackReason::ConfidenceOutOfRange => {
                    let c = stated.expect("out of range without a confidence");
                    assert!(!(0.0..=1.0).contains(&c), "{c} is in range");
                }
                FallbackReason::MalformedJson | FallbackReason::TruncatedJson | FallbackReason::UnknownDecision => {}
                other => panic!("{other:?} cannot come from parsing an answer"),
            }
        }
    }
    // Any text that reads as a fallback tag reads back the same after printing.
    if let Ok(r) = content.parse::<FallbackReason>() {
        tag_round_trip(r);
    }
}

fn tag_round_trip(r: FallbackReason) {
    assert_eq!(r.tag().parse::<FallbackReason>(), Ok(r), "tag {}", r.tag());
}

/// The reply kept for the trace: capped on a character boundary, the key cut out.
fn keep(text: &str, cap: usize) {
    let kept = keep_reply(text, Some(KEY), cap);
    assert!(kept.len() <= cap, "kept {} bytes over a cap of {cap}", kept.len());
    assert!(text.replace(KEY, "[redacted]").starts_with(&kept), "the kept reply is not a prefix");
    assert!(!kept.contains(KEY), "the API key reached the kept reply");
    assert_eq!(keep_reply(text, None, usize::MAX), text);
}

fn decision_name(d: Decision) -> &'static str {
    match d {
        Decision::StayLocal => "stay_local",
        Decision::Escalate => "escalate",
    }
}
