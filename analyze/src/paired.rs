//! Paired differences between policies (DESIGN section 8): for a baseline and every
//! other policy, each metric on the episodes both ran, as the other policy's value less
//! the baseline's, with a paired percentile-bootstrap interval: each resample draws
//! episodes, and both policies' metrics are computed on the same drawn episodes. Two
//! policies that ran identical traces give a zero-width interval at zero.
//!
//! Episodes pair by their id (the trace's `ep`); an id a policy ran several times pairs
//! its runs in the order they were read.

use std::collections::{BTreeMap, BTreeSet};

use crate::table;
use gatecrew_protocol::metrics::EpisodeMetrics;
use rayon::prelude::*;
use serde::Serialize;

use crate::report::{By, Metric};
use crate::stats::{Ci, Interval, bootstrap};

/// One policy against the baseline on one key.
#[derive(Debug, Clone, Serialize)]
pub struct PairedGroup {
    /// The policy compared.
    pub policy: String,
    /// Class, crew size or `all`.
    pub key: String,
    /// Episodes both ran.
    pub pairs: usize,
    /// Each metric's difference (policy less baseline) with its interval; `None` where
    /// it is undefined for either.
    pub diffs: Vec<(Metric, Option<Interval>)>,
}

/// Every policy against one baseline.
#[derive(Debug, Clone, Serialize)]
pub struct Paired {
    /// The baseline policy.
    pub baseline: String,
    /// Grouping.
    pub by: By,
    /// Groups, by key then policy.
    pub groups: Vec<PairedGroup>,
}

/// What a paired report cannot be built from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PairedError {
    /// No episode of the baseline was read.
    #[error("no episode of the baseline policy `{baseline}` in these traces (policies read: {read})")]
    NoBaseline {
        /// The baseline asked for.
        baseline: String,
        /// The policies the traces hold.
        read: String,
    },
}

/// Pairs of (policy episode, baseline episode) by episode id.
fn pairs<'a>(eps: &'a [EpisodeMetrics], policy: &str, baseline: &str) -> Vec<(&'a EpisodeMetrics, &'a EpisodeMetrics)> {
    let mut base: BTreeMap<&str, Vec<&EpisodeMetrics>> = BTreeMap::new();
    for e in eps.iter().filter(|e| e.policy == baseline) {
        base.entry(e.episode.as_str()).or_default().push(e);
    }
    let mut used: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for e in eps.iter().filter(|e| e.policy == policy) {
        let k = used.entry(e.episode.as_str()).or_default();
        if let Some(b) = base.get(e.episode.as_str()).and_then(|v| v.get(*k)) {
            out.push((e, *b));
            *k += 1;
        }
    }
    out
}

fn key_of(by: By, e: &EpisodeMetrics) -> String {
    match by {
        By::Class => e.class.clone().unwrap_or_else(|| "-".into()),
        By::Agents => format!("{} bots", e.agents),
        By::Policy => "all".into(),
    }
}

impl Paired {
    /// Every other policy in `eps` against `baseline`, on `all` and on each key of `by`.
    pub fn build(eps: &[EpisodeMetrics], baseline: &str, by: By, ci: Ci) -> Result<Paired, PairedError> {
        let policies: Vec<String> = crate::report::ordered_policies(eps);
        if !policies.iter().any(|p| p == baseline) {
            return Err(PairedError::NoBaseline { baseline: baseline.to_owned(), read: policies.join(", ") });
        }
        let mut work = Vec::new();
        for policy in policies.iter().filter(|p| *p != baseline) {
            let all = pairs(eps, policy, baseline);
            if all.is_empty() {
                continue;
            }
            let mut keys = vec!["all".to_owned()];
            if by != By::Policy {
                keys.extend(all.iter().map(|(_, b)| key_of(by, b)).collect::<BTreeSet<_>>());
            }
            for key in keys {
                let members: Vec<_> =
                    all.iter().copied().filter(|(_, b)| key == "all" || key_of(by, b) == key).collect();
                work.push((policy.clone(), key, members));
            }
        }
        // Keys first, then policies, as the main report orders its groups.
        work.sort_by_key(|(p, k, _)| (k != "all", k.clone(), policies.iter().position(|q| q == p)));
        let groups = work
            .par_iter()
            .map(|(policy, key, members)| {
                let (mine, theirs): (Vec<&EpisodeMetrics>, Vec<&EpisodeMetrics>) = members.iter().copied().unzip();
                let seed = crate::report::seed_of(&["paired", baseline, policy, key]);
                let intervals = bootstrap(members.len(), Metric::ALL.len(), ci, seed, |j, ix| {
                    let m = Metric::ALL[j];
                    Some(m.compute(&mine, ix)? - m.compute(&theirs, ix)?)
                });
                PairedGroup {
                    policy: policy.clone(),
                    key: key.clone(),
                    pairs: members.len(),
                    diffs: Metric::ALL.into_iter().zip(intervals).collect(),
                }
            })
            .collect();
        Ok(Paired { baseline: baseline.to_owned(), by, groups })
    }

    /// The difference of `metric` for `policy` on `key`.
    pub fn diff(&self, policy: &str, key: &str, metric: Metric) -> Option<Interval> {
        let g = self.groups.iter().find(|g| g.policy == policy && g.key == key)?;
        g.diffs.iter().find(|(m, _)| *m == metric)?.1
    }

    /// One table per key: metrics down, policies across, each cell the difference from
    /// the baseline with its interval (an interval off zero is marked `*`).
    pub fn tables(&self) -> String {
        let mut out = String::new();
        let mut keys: Vec<&str> = Vec::new();
        for g in &self.groups {
            if !keys.contains(&g.key.as_str()) {
                keys.push(&g.key);
            }
        }
        for key in keys {
            let gs: Vec<&PairedGroup> = self.groups.iter().filter(|g| g.key == key).collect();
            let shown: Vec<Metric> = Metric::ALL
                .into_iter()
                .filter(|m| gs.iter().any(|g| self.diff(&g.policy, key, *m).is_some()))
                .collect();
            let mut header = vec![format!("{key}: less {}", self.baseline)];
            header.extend(gs.iter().map(|g| format!("{} (pairs={})", g.policy, g.pairs)));
            let mut t = table::new(header);
            for m in shown {
                let mut row = vec![m.label().to_owned()];
                row.extend(gs.iter().map(|g| match self.diff(&g.policy, key, m) {
                    Some(i) => format_diff(m, i),
                    None => "-".into(),
                }));
                t.add_row(row);
            }
            out.push_str(&format!("{t}\n"));
        }
        out
    }
}

/// A difference with its interval, signed; `*` when the interval excludes zero.
pub fn format_diff(m: Metric, i: Interval) -> String {
    let f = |v: f64| {
        let s = m.format(v.abs());
        if v < 0.0 { format!("-{s}") } else { format!("+{s}") }
    };
    let off_zero = i.lo > 0.0 || i.hi < 0.0;
    if i.lo == i.hi {
        f(i.value)
    } else {
        format!("{} [{}, {}]{}", f(i.value), f(i.lo), f(i.hi), if off_zero { " *" } else { "" })
    }
}
