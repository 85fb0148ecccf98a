//! The means of `gatecrew cos`: one line per policy and crew size over the chosen
//! levels (the second table, and `means` in `--json`).

use gatecrew_kitchen::{CosRow, PolicyKind};
use serde::Serialize;

/// One policy and crew size over the chosen levels.
#[derive(Debug, Serialize)]
pub struct Mean {
    pub policy: PolicyKind,
    pub agents: usize,
    pub levels: usize,
    pub cos_pending_excluded: f64,
    pub cos_pending_failed: f64,
    pub messages_per_episode: f64,
    pub calls_per_episode: f64,
    pub prompt_tokens_per_call: f64,
    pub completion_tokens_per_call: f64,
    pub mistakes_per_episode: f64,
    pub model_seconds_per_episode: f64,
    pub wait_seconds_per_episode: f64,
    /// A real model's invalid commands and fallbacks (`--llm-url` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid_commands_per_episode: Option<f64>,
    /// See `invalid_commands_per_episode`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallbacks_per_episode: Option<f64>,
}

/// The means of `rows` per policy and crew size; `live` adds the real model's counts.
pub fn means(rows: &[CosRow], policies: &[PolicyKind], agents: &[usize], live: bool) -> Vec<Mean> {
    let mut out = Vec::new();
    for &policy in policies {
        for &n in agents {
            let mine: Vec<&CosRow> = rows.iter().filter(|r| r.policy == policy && r.spec.agents == n).collect();
            let k = mine.len().max(1) as f64;
            let episodes = mine.iter().map(|r| r.episodes.len()).sum::<usize>().max(1) as f64;
            let sum = |f: fn(&CosRow) -> f64| mine.iter().map(|r| f(r)).sum::<f64>();
            let calls = sum(|r| r.model.calls as f64);
            let per_call = |x: f64| if calls > 0.0 { x / calls } else { 0.0 };
            out.push(Mean {
                policy,
                agents: n,
                levels: mine.len(),
                cos_pending_excluded: mine.iter().map(|r| r.cos_pending_excluded).sum::<f64>() / k,
                cos_pending_failed: mine.iter().map(|r| r.cos_pending_failed).sum::<f64>() / k,
                messages_per_episode: sum(|r| r.messages as f64) / episodes,
                calls_per_episode: calls / episodes,
                prompt_tokens_per_call: per_call(sum(|r| r.model.prompt_tokens as f64)),
                completion_tokens_per_call: per_call(sum(|r| r.model.completion_tokens as f64)),
                mistakes_per_episode: sum(|r| r.model.mistakes as f64) / episodes,
                model_seconds_per_episode: sum(|r| r.model.model_seconds) / episodes,
                wait_seconds_per_episode: sum(|r| r.model.wait_seconds) / episodes,
                invalid_commands_per_episode: live.then(|| sum(|r| r.model.invalid_commands as f64) / episodes),
                fallbacks_per_episode: live.then(|| sum(|r| r.model.fallbacks as f64) / episodes),
            });
        }
    }
    out
}
