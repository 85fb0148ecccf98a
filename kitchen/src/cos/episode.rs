//! A kitchen episode as a [`Scenario`] of the episode protocol (`gatecrew-engine`):
//! the world, the step count, the executor and the trace's events, stepped by whoever
//! drives it — the synchronous stepper ([`super::run`]) or the actor runtime — so both
//! give the same trace.
//!
//! The kitchen asks its driver for steps only (it has no board or adjudicator of the
//! protocol's: a gated crew's board lives on its desk). One kitchen step is:
//!
//! 1. the decisions: the one decider ([`Turn::Decide`], the dispatcher) decides every
//!    agent's action; or each of a crew's agents takes its turn ([`Turn::Cook`]) in
//!    agent-id order, one at a time, with the crew's desk (board or chat, judge,
//!    counts) lent to it: a turn reads the desk as the turns before it left it in the
//!    same step (agent 0's request is answered by agent 1 in that step), so the turns
//!    cannot run concurrently without changing the policy;
//! 2. the world's step from those actions, through the executor, recorded;
//! 3. every decider learns what the step did ([`Turn::Observe`]), concurrently: each
//!    reads only its own outcome;
//! 4. a flush: the step's events are ready.

use std::sync::Arc;

use gatecrew_engine::{Answer, Need, Scenario, Stepped};
use gatecrew_protocol::AgentId;

use super::run::{Decided, Tally, finish, prepare, start_info, step_once};
use super::{EpisodeOutcome, RunSpec};
use crate::dispatch::LiveCall;
use crate::executor::EpisodeExec;
use crate::level::Level;
use crate::policy::{Counters, Decider, Desk, Line, PolicyKind, Split};
use crate::recipe::RecipeBook;
use crate::trace::{EpisodeId, Log, Record, episode_id};
use crate::world::{Action, StepReport, World};

/// What a kitchen decider is handed.
pub enum Turn {
    /// Decide every agent's action in the world as it stands (the dispatcher).
    Decide(Arc<World>),
    /// A crew agent's turn in the world as it stands, with the crew's desk lent for
    /// it (answer it back in [`Turned::Cook`]).
    Cook(Arc<World>, Box<dyn Desk>),
    /// What the step did, in the world after it.
    Observe(Arc<World>, Arc<StepReport>),
}

/// What a kitchen decider answers.
pub enum Turned {
    /// To [`Turn::Decide`]: one action per agent, the lines written deciding them,
    /// the real model calls made, and the counts so far.
    Decided {
        /// One action per agent, in agent-id order.
        actions: Vec<Action>,
        /// The public lines written while deciding.
        lines: Vec<Line>,
        /// The real model's calls (the dispatcher over a real model).
        live: Vec<LiveCall>,
        /// The policy's counts so far.
        counters: Counters,
    },
    /// To [`Turn::Cook`]: the agent's action, and the desk back.
    Cook(Action, Box<dyn Desk>),
    /// To [`Turn::Observe`].
    Observed,
}

impl std::fmt::Debug for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Turn::Decide(w) => write!(f, "Decide(step {})", w.time()),
            Turn::Cook(w, _) => write!(f, "Cook(step {})", w.time()),
            Turn::Observe(_, r) => write!(f, "Observe(step {})", r.step),
        }
    }
}

impl std::fmt::Debug for Turned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Turned::Decided { actions, .. } => write!(f, "Decided({actions:?})"),
            Turned::Cook(a, _) => write!(f, "Cook({a:?})"),
            Turned::Observed => f.write_str("Observed"),
        }
    }
}

/// Who decides a kitchen's steps, as the episode sees them.
pub enum Mode {
    /// One decider decides every agent's action (decider 0); `central`: one call
    /// decides them all (the dispatcher), as the trace and the executor count it.
    One {
        /// Whether the decider is a central planner.
        central: bool,
    },
    /// A crew: agent k is decider k, and the desk they share stays with the episode
    /// between turns.
    Crew(Box<dyn Desk>),
}

enum Phase {
    Decide,
    AwaitDecided,
    Turn(usize, Vec<Action>),
    AwaitTurn(usize, Vec<Action>),
    Observe(Arc<StepReport>),
    AwaitObserved,
    Flush,
    AwaitFlush,
    Finish,
    AwaitLastFlush(EpisodeOutcome),
    Done(EpisodeOutcome),
    Polled,
}

/// One kitchen episode, stepped from outside. See the module docs.
pub struct EpisodeCore {
    world: Arc<World>,
    /// The policy's name, as the outcome gives it.
    name: String,
    factor: f64,
    steps: u32,
    done: u32,
    central: bool,
    /// The crew's desk between turns (`None` while lent, or with one decider).
    desk: Option<Box<dyn Desk>>,
    /// The one decider's counts, as of its last decision.
    counters: Counters,
    exec: Option<EpisodeExec>,
    log: Log,
    tally: Tally,
    phase: Phase,
}

