//! Why a tier-3 adjudication was decided by the fallback instead of the model: the
//! `fallback` field of an `adjudication` event. It lives with the trace so that the
//! event carries the type and a replay reads it back as one; the gate's LLM client
//! (`gatecrew-gating`) produces it. Serialised as [`FallbackReason::tag`], the string
//! the trace has always carried.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why the fallback decided instead of the model. The trace writes [`Self::tag`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FallbackReason {
    /// No complete answer within the timeout.
    Timeout,
    /// Nothing listens at the address.
    ConnectionRefused,
    /// Another transport failure (DNS, TLS, reset connection).
    Transport,
    /// The server answered with an HTTP error status.
    Http(u16),
    /// The body was larger than the configured cap.
    BodyTooLarge,
    /// The body was not UTF-8.
    NonUtf8,
    /// The body or the answer was not the JSON expected.
    MalformedJson,
    /// The answer stopped in the middle of the JSON (e.g. `max_tokens` reached).
    TruncatedJson,
    /// `decision` was neither `stay_local` nor `escalate`.
    UnknownDecision,
    /// `confidence` was not a number in `[0, 1]`.
    ConfidenceOutOfRange,
    /// `confidence` was below the configured floor.
    BelowFloor,
    /// The circuit breaker is open: no call was made.
    BreakerOpen,
}

impl FallbackReason {
    /// The trace tag, e.g. `timeout`, `http_503`.
    pub fn tag(self) -> String {
        match self {
            FallbackReason::Http(status) => format!("http_{status}"),
            other => other.class().to_owned(),
        }
    }

    /// A bounded label for metrics: like the tag, with HTTP statuses grouped
    /// (`http_4xx`, `http_5xx`).
    pub fn class(self) -> &'static str {
        match self {
            FallbackReason::Timeout => "timeout",
            FallbackReason::ConnectionRefused => "connection_refused",
            FallbackReason::Transport => "transport",
            FallbackReason::Http(s) if (400..500).contains(&s) => "http_4xx",
            FallbackReason::Http(s) if (500..600).contains(&s) => "http_5xx",
            FallbackReason::Http(_) => "http_other",
            FallbackReason::BodyTooLarge => "body_too_large",
            FallbackReason::NonUtf8 => "non_utf8",
            FallbackReason::MalformedJson => "malformed_json",
            FallbackReason::TruncatedJson => "truncated_json",
            FallbackReason::UnknownDecision => "unknown_decision",
            FallbackReason::ConfidenceOutOfRange => "confidence_out_of_range",
            FallbackReason::BelowFloor => "below_floor",
            FallbackReason::BreakerOpen => "breaker_open",
        }
    }

    /// Whether this counts as a failure of the endpoint for the circuit breaker. A model
    /// that answered well-formed but unsure did not fail, and a call never made cannot.
    pub fn is_failure(self) -> bool {
        !matches!(self, FallbackReason::BelowFloor | FallbackReason::BreakerOpen)
    }
}

impl fmt::Display for FallbackReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tag())
    }
}

/// A trace tag that names no fallback reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fallback reason \"{0}\"")]
pub struct UnknownFallback(pub String);

impl FromStr for FallbackReason {
    type Err = UnknownFallback;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        use FallbackReason::*;
        let all = [
            Timeout,
            ConnectionRefused,
            Transport,
            BodyTooLarge,
            NonUtf8,
            MalformedJson,
            TruncatedJson,
            UnknownDecision,
            ConfidenceOutOfRange,
            BelowFloor,
            BreakerOpen,
        ];
        if let Some(r) = all.into_iter().find(|r| r.class() == s) {
            return Ok(r);
        }
        s.strip_prefix("http_")
            .and_then(|n| n.parse::<u16>().ok())
            .map(Http)
            .ok_or_else(|| UnknownFallback(s.to_owned()))
    }
}

impl Serialize for FallbackReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.tag())
    }
}

impl<'de> Deserialize<'de> for FallbackReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let tag = String::deserialize(d)?;
        tag.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::FallbackReason::{self, *};

    #[test]
    fn serialises_to_its_tag_and_back() {
        for r in [Timeout, Http(503), Http(404), BreakerOpen, ConfidenceOutOfRange] {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.tag()));
            assert_eq!(serde_json::from_str::<FallbackReason>(&json).unwrap(), r);
        }
        assert!(serde_json::from_str::<FallbackReason>("\"http_x\"").is_err());
    }
}
