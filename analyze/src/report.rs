//! Grouping episodes and computing every metric with its interval.

use std::collections::BTreeSet;

use crate::table;
use gatecrew_protocol::metrics::{EpisodeMetrics, ModelUse};
use serde::Serialize;

use rayon::prelude::*;

use crate::stats::{Ci, Column, Interval, resampled};

mod decisions;
mod metric;
mod model;

pub use decisions::{DecisionRow, Decisions};
pub use metric::Metric;

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
    /// Its gray zone was settled by the deterministic adjudicator: tier-3 decisions and
    /// no `adjudication` events (no language model was asked). Reported beside the
    /// policy, so that `gated` without a model is not read as `gated` with one.
    pub deterministic_tier3: bool,
    /// Tier-3 consults the `llm` executor modelled (its gray zone went to a modelled
    /// model, with no `adjudication` events either): reported beside the policy too.
    pub consults: u64,
    /// What its model-driven bots asked their model (all zero for scripted bots).
    pub model: ModelUse,
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
    /// Every policy's gate decisions by tier, rule and verdict.
    pub decisions: Decisions,
}

pub(crate) fn seed_of(parts: &[&str]) -> u64 {
    // FNV-1a: a stable seed per group, whatever the group order.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

const POLICY_ORDER: [&str; 9] = [
    "gated",
    "rule_score",
    "rule_only",
    "no_gate",
    "no_partition",
    "flatcomm",
    "central_dag",
    "gated_flatcomm",
    "gated_central_dag",
];

/// The policies of `eps`, the usual ones first in their order, then any other by name.
pub(crate) fn ordered_policies(eps: &[EpisodeMetrics]) -> Vec<String> {
    let mut policies: Vec<String> = eps.iter().map(|e| e.policy.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    policies.sort_by_key(|p| (POLICY_ORDER.iter().position(|q| q == p).unwrap_or(usize::MAX), p.clone()));
    policies
}

impl Report {
    /// Groups the episodes and computes every metric with its interval (the default
    /// bootstrap: [`Ci::default`]).
    pub fn build(eps: &[EpisodeMetrics], by: By) -> Report {
        Report::build_with(eps, by, Ci::default())
    }

    /// [`Report::build`] with the intervals `ci` asks for.
    pub fn build_with(eps: &[EpisodeMetrics], by: By, ci: Ci) -> Report {
        let key_of = |e: &EpisodeMetrics| -> String {
            match by {
                By::Class => e.class.clone().unwrap_or_else(|| "-".into()),
                By::Agents => format!("{} bots", e.agents),
                By::Policy => "all".into(),
            }
        };
        let policies = ordered_policies(eps);
        let mut keys = vec!["all".to_owned()];
        if by != By::Policy {
            keys.extend(eps.iter().map(key_of).collect::<BTreeSet<_>>());
        }
        // The groups' members, then every group's intervals on every core: each group
        // has its own seed, so the order they are computed in changes nothing.
        let key_each: Vec<String> = if by == By::Policy { Vec::new() } else { eps.iter().map(key_of).collect() };
        let mut members: Vec<(&String, &String, Vec<&EpisodeMetrics>)> = Vec::new();
        for key in &keys {
            for policy in &policies {
                let m: Vec<&EpisodeMetrics> = eps
                    .iter()
                    .enumerate()
                    .filter(|(i, e)| &e.policy == policy && (key == "all" || &key_each[*i] == key))
                    .map(|(_, e)| e)
                    .collect();
                if !m.is_empty() {
                    members.push((key, policy, m));
                }
            }
        }
        let groups = members
            .par_iter()
            .map(|(key, policy, members)| {
                // One set of resamples for the group's 15 metrics (a paired bootstrap).
                let columns: Vec<Column> = Metric::ALL.iter().map(|m| m.column(members)).collect();
                let intervals = resampled(&columns, ci, seed_of(&[policy.as_str(), key.as_str()]));
                let cells =
                    Metric::ALL.iter().zip(intervals).map(|(&metric, interval)| Cell { metric, interval }).collect();
                let consults = members.iter().map(|e| e.acct.consults).sum::<u64>();
                let mut model = ModelUse::default();
                for e in members {
                    model.add(&e.acct.model);
                }
                let deterministic_tier3 =
                    members.iter().any(|e| e.gray > 0) && members.iter().all(|e| e.adjudications == 0) && consults == 0;
                Group {
                    policy: (*policy).clone(),
                    key: (*key).clone(),
                    episodes: members.len(),
                    deterministic_tier3,
                    consults,
                    model,
                    cells,
                }
            })
            .collect();
        let decisions = Decisions::build(eps, &policies);
        Report { by, policies, keys, groups, decisions }
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
            let mut header = vec![format!("{key}")];
            header.extend(present.iter().map(|p| match self.group(p, key) {
                Some(g) if g.deterministic_tier3 => format!("{p} (n={}, det. tier 3)", g.episodes),
                Some(g) if g.consults > 0 => format!("{p} (n={}, {} tier-3 consults)", g.episodes, g.consults),
                g => format!("{p} (n={})", g.map_or(0, |g| g.episodes)),
            }));
            let mut t = table::new(header);
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
        out.push_str(&self.model_table());
        out.push_str(&self.decisions.table());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap;

    /// Episodes with every field the metrics read, varied by a small generator.
    fn episodes(n: usize, salt: u64) -> Vec<EpisodeMetrics> {
        let mut x = salt.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        (0..n)
            .map(|_| {
                let issues = next(6);
                let escalated = next(issues + 1);
                let adjudications = next(3);
                EpisodeMetrics {
                    tsr: next(1000) as f64 / 999.0,
                    complete: next(2) == 1,
                    cs: next(500),
                    ticks: next(9000),
                    msg: next(40),
                    msg_tokens: next(900),
                    issues,
                    gated: issues,
                    escalated,
                    escalated_unnecessary: next(escalated + 1),
                    resolved_local: next(issues + 1) / 2,
                    resolved_board: next(issues + 1) / 2,
                    windows_opened: escalated,
                    windows_confirmed: next(escalated + 1),
                    adjudications,
                    tokens: adjudications * (120 + next(10)),
                    fallbacks: next(adjudications + 1),
                    latencies_ms: (0..adjudications).map(|_| 50 + next(400)).collect(),
                    ..EpisodeMetrics::default()
                }
            })
            .collect()
    }

    fn bits(v: &[Option<Interval>]) -> Vec<Option<(u64, u64, u64)>> {
        v.iter().map(|i| i.map(|i| (i.value.to_bits(), i.lo.to_bits(), i.hi.to_bits()))).collect()
    }

    /// The reference paired bootstrap of a group: every metric through
    /// [`Metric::compute`] on each resample's indices.
    fn reference(refs: &[&EpisodeMetrics], ci: Ci, seed: u64) -> Vec<Option<Interval>> {
        bootstrap(refs.len(), Metric::ALL.len(), ci, seed, |j, ix| Metric::ALL[j].compute(refs, ix))
    }

    fn columns(refs: &[&EpisodeMetrics]) -> Vec<Column> {
        Metric::ALL.iter().map(|m| m.column(refs)).collect()
    }

    #[test]
    fn columns_give_the_reference_bootstrap_bit_for_bit() {
        for (n, salt) in [(0, 1), (1, 2), (2, 3), (7, 4), (40, 5), (150, 6)] {
            let eps = episodes(n, salt);
            let refs: Vec<&EpisodeMetrics> = eps.iter().collect();
            let seed = seed_of(&["p", "k"]) ^ salt;
            let fast = resampled(&columns(&refs), Ci::default(), seed);
            assert_eq!(bits(&fast), bits(&reference(&refs, Ci::default(), seed)), "{n} episodes");
            assert_eq!(fast.len(), Metric::ALL.len());
        }
    }

    #[test]
    fn constant_and_zero_columns_match_too() {
        let mut eps = episodes(30, 9);
        for e in &mut eps {
            e.tsr = 0.1;
            e.fallbacks = 0;
            e.latencies_ms = vec![70; e.adjudications as usize];
        }
        let refs: Vec<&EpisodeMetrics> = eps.iter().collect();
        let ci = Ci::Bootstrap(std::num::NonZeroUsize::new(300).expect("non-zero"));
        assert_eq!(bits(&resampled(&columns(&refs), ci, 11)), bits(&reference(&refs, ci, 11)));
    }

    #[test]
    fn no_intervals_keeps_the_estimates() {
        let eps = episodes(40, 3);
        let with = Report::build(&eps, By::Policy);
        let without = Report::build_with(&eps, By::Policy, Ci::None);
        for (a, b) in with.groups[0].cells.iter().zip(&without.groups[0].cells) {
            assert_eq!(a.interval.map(|i| i.value), b.interval.map(|i| i.value));
            assert!(b.interval.is_none_or(|i| i.lo == i.value && i.hi == i.value));
        }
    }
}
