//! An episode as a value that owns everything but its policy: the world, the executor
//! and the trace. The actor runtime's world actor holds one and steps it with the
//! actions its agents decided; [`super::run`]'s loop does the same steps through the
//! same functions, so both runtimes write the same trace.

use std::sync::Arc;

use super::run::{Decided, Tally, finish, prepare, start_info, step_once};
use super::{EpisodeOutcome, RunSpec};
use crate::executor::EpisodeExec;
use crate::level::Level;
use crate::policy::{Counters, Line, PolicyKind};
use crate::recipe::RecipeBook;
use crate::trace::{EpisodeId, Recorder, episode_id};
use crate::world::{Action, StepReport, World};

/// One episode of a level under a policy, stepped from outside. See the module docs.
pub struct EpisodeCore {
    world: World,
    policy: PolicyKind,
    factor: f64,
    steps: u32,
    done: u32,
    exec: Option<EpisodeExec>,
    rec: Option<Recorder>,
    tally: Tally,
}

impl EpisodeCore {
    /// A fresh episode; with `rec`, its trace is written as it is stepped (the start
    /// line now).
    pub fn new(
        book: &Arc<RecipeBook>,
        level: &Arc<Level>,
        policy: PolicyKind,
        factor: f64,
        spec: &RunSpec,
        mut rec: Option<Recorder>,
    ) -> Self {
        let (world, steps, exec) = prepare(book, level, factor, spec);
        if let Some(r) = rec.as_mut() {
            r.start(&world, &start_info(policy, factor, spec, level));
        }
        EpisodeCore { world, policy, factor, steps, done: 0, exec, rec, tally: Tally::default() }
    }

    /// The id its trace file is named by.
    pub fn id(level: &Level, policy: PolicyKind, factor: f64, spec: &RunSpec) -> EpisodeId {
        episode_id(&level.name, spec.agents, &start_info(policy, factor, spec, level))
    }

    /// The world as it stands.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The policy it runs.
    pub fn policy(&self) -> PolicyKind {
        self.policy
    }

    /// Whether every step has been run.
    pub fn over(&self) -> bool {
        self.done >= self.steps
    }

    /// One step from the policy's intended actions and the lines it wrote deciding them.
    pub fn step(&mut self, intended: Vec<Action>, lines: &[Line]) -> StepReport {
        self.done += 1;
        let central = self.policy == PolicyKind::Dispatcher;
        // The actor runtime runs no real model: no live calls.
        let d = Decided { central, intended, lines, live: &[] };
        step_once(&mut self.world, d, self.exec.as_mut(), self.rec.as_mut(), &mut self.tally)
    }

    /// The outcome with the policy's final counts, and the recorder (to be finished).
    pub fn finish(mut self, counters: Counters) -> (EpisodeOutcome, Option<Recorder>) {
        let (name, factor, steps, tally) = (self.policy.as_str(), self.factor, self.steps, self.tally);
        let out = finish(&self.world, name, factor, steps, tally, counters, self.exec.as_ref(), self.rec.as_mut());
        (out, self.rec)
    }
}
