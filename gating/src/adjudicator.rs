//! Tier 3: the gray-zone adjudicator (DESIGN section 5.4). A binary classifier over a
//! compact decision card, never a planner. This module holds the card, the verdict,
//! the [`Adjudicator`] trait and the deterministic ("Rule + Score") adjudicator. The
//! language-model adjudicator is in [`crate::llm`].

use gatecrew_protocol::trace::{Decision, FeatureVec, GateAction, IssueName};
use serde::{Deserialize, Serialize};

use crate::features::Features;
use crate::rules::local_action;

pub use crate::llm::FallbackReason;

/// The compact JSON card an adjudicator sees: no conversation, no board text, no
/// private history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionCard {
    /// The issue kind.
    pub issue: IssueName,
    /// The item, for material and tool issues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// How many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// The five features, as the gate computed them.
    pub f: FeatureVec,
    /// The normalised score, rounded to two decimals.
    pub s: f64,
    /// The options open to the agent.
    pub opts: Vec<GateAction>,
}

impl DecisionCard {
    /// The card for a gray-zone issue: the features, the score rounded to two decimals
    /// (more digits cost tokens and say nothing to a classifier), and the options open
    /// to the agent: its local action and the request.
    pub fn new(issue: IssueName, item: Option<String>, n: Option<u32>, features: Features, score: f64) -> Self {
        DecisionCard {
            issue,
            item,
            n,
            f: features.to_vec(),
            s: Self::card_score(score),
            opts: vec![local_action(features), GateAction::RequestMaterial],
        }
    }

    /// The score as a card shows it: two decimals.
    pub fn card_score(score: f64) -> f64 {
        (score * 100.0).round() / 100.0
    }

    /// The card as the model reads it: the same facts in fewer tokens. The features as
    /// one string (`"C3 A1 D3 R0 H0"`: 10 tokens fewer than the object with SmolLM2's
    /// tokenizer), and no `opts`: they follow from R (the local action is a recovery
    /// when R > 0, a skip otherwise; `rules::local_action`) and the answer names a
    /// decision, not an option (16 tokens fewer). Measured against the local llama.cpp
    /// server on the glass card of `llm::prompt`'s test: prompt 101 -> 74 tokens with
    /// the same system prompt (72 with today's).
    pub fn prompt(&self) -> String {
        #[derive(Serialize)]
        struct Prompt<'a> {
            issue: IssueName,
            #[serde(skip_serializing_if = "Option::is_none")]
            item: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            n: Option<u32>,
            f: String,
            s: f64,
        }
        let FeatureVec { c, a, d, r, h } = self.f;
        let card = Prompt {
            issue: self.issue,
            item: self.item.as_deref(),
            n: self.n,
            f: format!("C{c} A{a} D{d} R{r} H{h}"),
            s: self.s,
        };
        serde_json::to_string(&card).unwrap_or_default()
    }

    /// The card as one line of JSON, as the trace records it.
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
    pub fallback: Option<FallbackReason>,
}

impl Adjudication {
    /// An adjudication the fallback decided without a usable reply. `reply` is whatever
    /// came back (maybe nothing).
    pub fn fallback(verdict: Verdict, reason: FallbackReason, reply: String, latency_ms: u64) -> Self {
        Adjudication { verdict, reply, prompt_tokens: 0, completion_tokens: 0, latency_ms, fallback: Some(reason) }
    }

    /// Prompt plus completion tokens.
    pub fn tokens(&self) -> u32 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// What decides when the adjudicator cannot (DESIGN 5.4: the deterministic
/// adjudicator's decision by default, `stay_local` selectable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FallbackPolicy {
    /// The deterministic adjudicator's decision.
    #[default]
    Deterministic,
    /// Always stay local.
    StayLocal,
}

impl FallbackPolicy {
    /// The fallback's decision on a card. Its confidence is 0: nobody stated one.
    pub fn verdict(self, det: Deterministic, r: u8, score: f64) -> Verdict {
        let decision = match self {
            FallbackPolicy::Deterministic => det.verdict(r, score).decision,
            FallbackPolicy::StayLocal => Decision::StayLocal,
        };
        Verdict { decision, confidence: 0.0 }
    }
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
