//! The synchronous stepper: the episode core, the board core and the agent cores in a
//! plain loop, no actors, no tokio. It is the reference the actor runtime must match
//! byte for byte, and the fast path for suites and calibration.

use std::panic::{AssertUnwindSafe, catch_unwind};

use gatecrew_protocol::trace::Event;
use gatecrew_protocol::{AgentId, Board};

use super::consult::{ByAdjudicator, ResolveError, Resolver};
use super::{Episode, Finished, Progress, Stepped};
use crate::agent::{AgentCore, StepInput, StepOutput};
use crate::setup::Setup;

/// Watches an episode as it runs.
pub trait Observer {
    /// A trace event, in trace order.
    fn event(&mut self, event: &Event);
    /// Blocks in place after a step.
    fn progress(&mut self, _progress: Progress) {}
}

impl<F: FnMut(&Event)> Observer for F {
    fn event(&mut self, event: &Event) {
        self(event)
    }
}

/// Runs one episode, handing every trace event to `sink` in order.
pub fn run(setup: &Setup, sink: &mut dyn Observer) -> Finished {
    run_to_end(setup, sink).0
}

/// Runs one episode and also returns the episode core at its end (the final world).
/// Consults, if the setup has any, go to the deterministic adjudicator.
pub fn run_to_end(setup: &Setup, sink: &mut dyn Observer) -> (Finished, Episode) {
    let mut det = ByAdjudicator(gatecrew_gating::Deterministic { midpoint: setup.gate.midpoint() });
    match run_with(setup, sink, &mut det) {
        Ok(done) => done,
        Err(e) => unreachable!("the deterministic adjudicator always answers: {e}"),
    }
}

/// Runs one episode, resolving tier-3 consults with `resolver` (a blocking LLM client,
/// a replayed trace) when their verdicts are due. Fails only when the resolver does.
pub fn run_with(
    setup: &Setup,
    sink: &mut dyn Observer,
    resolver: &mut dyn Resolver,
) -> Result<(Finished, Episode), ResolveError> {
    run_watched(setup, sink, resolver, &mut |_: &Episode, _: &[AgentCore]| {})
}

/// [`run_with`], handing the episode and every agent's private state to `watch` after
/// each step of the loop: how the property tests check invariants (no agent waits on
/// a window past its deadline) from the inside.
pub fn run_watched(
    setup: &Setup,
    sink: &mut dyn Observer,
    resolver: &mut dyn Resolver,
    watch: &mut dyn FnMut(&Episode, &[AgentCore]),
) -> Result<(Finished, Episode), ResolveError> {
    let _span =
        tracing::info_span!("episode", id = %setup.name, policy = setup.policy.as_str(), seed = setup.seed).entered();
    let mut episode = Episode::new(setup);
    let mut board = Board::new(setup.roster(), setup.data.items().clone(), setup.board);
    let mut agents = setup.agents();
    let mut flush = |episode: &mut Episode, agents: &[AgentCore]| {
        for ev in episode.drain() {
            sink.event(&ev);
        }
        sink.progress(episode.progress());
        watch(episode, agents);
    };
    let finished = gatecrew_engine::stepper::drive(&mut episode, &mut agents, &mut board, resolver, &mut flush)?;
    Ok((finished, episode))
}

/// Steps each agent of `inputs` in turn through [`step_supervised`]: the answer to a
/// [`Need::Step`] for a driver that holds the agents' cores itself.
pub fn step_all(agents: &mut [AgentCore], inputs: Vec<(AgentId, StepInput)>) -> Vec<Stepped> {
    gatecrew_engine::stepper::step_all(agents, inputs)
}

impl gatecrew_engine::Agent<StepInput, StepOutput> for AgentCore {
    fn step(&mut self, id: AgentId, input: StepInput) -> Stepped {
        step_supervised(self, id, input)
    }

    /// Model-driven bots think at once, each on a thread of its own, so that a round's
    /// calls reach the endpoint together (it bounds how many are in flight: see
    /// `--llm-concurrency`); scripted ones, which wait on nothing, one after another.
    /// A step reads only its own input and its own replies, so the outputs, taken in
    /// input order, do not depend on which call came back first.
    fn step_batch(agents: &mut [AgentCore], inputs: Vec<(AgentId, StepInput)>) -> Vec<Stepped> {
        let model = inputs.iter().filter(|(id, _)| agents.get(id.index()).is_some_and(AgentCore::model_driven)).count();
        if model < 2 {
            return inputs.into_iter().map(|(id, input)| step_supervised(&mut agents[id.index()], id, input)).collect();
        }
        let mut cores: Vec<Option<&mut AgentCore>> = agents.iter_mut().map(Some).collect();
        std::thread::scope(|s| {
            let running: Vec<_> = inputs
                .into_iter()
                .map(|(id, input)| {
                    let agent = cores[id.index()].take().expect("one input per agent in a batch");
                    s.spawn(move || step_supervised(agent, id, input))
                })
                .collect();
            running.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
        })
    }
}

/// Steps an agent; if it panics, restores the snapshot taken before the step (its
/// last verified state) and replays the input without the fault, as the actor
/// supervisor does. Every synchronous driver steps its agents through this; the
/// episode records the restart when it takes the answer.
pub fn step_supervised(agent: &mut AgentCore, id: AgentId, input: StepInput) -> Stepped {
    if !input.crash {
        return Stepped::ok(id, agent.step(input));
    }
    let snapshot = agent.clone();
    let replay = StepInput { crash: false, ..input.clone() };
    match catch_unwind(AssertUnwindSafe(|| agent.step(input))) {
        Ok(out) => Stepped::ok(id, out),
        Err(panic) => {
            *agent = snapshot;
            Stepped { agent: id, output: agent.step(replay), restarted: Some(panic_message(&panic)) }
        }
    }
}

/// The text of a panic payload.
pub fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "panic".into())
}
