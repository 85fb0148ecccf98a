//! The invariants every episode keeps, whatever faults are on, checked from
//! the inside: the property tests and `gatecrew soak` run episodes through
//! [`run_checked`] and count [`Violation`]s, which must stay at zero.
//!
//! * Conservation: every change of the world's item census since the start is booked
//!   in its ledger (a recipe step, a mining drop, a placed block); nothing else creates
//!   or loses an item.
//! * The episode ends, by its tick limit, with an `episode_end` line.
//! * No idle agent waits on a request past its deadline (the window, or the hand-over
//!   after an offer, plus the tick the news takes). Bots of the reading baselines
//!   (flatcomm, no_partition) spend reading time as work and are not held to it.
//! * No issue is escalated again inside its cooldown after a teammate said it cannot
//!   supply (the cooldown is the gate's rule: no_gate and flatcomm have none by design).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use gatecrew_gating::Deterministic;
use gatecrew_protocol::trace::{Event, EventKind, GateAction, WindowEvent};
use gatecrew_protocol::{AgentId, IssueId, ItemId};
use gatecrew_world::World;

use crate::agent::AgentCore;
use crate::episode::Finished;
use crate::episode::consult::ByAdjudicator;
use crate::episode::stepper::run_watched;
use crate::{Episode, Setup};

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// An item's census moved without a booked step.
    Conservation {
        /// The item's name, as the trace spells it.
        item: String,
        /// How much the census moved.
        census: i64,
        /// What the ledger booked.
        booked: i64,
    },
    /// The trace does not end with `episode_end`.
    NoEnd,
    /// An event after the tick limit.
    PastTickLimit {
        /// The event's tick, past `tick_limit`.
        tick: u64,
    },
    /// An idle agent still waiting on a request past its deadline.
    Overdue {
        /// When it was seen.
        tick: u64,
        /// The agent still waiting.
        agent: AgentId,
        /// The item it asked for.
        item: ItemId,
    },
    /// A request made again inside the cooldown after a refusal.
    ReEscalated {
        /// The agent that asked again.
        agent: AgentId,
        /// The item it asked for again, when the request names one.
        item: Option<String>,
        /// When the window closed with CANNOT_SUPPLY.
        refused_at: u64,
        /// When the agent asked again.
        asked_at: u64,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Conservation { item, census, booked } => {
                write!(f, "conservation: {item} census moved by {census}, ledger booked {booked}")
            }
            Violation::NoEnd => write!(f, "the trace does not end with episode_end"),
            Violation::PastTickLimit { tick } => write!(f, "an event at t{tick}, after the tick limit"),
            Violation::Overdue { tick, agent, item } => {
                write!(f, "{agent} idle at t{tick}, still waiting on item #{} past its deadline", item.0)
            }
            Violation::ReEscalated { agent, item, refused_at, asked_at } => write!(
                f,
                "{agent} asked for {} again at t{asked_at}, inside the cooldown after the refusal at t{refused_at}",
                item.as_deref().unwrap_or("?")
            ),
        }
    }
}

/// A checked run: what the stepper returned, the trace, and what broke.
#[derive(Debug)]
pub struct Checked {
    /// How it ended.
    pub finished: Finished,
    /// The trace's events, in order, as the invariants read them.
    pub events: Vec<Event>,
    /// The episode core at the end (the final world).
    pub episode: Episode,
    /// Every broken invariant; empty when all held.
    pub violations: Vec<Violation>,
}

