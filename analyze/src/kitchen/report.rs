//! CoS from kitchen episodes, per level, policy and crew size (and timing and executor,
//! which a folder may mix), and the means over levels, as `gatecrew cos` prints them.
//!
//! The arithmetic is `gatecrew cos`'s, in the same order, so the figures are equal to
//! the last bit: a factor's rate is the mean over its episodes (one per seed), and CoS
//! is the sum of the factors' rates in ascending factor order divided by their number
//! (`CosRow::from_episodes`); the means over levels divide sums by counts as
//! `gatecrew cos` does. Both variants are reported and labelled: **pending excluded**
//! (the paper's formula) and **pending = failed** (MindAgent's script).

use std::collections::BTreeMap;

use gatecrew_kitchen::trace::KitchenEpisode;
use gatecrew_kitchen::{ExecutorKind, PolicyKind, TimingMode};
use serde::Serialize;

/// One factor of a row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FactorCell {
    /// The interval factor.
    pub factor: f64,
    /// Episodes at it (one per seed).
    pub episodes: usize,
    /// Mean `completed / (completed + failed)`.
    pub rate_pending_excluded: f64,
    /// Mean `completed / (completed + failed + pending)`.
    pub rate_pending_failed: f64,
    /// Orders completed, failed and pending, summed.
    pub completed: u64,
    /// See `completed`.
    pub failed: u64,
    /// See `completed`.
    pub pending: u64,
}

/// One level under one policy, crew size, timing and executor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KitchenRow {
    /// The level.
    pub level: String,
    /// The policy.
    pub policy: PolicyKind,
    /// Crew size.
    pub agents: u32,
    /// The timing.
    pub timing: TimingMode,
    /// The executor.
    pub executor: ExecutorKind,
    /// Episodes.
    pub episodes: usize,
    /// Each factor, ascending.
    pub factors: Vec<FactorCell>,
    /// The paper's CoS: mean over factors of `completed / (completed + failed)`.
    pub cos_pending_excluded: f64,
    /// MindAgent's script's CoS: pending orders counted as failed.
    pub cos_pending_failed: f64,
    /// Public messages per episode.
    pub messages_per_episode: f64,
    /// Model calls per episode (llm executor).
    pub llm_calls_per_episode: f64,
    /// Prompt tokens per call.
    pub prompt_tokens_per_call: f64,
    /// Completion tokens per call.
    pub completion_tokens_per_call: f64,
    #[serde(skip)]
    sums: Sums,
}

/// Totals behind the per-episode and per-call figures.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Sums {
    messages: u64,
    calls: u64,
    prompt: u64,
    completion: u64,
}

/// One policy, crew size, timing and executor over its levels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KitchenMean {
    /// The policy.
    pub policy: PolicyKind,
    /// Crew size.
    pub agents: u32,
    /// The timing.
    pub timing: TimingMode,
    /// The executor.
    pub executor: ExecutorKind,
    /// Levels.
    pub levels: usize,
    /// Mean of the levels' CoS, pending excluded (the paper).
    pub cos_pending_excluded: f64,
    /// Mean of the levels' CoS, pending = failed (MindAgent's script).
    pub cos_pending_failed: f64,
    /// Public messages per episode.
    pub messages_per_episode: f64,
    /// Model calls per episode.
    pub llm_calls_per_episode: f64,
    /// Prompt tokens per call.
    pub prompt_tokens_per_call: f64,
    /// Completion tokens per call.
    pub completion_tokens_per_call: f64,
}

/// The kitchen section of `gatecrew analyze`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KitchenReport {
    /// Episodes.
    pub episodes: usize,
    /// Rows, by level (in number order), policy, crew size, timing, executor.
    pub rows: Vec<KitchenRow>,
    /// Means over levels.
    pub means: Vec<KitchenMean>,
}

/// `level_10` after `level_9`: the name's text, then its trailing number.
fn level_key(name: &str) -> (String, u64) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, num) = name.split_at(name.len() - digits);
    (stem.to_owned(), num.parse().unwrap_or(0))
}

fn policy_key(p: PolicyKind) -> usize {
    PolicyKind::ALL.iter().position(|&q| q == p).unwrap_or(usize::MAX)
}

fn per(x: u64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { x as f64 / n as f64 }
}

/// Sort keys of the timing and the executor (neither type is ordered).
fn timing_key(t: TimingMode) -> u8 {
    match t {
        TimingMode::File => 0,
        TimingMode::Oracle => 1,
    }
}

fn executor_key(e: ExecutorKind) -> u8 {
    match e {
        ExecutorKind::Scripted => 0,
        ExecutorKind::Llm => 1,
    }
}