impl EpisodeCore {
    /// A fresh episode of `level` under `policy`, whose deciders `build` makes for its
    /// world, and the deciders (for its driver to step); with `trace.on`, its events
    /// are kept for [`Scenario::drain`] (the start's now).
    pub fn new(
        book: &Arc<RecipeBook>,
        level: &Arc<Level>,
        policy: PolicyKind,
        factor: f64,
        spec: &RunSpec,
        build: &dyn Fn(&World) -> Split,
        trace: Trace<'_>,
    ) -> (Self, Vec<Decider>) {
        let (world, steps, exec) = prepare(book, level, factor, spec);
        let Split { deciders, mode } = build(&world);
        let mut info = start_info(policy, factor, spec, level);
        info.live_model = trace.live_model;
        let mut log = if trace.on { Log::new(episode_id(&level.name, spec.agents, &info)) } else { Log::off() };
        log.start(&world, &info);
        (EpisodeCore::assemble(world, policy.as_str(), factor, steps, mode, exec, log), deciders)
    }

    /// An episode of a world prepared by the caller, `steps` long, decided as `mode`
    /// says, untraced; `name` is the policy's in the outcome.
    pub fn prepared(world: World, name: &str, factor: f64, steps: u32, mode: Mode, exec: Option<EpisodeExec>) -> Self {
        EpisodeCore::assemble(world, name, factor, steps, mode, exec, Log::off())
    }

    fn assemble(
        world: World,
        name: &str,
        factor: f64,
        steps: u32,
        mode: Mode,
        exec: Option<EpisodeExec>,
        log: Log,
    ) -> Self {
        let (central, desk) = match mode {
            Mode::One { central } => (central, None),
            Mode::Crew(desk) => (false, Some(desk)),
        };
        EpisodeCore {
            world: Arc::new(world),
            name: name.to_owned(),
            factor,
            steps,
            done: 0,
            central,
            desk,
            counters: Counters::default(),
            exec,
            log,
            tally: Tally::default(),
            phase: Phase::Decide,
        }
    }

    /// The executor's state (its calls), taken at the end.
    pub fn take_exec(&mut self) -> Option<EpisodeExec> {
        self.exec.take()
    }

    /// The id its trace file is named by.
    pub fn id(level: &Level, policy: PolicyKind, factor: f64, spec: &RunSpec) -> EpisodeId {
        episode_id(&level.name, spec.agents, &start_info(policy, factor, spec, level))
    }

    /// The world as it stands.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The deciders it steps: the crew's agents, or the one decider.
    fn deciders(&self) -> usize {
        if self.desk.is_some() { self.world.agents().len() } else { 1 }
    }

    /// The step from the intended actions and the lines written deciding them.
    fn apply(&mut self, intended: Vec<Action>, lines: &[Line], live: &[LiveCall]) -> Arc<StepReport> {
        self.done += 1;
        let d = Decided { central: self.central, intended, lines, live };
        let world = Arc::make_mut(&mut self.world);
        Arc::new(step_once(world, d, self.exec.as_mut(), &mut self.log, &mut self.tally))
    }

    fn run_phase(&mut self, phase: Phase) -> (Phase, Option<Need<Turn, EpisodeOutcome>>) {
        match phase {
            Phase::Decide if self.done >= self.steps => (Phase::Finish, None),
            Phase::Decide => match &mut self.desk {
                None => {
                    let need = Need::Step(vec![(AgentId(0), Turn::Decide(Arc::clone(&self.world)))]);
                    (Phase::AwaitDecided, Some(need))
                }
                Some(desk) => {
                    desk.open(self.world.time());
                    (Phase::Turn(0, Vec::with_capacity(self.world.agents().len())), None)
                }
            },
            Phase::Turn(next, intended) if next == self.deciders() => {
                let lines = self.desk.as_mut().map(|d| d.lines()).unwrap_or_default();
                (Phase::Observe(self.apply(intended, &lines, &[])), None)
            }
            Phase::Turn(next, intended) => {
                let desk = self.desk.take().expect("the desk is back between turns");
                let need = Need::Step(vec![(AgentId(next as u32), Turn::Cook(Arc::clone(&self.world), desk))]);
                (Phase::AwaitTurn(next, intended), Some(need))
            }
            Phase::Observe(report) => {
                let all = (0..self.deciders() as u32)
                    .map(|i| (AgentId(i), Turn::Observe(Arc::clone(&self.world), Arc::clone(&report))))
                    .collect();
                (Phase::AwaitObserved, Some(Need::Step(all)))
            }
            Phase::Flush => (Phase::AwaitFlush, Some(Need::Flush)),
            Phase::Finish => {
                let counters = self.desk.as_ref().map_or(self.counters, |d| d.counters());
                let tally = self.tally;
                let out = finish(
                    &self.world,
                    &self.name,
                    self.factor,
                    self.steps,
                    tally,
                    counters,
                    self.exec.as_ref(),
                    &mut self.log,
                );
                (Phase::AwaitLastFlush(out), Some(Need::Flush))
            }
            Phase::Done(out) => {
                let need = Need::Done(out.clone());
                (Phase::Done(out), Some(need))
            }
            waiting => panic!("the kitchen episode was polled at {} before its driver answered", waiting.name()),
        }
    }
}

