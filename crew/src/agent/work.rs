//! T, the bot's work (DESIGN section 4): its copy of the task graph, with every node's
//! state as the bot believes it, what the action in flight is for, the transfers it
//! committed to, and its scaffolding. The methods here read this part alone.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use gatecrew_protocol::{AgentId, ItemId, Pos, Standing, WindowId};

use super::build::place_of;
use super::scaffold;
use crate::plan::{NodeId, NodeState, TaskGraph};

/// What the action in flight is for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Purpose {
    Build(NodeId),
    Scaffold(NodeId),
    Recover,
    Handover(WindowId),
    Explore,
}

/// A transfer this agent committed to.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Handover {
    pub(super) window: WindowId,
    pub(super) to: AgentId,
    pub(super) item: ItemId,
    pub(super) count: u32,
    pub(super) attempts: u32,
    /// The offers standing in the window, from the board's news (`None`: a delivery
    /// the style's channel ordered, which no teammate competes for).
    pub(super) offers: Option<Standing>,
}

impl Handover {
    /// Whether `me` is the giver the window awaits now (until the board's news says
    /// otherwise, an offer just made is).
    pub(super) fn awaited_from(&self, me: AgentId) -> bool {
        self.offers.as_ref().and_then(Standing::current).is_none_or(|o| o.from == me)
    }
}

/// A teammate this bot could not deliver to (no walk led there, or every give fell
/// short), with where both stood then: while neither has moved, an offer to it would
/// only win a window it cannot deliver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Undeliverable {
    /// Where this bot stood.
    pub(super) here: Pos,
    /// Where it last saw the teammate (`None`: never).
    pub(super) them: Option<Pos>,
}

/// T: the task graph, the counts the local solver's nodes aim at, what the action in
/// flight is for, the transfers committed to and the teammates it could not deliver to,
/// and the scaffolding (the pillar the bot builds or stands on, temporary blocks, nodes
/// a walk could not reach, pillar bases it could not get to).
#[derive(Debug, Clone)]
pub(super) struct Work {
    pub(super) plan: TaskGraph,
    pub(super) targets: BTreeMap<NodeId, u32>,
    pub(super) purpose: Option<Purpose>,
    pub(super) in_flight: bool,
    pub(super) handovers: VecDeque<Handover>,
    pub(super) undeliverable: BTreeMap<AgentId, Undeliverable>,
    pub(super) scaffold: Option<scaffold::OwnPillar>,
    pub(super) temps: Vec<(NodeId, Pos)>,
    pub(super) lift: BTreeSet<NodeId>,
    pub(super) bad_bases: BTreeSet<Pos>,
}

impl Work {
    /// Work on `plan`, nothing started.
    pub(super) fn new(plan: TaskGraph) -> Self {
        Work {
            plan,
            targets: BTreeMap::new(),
            purpose: None,
            in_flight: false,
            handovers: VecDeque::new(),
            undeliverable: BTreeMap::new(),
            scaffold: None,
            temps: Vec::new(),
            lift: BTreeSet::new(),
            bad_bases: BTreeSet::new(),
        }
    }

    /// `me`'s place nodes in build order.
    pub(super) fn own_places(&self, me: AgentId) -> Vec<NodeId> {
        self.plan.agent_root(me).map(|r| self.plan.children(r)).unwrap_or_default()
    }

    /// `me`'s place nodes, in no particular order (no allocation): `any` and `all` over
    /// them do not care.
    pub(super) fn own_unordered(&self, me: AgentId) -> impl Iterator<Item = NodeId> + '_ {
        self.plan.agent_root(me).into_iter().flat_map(|r| self.plan.children_iter(r))
    }

    /// Items `me` still needs for its own share.
    pub(super) fn own_need(&self, me: AgentId, item: ItemId) -> u32 {
        self.own_places(me)
            .into_iter()
            .filter(|n| matches!(self.plan.node(*n).state, NodeState::Pending | NodeState::SetAside))
            .filter(|n| place_of(&self.plan.node(*n).kind).is_some_and(|(_, _, i)| i == item))
            .count() as u32
    }

    /// Whether a delivery to `to` failed with both bots where they are now (`now`); a
    /// record either has moved away from is forgotten.
    pub(super) fn cannot_deliver(&mut self, to: AgentId, now: Undeliverable) -> bool {
        match self.undeliverable.get(&to) {
            Some(u) if *u == now => true,
            Some(_) => {
                self.undeliverable.remove(&to);
                false
            }
            None => false,
        }
    }

    /// Items of `item` promised away in transfers.
    pub(super) fn committed(&self, item: ItemId) -> u32 {
        self.handovers.iter().filter(|h| h.item == item).map(|h| h.count).sum()
    }
}
