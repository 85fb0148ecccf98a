//! The reported metrics (DESIGN section 8): what each is, how it is computed on a set
//! of episodes, and what it reads of each episode for the bootstrap. docs/analysis.md
//! defines every one.

use gatecrew_protocol::metrics::EpisodeMetrics;
use serde::Serialize;

use crate::stats::Column;

/// The reported metrics (DESIGN section 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Mean block-level completion.
    Tsr,
    /// Share of episodes fully completed.
    Complete,
    /// Mean environment actions.
    Cs,
    /// Mean episode length in ticks (20 per second of game time).
    Ticks,
    /// Mean public messages.
    Msg,
    /// Mean modelled tokens of chat and manager messages.
    MsgTokens,
    /// Pooled local resolution rate over material and tool issues.
    Lrr,
    /// Pooled unnecessary escalation rate (the planner oracle at the episode's budget).
    Uer,
    /// Pooled UER of the escalations whose local route the bot's own knowledge held
    /// (R >= 1 when it decided): the gate's errors.
    UerKnown,
    /// Pooled UER of the escalations whose local route lay beyond the bot's knowledge
    /// (R = 0): the partition's cost. With [`Metric::UerKnown`] it adds up to UER.
    UerUnseen,
    /// Pooled UER by the rollout oracle within 300 ticks (DESIGN section 8's sweep).
    Uer300,
    /// The same within 600 ticks.
    Uer600,
    /// The same within 1,200 ticks.
    Uer1200,
    /// The same within 2,400 ticks.
    Uer2400,
    /// Pooled `UER_faster`: the rollout would have got the items before the issue was
    /// actually resolved.
    UerFaster,
    /// Pooled effective coordination rate.
    Ecr,
    /// Mean escalations (gate decisions to escalate) per episode.
    Escalations,
    /// Pooled transfer yield: confirmed transfers / escalations.
    Yield,
    /// Pooled resolution success rate over material and tool issues.
    Rsr,
    /// Mean retries of failed actions (`action_failed`, `unreachable`) per episode,
    /// kept out of LRR and RSR.
    Retries,
    /// Pooled share of those retries resolved.
    RetriesResolved,
    /// Mean waits on a teammate's block (`dependency_blocked`), kept out of LRR and RSR.
    Waits,
    /// Pooled share of those waits that cleared.
    WaitsCleared,
    /// Tier-3 calls per gated issue: adjudications of a configured model, and the
    /// consults the `llm` executor models.
    LlmCalls,
    /// Tokens per adjudication.
    LlmTokens,
    /// Adjudication latency, median (ms).
    LatencyP50,
    /// Adjudication latency, 95th percentile (ms).
    LatencyP95,
    /// Share of adjudications decided by the fallback.
    Fallbacks,
    /// Mean calls to the bots' language model per episode (`llm` executor).
    ExecCalls,
    /// Tokens per executor call (prompt + completion).
    ExecTokens,
    /// Share of executor calls that went wrong.
    ExecMistakes,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 31] = [
        Metric::Tsr,
        Metric::Complete,
        Metric::Cs,
        Metric::Ticks,
        Metric::Msg,
        Metric::MsgTokens,
        Metric::Lrr,
        Metric::Uer,
        Metric::UerKnown,
        Metric::UerUnseen,
        Metric::Uer300,
        Metric::Uer600,
        Metric::Uer1200,
        Metric::Uer2400,
        Metric::UerFaster,
        Metric::Ecr,
        Metric::Escalations,
        Metric::Yield,
        Metric::Rsr,
        Metric::Retries,
        Metric::RetriesResolved,
        Metric::Waits,
        Metric::WaitsCleared,
        Metric::LlmCalls,
        Metric::LlmTokens,
        Metric::LatencyP50,
        Metric::LatencyP95,
        Metric::Fallbacks,
        Metric::ExecCalls,
        Metric::ExecTokens,
        Metric::ExecMistakes,
    ];

    /// The label used in tables.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Tsr => "TSR",
            Metric::Complete => "complete",
            Metric::Cs => "CS",
            Metric::Ticks => "ticks",
            Metric::Msg => "Msg",
            Metric::MsgTokens => "Msg tokens",
            Metric::Lrr => "LRR",
            Metric::Uer => "UER",
            Metric::UerKnown => "UER own knowledge",
            Metric::UerUnseen => "UER out of view",
            Metric::Uer300 => "UER@300",
            Metric::Uer600 => "UER@600",
            Metric::Uer1200 => "UER@1200",
            Metric::Uer2400 => "UER@2400",
            Metric::UerFaster => "UER_faster",
            Metric::Ecr => "ECR",
            Metric::Escalations => "escalations",
            Metric::Yield => "transfer yield",
            Metric::Rsr => "RSR",
            Metric::Retries => "retries",
            Metric::RetriesResolved => "retries resolved",
            Metric::Waits => "dep. waits",
            Metric::WaitsCleared => "waits cleared",
            Metric::LlmCalls => "LLM calls/issue",
            Metric::LlmTokens => "LLM tokens/call",
            Metric::LatencyP50 => "LLM p50 ms",
            Metric::LatencyP95 => "LLM p95 ms",
            Metric::Fallbacks => "LLM fallbacks",
            Metric::ExecCalls => "exec calls",
            Metric::ExecTokens => "exec tokens/call",
            Metric::ExecMistakes => "exec mistakes",
        }
    }

    fn is_share(self) -> bool {
        matches!(
            self,
            Metric::Complete
                | Metric::Lrr
                | Metric::Uer
                | Metric::UerKnown
                | Metric::UerUnseen
                | Metric::Uer300
                | Metric::Uer600
                | Metric::Uer1200
                | Metric::Uer2400
                | Metric::UerFaster
                | Metric::Ecr
                | Metric::Yield
                | Metric::Rsr
                | Metric::RetriesResolved
                | Metric::WaitsCleared
                | Metric::Fallbacks
                | Metric::ExecMistakes
        )
    }

    /// The metric on a set of episodes (`None` when undefined, e.g. no escalations).
    pub fn compute(self, eps: &[&EpisodeMetrics], ix: &[usize]) -> Option<f64> {
        if ix.is_empty() {
            return None;
        }
        let n = ix.len() as f64;
        let mean = |f: &dyn Fn(&EpisodeMetrics) -> f64| Some(ix.iter().map(|&i| f(eps[i])).sum::<f64>() / n);
        let pooled = |num: &dyn Fn(&EpisodeMetrics) -> u64, den: &dyn Fn(&EpisodeMetrics) -> u64| {
            let (a, b) = ix.iter().fold((0u64, 0u64), |(a, b), &i| (a + num(eps[i]), b + den(eps[i])));
            (b > 0).then(|| a as f64 / b as f64)
        };
        let latency = |q: f64| {
            let mut v: Vec<u64> = ix.iter().flat_map(|&i| eps[i].latencies_ms.iter().copied()).collect();
            if v.is_empty() {
                return None;
            }
            v.sort_unstable();
            Some(v[((q * (v.len() - 1) as f64).round() as usize).min(v.len() - 1)] as f64)
        };
        match self {
            Metric::Tsr => mean(&|e| e.tsr),
            Metric::Complete => mean(&|e| f64::from(u8::from(e.complete))),
            Metric::Cs => mean(&|e| e.cs as f64),
            Metric::Ticks => mean(&|e| e.ticks as f64),
            Metric::Msg => mean(&|e| e.msg as f64),
            Metric::MsgTokens => mean(&|e| e.msg_tokens as f64),
            Metric::Lrr => pooled(&|e| e.acct.item_resolved_local, &|e| e.acct.item_resolved()),
            Metric::Uer => pooled(&|e| e.escalated_unnecessary, &|e| e.escalated),
            Metric::UerKnown => pooled(&|e| e.acct.escalated_unnecessary_known, &|e| e.escalated),
            Metric::UerUnseen => pooled(&unseen, &|e| e.escalated),
            Metric::Uer300 => pooled(&|e| e.escalated_unnecessary_within[0], &|e| e.escalated),
            Metric::Uer600 => pooled(&|e| e.escalated_unnecessary_within[1], &|e| e.escalated),
            Metric::Uer1200 => pooled(&|e| e.escalated_unnecessary_within[2], &|e| e.escalated),
            Metric::Uer2400 => pooled(&|e| e.escalated_unnecessary_within[3], &|e| e.escalated),
            Metric::UerFaster => pooled(&|e| e.escalated_faster(), &|e| e.escalated),
            Metric::Ecr => pooled(&|e| e.windows_confirmed, &|e| e.windows_opened),
            Metric::Escalations => mean(&|e| e.escalated as f64),
            Metric::Yield => pooled(&|e| e.windows_confirmed, &|e| e.escalated),
            Metric::Rsr => pooled(&|e| e.acct.item_resolved(), &|e| e.acct.item_issues),
            Metric::Retries => mean(&|e| e.acct.retries as f64),
            Metric::RetriesResolved => pooled(&|e| e.acct.retries_resolved, &|e| e.acct.retries),
            Metric::Waits => mean(&|e| e.waits as f64),
            Metric::WaitsCleared => pooled(&|e| e.waits_cleared, &|e| e.waits),
            Metric::LlmCalls => pooled(&|e| e.adjudications + e.acct.consults, &|e| e.gated),
            Metric::LlmTokens => pooled(&|e| e.tokens, &|e| e.adjudications),
            Metric::LatencyP50 => latency(0.5),
            Metric::LatencyP95 => latency(0.95),
            Metric::Fallbacks => pooled(&|e| e.fallbacks, &|e| e.adjudications),
            // Undefined (not zero) where no episode ran under the llm executor.
            Metric::ExecCalls => pooled(&|e| e.exec_calls, &|e| u64::from(e.exec_calls > 0)),
            Metric::ExecTokens => pooled(&|e| e.exec_tokens, &|e| e.exec_calls),
            Metric::ExecMistakes => pooled(&|e| e.exec_mistakes, &|e| e.exec_calls),
        }
    }

    /// The metric's per-episode inputs, for [`crate::stats::resampled`]: what
    /// [`Metric::compute`] reads of each episode.
    pub fn column(self, eps: &[&EpisodeMetrics]) -> Column {
        let mean = |f: fn(&EpisodeMetrics) -> f64| Column::Mean(eps.iter().map(|e| f(e)).collect());
        let pooled = |f: fn(&EpisodeMetrics) -> (u64, u64)| Column::Pooled(eps.iter().map(|e| f(e)).collect());
        let quantile = |q: f64| Column::Quantile { q, values: eps.iter().map(|e| e.latencies_ms.clone()).collect() };
        match self {
            Metric::Tsr => mean(|e| e.tsr),
            Metric::Complete => mean(|e| f64::from(u8::from(e.complete))),
            Metric::Cs => mean(|e| e.cs as f64),
            Metric::Ticks => mean(|e| e.ticks as f64),
            Metric::Msg => mean(|e| e.msg as f64),
            Metric::MsgTokens => mean(|e| e.msg_tokens as f64),
            Metric::Lrr => pooled(|e| (e.acct.item_resolved_local, e.acct.item_resolved())),
            Metric::Uer => pooled(|e| (e.escalated_unnecessary, e.escalated)),
            Metric::UerKnown => pooled(|e| (e.acct.escalated_unnecessary_known, e.escalated)),
            Metric::UerUnseen => pooled(|e| (unseen(e), e.escalated)),
            Metric::Uer300 => pooled(|e| (e.escalated_unnecessary_within[0], e.escalated)),
            Metric::Uer600 => pooled(|e| (e.escalated_unnecessary_within[1], e.escalated)),
            Metric::Uer1200 => pooled(|e| (e.escalated_unnecessary_within[2], e.escalated)),
            Metric::Uer2400 => pooled(|e| (e.escalated_unnecessary_within[3], e.escalated)),
            Metric::UerFaster => pooled(|e| (e.escalated_faster(), e.escalated)),
            Metric::Ecr => pooled(|e| (e.windows_confirmed, e.windows_opened)),
            Metric::Escalations => mean(|e| e.escalated as f64),
            Metric::Yield => pooled(|e| (e.windows_confirmed, e.escalated)),
            Metric::Rsr => pooled(|e| (e.acct.item_resolved(), e.acct.item_issues)),
            Metric::Retries => mean(|e| e.acct.retries as f64),
            Metric::RetriesResolved => pooled(|e| (e.acct.retries_resolved, e.acct.retries)),
            Metric::Waits => mean(|e| e.waits as f64),
            Metric::WaitsCleared => pooled(|e| (e.waits_cleared, e.waits)),
            Metric::LlmCalls => pooled(|e| (e.adjudications + e.acct.consults, e.gated)),
            Metric::LlmTokens => pooled(|e| (e.tokens, e.adjudications)),
            Metric::LatencyP50 => quantile(0.5),
            Metric::LatencyP95 => quantile(0.95),
            Metric::Fallbacks => pooled(|e| (e.fallbacks, e.adjudications)),
            Metric::ExecCalls => pooled(|e| (e.exec_calls, u64::from(e.exec_calls > 0))),
            Metric::ExecTokens => pooled(|e| (e.exec_tokens, e.exec_calls)),
            Metric::ExecMistakes => pooled(|e| (e.exec_mistakes, e.exec_calls)),
        }
    }

    /// Formats a value.
    pub fn format(self, v: f64) -> String {
        match self {
            _ if self.is_share() => format!("{:.1}%", v * 100.0),
            Metric::Tsr => format!("{v:.3}"),
            Metric::LlmCalls | Metric::Escalations | Metric::Retries => format!("{v:.2}"),
            _ => format!("{v:.1}"),
        }
    }
}

/// Unnecessary escalations whose local route the bot could not see (R = 0).
fn unseen(e: &EpisodeMetrics) -> u64 {
    e.escalated_unnecessary.saturating_sub(e.acct.escalated_unnecessary_known)
}