impl Phase {
    fn name(&self) -> &'static str {
        match self {
            Phase::Decide => "Decide",
            Phase::AwaitDecided => "AwaitDecided",
            Phase::Turn(..) => "Turn",
            Phase::AwaitTurn(..) => "AwaitTurn",
            Phase::Observe(_) => "Observe",
            Phase::AwaitObserved => "AwaitObserved",
            Phase::Flush => "Flush",
            Phase::AwaitFlush => "AwaitFlush",
            Phase::Finish => "Finish",
            Phase::AwaitLastFlush(_) => "AwaitLastFlush",
            Phase::Done(_) => "Done",
            Phase::Polled => "Polled",
        }
    }
}

/// Whether an episode's events are kept, and the real model a dispatcher asks.
#[derive(Debug, Clone, Copy, Default)]
pub struct Trace<'a> {
    /// Keep the events for the driver to write.
    pub on: bool,
    /// The real model a dispatcher asks (its trace says so).
    pub live_model: Option<&'a str>,
}

impl Scenario for EpisodeCore {
    type Input = Turn;
    type Output = Turned;
    type Event = Record;
    type Finished = EpisodeOutcome;

    fn poll(&mut self) -> Need<Turn, EpisodeOutcome> {
        loop {
            let phase = std::mem::replace(&mut self.phase, Phase::Polled);
            let (next, need) = self.run_phase(phase);
            self.phase = next;
            if let Some(need) = need {
                return need;
            }
        }
    }

    fn answer(&mut self, answer: Answer<Turned>) {
        let phase = std::mem::replace(&mut self.phase, Phase::Polled);
        self.phase = match (phase, answer) {
            (Phase::AwaitDecided, Answer::Stepped(mut s)) => match s.pop().map(|s| s.output) {
                Some(Turned::Decided { actions, lines, live, counters }) => {
                    self.counters = counters;
                    Phase::Observe(self.apply(actions, &lines, &live))
                }
                other => panic!("the kitchen's decider answered {other:?} to its decision"),
            },
            (Phase::AwaitTurn(next, mut intended), Answer::Stepped(mut s)) => match s.pop().map(|s| s.output) {
                Some(Turned::Cook(action, desk)) => {
                    self.desk = Some(desk);
                    intended.push(action);
                    Phase::Turn(next + 1, intended)
                }
                other => panic!("cook {next} answered {other:?} to its turn"),
            },
            (Phase::AwaitObserved, Answer::Stepped(_)) => Phase::Flush,
            (Phase::AwaitFlush, Answer::Ready) => Phase::Decide,
            (Phase::AwaitLastFlush(out), Answer::Ready) => Phase::Done(out),
            (phase, answer) => panic!("the kitchen's driver answered {answer:?} at {}", phase.name()),
        };
    }

    fn drain(&mut self) -> Vec<Record> {
        self.log.drain()
    }
}

/// Steps a decider on its turn: the logic of every runtime's decider, in one place.
pub fn decide(decider: &mut Decider, id: AgentId, turn: Turn) -> Stepped<Turned> {
    let out = match (decider, turn) {
        (Decider::Cook(member), Turn::Cook(world, mut desk)) => {
            let action = desk.turn(member, &world, id.index());
            Turned::Cook(action, desk)
        }
        (Decider::Cook(member), Turn::Observe(_, report)) => {
            member.observe(id.index(), &report);
            Turned::Observed
        }
        (Decider::One(p), turn) => one(p.as_mut(), turn),
        (Decider::Cook(_), turn) => panic!("a crew agent was handed {turn:?}"),
    };
    Stepped::ok(id, out)
}

/// The one decider's turn.
pub(crate) fn one(p: &mut dyn crate::policy::Policy, turn: Turn) -> Turned {
    match turn {
        Turn::Decide(world) => {
            let actions = p.decide(&world);
            Turned::Decided { actions, lines: p.lines(), live: p.live_calls(), counters: p.counters() }
        }
        Turn::Observe(world, report) => {
            p.observe(&world, &report);
            Turned::Observed
        }
        Turn::Cook(..) => panic!("the one decider was handed a crew agent's turn"),
    }
}
