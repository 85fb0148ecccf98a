//! The decentralised kitchen crew shared by `gated` and `flatcomm`: each agent keeps a
//! private state (its own order, the tools it fills, the hand-overs it promised and
//! awaits, its escalation history), plans with its own solver, detects kitchen issues,
//! and lets a [`Judge`] decide whether to ask teammates through a [`Channel`].
//!
//! Orders are dealt by arrival number modulo the crew size, a convention every agent
//! knows, like the construction crews' split of the blueprint: nobody has to talk to
//! know whose order it is. An agent with no order of its own helps.

use std::collections::BTreeSet;

use gatecrew_gating::History;
use gatecrew_protocol::ItemId;

use super::{Counters, Line, Policy};
use crate::world::{Action, LocationId, OrderId, StepReport, World};

mod turn;

pub(crate) use turn::Desk;

/// A request as a teammate sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ask {
    pub ticket: u32,
    pub from: usize,
    pub item: ItemId,
    pub to: LocationId,
}

/// Where a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TicketState {
    Open,
    Offered(usize),
    Refused,
    TimedOut,
    Confirmed,
}

/// How requests travel: the board (gated) or the chat (flatcomm).
pub(crate) trait Channel {
    /// Opens a request for `item` into `to`; `None` if nobody could be asked.
    fn ask(&mut self, w: &World, me: usize, item: ItemId, to: LocationId) -> Option<u32>;
    /// Requests to `me` it has not answered, oldest first.
    fn inbox(&mut self, me: usize) -> Vec<Ask>;
    /// Answers one; returns whether `me` is now committed to deliver.
    fn answer(&mut self, me: usize, ask: &Ask, yes: bool, now: u32) -> bool;
    /// A request's state.
    fn state(&self, ticket: u32) -> TicketState;
    /// The requester saw the items arrive.
    fn confirm(&mut self, me: usize, ticket: u32, now: u32);
    /// Closes what timed out.
    fn expire(&mut self, now: u32);
    /// `me` took a new goal or hit a need nobody can supply (flatcomm says so).
    fn announce(&mut self, _me: usize, _what: Announce) {}
    /// Public messages so far.
    fn messages(&self) -> u64;
    /// The lines written since the last call.
    fn drain(&mut self) -> Vec<Line>;
}

/// What an agent announces (flatcomm only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Announce {
    /// It took an order of this dish.
    Goal(ItemId),
    /// Every tool it needs for this item is busy.
    Stuck(ItemId),
}

/// A kitchen issue, with the facts the judge needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Case {
    /// The item the issue is about.
    pub item: ItemId,
    /// Whether a request can carry it (a tool cannot be handed over).
    pub requestable: bool,
    /// Recipe nodes above the item up to the dish, plus the order itself.
    pub dependents: usize,
    /// Another agent exists.
    pub teammates: bool,
    /// A teammate stands where this agent stands.
    pub teammate_here: bool,
    /// A teammate holds the item or offered it before: `Some(true)` if it stands here.
    pub holder_here: Option<bool>,
    /// Steps this agent alone needs for the item.
    pub item_steps: u32,
    /// The item lies where the agent stands (raw at the storage, or cooked in its tool).
    pub in_reach: bool,
    /// The agent's local route meets the order's deadline.
    pub in_time: bool,
    /// Other work of this agent does not depend on the item.
    pub other_work: bool,
    /// The issue key's history level.
    pub h: u8,
}

/// Decides whether an issue goes to the teammates.
pub(crate) trait Judge {
    fn escalate(&mut self, case: &Case, counters: &mut Counters) -> bool;
}

/// One promised or awaited hand-over.
#[derive(Debug, Clone, Copy)]
struct Handover {
    ticket: u32,
    item: ItemId,
    to: LocationId,
}

/// An agent's private state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Member {
    goal: Option<OrderId>,
    abandoned: BTreeSet<OrderId>,
    bind: Vec<Option<ItemId>>,
    helps: Vec<Handover>,
    awaits: Vec<Handover>,
    history: History,
    seen: BTreeSet<(OrderId, ItemId, bool)>,
    slack: u32,
    held: Option<ItemId>,
}

/// A step's cooldown after `CANNOT_SUPPLY`: one lifetime of the shared file (10 steps),
/// the kitchen's counterpart of DESIGN 5.7's `cooldown_ticks`.
pub(crate) const COOLDOWN_STEPS: u64 = 10;

/// The crew: the agents' private states and the desk they share.
pub(crate) struct Crew<C: Channel, J: Judge> {
    members: Vec<Member>,
    desk: Desk<C, J>,
}

impl<C: Channel, J: Judge> Crew<C, J> {
    pub fn new(agents: usize, channel: C, judge: J, interrupts: bool) -> Self {
        let desk = Desk::new(channel, judge, interrupts, agents);
        Crew { members: vec![Member::default(); agents], desk }
    }

    /// The agents' states and the desk, apart (the actor runtime gives each its owner).
    pub fn into_parts(self) -> (Vec<Member>, Desk<C, J>) {
        (self.members, self.desk)
    }
}

impl<C: Channel, J: Judge> Policy for Crew<C, J> {
    fn decide(&mut self, w: &World) -> Vec<Action> {
        self.desk.open(w.time());
        self.members.iter_mut().enumerate().map(|(i, m)| self.desk.turn(m, w, i)).collect()
    }

    fn observe(&mut self, _: &World, report: &StepReport) {
        for (i, m) in self.members.iter_mut().enumerate() {
            m.observe(i, report);
        }
    }

    fn counters(&self) -> Counters {
        self.desk.counters()
    }

    fn lines(&mut self) -> Vec<Line> {
        self.desk.lines()
    }
}
