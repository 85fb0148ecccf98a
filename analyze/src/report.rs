//! Grouping episodes and computing every metric with its interval.

use std::collections::BTreeSet;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use gatecrew_protocol::metrics::EpisodeMetrics;
use serde::Serialize;

use crate::stats::{Interval, bootstrap};

/// How to group episodes besides the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    /// Suite class (A-D, standard), policies side by side.
    Class,
    /// Crew size, policies side by side.
    Agents,
    /// Policy only.
    Policy,
}

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
    /// Pooled local resolution rate.
    Lrr,
    /// Pooled unnecessary escalation rate.
    Uer,
    /// Pooled effective coordination rate.
    Ecr,
    /// Pooled resolution success rate.
    Rsr,
    /// Adjudications per gated issue.
    LlmCalls,
    /// Tokens per adjudication.
    LlmTokens,
    /// Adjudication latency, median (ms).
    LatencyP50,
    /// Adjudication latency, 95th percentile (ms).
    LatencyP95,
    /// Share of adjudications decided by the fallback.
    Fallbacks,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 15] = [
        Metric::Tsr,
        Metric::Complete,
        Metric::Cs,
        Metric::Ticks,
        Metric::Msg,
        Metric::MsgTokens,
        Metric::Lrr,
        Metric::Uer,
        Metric::Ecr,
        Metric::Rsr,
        Metric::LlmCalls,
        Metric::LlmTokens,
        Metric::LatencyP50,
        Metric::LatencyP95,
        Metric::Fallbacks,
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
            Metric::Ecr => "ECR",
            Metric::Rsr => "RSR",
            Metric::LlmCalls => "LLM calls/issue",
            Metric::LlmTokens => "LLM tokens/call",
            Metric::LatencyP50 => "LLM p50 ms",
            Metric::LatencyP95 => "LLM p95 ms",
            Metric::Fallbacks => "LLM fallbacks",
        }
    }

    fn is_share(self) -> bool {
        matches!(self, Metric::Complete | Metric::Lrr | Metric::Uer | Metric::Ecr | Metric::Rsr | Metric::Fallbacks)
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
            Metric::Lrr => pooled(&|e| e.resolved_local, &|e| e.resolved()),
            Metric::Uer => pooled(&|e| e.escalated_unnecessary, &|e| e.escalated),
            Metric::Ecr => pooled(&|e| e.windows_confirmed, &|e| e.windows_opened),
            Metric::Rsr => pooled(&|e| e.resolved(), &|e| e.issues),
            Metric::LlmCalls => pooled(&|e| e.adjudications, &|e| e.gated),
            Metric::LlmTokens => pooled(&|e| e.tokens, &|e| e.adjudications),
            Metric::LatencyP50 => latency(0.5),
            Metric::LatencyP95 => latency(0.95),
            Metric::Fallbacks => pooled(&|e| e.fallbacks, &|e| e.adjudications),
        }
    }

    /// Formats a value.
    pub fn format(self, v: f64) -> String {
        match self {
            _ if self.is_share() => format!("{:.1}%", v * 100.0),
            Metric::Tsr => format!("{v:.3}"),
            Metric::LlmCalls => format!("{v:.2}"),
            _ => format!("{v:.1}"),
        }
    }
}

/// One metric of one group.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// Which metric.
    pub metric: Metric,
    /// Its estimate and 95% interval (`None`: undefined for this group).
    pub interval: Option<Interval>,
}

/// One group of episodes: a policy, and a class or crew size (or `all`).
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// Policy.
    pub policy: String,
    /// Class, crew size or `all`.
    pub key: String,
    /// Episodes in the group.
    pub episodes: usize,
    /// Every metric.
    pub cells: Vec<Cell>,
}

/// The whole analysis.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Grouping.
    pub by: By,
    /// Policies, in first-seen order (the usual ones first).
    pub policies: Vec<String>,
    /// Keys, `all` first.
    pub keys: Vec<String>,
    /// Groups, by key then policy.
    pub groups: Vec<Group>,
}

