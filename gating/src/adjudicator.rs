//! Tier 3: the gray-zone adjudicator (DESIGN section 5.4). A binary classifier over a
//! compact decision card, never a planner. This module holds the card, the verdict,
//! the [`Adjudicator`] trait and the deterministic ("Rule + Score") adjudicator.

use gatecrew_protocol::trace::{Decision, FeatureVec, GateAction, IssueName};
use serde::Serialize;

/// The compact JSON card an adjudicator sees: no conversation, no board text, no
/// private history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionCard {
    /// The issue kind.
    pub issue: IssueName,
    /// The item, for material and tool issues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// How many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// The features.
    pub f: FeatureVec,
    /// The normalised score, rounded to two decimals.
    pub s: f64,
    /// The options open to the agent.
    pub opts: Vec<GateAction>,
}

impl DecisionCard {
    /// The card as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The card as a JSON value (for the trace).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// An adjudicator's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// Stay local or escalate.
    pub decision: Decision,
    /// Stated confidence in `[0, 1]`.
    pub confidence: f64,
}

/// A completed adjudication, as the trace records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Adjudication {
    /// The verdict used (the fallback's, if one decided).
    pub verdict: Verdict,
    /// The raw reply text.
    pub reply: String,
    /// Prompt tokens as reported by the server.
    pub prompt_tokens: u32,
    /// Completion tokens.
    pub completion_tokens: u32,
    /// Round trip in milliseconds.
    pub latency_ms: u64,
    /// Why the fallback decided, if it did.
    pub fallback: Option<String>,
}

/// Something that settles gray-zone cases. `score` is the unrounded normalised score.
pub trait Adjudicator {
    /// Decides one card.
    fn adjudicate(&mut self, card: &DecisionCard, score: f64) -> Adjudication;

    /// Whether this adjudicator calls a language model (its adjudications are traced).
    fn is_llm(&self) -> bool {
        false
    }
}

/// The deterministic adjudicator: escalate if no local way exists (R = 0) or the score
/// reaches the middle of the gray zone; otherwise stay local.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deterministic {
    /// `(theta_low + theta_high) / 2`.
    pub midpoint: f64,
}

impl Deterministic {
    /// The verdict, without the bookkeeping.
    pub fn verdict(&self, r: u8, score: f64) -> Verdict {
        let decision = if r == 0 || score >= self.midpoint { Decision::Escalate } else { Decision::StayLocal };
        Verdict { decision, confidence: 1.0 }
    }
}

impl Adjudicator for Deterministic {
    fn adjudicate(&mut self, card: &DecisionCard, score: f64) -> Adjudication {
        Adjudication {
            verdict: self.verdict(card.f.r, score),
            reply: String::new(),
            prompt_tokens: 0,
            completion_tokens: 0,
            latency_ms: 0,
            fallback: None,
        }
    }
}
