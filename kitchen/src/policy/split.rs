//! A policy taken apart for the actor runtime: the dispatcher is one planner and stays
//! whole; a crew splits into its agents' private states and the desk (board or chat,
//! judge, counts) they share. The stepper's [`Policy`] and the actors call the same
//! methods underneath ([`Desk::turn`] is the crew's per-agent step), so the two
//! runtimes cannot disagree on a decision.

use super::crew::{Channel, Crew, Judge, Member};
use super::{Counters, Line, Policy, PolicyKind, dispatcher, flatcomm, gated};
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

/// A policy in the parts the actor runtime gives owners to.
pub enum Split {
    /// One planner deciding every agent's action from the full state (the dispatcher).
    Central(Box<dyn Policy + Send>),
    /// A crew: each agent's private state, and the desk they share.
    Crew {
        /// One per agent, in agent-id order.
        members: Vec<MemberState>,
        /// The board (gated) or the chat (flatcomm), the judge and the counts.
        desk: Box<dyn Desk>,
    },
}

fn crew<C: Channel + Send + 'static, J: Judge + Send + 'static>(c: Crew<C, J>) -> Split {
    let (members, desk) = c.into_parts();
    Split::Crew { members: members.into_iter().map(MemberState).collect(), desk: Box::new(desk) }
}

impl PolicyKind {
    /// A fresh policy for a crew of `agents` in `world`, in parts (see the module docs).
    pub fn split(self, world: &World, agents: usize) -> Split {
        match self {
            PolicyKind::Dispatcher => Split::Central(Box::new(dispatcher::Dispatcher::new(agents))),
            PolicyKind::Gated => crew(gated::crew(world, agents)),
            PolicyKind::Flatcomm => crew(flatcomm::crew(world, agents)),
        }
    }
}
