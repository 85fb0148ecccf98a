//! The central manager of the `central_dag` baseline (VillagerAgent-like, DESIGN
//! section 6): it holds the whole task graph and the crew's state, every issue is sent
//! to it, and it re-plans globally while the agents wait.
//!
//! It sees what a central planner sees: every bot's inventory and every blueprint cell
//! still to place. For a missing item it picks the teammate with the most to spare and
//! orders a delivery (a coordination window it tracks itself); with no donor it tells the
//! bot to recover locally. Each re-plan pauses the whole crew for
//! `replan_base + remaining_nodes / replan_per` ticks: the model of a language-model
//! planning call over the full graph.

use std::collections::BTreeMap;

use gatecrew_protocol::{AgentId, IssueId, ItemId, Tick, WindowId};
use gatecrew_world::{Blueprint, Part, World};

/// What an agent tells the manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManagerAsk {
    /// An issue: re-plan around it (`item`: what is missing, if anything).
    Issue {
        /// The agent's issue.
        issue: IssueId,
        /// The missing item and count.
        item: Option<(ItemId, u32)>,
    },
    /// The items of a delivery arrived.
    Received {
        /// The delivery's window.
        window: WindowId,
    },
}

/// What the manager tells an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Directive {
    /// No teammate can spare it: solve it locally.
    RecoverLocally {
        /// The bot's issue the manager gives back (it stops waiting on it).
        issue: IssueId,
    },
    /// A teammate brings the items.
    Incoming {
        /// The manager's window for the delivery; the bot confirms receipt under it.
        window: WindowId,
        /// The teammate ordered to bring them.
        from: AgentId,
        /// What comes.
        item: ItemId,
        /// How many come.
        count: u32,
        /// When the manager gives the delivery up (and tells the bot to recover): the
        /// bot waits until then. Its own hand-over timeout was shorter whenever a
        /// re-plan paused the crew or another directive came first, and the soak found
        /// bots idle past it (issue 19).
        deadline: Tick,
    },
    /// Bring items to a teammate.
    Deliver {
        /// The manager's window for the delivery, which the receiver confirms.
        window: WindowId,
        /// The teammate to walk to.
        to: AgentId,
        /// What to hand over.
        item: ItemId,
        /// How many to hand over.
        count: u32,
    },
    /// Nothing to change: carry on.
    Resume {
        /// The bot's issue the re-plan needed nothing for (it stops waiting on it).
        issue: IssueId,
    },
}

#[derive(Debug, Clone)]
struct Delivery {
    requester: AgentId,
    issue: IssueId,
    deadline: Tick,
}

/// Manager timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManagerConfig {
    /// Fixed part of a re-plan, in ticks.
    pub replan_base: u64,
    /// One more tick per this many remaining nodes.
    pub replan_per: u64,
    /// A delivery must arrive within this many ticks.
    pub delivery_ticks: u64,
}

impl Default for ManagerConfig {
    fn default() -> Self {
        ManagerConfig { replan_base: 60, replan_per: 5, delivery_ticks: 200 }
    }
}

/// The manager core.
#[derive(Debug, Clone)]
pub struct Manager {
    config: ManagerConfig,
    owners: Vec<AgentId>,
    next_window: u32,
    open: BTreeMap<WindowId, Delivery>,
}

/// What one request produced.
#[derive(Debug, Clone, Default)]
pub struct Replan {
    /// Directives, in order.
    pub directives: Vec<(AgentId, Directive)>,
    /// Ticks the whole crew waits.
    pub pause: u64,
    /// Windows opened (with the issue) and closed (confirmed).
    pub opened: Vec<(WindowId, IssueId)>,
    /// Windows closed by confirmation.
    pub confirmed: Vec<WindowId>,
    /// Modelled prompt tokens of the re-plan.
    pub tokens: u32,
}

impl Manager {
    /// A manager for a blueprint split among the crew.
    pub fn new(config: ManagerConfig, owners: Vec<AgentId>) -> Self {
        Manager { config, owners, next_window: 0, open: BTreeMap::new() }
    }

    fn remaining(&self, bp: &Blueprint, world: &World) -> Vec<(AgentId, ItemId)> {
        let data = world.data();
        bp.cells()
            .iter()
            .enumerate()
            .filter(|(_, c)| c.part != Part::Upper && world.block_at(c.pos) != c.block)
            .filter_map(|(i, c)| data.block_info(c.block).item.map(|item| (self.owners[i], item)))
            .collect()
    }

    /// Handles one request at `now`.
    pub fn handle(&mut self, from: AgentId, ask: ManagerAsk, now: Tick, bp: &Blueprint, world: &World) -> Replan {
        let remaining = self.remaining(bp, world);
        let mut r = Replan {
            pause: self.config.replan_base + remaining.len() as u64 / self.config.replan_per.max(1),
            tokens: 300 + 4 * remaining.len() as u32,
            ..Replan::default()
        };
        match ask {
            ManagerAsk::Received { window } => {
                if self.open.remove(&window).is_some() {
                    r.confirmed.push(window);
                }
                // A confirmation is bookkeeping, not a re-plan.
                r.pause = 0;
                r.tokens = 150;
            }
            ManagerAsk::Issue { issue, item: None } => r.directives.push((from, Directive::Resume { issue })),
            ManagerAsk::Issue { issue, item: Some((item, count)) } => {
                let need = |a: AgentId| remaining.iter().filter(|(o, i)| *o == a && *i == item).count() as u32;
                let spare = |a: AgentId| world.body(a).map_or(0, |b| b.inventory.count(item)).saturating_sub(need(a));
                let donor = (0..world.agent_count() as u32)
                    .map(AgentId)
                    .filter(|a| *a != from)
                    .map(|a| (spare(a), std::cmp::Reverse(a)))
                    .filter(|(s, _)| *s > 0)
                    .max()
                    .map(|(s, std::cmp::Reverse(a))| (a, s));
                match donor {
                    Some((giver, s)) => {
                        let window = WindowId(self.next_window);
                        self.next_window += 1;
                        let count = s.min(count);
                        let deadline = now + r.pause + self.config.delivery_ticks;
                        self.open.insert(window, Delivery { requester: from, issue, deadline });
                        r.opened.push((window, issue));
                        r.directives.push((giver, Directive::Deliver { window, to: from, item, count }));
                        r.directives.push((from, Directive::Incoming { window, from: giver, item, count, deadline }));
                    }
                    None => r.directives.push((from, Directive::RecoverLocally { issue })),
                }
            }
        }
        r
    }

    /// The earliest delivery deadline.
    pub fn next_deadline(&self) -> Option<Tick> {
        self.open.values().map(|d| d.deadline).min()
    }

    /// Deliveries past their deadline: closed; their requesters are told to recover.
    pub fn expire(&mut self, now: Tick) -> Vec<(WindowId, AgentId, IssueId)> {
        let due: Vec<WindowId> = self.open.iter().filter(|(_, d)| d.deadline <= now).map(|(w, _)| *w).collect();
        due.into_iter().filter_map(|w| self.open.remove(&w).map(|d| (w, d.requester, d.issue))).collect()
    }
}
