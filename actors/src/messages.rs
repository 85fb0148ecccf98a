//! The messages between the world, the crew supervisor and the agent actors, in one
//! place: the world steps agents and, after a restart, asks the supervisor for the new
//! actor, so keeping the types beside either actor would make the files import each
//! other.

use gatecrew_crew::Sight;
use gatecrew_crew::agent::{StepInput, StepOutput};
use gatecrew_protocol::AgentId;
use ractor::{ActorRef, RpcReplyPort};
use ractor_cluster_derive::RactorMessage;
use tokio::sync::mpsc::UnboundedSender;

/// Messages to an agent.
// The input is not boxed: ractor boxes every message it sends whole, so a box inside
// would be a second allocation per agent per step for nothing.
#[expect(clippy::large_enum_variant, reason = "ractor boxes the whole message")]
#[derive(RactorMessage)]
pub enum AgentMsg {
    /// One wake-up: step the core and answer through the reply. With a [`Sight`], the
    /// input's view is empty and the agent takes it first (the runtime defers the
    /// views, [`gatecrew_crew::Episode::defer_views`]). The sight is declared before
    /// the reply so that a message dropped unread lets go of the world before its
    /// reply tells the world the agent failed.
    Step(StepInput, Option<Sight>, StepReply),
    /// After a restart: step again the input the failed actor was stepping (kept,
    /// without its fault, in the journal).
    Resume(RpcReplyPort<StepOutput>),
}

/// An agent's answer to one step: its slot in the round and its output, or `None`
/// when the agent failed before answering.
pub type Answer = (usize, Option<StepOutput>);

/// Where an agent answers a step: the world's one channel for the whole episode,
/// instead of a reply port (a oneshot channel) per agent per tick.
///
/// A reply dropped unanswered (the agent panicked mid-step and unwound, or its actor
/// was gone and the message dropped with the mailbox) answers `None`, so the world
/// learns of the failure exactly as a dropped reply port told it before, and never
/// waits for an answer that cannot come.
#[derive(Debug)]
pub struct StepReply {
    slot: usize,
    tx: Option<UnboundedSender<Answer>>,
}

impl StepReply {
    /// A reply for the input at `slot` of the round.
    pub fn new(slot: usize, tx: UnboundedSender<Answer>) -> Self {
        StepReply { slot, tx: Some(tx) }
    }

    /// Answers with the step's output.
    pub fn send(mut self, out: StepOutput) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send((self.slot, Some(out)));
        }
    }
}

impl Drop for StepReply {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send((self.slot, None));
        }
    }
}

/// A live agent as the supervisor knows it.
#[derive(Debug, Clone)]
pub struct AgentHandle {
    /// Which agent the actor runs.
    pub agent: AgentId,
    /// Where its steps are sent; a restart replaces it.
    pub actor: ActorRef<AgentMsg>,
    /// How many times it was started (0 for the first).
    pub generation: u64,
    /// Why it was last restarted.
    pub cause: Option<String>,
}

/// Messages to the supervisor.
#[derive(RactorMessage)]
pub enum CrewMsg {
    /// The agent's actor, once its generation is above `newer_than` (used after a
    /// failure, to wait for the restart).
    Agent {
        /// Which agent.
        id: AgentId,
        /// Only answer with a generation above this.
        newer_than: Option<u64>,
        /// Where the handle goes once there is one new enough.
        reply: RpcReplyPort<AgentHandle>,
    },
    /// Every agent's actor, in id order (the world asks once, at the start).
    All(RpcReplyPort<Vec<AgentHandle>>),
}

/// Why an actor's work failed: the runtime's own error (a call to a stopped actor), or
/// the world actor's (a board or crew call that failed mid-episode).
pub type Cause = Box<dyn std::error::Error + Send + Sync>;
