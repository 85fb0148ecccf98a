//! The coordination policies compared on the same episodes (DESIGN section 6).
//!
//! The first four differ only in the gate. The last three are models of other
//! systems' coordination behaviour inside this world, not re-implementations of them:
//! they reproduce how those systems talk (who is interrupted, who waits, what a message
//! costs), never their language models' judgement. See docs/baselines.md.

use std::fmt;
use std::str::FromStr;

use gatecrew_gating::GatePolicy;
use serde::{Deserialize, Serialize};

/// A coordination policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// DESIGN sections 4-5 in full.
    Gated,
    /// Tiers 1 and 2; the gray zone goes to the deterministic adjudicator.
    RuleScore,
    /// Tier 1; everything else stays local.
    RuleOnly,
    /// Every issue the protocol can carry is escalated.
    NoGate,
    /// The gate, but every public message interrupts the agent as if it were its own
    /// context, and others' requests make it check (and ask for) the same item.
    NoPartition,
    /// MindCraft-like free chat: every issue is broadcast at once, every teammate stops
    /// to read and answer, no cooldown, one conversation at a time per bot.
    Flatcomm,
    /// VillagerAgent-like: a manager holds the whole DAG, receives every issue and
    /// re-plans globally while the agents wait.
    CentralDag,
}

impl Policy {
    /// Every policy, in report order.
    pub const ALL: [Policy; 7] = [
        Policy::Gated,
        Policy::RuleScore,
        Policy::RuleOnly,
        Policy::NoGate,
        Policy::NoPartition,
        Policy::Flatcomm,
        Policy::CentralDag,
    ];

    /// The name used in configs, flags and traces.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Gated => "gated",
            Policy::RuleScore => "rule_score",
            Policy::RuleOnly => "rule_only",
            Policy::NoGate => "no_gate",
            Policy::NoPartition => "no_partition",
            Policy::Flatcomm => "flatcomm",
            Policy::CentralDag => "central_dag",
        }
    }

    /// The gate procedure the agents run. The baselines without a gate escalate every
    /// issue the way their system does.
    pub fn gate(self) -> GatePolicy {
        match self {
            Policy::Gated | Policy::NoPartition => GatePolicy::Gated,
            Policy::RuleScore => GatePolicy::RuleScore,
            Policy::RuleOnly => GatePolicy::RuleOnly,
            Policy::NoGate | Policy::Flatcomm | Policy::CentralDag => GatePolicy::NoGate,
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown policy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown policy \"{0}\" (expected one of gated, rule_score, rule_only, no_gate, no_partition, flatcomm, central_dag)"
)]
pub struct UnknownPolicy(pub String);

impl FromStr for Policy {
    type Err = UnknownPolicy;
    fn from_str(s: &str) -> Result<Self, UnknownPolicy> {
        Policy::ALL.into_iter().find(|p| p.as_str() == s).ok_or_else(|| UnknownPolicy(s.to_owned()))
    }
}
