//! What a run's tier-3 adjudications cost: calls, tokens (total and per call p50/p95),
//! latency, fallbacks by reason. Folded from the trace's `adjudication` events.

use std::collections::BTreeMap;

use gatecrew_protocol::trace::{Event, EventKind};
use serde::Serialize;

/// Running tallies.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    tokens: Vec<u64>,
    latency_ms: Vec<u64>,
    fallbacks: BTreeMap<String, u64>,
    model_answers: u64,
}

/// The summary the report prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdjudicationSummary {
    /// Adjudications entered into the episode.
    pub calls: u64,
    /// Of which the model's verdict decided.
    pub model_verdicts: u64,
    /// Of which a fallback decided.
    pub fallbacks: u64,
    /// Fallbacks by reason.
    pub fallback_reasons: BTreeMap<String, u64>,
    /// Prompt + completion tokens in all.
    pub tokens: u64,
    /// Tokens per adjudication, median.
    pub tokens_p50: u64,
    /// Tokens per adjudication, 95th percentile.
    pub tokens_p95: u64,
    /// Latency, median, ms.
    pub latency_p50_ms: u64,
    /// Latency, 95th percentile, ms.
    pub latency_p95_ms: u64,
}

/// Nearest-rank percentile of unsorted values (0 for none).
pub fn percentile(values: &[u64], p: f64) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let mut v = values.to_vec();
    v.sort_unstable();
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v[rank.min(v.len()) - 1]
}

impl Tally {
    /// Folds one event in.
    pub fn observe(&mut self, ev: &Event) {
        if let EventKind::Adjudication { prompt_tokens, completion_tokens, latency_ms, fallback, .. } = &ev.kind {
            self.tokens.push(u64::from(*prompt_tokens) + u64::from(*completion_tokens));
            self.latency_ms.push(*latency_ms);
            match fallback {
                Some(r) => *self.fallbacks.entry(r.tag()).or_insert(0) += 1,
                None => self.model_answers += 1,
            }
        }
    }

    /// The summary, if there were adjudications or the run could have had some.
    pub fn summary(&self) -> AdjudicationSummary {
        AdjudicationSummary {
            calls: self.tokens.len() as u64,
            model_verdicts: self.model_answers,
            fallbacks: self.fallbacks.values().sum(),
            fallback_reasons: self.fallbacks.clone(),
            tokens: self.tokens.iter().sum(),
            tokens_p50: percentile(&self.tokens, 50.0),
            tokens_p95: percentile(&self.tokens, 95.0),
            latency_p50_ms: percentile(&self.latency_ms, 50.0),
            latency_p95_ms: percentile(&self.latency_ms, 95.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn nearest_rank_percentiles() {
        assert_eq!(percentile(&[], 50.0), 0);
        assert_eq!(percentile(&[7], 95.0), 7);
        let v: Vec<u64> = (1..=20).rev().collect();
        assert_eq!((percentile(&v, 50.0), percentile(&v, 95.0)), (10, 19));
    }
}
