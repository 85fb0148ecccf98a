//! The closed sets of values a trace records besides the event kind: who coordinated
//! (the policy), why an episode ended, and why the board failed an escalated issue.
//! Each serialises to the string the trace has always carried, so traces stay byte for
//! byte what they were, and consumers match on variants instead of comparing literals
//! (a renamed variant no longer compiles silently into a metric that counts nothing).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A coordination policy (DESIGN section 6). The first four differ only in the gate;
/// the next three model other systems' coordination (docs/baselines.md), and the last
/// two put the gate in front of two of those baselines' channels (the paper's "+Ours"
/// rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// DESIGN sections 4-5 in full.
    Gated,
    /// Tiers 1 and 2; the gray zone goes to the deterministic adjudicator.
    RuleScore,
    /// Tier 1; everything the rules leave is escalated.
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
    /// `flatcomm`'s chat, but a bot chats about an issue only when its gate escalates.
    GatedFlatcomm,
    /// `central_dag`'s manager, but a bot reports an issue to it only when its gate
    /// escalates.
    GatedCentralDag,
}

impl Policy {
    /// Every policy, in report order.
    pub const ALL: [Policy; 9] = [
        Policy::Gated,
        Policy::RuleScore,
        Policy::RuleOnly,
        Policy::NoGate,
        Policy::NoPartition,
        Policy::Flatcomm,
        Policy::CentralDag,
        Policy::GatedFlatcomm,
        Policy::GatedCentralDag,
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
            Policy::GatedFlatcomm => "gated_flatcomm",
            Policy::GatedCentralDag => "gated_central_dag",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// An unknown policy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown policy \"{0}\" (expected one of gated, rule_score, rule_only, no_gate, no_partition, flatcomm, central_dag, gated_flatcomm, gated_central_dag)"
)]
pub struct UnknownPolicy(pub String);

impl FromStr for Policy {
    type Err = UnknownPolicy;
    fn from_str(s: &str) -> Result<Self, UnknownPolicy> {
        Policy::ALL.into_iter().find(|p| p.as_str() == s).ok_or_else(|| UnknownPolicy(s.to_owned()))
    }
}

/// Why an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Every blueprint block is in place.
    Complete,
    /// The tick limit was reached.
    TickLimit,
    /// Nothing was left that anyone could do.
    Stalled,
    /// Every agent's bot stopped for good (a real server: kicked, unreachable, the
    /// bridge died).
    AgentsFailed,
}

impl EndReason {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Complete => "complete",
            EndReason::TickLimit => "tick_limit",
            EndReason::Stalled => "stalled",
            EndReason::AgentsFailed => "agents_failed",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Why the board failed an escalated issue and its agent went back to local work
/// (DESIGN section 5.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FallbackCause {
    /// The window's deadline passed without a confirmed transfer.
    Timeout,
    /// Every addressee answered `CANNOT_SUPPLY`.
    CannotSupply,
    /// The board refused the agent's request.
    Rejected,
    /// The request or its window never came back (a dropped message, a lost reply).
    Lost,
    /// central_dag's manager re-planned the issue back to its agent.
    Manager,
}

impl FallbackCause {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            FallbackCause::Timeout => "timeout",
            FallbackCause::CannotSupply => "cannot_supply",
            FallbackCause::Rejected => "rejected",
            FallbackCause::Lost => "lost",
            FallbackCause::Manager => "manager",
        }
    }
}

impl fmt::Display for FallbackCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The class of a suite episode (DESIGN section 7): which kind of coordination issue
/// was injected, or `standard` for the hand-written episodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SuiteClass {
    /// Solvable locally within budget.
    A,
    /// Only a teammate holds the item.
    B,
    /// Both routes exist; the local one is long.
    C,
    /// Collaboration fails (a muted holder, or nobody has any to spare), and a long
    /// local route beyond the oracle budget is left for the fallback.
    D,
    /// Like D, but no local route exists at any length: the episode cannot be completed
    /// (DESIGN section 7: labelled and reported apart, since ECR and RSR are low there
    /// by construction).
    #[serde(rename = "D-impossible")]
    DImpossible,
    /// A hand-written episode, no injection.
    #[serde(rename = "standard")]
    Standard,
}

