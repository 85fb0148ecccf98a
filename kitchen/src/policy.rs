//! The coordination policies that run in the kitchen, behind one trait: each step a
//! policy reads the world and returns one action per agent. What an agent may know is
//! the policy's business: the dispatcher reads everything (as MindAgent's LLM reads the
//! full game state), a crew agent its own private state, the visible kitchen (the
//! state MindAgent prints: where everyone stands, what they hold, what is inside each
//! tool) and the board or the chat.

mod crew;
mod dispatcher;
pub mod flatcomm;
pub mod gated;
pub mod llm_dispatcher;
mod plan;
mod split;

use std::fmt;
use std::str::FromStr;

use gatecrew_protocol::{BoardMessage, ItemId};
use serde::{Deserialize, Serialize};

pub use split::{Decider, Desk, MemberState, Split};

use crate::world::{Action, LocationId, StepReport, World};

/// What a policy counted over an episode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Public messages: dispatcher commands, board messages, or chat lines.
    pub messages: u64,
    /// Kitchen issues detected (each blocker once).
    pub issues: u64,
    /// Gate decisions (the gated crew only).
    pub gate_decisions: u64,
    /// Of those, decided by a tier-1 rule, by the tier-2 score, in the gray zone.
    pub tier1: u64,
    /// See `tier1`.
    pub tier2: u64,
    /// See `tier1`.
    pub tier3: u64,
    /// Issues sent to teammates (escalated, or broadcast by flatcomm).
    pub escalations: u64,
    /// Coordination windows (or chat needs) that ended with a confirmed hand-over.
    pub confirmed: u64,
    /// Steps agents lost reading and answering chat (flatcomm only).
    pub interrupted_steps: u64,
}

/// A coordination policy. See the module docs.
pub trait Policy {
    /// The actions of one step, one per agent.
    fn decide(&mut self, world: &World) -> Vec<Action>;
    /// What the step did (the policy learns its verified outcomes here).
    fn observe(&mut self, world: &World, report: &StepReport);
    /// The counts so far.
    fn counters(&self) -> Counters;
    /// The public lines written since the last call, in the order they were written
    /// (the `llm` executor puts them into their readers' contexts). None by default.
    fn lines(&mut self) -> Vec<Line> {
        Vec::new()
    }
    /// Whether one central call decides every agent's action (the dispatcher), rather
    /// than one call per agent.
    fn central(&self) -> bool {
        false
    }
    /// The real model calls made while deciding since the last call, for the trace and
    /// the outcome's counts (the dispatcher over a real model,
    /// [`llm_dispatcher::LlmDispatcher`]). None by default.
    fn live_calls(&mut self) -> Vec<crate::dispatch::LiveCall> {
        Vec::new()
    }
}

/// A public line an agent wrote, and who reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The writer.
    pub from: usize,
    /// The one reader, or `None`: every teammate.
    pub to: Option<usize>,
    /// What it says.
    pub text: LineText,
}

/// What a line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineText {
    /// A protocol message on the board (gated); a request carries the requester's tool.
    Board(BoardMessage, Option<LocationId>),
    /// A chat line (flatcomm).
    Chat(ChatLine),
}

/// Flatcomm's chat lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatLine {
    /// "I'm taking an order of this dish."
    Goal(ItemId),
    /// "I need this item in that tool."
    Need {
        /// The item.
        item: ItemId,
        /// The tool.
        to: LocationId,
    },
    /// "I'll bring it." (to the one in need)
    Offer {
        /// The one in need.
        to: usize,
        /// The item.
        item: ItemId,
    },
    /// "I can't." (to the one in need)
    Refuse {
        /// The one in need.
        to: usize,
        /// The item.
        item: ItemId,
    },
    /// "Got it, thanks." (to the helper)
    Thanks {
        /// The helper.
        to: usize,
        /// The item.
        item: ItemId,
    },
    /// "Every tool I need for this is busy."
    Stuck(ItemId),
}

/// The policies by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    /// MindAgent's central dispatcher (a deterministic planner).
    Dispatcher,
    /// Our agents: private state, the gate, the board.
    Gated,
    /// The same agents broadcasting every goal and need to all.
    Flatcomm,
}

impl PolicyKind {
    /// Every policy.
    pub const ALL: [PolicyKind; 3] = [PolicyKind::Dispatcher, PolicyKind::Gated, PolicyKind::Flatcomm];

    /// The name.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyKind::Dispatcher => "dispatcher",
            PolicyKind::Gated => "gated",
            PolicyKind::Flatcomm => "flatcomm",
        }
    }

    /// A fresh policy for a crew of `agents` in `world`.
    pub fn build(self, world: &World, agents: usize) -> Box<dyn Policy> {
        match self {
            PolicyKind::Dispatcher => Box::new(dispatcher::Dispatcher::new(agents)),
            PolicyKind::Gated => Box::new(gated::crew(world, agents)),
            PolicyKind::Flatcomm => Box::new(flatcomm::crew(world, agents)),
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// An unknown policy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown kitchen policy \"{0}\" (known: dispatcher, gated, flatcomm)")]
pub struct UnknownPolicy(pub String);

impl FromStr for PolicyKind {
    type Err = UnknownPolicy;
    fn from_str(s: &str) -> Result<Self, UnknownPolicy> {
        PolicyKind::ALL.into_iter().find(|p| p.as_str() == s).ok_or_else(|| UnknownPolicy(s.to_owned()))
    }
}
