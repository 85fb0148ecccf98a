//! The actor runtime of gatecrew: thin [ractor] shells around the pure cores.
//!
//! * [`AgentActor`] owns one [`AgentCore`](gatecrew_crew::agent::AgentCore): a bot's
//!   private state, reachable by no one else. It takes its own view of the world as it
//!   wakes, from the round's read-only [`Sight`](gatecrew_crew::Sight), so the views of
//!   a crowded round are taken in parallel like the steps;
//! * [`BoardActor`] owns the [`Board`](gatecrew_protocol::Board) core: the only channel
//!   between bots;
//! * [`WorldActor`] owns the [`Episode`](gatecrew_crew::Episode) core and drives the
//!   lockstep: each step it asks every awake agent for its intent concurrently, then
//!   applies the answers in agent-id order, so the trace does not depend on scheduling;
//! * [`CrewActor`] supervises the agents and restarts a failed one from its state after
//!   its last verified step, rebuilt from a checkpoint and the inputs since (`journal`);
//! * [`RecorderActor`] writes the trace.
//!
//! Tier-3 consults to a live LLM endpoint run as tokio tasks beside the lockstep (see
//! [`Consultant`]); their verdicts enter the episode at ticks the episode core fixed.
//!
//! The kitchen world (`gatecrew-kitchen`) has its own actors in [`kitchen`].
//!
//! Small crews run on one thread and large ones on every core ([`runtime`]): the
//! lockstep gains nothing from a second thread while few agents are awake a tick.
//!
//! The actors hold no logic of their own: the same episode through [`run_episode`] and
//! through the synchronous stepper gives byte-identical traces.

mod agent;
mod board;
mod consult;
mod crew;
pub mod journal;
pub mod kitchen;
mod messages;
mod recorder;
mod run;
pub mod runtime;
mod world;

pub use agent::AgentActor;
pub use board::{BoardActor, BoardMsg};
pub use consult::Consultant;
pub use crew::CrewActor;
pub use messages::{AgentHandle, AgentMsg, Cause, CrewMsg, StepReply};
pub use recorder::{RecorderActor, RecorderMsg};
pub use run::{RunError, run_episode, run_episode_with};
pub use world::{Tap, WorldActor, WorldMsg};
