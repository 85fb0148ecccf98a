//! The actor runtime of gatecrew: thin [ractor] shells around the pure cores, generic
//! over the world. Any episode of the episode protocol (`gatecrew-engine`) that says
//! what its agents are ([`Staged`]) runs here; the construction episode and the
//! kitchen are wired in [`hosted`].
//!
//! * [`AgentActor`] owns one agent ([`Hosted`]): a bot's private state, or a kitchen
//!   decider's, reachable by no one else. A construction bot takes its own view of the
//!   world as it wakes, from the round's read-only [`Sight`](gatecrew_crew::Sight), so
//!   the views of a crowded round are taken in parallel like the steps;
//! * [`BoardActor`] owns the [`Board`](gatecrew_protocol::Board) core: the only channel
//!   between construction bots (the kitchen's crews keep theirs on their desk);
//! * [`WorldActor`] owns the episode and answers its needs: each step it asks every
//!   agent the episode names for its output concurrently, then hands the answers back in
//!   id order, so the trace does not depend on scheduling;
//! * [`CrewActor`] supervises the agents and restarts a failed one from its state after
//!   its last verified step, rebuilt from what it keeps (a construction bot's journal:
//!   a checkpoint and the inputs since, [`journal`]); an agent that keeps nothing fails
//!   the episode;
//! * [`RecorderActor`] writes the trace.
//!
//! Tier-3 consults to a live LLM endpoint run as tokio tasks beside the lockstep (see
//! [`Consultant`]); their verdicts enter the episode at ticks the episode fixed.
//!
//! Small crews run on one thread and large ones on every core ([`runtime`]): the
//! lockstep gains nothing from a second thread while few agents are awake a tick.
//!
//! The actors hold no logic of their own: the same episode through [`run_staged`] and
//! through the synchronous stepper gives byte-identical traces, in either world.

mod agent;
mod board;
mod consult;
mod crew;
pub mod hosted;
pub mod journal;
mod messages;
mod recorder;
mod run;
pub mod runtime;
mod world;

pub use agent::AgentActor;
pub use board::{BoardActor, BoardMsg};
pub use consult::Consultant;
pub use crew::{CrewActor, Roster};
pub use hosted::{Hosted, Staged};
pub use messages::{AgentHandle, AgentMsg, Cause, CrewMsg, Lost, StepReply};
pub use recorder::{RecorderActor, RecorderMsg};
pub use run::{Parts, RunError, run_episode, run_episode_with, run_kitchen_episode, run_staged};
pub use world::{Tap, WorldActor, WorldMsg};
