//! The messages between the world, the crew supervisor and the agent actors, in one
//! place: the world steps agents and, after a restart, asks the supervisor for the new
//! actor, so keeping the types beside either actor would make the files import each
//! other. Every type is generic over the [`Hosted`] agent it carries.

use gatecrew_protocol::AgentId;
use ractor::{ActorRef, RpcReplyPort};
use tokio::sync::mpsc::UnboundedSender;

use crate::hosted::Hosted;

/// Messages to an agent.
pub enum AgentMsg<A: Hosted> {
    /// One wake-up: step the agent and answer through the reply. With a sight, the
    /// agent takes its view from it first ([`crate::Staged::sight`]). The sight is
    /// declared before the reply so that a message dropped unread lets go of the world
    /// before its reply tells the world the agent failed.
    Step(A::Input, Option<A::Sight>, StepReply<A::Output>),
    /// After a restart: step again the input the failed actor was stepping (kept,
    /// without its fault, by what its supervisor keeps).
    Resume(RpcReplyPort<A::Output>),
}

impl<A: Hosted> ractor::Message for AgentMsg<A> {}

/// An agent's answer to one step: its slot in the round and its output, or `None`
/// when the agent failed before answering.
pub type Answer<O> = (usize, Option<O>);

/// Where an agent answers a step: the world's one channel for the whole episode,
/// instead of a reply port (a oneshot channel) per agent per tick.
///
/// A reply dropped unanswered (the agent panicked mid-step and unwound, or its actor
/// was gone and the message dropped with the mailbox) answers `None`, so the world
/// learns of the failure exactly as a dropped reply port would tell it, and never
/// waits for an answer that cannot come.
#[derive(Debug)]
pub struct StepReply<O: Send + 'static> {
    slot: usize,
    tx: Option<UnboundedSender<Answer<O>>>,
}

impl<O: Send + 'static> StepReply<O> {
    /// A reply for the input at `slot` of the round.
    pub fn new(slot: usize, tx: UnboundedSender<Answer<O>>) -> Self {
        StepReply { slot, tx: Some(tx) }
    }

    /// Answers with the step's output.
    pub fn send(mut self, out: O) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send((self.slot, Some(out)));
        }
    }
}

impl<O: Send + 'static> Drop for StepReply<O> {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send((self.slot, None));
        }
    }
}

/// A live agent as the supervisor knows it.
pub struct AgentHandle<A: Hosted> {
    /// Which agent the actor runs.
    pub agent: AgentId,
    /// Where its steps are sent; a restart replaces it.
    pub actor: ActorRef<AgentMsg<A>>,
    /// How many times it was started (0 for the first).
    pub generation: u64,
    /// Why it was last restarted.
    pub cause: Option<String>,
}

impl<A: Hosted> Clone for AgentHandle<A> {
    fn clone(&self) -> Self {
        AgentHandle {
            agent: self.agent,
            actor: self.actor.clone(),
            generation: self.generation,
            cause: self.cause.clone(),
        }
    }
}

impl<A: Hosted> std::fmt::Debug for AgentHandle<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentHandle")
            .field("agent", &self.agent)
            .field("generation", &self.generation)
            .field("cause", &self.cause)
            .finish()
    }
}

/// An agent failed and cannot be rebuilt (its kind keeps nothing to restart from).
pub type Lost = String;

/// Messages to the supervisor.
pub enum CrewMsg<A: Hosted> {
    /// The agent's actor, once its generation is above `newer_than` (used after a
    /// failure, to wait for the restart), or why it is gone for good.
    Agent {
        /// Which agent.
        id: AgentId,
        /// Only answer with a generation above this.
        newer_than: Option<u64>,
        /// Where the handle goes once there is one new enough.
        reply: RpcReplyPort<Result<AgentHandle<A>, Lost>>,
    },
    /// Every agent's actor, in id order (the world asks once, at the start).
    All(RpcReplyPort<Vec<AgentHandle<A>>>),
}

impl<A: Hosted> ractor::Message for CrewMsg<A> {}

/// Why an actor's work failed: the runtime's own error (a call to a stopped actor), or
/// the world actor's (a board or crew call that failed mid-episode).
pub type Cause = Box<dyn std::error::Error + Send + Sync>;
