//! The coordination policies compared on the same episodes (DESIGN section 6).
//!
//! The first four differ only in the gate. The last three are models of other
//! systems' coordination behaviour inside this world, not re-implementations of them:
//! they reproduce how those systems talk (who is interrupted, who waits, what a message
//! costs), never their language models' judgement. See docs/baselines.md.

use gatecrew_gating::GatePolicy;

pub use gatecrew_protocol::trace::{Policy, UnknownPolicy};

/// The gate procedure a policy's agents run. The baselines without a gate escalate
/// every issue the way their system does.
pub fn gate_policy(policy: Policy) -> GatePolicy {
    match policy {
        Policy::Gated | Policy::NoPartition => GatePolicy::Gated,
        Policy::RuleScore => GatePolicy::RuleScore,
        Policy::RuleOnly => GatePolicy::RuleOnly,
        Policy::NoGate | Policy::Flatcomm | Policy::CentralDag => GatePolicy::NoGate,
    }
}
