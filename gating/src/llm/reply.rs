//! Reading the model's answer, and every way an adjudication can fail.

use gatecrew_protocol::trace::Decision;
use serde_json::Value;

use super::wire::{ChatResponse, Usage};
use crate::adjudicator::Verdict;

// The reason lives with the trace, which records it (`gatecrew_protocol::trace`).
pub use gatecrew_protocol::trace::{FallbackReason, UnknownFallback};

/// A response body that gave no answer: why, the body as text (lossy when it was not
/// UTF-8) and the token counts when the body had them.
pub type BodyFailure = (FallbackReason, String, Option<Usage>);

/// Reads a complete chat-completions response (HTTP `status` and the body, already
/// capped): the first choice's text and the token counts. Pure, so that the fuzzer and
/// the tests run exactly what the client runs on every reply.
pub fn read_reply_body(status: u16, bytes: Vec<u8>) -> Result<(String, Usage), BodyFailure> {
    let text = String::from_utf8(bytes)
        .map_err(|e| (FallbackReason::NonUtf8, String::from_utf8_lossy(e.as_bytes()).into_owned(), None))?;
    if !(200..300).contains(&status) {
        return Err((FallbackReason::Http(status), text, None));
    }
    let parsed: ChatResponse = match serde_json::from_str(&text) {
        Ok(p) => p,
        Err(e) => {
            let reason = if e.is_eof() { FallbackReason::TruncatedJson } else { FallbackReason::MalformedJson };
            return Err((reason, text, None));
        }
    };
    let usage = parsed.usage.unwrap_or_default();
    match parsed.content() {
        Some((content, _)) => Ok((content.to_owned(), usage)),
        None => Err((FallbackReason::MalformedJson, text, Some(usage))),
    }
}

/// A reply as the trace keeps it: every occurrence of the API key replaced by
/// `[redacted]`, then cut to at most `cap` bytes on a character boundary.
pub fn keep_reply(text: &str, key: Option<&str>, cap: usize) -> String {
    let mut s = match key {
        Some(k) if !k.is_empty() => text.replace(k, "[redacted]"),
        _ => text.to_owned(),
    };
    if s.len() > cap {
        let mut end = cap;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// Reads the model's answer. `Err` carries the reason and, when the model stated a
/// confidence, that confidence (for the record).
pub fn parse_verdict(content: &str, floor: f64) -> Result<Verdict, (FallbackReason, Option<f64>)> {
    let v: Value = serde_json::from_str(content.trim()).map_err(|e| {
        let reason = if e.is_eof() { FallbackReason::TruncatedJson } else { FallbackReason::MalformedJson };
        (reason, None)
    })?;
    let Some(obj) = v.as_object() else {
        return Err((FallbackReason::MalformedJson, None));
    };
    let confidence = obj.get("confidence").and_then(Value::as_f64);
    let decision = match obj.get("decision").and_then(Value::as_str) {
        Some("stay_local") => Decision::StayLocal,
        Some("escalate") => Decision::Escalate,
        Some(_) => return Err((FallbackReason::UnknownDecision, confidence)),
        None => return Err((FallbackReason::MalformedJson, confidence)),
    };
    let Some(c) = confidence else {
        return Err((FallbackReason::MalformedJson, None));
    };
    if !(0.0..=1.0).contains(&c) {
        return Err((FallbackReason::ConfidenceOutOfRange, Some(c)));
    }
    if c < floor {
        return Err((FallbackReason::BelowFloor, Some(c)));
    }
    Ok(Verdict { decision, confidence: c })
}

#[cfg(test)]
mod tests {
    use super::*;
    use FallbackReason::*;

    #[test]
    fn good_answers_parse_with_or_without_whitespace() {
        assert_eq!(
            parse_verdict(r#"{"decision":"escalate","confidence":0.8}"#, 0.5),
            Ok(Verdict { decision: Decision::Escalate, confidence: 0.8 })
        );
        assert_eq!(
            parse_verdict(" {\"decision\": \"stay_local\", \"confidence\": 1}\n", 0.5),
            Ok(Verdict { decision: Decision::StayLocal, confidence: 1.0 })
        );
    }

    #[test]
    fn each_bad_answer_has_its_reason() {
        let r = |s: &str| parse_verdict(s, 0.5).unwrap_err().0;
        assert_eq!(r(r#"{"decision":"escalate","confi"#), TruncatedJson);
        assert_eq!(r("sure, escalate"), MalformedJson);
        assert_eq!(r("[1]"), MalformedJson);
        assert_eq!(r(r#"{"decision":"escalate"}"#), MalformedJson);
        assert_eq!(r(r#"{"decision":"ask_mom","confidence":0.9}"#), UnknownDecision);
        assert_eq!(r(r#"{"decision":"escalate","confidence":1.7}"#), ConfidenceOutOfRange);
        assert_eq!(parse_verdict(r#"{"decision":"escalate","confidence":0.3}"#, 0.5), Err((BelowFloor, Some(0.3))));
    }

    #[test]
    fn tags_round_trip() {
        for r in [Timeout, ConnectionRefused, Http(503), Http(401), BodyTooLarge, NonUtf8, BelowFloor, BreakerOpen] {
            assert_eq!(r.tag().parse::<FallbackReason>(), Ok(r));
        }
        assert_eq!(Http(503).class(), "http_5xx");
        assert!("http_x".parse::<FallbackReason>().is_err());
        assert!(!BelowFloor.is_failure() && Timeout.is_failure());
    }
}