type Setting = (usize, u32, u8, u8);

fn setting(r: &KitchenRow) -> Setting {
    (policy_key(r.policy), r.agents, timing_key(r.timing), executor_key(r.executor))
}

impl KitchenReport {
    /// Groups episodes and computes every figure.
    pub fn build(episodes: &[KitchenEpisode]) -> Self {
        type Key = ((String, u64), usize, u32, u8, u8, String);
        let mut groups: BTreeMap<Key, Vec<&KitchenEpisode>> = BTreeMap::new();
        for e in episodes {
            let key = (
                level_key(&e.level),
                policy_key(e.policy),
                e.agents,
                timing_key(e.timing),
                executor_key(e.executor),
                e.level.clone(),
            );
            groups.entry(key).or_default().push(e);
        }
        let rows: Vec<KitchenRow> = groups.into_values().map(|eps| row(&eps)).collect();
        let mut settings: Vec<Setting> = rows.iter().map(setting).collect();
        settings.sort_unstable();
        settings.dedup();
        let means = settings
            .into_iter()
            .map(|s| {
                let mine: Vec<&KitchenRow> = rows.iter().filter(|r| setting(r) == s).collect();
                let k = mine.len().max(1) as f64;
                let eps = mine.iter().map(|r| r.episodes as u64).sum::<u64>();
                let sum = |f: fn(&Sums) -> u64| mine.iter().map(|r| f(&r.sums)).sum::<u64>();
                let calls = sum(|s| s.calls);
                KitchenMean {
                    policy: mine[0].policy,
                    agents: s.1,
                    timing: mine[0].timing,
                    executor: mine[0].executor,
                    levels: mine.len(),
                    cos_pending_excluded: mine.iter().map(|r| r.cos_pending_excluded).sum::<f64>() / k,
                    cos_pending_failed: mine.iter().map(|r| r.cos_pending_failed).sum::<f64>() / k,
                    messages_per_episode: per(sum(|s| s.messages), eps),
                    llm_calls_per_episode: per(calls, eps),
                    prompt_tokens_per_call: per(sum(|s| s.prompt), calls),
                    completion_tokens_per_call: per(sum(|s| s.completion), calls),
                }
            })
            .collect();
        KitchenReport { episodes: episodes.len(), rows, means }
    }
}

/// One group's row: each factor's mean rate, then the mean over factors.
fn row(eps: &[&KitchenEpisode]) -> KitchenRow {
    let mut by_factor: BTreeMap<u64, Vec<&KitchenEpisode>> = BTreeMap::new();
    for e in eps {
        // Factors are finite and positive, so their bits sort as the numbers do.
        by_factor.entry(e.factor.to_bits()).or_default().push(e);
    }
    let factors: Vec<FactorCell> = by_factor
        .into_iter()
        .map(|(bits, es)| {
            let n = es.len() as f64;
            FactorCell {
                factor: f64::from_bits(bits),
                episodes: es.len(),
                rate_pending_excluded: es.iter().map(|e| e.rate_pending_excluded()).sum::<f64>() / n,
                rate_pending_failed: es.iter().map(|e| e.rate_pending_failed()).sum::<f64>() / n,
                completed: es.iter().map(|e| u64::from(e.completed)).sum(),
                failed: es.iter().map(|e| u64::from(e.failed)).sum(),
                pending: es.iter().map(|e| u64::from(e.pending)).sum(),
            }
        })
        .collect();
    let nf = factors.len().max(1) as f64;
    let sums = Sums {
        messages: eps.iter().map(|e| e.messages).sum(),
        calls: eps.iter().map(|e| e.llm_calls).sum(),
        prompt: eps.iter().map(|e| e.prompt_tokens).sum(),
        completion: eps.iter().map(|e| e.completion_tokens).sum(),
    };
    let n = eps.len() as u64;
    let first = eps[0];
    KitchenRow {
        level: first.level.clone(),
        policy: first.policy,
        agents: first.agents,
        timing: first.timing,
        executor: first.executor,
        episodes: eps.len(),
        cos_pending_excluded: factors.iter().map(|f| f.rate_pending_excluded).sum::<f64>() / nf,
        cos_pending_failed: factors.iter().map(|f| f.rate_pending_failed).sum::<f64>() / nf,
        factors,
        messages_per_episode: per(sums.messages, n),
        llm_calls_per_episode: per(sums.calls, n),
        prompt_tokens_per_call: per(sums.prompt, sums.calls),
        completion_tokens_per_call: per(sums.completion, sums.calls),
        sums,
    }
}
