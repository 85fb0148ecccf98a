//! The episode core's parts, each the state of one concern: what the trace says
//! ([`Trace`]), the clock ([`Clock`]), the world being built ([`Site`]), every agent's
//! schedule ([`Crew`]) and the coordination beside the board ([`Coordination`]). The
//! order of a round that joins them is `round.rs`'s.

use std::collections::BTreeMap;
use std::sync::Arc;

use gatecrew_protocol::trace::{EndReason, Event};
use gatecrew_protocol::{IssueId, Tick, WindowId};
use gatecrew_world::{Blueprint, GameData, Outcome, Pending, Receipt, World};

use super::{WorldProbe, consult, external, repairs};
use crate::news::BoardNews;

/// What the trace says of the episode (its id, seed, config, labels and policy), the
/// events not drained yet, which issue each request window is for, the oracle's budget,
/// and who reads the episode as it goes (the end's scorer, a probe).
#[derive(Debug, Clone)]
pub(super) struct Trace {
    pub(super) id: String,
    pub(super) seed: u64,
    pub(super) config_hash: String,
    pub(super) labels: crate::setup::Labels,
    pub(super) policy_kind: crate::policy::Policy,
    /// The gate config is an experiment's (it may break the weight hierarchy).
    pub(super) experiment: bool,
    pub(super) events: Vec<Event>,
    pub(super) window_issue: BTreeMap<WindowId, IssueId>,
    pub(super) oracle_ticks: u64,
    pub(super) scorer: Option<Arc<dyn crate::setup::EndScorer>>,
    pub(super) probe: Option<Arc<dyn WorldProbe>>,
}

/// The clock: the tick of the round in progress, the limit, whether the episode
/// started, why it ended, and whether a person keeps it open.
#[derive(Debug, Clone)]
pub(super) struct Clock {
    pub(super) tick: Tick,
    pub(super) tick_limit: u64,
    pub(super) started: bool,
    pub(super) ended: Option<EndReason>,
    pub(super) held_open: bool,
}

/// The world, the game data and the blueprint it is built to, a real world's state
/// when the episode runs on one (see `external.rs`), and the wrong blocks replaced in
/// it (see `repairs.rs`).
#[derive(Debug, Clone)]
pub(super) struct Site {
    pub(super) data: Arc<GameData>,
    pub(super) blueprint: Arc<Blueprint>,
    /// Shared with the agents' [`super::Sight`]s while a round's views are taken (see
    /// [`super::Episode::defer_views`]); changed through [`super::Episode::world_mut`],
    /// which finds it unshared again by then.
    pub(super) world: Arc<World>,
    pub(super) external: Option<external::External>,
    /// Wrong blocks dug out of blueprint cells, and those replaced.
    pub(super) repairs: repairs::Repairs,
}

/// Every agent's schedule ([`Slot`]), who is muted, how many actions completed (a
/// watcher that looked after the last one has seen all there is to see), and whether
/// the driver takes the agents' views ([`super::Episode::defer_views`]).
#[derive(Debug, Clone)]
pub(super) struct Crew {
    pub(super) slots: Vec<Slot>,
    pub(super) muted: Vec<bool>,
    pub(super) completed: u64,
    pub(super) defer_views: bool,
}

/// How the crew coordinates besides the board: its style, the style's own channel if
/// it has one (taken out while it runs: see `channel.rs`), and the external tier-3
/// adjudicator's consults.
#[derive(Debug, Clone)]
pub(super) struct Coordination {
    pub(super) style: &'static dyn crate::style::Style,
    pub(super) channel: Option<Box<dyn crate::style::Channel>>,
    pub(super) tier3: Option<consult::Tier3>,
}

#[derive(Debug, Clone, Default)]
/// One agent's schedule: its action in flight or its wait, what it is handed at its
/// next wake-up (news, receipts, its outcome, verdicts, the style's deliveries) and when.
pub(super) struct Slot {
    pub(super) pending: Option<(Tick, Pending)>,
    pub(super) wait_until: Option<Tick>,
    pub(super) wake: bool,
    pub(super) news: Vec<BoardNews>,
    pub(super) news_due: Option<Tick>,
    pub(super) receipts: Vec<Receipt>,
    pub(super) outcome: Option<Outcome>,
    pub(super) verdicts: Vec<(IssueId, gatecrew_gating::Verdict)>,
    pub(super) done: bool,
    pub(super) crash_at: Option<Tick>,
    /// What the style's own channel holds for the agent, and when it wakes it.
    pub(super) deliveries: Vec<crate::style::Delivery>,
    pub(super) delivery_due: Option<Tick>,
    /// Waiting only for teammates' blocks (`Intent::Watch`), and how many actions had
    /// completed when it last looked.
    pub(super) watching: bool,
    pub(super) looked: u64,
    /// Ticks of work the news handed over at this wake-up costs (charged when its
    /// output is applied).
    pub(super) reading: u64,
    /// The `llm` executor's call chose the action in flight wrongly, with the call's
    /// second draw for what it got wrong ([`Episode::mistaken_outcome`]).
    pub(super) mistaken: Option<u64>,
}
