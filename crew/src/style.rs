//! Coordination styles: how a crew talks, behind one seam. The gated protocol and the
//! three baselines of DESIGN section 6 differ only in the answers to the questions of
//! [`Style`]; the agent and the episode core ask them and never look at the policy.
//! The four gate variants (`gated`, `rule_score`, `rule_only`, `no_gate`) share the
//! protocol's style: they differ only in the gate procedure ([`crate::policy::gate_policy`]).
//!
//! A new style is one new file here implementing [`Style`], and one arm in [`style`].
//! The numbers each baseline uses, and where they come from, are in its file and in
//! docs/baselines.md.

mod central_dag;
mod flatcomm;
mod no_partition;
mod protocol;

use crate::agent::BoardNews;
use crate::policy::Policy;

pub use flatcomm::FLATCOMM_READ_TICKS;
pub use no_partition::NO_PARTITION_READ_TICKS;

/// The questions on which coordination styles differ. The defaults are the gated
/// protocol's: news costs nothing to read, every bot answers requests, issues go
/// through the bot's own gate, repeats are suppressed, the board is the board.
pub trait Style: std::fmt::Debug + Send + Sync {
    /// Ticks of work a bot loses taking one piece of news from a teammate into its
    /// context (the action in flight, or the wait, ends that much later).
    fn read_ticks(&self, _news: &BoardNews) -> u64 {
        0
    }

    /// Whether a bot that is handing items over (`giving`) or waiting for some
    /// (`awaiting`) ignores a teammate's request.
    fn busy(&self, _giving: bool, _awaiting: bool) -> bool {
        false
    }

    /// Whether a teammate's request is taken as the bot's own issue when it is short of
    /// the same item (the bot raises it at once).
    fn echoes_requests(&self) -> bool {
        false
    }

    /// Whether a central manager holds the plan: issues go to it instead of through
    /// the bot's gate, the bot carries out its directives, deliveries are confirmed to
    /// it, and the episode runs it.
    fn central_manager(&self) -> bool {
        false
    }

    /// Whether issues the board cannot carry (a blocked cell, a failed action) are
    /// still reported in a chat line to everyone.
    fn chats_status(&self) -> bool {
        false
    }

    /// The cooldown after a `CANNOT_SUPPLY`, given the gate's.
    fn refusal_cooldown(&self, gate_cooldown: u64) -> u64 {
        gate_cooldown
    }

    /// Whether a repeated detection of an unchanged issue may be suppressed.
    fn suppresses_repeats(&self) -> bool {
        true
    }

    /// Whether the board's exchanges are free chat (recorded as chat lines, not as
    /// protocol messages).
    fn board_as_chat(&self) -> bool {
        false
    }
}

/// The style of a policy.
pub fn style(policy: Policy) -> &'static dyn Style {
    match policy {
        Policy::Gated | Policy::RuleScore | Policy::RuleOnly | Policy::NoGate => &protocol::Protocol,
        Policy::NoPartition => &no_partition::NoPartition,
        Policy::Flatcomm => &flatcomm::Flatcomm,
        Policy::CentralDag => &central_dag::CentralDag,
    }
}
