//! The messages between the world, the crew supervisor and the agent actors, in one
//! place: the world steps agents and, after a restart, asks the supervisor for the new
//! actor, so keeping the types beside either actor would make the files import each
//! other.

use gatecrew_crew::agent::{StepInput, StepOutput};
use gatecrew_protocol::AgentId;
use ractor::{ActorRef, RpcReplyPort};
use ractor_cluster_derive::RactorMessage;

/// Messages to an agent.
#[derive(RactorMessage)]
pub enum AgentMsg {
    /// One wake-up: step the core and reply with its output.
    Step(Box<StepInput>, RpcReplyPort<StepOutput>),
    /// After a restart: step again the input the failed actor was stepping (kept,
    /// without its fault, in the journal).
    Resume(RpcReplyPort<StepOutput>),
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
}

/// Why an actor's work failed: the runtime's own error (a call to a stopped actor), or
/// the world actor's (a board or crew call that failed mid-episode).
pub type Cause = Box<dyn std::error::Error + Send + Sync>;