fn seed_of(parts: &[&str]) -> u64 {
    // FNV-1a: a stable seed per group and metric, whatever the group order.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

const POLICY_ORDER: [&str; 7] =
    ["gated", "rule_score", "rule_only", "no_gate", "no_partition", "flatcomm", "central_dag"];

impl Report {
    /// Groups the episodes and computes every metric with its interval.
    pub fn build(eps: &[EpisodeMetrics], by: By) -> Report {
        let key_of = |e: &EpisodeMetrics| -> String {
            match by {
                By::Class => e.class.clone().unwrap_or_else(|| "-".into()),
                By::Agents => format!("{} bots", e.agents),
                By::Policy => "all".into(),
            }
        };
        let mut policies: Vec<String> =
            eps.iter().map(|e| e.policy.clone()).collect::<BTreeSet<_>>().into_iter().collect();
        policies.sort_by_key(|p| (POLICY_ORDER.iter().position(|q| q == p).unwrap_or(usize::MAX), p.clone()));
        let mut keys = vec!["all".to_owned()];
        if by != By::Policy {
            keys.extend(eps.iter().map(key_of).collect::<BTreeSet<_>>());
        }
        let mut groups = Vec::new();
        for key in &keys {
            for policy in &policies {
                let members: Vec<&EpisodeMetrics> =
                    eps.iter().filter(|e| &e.policy == policy && (key == "all" || &key_of(e) == key)).collect();
                if members.is_empty() {
                    continue;
                }
                let cells = Metric::ALL
                    .iter()
                    .map(|&m| Cell {
                        metric: m,
                        interval: bootstrap(members.len(), seed_of(&[policy, key, m.label()]), |ix| {
                            m.compute(&members, ix)
                        }),
                    })
                    .collect();
                groups.push(Group { policy: policy.clone(), key: key.clone(), episodes: members.len(), cells });
            }
        }
        Report { by, policies, keys, groups }
    }

    /// The group of a policy and key.
    pub fn group(&self, policy: &str, key: &str) -> Option<&Group> {
        self.groups.iter().find(|g| g.policy == policy && g.key == key)
    }

    /// The estimate of a metric for a policy and key.
    pub fn value(&self, policy: &str, key: &str, m: Metric) -> Option<f64> {
        self.group(policy, key)?.cells.iter().find(|c| c.metric == m)?.interval.map(|i| i.value)
    }

    /// Human-readable tables: one per key, metrics down, policies across.
    pub fn tables(&self) -> String {
        let mut out = String::new();
        let shown: Vec<Metric> = Metric::ALL
            .into_iter()
            .filter(|m| self.groups.iter().any(|g| g.cells.iter().any(|c| c.metric == *m && c.interval.is_some())))
            .collect();
        for key in &self.keys {
            let present: Vec<&String> = self.policies.iter().filter(|p| self.group(p, key).is_some()).collect();
            if present.is_empty() {
                continue;
            }
            let mut t = Table::new();
            t.load_preset(UTF8_FULL_CONDENSED);
            let mut header = vec![format!("{key}")];
            header.extend(present.iter().map(|p| format!("{p} (n={})", self.group(p, key).map_or(0, |g| g.episodes))));
            t.set_header(header);
            for m in &shown {
                let mut row = vec![m.label().to_owned()];
                for p in &present {
                    let cell = self
                        .group(p, key)
                        .and_then(|g| g.cells.iter().find(|c| c.metric == *m))
                        .and_then(|c| c.interval);
                    row.push(match cell {
                        Some(i) if i.lo == i.hi => m.format(i.value),
                        Some(i) => format!("{} [{}, {}]", m.format(i.value), m.format(i.lo), m.format(i.hi)),
                        None => "-".into(),
                    });
                }
                t.add_row(row);
            }
            out.push_str(&format!("{t}\n"));
        }
        out
    }
}