impl SuiteClass {
    /// The name in manifests, configs and traces.
    pub fn as_str(self) -> &'static str {
        match self {
            SuiteClass::A => "A",
            SuiteClass::B => "B",
            SuiteClass::C => "C",
            SuiteClass::D => "D",
            SuiteClass::DImpossible => "D-impossible",
            SuiteClass::Standard => "standard",
        }
    }
}

impl fmt::Display for SuiteClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// The split a suite episode belongs to: calibration tunes the gate, test measures it,
/// standard holds the hand-written episodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// The episodes calibration searches on.
    Calibration,
    /// The held-out episodes results are reported on.
    Test,
    /// The hand-written episodes.
    Standard,
}

impl Split {
    /// Every split, in manifest order.
    pub const ALL: [Split; 3] = [Split::Calibration, Split::Test, Split::Standard];

    /// The name in manifests, configs, flags and traces.
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Calibration => "calibration",
            Split::Test => "test",
            Split::Standard => "standard",
        }
    }
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Split {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Split::ALL
            .into_iter()
            .find(|x| x.as_str() == s)
            .ok_or_else(|| format!("unknown split \"{s}\" (expected calibration, test or standard)"))
    }
}

/// A public line a message fault hit: one of the four board messages, a flatcomm chat
/// line or a report to central_dag's manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LineKind {
    /// `REQUEST_MATERIAL`
    #[serde(rename = "REQUEST_MATERIAL")]
    RequestMaterial,
    /// `OFFER_TRANSFER`
    #[serde(rename = "OFFER_TRANSFER")]
    OfferTransfer,
    /// `CONFIRM_TRANSFER`
    #[serde(rename = "CONFIRM_TRANSFER")]
    ConfirmTransfer,
    /// `CANNOT_SUPPLY`
    #[serde(rename = "CANNOT_SUPPLY")]
    CannotSupply,
    /// A flatcomm chat line.
    #[serde(rename = "chat")]
    Chat,
    /// A report to central_dag's manager.
    #[serde(rename = "manager")]
    Manager,
}

impl From<crate::MessageKind> for LineKind {
    fn from(k: crate::MessageKind) -> Self {
        match k {
            crate::MessageKind::RequestMaterial => LineKind::RequestMaterial,
            crate::MessageKind::OfferTransfer => LineKind::OfferTransfer,
            crate::MessageKind::ConfirmTransfer => LineKind::ConfirmTransfer,
            crate::MessageKind::CannotSupply => LineKind::CannotSupply,
        }
    }
}

impl LineKind {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::RequestMaterial => "REQUEST_MATERIAL",
            LineKind::OfferTransfer => "OFFER_TRANSFER",
            LineKind::ConfirmTransfer => "CONFIRM_TRANSFER",
            LineKind::CannotSupply => "CANNOT_SUPPLY",
            LineKind::Chat => "chat",
            LineKind::Manager => "manager",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serialised form is the name `as_str` gives (traces, configs and flags agree).
    #[test]
    fn serde_names_are_the_trace_names() {
        for p in Policy::ALL {
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{p}\""));
            assert_eq!(p.as_str().parse::<Policy>(), Ok(p));
        }
        for r in [EndReason::Complete, EndReason::TickLimit, EndReason::Stalled, EndReason::AgentsFailed] {
            assert_eq!(serde_json::to_string(&r).unwrap(), format!("\"{r}\""));
        }
        for c in [
            FallbackCause::Timeout,
            FallbackCause::CannotSupply,
            FallbackCause::Rejected,
            FallbackCause::Lost,
            FallbackCause::Manager,
        ] {
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{c}\""));
        }
        for l in [
            LineKind::RequestMaterial,
            LineKind::OfferTransfer,
            LineKind::ConfirmTransfer,
            LineKind::CannotSupply,
            LineKind::Chat,
            LineKind::Manager,
        ] {
            assert_eq!(serde_json::to_string(&l).unwrap(), format!("\"{}\"", l.as_str()));
        }
        for c in
            [SuiteClass::A, SuiteClass::B, SuiteClass::C, SuiteClass::D, SuiteClass::DImpossible, SuiteClass::Standard]
        {
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{c}\""));
        }
        for s in Split::ALL {
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{s}\""));
            assert_eq!(s.as_str().parse::<Split>(), Ok(s));
        }
        assert!("gate".parse::<Policy>().unwrap_err().to_string().contains("unknown policy \"gate\""));
    }
}