/// Runs an episode on the stepper (tier 3 by the deterministic adjudicator) and checks
/// every invariant of the module docs.
pub fn run_checked(setup: &Setup) -> Checked {
    let start = setup.world.item_census();
    let style = crate::style::of(setup.policy);
    let reads = style.charges_reading();
    let mut events = Vec::new();
    let mut violations = Vec::new();
    let mut det = ByAdjudicator(Deterministic { midpoint: setup.gate.midpoint() });
    let mut watch = |ep: &Episode, agents: &[AgentCore]| {
        if !reads {
            overdue(ep, agents, &mut violations);
        }
    };
    let result = run_watched(setup, &mut |e: &Event| events.push(e.clone()), &mut det, &mut watch);
    let (finished, episode) = match result {
        Ok(done) => done,
        Err(e) => unreachable!("the deterministic adjudicator always answers: {e}"),
    };
    violations.extend(conservation(&start, episode.world()));
    if !matches!(events.last().map(|e| &e.kind), Some(EventKind::EpisodeEnd { .. })) {
        violations.push(Violation::NoEnd);
    }
    if let Some(e) = events.iter().find(|e| e.t > setup.tick_limit) {
        violations.push(Violation::PastTickLimit { tick: e.t });
    }
    // The cooldown is a rule of the gate: no_gate escalates everything and flatcomm
    // asks again at once, by design.
    let cooldown = crate::style::kept_cooldown(style, setup.gate.spec().cooldown_ticks);
    violations.extend(re_escalations(&events, cooldown));
    Checked { finished, events, episode, violations }
}

/// Idle agents waiting on a request more than the tick past its deadline it takes them
/// to give up.
pub fn overdue(ep: &Episode, agents: &[AgentCore], out: &mut Vec<Violation>) {
    let now = ep.tick();
    for a in agents.iter().filter(|a| !ep.acting(a.id())) {
        for w in a.waiting() {
            if now.0 > w.deadline.0 + 2 {
                out.push(Violation::Overdue { tick: now.0, agent: a.id(), item: w.item });
            }
        }
    }
}

/// Items whose census moved since `start` by other than what the world's ledger booked.
pub fn conservation(start: &BTreeMap<ItemId, u64>, w: &World) -> Vec<Violation> {
    let now = w.item_census();
    let mut keys: Vec<ItemId> = now.keys().chain(start.keys()).chain(w.ledger().keys()).copied().collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let census = now.get(&k).copied().unwrap_or(0) as i64 - start.get(&k).copied().unwrap_or(0) as i64;
            let booked = w.ledger().get(&k).copied().unwrap_or(0);
            (census != booked).then(|| Violation::Conservation {
                item: w.data().item_name(k).to_owned(),
                census,
                booked,
            })
        })
        .collect()
}

/// Requests made again inside `cooldown` ticks after a window on the same issue (agent
/// and item) closed with CANNOT_SUPPLY.
pub fn re_escalations(events: &[Event], cooldown: u64) -> Vec<Violation> {
    let mut issue_of: HashMap<IssueId, (AgentId, Option<String>)> = HashMap::new();
    let mut refused: HashMap<(AgentId, Option<String>), u64> = HashMap::new();
    let mut window_issue = HashMap::new();
    let mut out = Vec::new();
    for e in events {
        match &e.kind {
            EventKind::Issue { agent, issue_id, item, .. } => {
                issue_of.insert(*issue_id, (*agent, item.clone()));
            }
            EventKind::Window { window, event: WindowEvent::Open, issue_id: Some(id), .. } => {
                window_issue.insert(*window, *id);
            }
            EventKind::Window {
                window,
                event: WindowEvent::Close,
                outcome: Some(gatecrew_protocol::CloseOutcome::CannotSupply),
                ..
            } => {
                if let Some(key) = window_issue.get(window).and_then(|id| issue_of.get(id)) {
                    refused.insert(key.clone(), e.t);
                }
            }
            EventKind::Gate { agent, issue_id, action: Some(GateAction::RequestMaterial), .. } => {
                let Some(key) = issue_of.get(issue_id) else { continue };
                if let Some(&at) = refused.get(key) {
                    if e.t < at + cooldown {
                        out.push(Violation::ReEscalated {
                            agent: *agent,
                            item: key.1.clone(),
                            refused_at: at,
                            asked_at: e.t,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}
