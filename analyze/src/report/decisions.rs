//! The gate-decision table (DESIGN section 8 as amended): every policy's gate decisions
//! counted by the tier that made them, the rule that fired, and the verdict, so that a
//! policy's messages can be traced to the part of its gate that sent them.

use std::collections::BTreeMap;

use crate::table;
use gatecrew_protocol::metrics::{EpisodeMetrics, GateRow};
use serde::Serialize;

/// One row: a tier, a rule and a verdict, with each policy's count.
#[derive(Debug, Clone, Serialize)]
pub struct DecisionRow {
    /// `tier 1 cooldown -> stay_local`, `policy -> escalate`, ...
    pub label: String,
    /// 0 the policy, 1 rules, 2 score, 3 adjudicator.
    pub tier: u8,
    /// The rule, for tier 1.
    pub rule: Option<&'static str>,
    /// Whether it escalated.
    pub escalate: bool,
    /// Decisions per policy, in [`Decisions::policies`]' order.
    pub counts: Vec<u64>,
}

/// Gate decisions by tier and rule, per policy (every episode of each).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Decisions {
    /// The policies, in the report's order.
    pub policies: Vec<String>,
    /// Decisions of each policy in all.
    pub totals: Vec<u64>,
    /// The rows, by tier, rule and verdict.
    pub rows: Vec<DecisionRow>,
}

impl Decisions {
    /// Counts the decisions of `eps` for each of `policies`.
    pub fn build(eps: &[EpisodeMetrics], policies: &[String]) -> Decisions {
        let mut rows: BTreeMap<GateRow, Vec<u64>> = BTreeMap::new();
        let mut totals = vec![0u64; policies.len()];
        for e in eps {
            let Some(p) = policies.iter().position(|p| *p == e.policy) else { continue };
            for (row, n) in &e.acct.decisions {
                rows.entry(*row).or_insert_with(|| vec![0; policies.len()])[p] += n;
                totals[p] += n;
            }
        }
        let rows = rows
            .into_iter()
            .map(|(row, counts)| DecisionRow {
                label: row.label(),
                tier: row.tier,
                rule: row.rule.map(|r| r.as_str()),
                escalate: row.escalate,
                counts,
            })
            .collect();
        Decisions { policies: policies.to_vec(), totals, rows }
    }

    /// The table: one row per tier, rule and verdict, each policy's count and its share
    /// of that policy's decisions.
    pub fn table(&self) -> String {
        if self.rows.is_empty() {
            return String::new();
        }
        let mut header = vec!["gate decisions".to_owned()];
        header.extend(self.policies.iter().zip(&self.totals).map(|(p, n)| format!("{p} ({n})")));
        let mut t = table::new(header);
        for r in &self.rows {
            let mut row = vec![r.label.clone()];
            row.extend(r.counts.iter().zip(&self.totals).map(|(&n, &total)| match n {
                0 => "-".to_owned(),
                n => format!("{n} ({:.1}%)", 100.0 * n as f64 / total.max(1) as f64),
            }));
            t.add_row(row);
        }
        format!("{t}\n")
    }
}
