//! Coordination styles: how a crew talks, behind one seam. The gated protocol and the
//! three baselines of DESIGN section 6 differ only in the answers to the questions of
//! [`Style`]; the agent and the episode core ask them and never look at the policy.
//! The four gate variants (`gated`, `rule_score`, `rule_only`, `no_gate`) share the
//! protocol's style: they differ only in the gate procedure ([`crate::policy::gate_policy`]).
//!
//! A new style is one new file here implementing [`Style`], and one arm in [`style`].
//! The numbers each baseline uses, and where they come from, are in its file and in
//! docs/baselines.md.
//!
//! The agent's step types carry only what the agent does; what a style adds travels in
//! two payloads defined here: [`Delivery`] (what the style's own channel brings an
//! agent at a wake-up, such as `central_dag`'s directives) and [`Aside`] (what an agent
//! says outside the board, such as `flatcomm`'s status lines). The work a bot loses
//! reading teammates' news is not the agent's doing at all: the episode charges it from
//! the news it hands over ([`reading_ticks`]). A style with a channel of its own adds a
//! variant to one of the payloads; a style without one adds nothing here.

pub(crate) mod central_dag;
mod flatcomm;
mod no_partition;
mod protocol;

use gatecrew_protocol::{AgentId, Recipient};

use crate::episode::manager::{Directive, ManagerAsk};
use crate::news::BoardNews;
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

    /// Whether a bot's lines (its posts and what it says on the style's own channel) are
    /// written by its language model under the `llm` executor, each a call that costs
    /// time and can go wrong. The protocol's messages are filled in from the gate's
    /// decision and the agent's state, with no model call.
    fn writes_with_model(&self) -> bool {
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

/// What a style's own channel brings an agent at a wake-up, besides the board's news
/// (in [`crate::agent::StepInput::style`]). The protocol has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// `central_dag`: the central manager's order after a re-plan.
    Directive(Directive),
}

/// What an agent says outside the board, on its style's own channel (in
/// [`crate::agent::StepOutput::style`], in the order said). The episode records each
/// one, and a fault may drop it on the way. The protocol has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Aside {
    /// `flatcomm`: a free chat line without protocol meaning (a status report); every
    /// teammate reads it.
    Chat(Recipient),
    /// `central_dag`: a line to the central manager: an issue it re-plans on, a
    /// confirmation, or an inventory report.
    Ask(ManagerAsk),
}

/// Ticks of work `agent` loses taking `news` into its context under `style`: only
/// teammates' news costs; the bot's own messages and the board's closings are known
/// already. The episode adds them to the end of the action in flight (or the wait).
pub fn reading_ticks(style: &dyn Style, agent: AgentId, news: &[BoardNews]) -> u64 {
    news.iter()
        .map(|n| {
            let from_other = match n {
                BoardNews::Posted { msg, .. } => msg.from() != agent,
                BoardNews::Chat { from } => *from != agent,
                BoardNews::Closed(_) | BoardNews::Rejected { .. } => false,
            };
            if from_other { style.read_ticks(n) } else { 0 }
        })
        .sum()
}
