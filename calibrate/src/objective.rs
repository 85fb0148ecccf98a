//! The calibration objective (DESIGN section 9).

use gatecrew_protocol::metrics::EpisodeMetrics;
use serde::{Deserialize, Serialize};

/// `J = mean(TSR) - l1 * T_rec / T_max - l2 * zero_yield - l3 * tokens / 1000`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Objective {
    /// Weight of local recovery time.
    pub l1: f64,
    /// Weight of zero-yield escalations.
    pub l2: f64,
    /// Weight of adjudication tokens (per thousand).
    pub l3: f64,
    /// Recovery time that counts as a full penalty, in ticks.
    pub t_max: f64,
    /// Tokens counted per tier-3 decision when no language model answered (the
    /// paper's budget per adjudication): without it the l3 term would be blind to the
    /// gray zone's width in offline runs.
    pub tokens_per_call: f64,
}

impl Default for Objective {
    fn default() -> Self {
        Objective { l1: 0.1, l2: 0.1, l3: 0.05, t_max: 600.0, tokens_per_call: 150.0 }
    }
}

/// The objective's parts on a set of episodes.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Score {
    /// The objective itself, the weighted sum of the parts below (higher is better).
    pub j: f64,
    /// Mean TSR.
    pub tsr: f64,
    /// Mean local recovery time per locally resolved issue, ticks.
    pub t_rec: f64,
    /// Escalations without a confirmed transfer / escalations.
    pub zero_yield: f64,
    /// Mean adjudication tokens per episode (measured, or modelled per tier-3 call).
    pub tokens: f64,
    /// Mean public messages per episode.
    pub msg: f64,
    /// Pooled unnecessary escalation rate.
    pub uer: f64,
    /// Pooled local resolution rate over material and tool issues (0 in results
    /// written before it was recorded).
    #[serde(default)]
    pub lrr: f64,
    /// Mean environment actions per episode (CS; 0 in results written before it was
    /// recorded).
    #[serde(default)]
    pub cs: f64,
    /// How many episodes the means are over.
    pub episodes: usize,
}

impl Objective {
    pub(crate) fn check(&self) -> Result<(), String> {
        let ok = [self.l1, self.l2, self.l3, self.tokens_per_call].iter().all(|v| v.is_finite() && *v >= 0.0);
        if !(ok && self.t_max.is_finite() && self.t_max > 0.0) {
            return Err("objective: lambdas and tokens_per_call must be >= 0 and t_max > 0".into());
        }
        Ok(())
    }

    /// Scores a set of episodes.
    pub fn score(&self, eps: &[&EpisodeMetrics]) -> Score {
        let n = eps.len().max(1) as f64;
        // Folded from +0: a float `sum` of nothing is -0, which a table shows as "-0.000".
        let sum = |f: &dyn Fn(&EpisodeMetrics) -> f64| eps.iter().map(|e| f(e)).fold(0.0, |a, b| a + b);
        let tsr = sum(&|e| e.tsr) / n;
        let (rec, local) = (sum(&|e| e.local_recovery_ticks as f64), sum(&|e| e.resolved_local as f64));
        let t_rec = if local > 0.0 { rec / local } else { 0.0 };
        let (esc, conf) = (sum(&|e| e.escalated as f64), sum(&|e| e.windows_confirmed as f64));
        let zero_yield = if esc > 0.0 { ((esc - conf) / esc).max(0.0) } else { 0.0 };
        let tokens =
            sum(&|e| if e.adjudications > 0 { e.tokens as f64 } else { e.gray as f64 * self.tokens_per_call }) / n;
        let uer = if esc > 0.0 { sum(&|e| e.escalated_unnecessary as f64) / esc } else { 0.0 };
        let j = tsr - self.l1 * t_rec / self.t_max - self.l2 * zero_yield - self.l3 * tokens / 1000.0;
        let (item_local, item_resolved) =
            (sum(&|e| e.acct.item_resolved_local as f64), sum(&|e| e.acct.item_resolved() as f64));
        let lrr = if item_resolved > 0.0 { item_local / item_resolved } else { 0.0 };
        let cs = sum(&|e| e.cs as f64) / n;
        Score { j, tsr, t_rec, zero_yield, tokens, msg: sum(&|e| e.msg as f64) / n, uer, lrr, cs, episodes: eps.len() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_episodes_score_zero_not_minus_zero() {
        let s = Objective::default().score(&[]);
        for (name, v) in [("tsr", s.tsr), ("cs", s.cs), ("msg", s.msg), ("tokens", s.tokens), ("j", s.j)] {
            assert!(v == 0.0 && v.is_sign_positive(), "{name} = {v:?}");
        }
        assert_eq!(format!("{:.3}", s.tsr), "0.000");
    }
}
