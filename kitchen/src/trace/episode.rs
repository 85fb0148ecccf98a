//! One episode as its trace tells it: the counts behind CoS, the messages, the model's
//! calls and tokens, and the two completion rates.

use serde::Serialize;

use super::event::EpisodeId;
use crate::cos::TimingMode;
use crate::executor::ExecutorKind;
use crate::policy::PolicyKind;

/// One episode as a trace tells it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KitchenEpisode {
    /// The episode.
    pub ep: EpisodeId,
    /// The level.
    pub level: String,
    /// The policy.
    pub policy: PolicyKind,
    /// Agents.
    pub agents: u32,
    /// The interval factor.
    pub factor: f64,
    /// The timing.
    pub timing: TimingMode,
    /// The executor.
    pub executor: ExecutorKind,
    /// The world's seed.
    pub seed: u64,
    /// Steps run.
    pub steps: u32,
    /// Orders completed.
    pub completed: u32,
    /// Orders failed.
    pub failed: u32,
    /// Orders pending at the end.
    pub pending: u32,
    /// Public messages.
    pub messages: u64,
    /// Model calls.
    pub llm_calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
}

impl KitchenEpisode {
    /// `completed / (completed + failed)`, 0 when nothing was resolved (the paper's
    /// formula; the same arithmetic as [`crate::EpisodeOutcome::rate_pending_excluded`]).
    pub fn rate_pending_excluded(&self) -> f64 {
        crate::cos::ratio(self.completed, self.completed + self.failed)
    }

    /// `completed / (completed + failed + pending)` (MindAgent's script).
    pub fn rate_pending_failed(&self) -> f64 {
        crate::cos::ratio(self.completed, self.completed + self.failed + self.pending)
    }
}
