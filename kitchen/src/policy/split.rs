//! A policy as its deciders, the form every runtime steps: the dispatcher is one
//! decider deciding every agent's action; a crew is one decider per agent, each with
//! its own private state, and the desk (board or chat, judge, counts) they share, which
//! the episode lends to each in turn ([`crate::cos::EpisodeCore`]). The same methods
//! decide underneath ([`Desk::turn`] is the crew's per-agent step), so no runtime can
//! disagree with another on a decision.

use super::crew::{Channel, Crew, Judge, Member};
use super::{Counters, Line, Policy, PolicyKind, dispatcher, flatcomm, gated};
use crate::cos::{Mode, Turn, Turned, decide};
use crate::world::{Action, StepReport, World};

/// One crew agent's private state, opaque: only its own turns read or change it.
#[derive(Debug, Clone, Default)]
pub struct MemberState(Member);

impl MemberState {
    /// What the step did to agent `me` (a promised hand-over it delivered is done).
    pub fn observe(&mut self, me: usize, report: &StepReport) {
        self.0.observe(me, report);
    }
}

/// What a crew's agents share. See [`super::crew`]'s `Desk` for why turns are ordered.
pub trait Desk: Send {
    /// Opens a step at time `now` (closes what timed out).
    fn open(&mut self, now: u32);
    /// Agent `me`'s turn in `world`, from its own state: its action this step.
    fn turn(&mut self, member: &mut MemberState, world: &World, me: usize) -> Action;
    /// The public lines written since the last call, in the order written.
    fn lines(&mut self) -> Vec<Line>;
    /// The crew's counts so far.
    fn counters(&self) -> Counters;
}

impl<C: Channel + Send, J: Judge + Send> Desk for super::crew::Desk<C, J> {
    fn open(&mut self, now: u32) {
        super::crew::Desk::open(self, now);
    }

    fn turn(&mut self, member: &mut MemberState, world: &World, me: usize) -> Action {
        super::crew::Desk::turn(self, &mut member.0, world, me)
    }

    fn lines(&mut self) -> Vec<Line> {
        super::crew::Desk::lines(self)
    }

    fn counters(&self) -> Counters {
        super::crew::Desk::counters(self)
    }
}

/// One of a policy's deciders.
pub enum Decider {
    /// A crew agent: its private state.
    Cook(MemberState),
    /// One decider for every agent (the dispatcher; any [`Policy`] as a whole).
    One(Box<dyn Policy + Send>),
}

impl gatecrew_engine::Agent<Turn, Turned> for Decider {
    fn step(&mut self, id: gatecrew_protocol::AgentId, turn: Turn) -> gatecrew_engine::Stepped<Turned> {
        decide(self, id, turn)
    }
}

/// A policy in the parts its runtime gives owners to: the deciders, in id order, and
/// how the episode asks them ([`Mode`]: with the crew's desk, or one decider).
pub struct Split {
    /// The deciders, indexed by the ids the episode's steps name.
    pub deciders: Vec<Decider>,
    /// How the episode asks them.
    pub mode: Mode,
}

impl Split {
    /// Any policy as one decider.
    pub fn one(policy: Box<dyn Policy + Send>) -> Self {
        let central = policy.central();
        Split { deciders: vec![Decider::One(policy)], mode: Mode::One { central } }
    }

    /// A crew's agents and their desk.
    pub(crate) fn crew<C: Channel + Send + 'static, J: Judge + Send + 'static>(c: Crew<C, J>) -> Self {
        let (members, desk) = c.into_parts();
        Split {
            deciders: members.into_iter().map(|m| Decider::Cook(MemberState(m))).collect(),
            mode: Mode::Crew(Box::new(desk)),
        }
    }
}

impl PolicyKind {
    /// A fresh policy for a crew of `agents` in `world`, as its deciders (see the
    /// module docs).
    pub fn split(self, world: &World, agents: usize) -> Split {
        match self {
            PolicyKind::Dispatcher => Split::one(Box::new(dispatcher::Dispatcher::new(agents))),
            PolicyKind::Gated => Split::crew(gated::crew(world, agents)),
            PolicyKind::Flatcomm => Split::crew(flatcomm::crew(world, agents)),
        }
    }
}
