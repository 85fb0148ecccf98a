//! The episode protocol every gatecrew world speaks.
//!
//! An episode is a pure state machine, a [`Scenario`]: it says what it needs next
//! ([`Scenario::poll`] returns a [`Need`]) and its driver answers ([`Scenario::answer`]
//! with an [`Answer`]). The scenario owns the world, the clock and the order of a
//! round; the driver owns only what the scenario does not — the agents (plain cores,
//! or actors), the public board, the tier-3 adjudicator, the clock it waits on and the
//! sinks of the trace. A round's events come out typed ([`Scenario::drain`]); writing
//! them is the driver's. So a driver is one `match` over [`Need`], the same for every
//! world, and two drivers of the same episode give the same trace.
//!
//! Each scenario names its own types: what an agent is handed at a wake-up
//! ([`Scenario::Input`]), what it answers ([`Scenario::Output`]), a trace event
//! ([`Scenario::Event`]) and what a finished episode reports ([`Scenario::Finished`]).
//! The construction episode (`gatecrew-crew`) asks for everything here; the kitchen
//! (`gatecrew-kitchen`) has no board or adjudicator of the protocol's, so it asks only
//! for steps and flushes. A need a scenario never asks costs its driver one arm.
//!
//! [`Agent`] is the other side: a core a driver steps with the scenario's inputs.
//! [`stepper::drive`] is the synchronous driver every world shares: the reference the
//! actor runtime (`gatecrew-actors`) must match byte for byte.
//!
//! This crate knows no world: it depends on the protocol's ids, messages and board,
//! and on the gate's adjudications, nothing else.

mod consult;
mod need;
pub mod stepper;

pub use consult::{ByAdjudicator, ConsultRequest, ResolveError, Resolver};
pub use need::{Answer, Need, Stepped};

/// An episode of some world, as a state machine its driver answers. See the crate docs.
pub trait Scenario {
    /// What an agent is handed when it is stepped.
    type Input: Send + 'static;
    /// What an agent answers.
    type Output: Send + 'static;
    /// One trace event, as its line is written.
    type Event: serde::Serialize + Clone + Send + 'static;
    /// What the episode reports when it is done, besides its trace.
    type Finished: Clone + Send + 'static;

    /// What the episode needs next. Panics when the previous need was not answered:
    /// that is a bug in the driver.
    fn poll(&mut self) -> Need<Self::Input, Self::Finished>;

    /// Takes the driver's answer to the last need. Panics when it answers another need.
    fn answer(&mut self, answer: Answer<Self::Output>);

    /// The events recorded since the last drain, in order; called at every
    /// [`Need::Flush`].
    fn drain(&mut self) -> Vec<Self::Event>;
}

/// A core a driver steps with a scenario's inputs: a bot's mind, or a decider that
/// decides for several.
pub trait Agent<I, O> {
    /// Steps on `input` as agent `id`. A supervised core that failed on the input and
    /// restored itself says so in [`Stepped::restarted`].
    fn step(&mut self, id: gatecrew_protocol::AgentId, input: I) -> Stepped<O>;

    /// Steps a batch of `agents` (indexed by id) on their `inputs`, the outputs in
    /// input order: one after another, unless a core whose steps wait on something
    /// outside (a model server) runs them at once. Either way each step sees only its
    /// own input, so the outputs are the same.
    fn step_batch(agents: &mut [Self], inputs: Vec<(gatecrew_protocol::AgentId, I)>) -> Vec<Stepped<O>>
    where
        Self: Sized,
    {
        inputs.into_iter().map(|(id, input)| agents[id.index()].step(id, input)).collect()
    }
}
