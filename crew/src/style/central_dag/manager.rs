//! The central manager of the `central_dag` baseline (VillagerAgent-like, DESIGN
//! section 6): it holds the whole task graph, every issue is sent to it, and it
//! re-plans globally while the agents wait.
//!
//! What it knows, and from where (docs/baselines.md, "central_dag"):
//! - **Task status**: which blueprint cells are still to place, and whose share each is
//!   ([`Unplaced`], handed over by the episode with every message). VillagerAgent's
//!   manager tracks the status of the subtasks it assigned; that stays.
//! - **Inventories, only as reported** ([`ManagerAsk::Report`]). The paper's custom
//!   VillagerAgent split disables the teammate-state channel ("agents no longer have
//!   direct access to teammates' hidden inventory", paper 004, appendix "Custom
//!   VillagerAgent Split"), so the manager learns what a bot holds only from the reports
//!   the bot sends, each a counted message. It never reads the world's inventories: it
//!   has no world. A bot that never reported (a muted one) is never sent to give; a
//!   report that has gone out of date can send a teammate for items it no longer holds,
//!   and that delivery fails as any other does: the manager's deadline passes and the
//!   requester is told to recover.
//!
//! For a missing item it orders the teammate it believes has the most to spare to
//! deliver (a coordination window it tracks itself); with no such teammate it tells the
//! bot to recover locally. Each re-plan pauses the whole crew for
//! `replan_base + remaining_nodes / replan_per` ticks: the model of a language-model
//! planning call over the full graph.

use std::collections::BTreeMap;

use gatecrew_protocol::{AgentId, IssueId, ItemId, Tick, WindowId};

/// Fixed tokens of any line an agent writes to the manager (its name, its task, the
/// message's wrapper). A round number, as in the other baselines; not measured.
pub const LINE_TOKENS: u32 = 150;
/// Tokens per item stack listed in an inventory report: `"oak_planks": 12,` is six or
/// seven tokens in a GPT-style byte-pair vocabulary. An estimate, not a measurement.
pub const REPORT_ITEM_TOKENS: u32 = 6;

/// A bot's inventory as it reported it to the manager: each item it holds and how many,
/// in item order (empty: it holds nothing).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// Items and counts.
    pub items: Vec<(ItemId, u32)>,
}

/// What an agent tells the manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManagerAsk {
    /// What the bot holds (it reports at its first step and, when its inventory changed
    /// since its last report, with each issue: see `crew/src/agent/baseline.rs`).
    Report(Report),
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

impl ManagerAsk {
    /// Modelled tokens of the line: the fixed part, and one entry per item reported.
    pub fn tokens(&self) -> u32 {
        match self {
            ManagerAsk::Report(r) => LINE_TOKENS + REPORT_ITEM_TOKENS * r.items.len() as u32,
            ManagerAsk::Issue { .. } | ManagerAsk::Received { .. } => LINE_TOKENS,
        }
    }
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
        /// bot waits until then, not on its own hand-over timeout, which does not know
        /// of a re-plan that paused the crew or a directive that came first, and so can
        /// end while the delivery is still under way.
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

/// A blueprint cell still to place (the task status the manager may know): its index in
/// the blueprint and the item it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unplaced {
    /// The cell's index in the blueprint.
    pub cell: usize,
    /// The item placing it takes.
    pub item: ItemId,
}

#[derive(Debug, Clone)]
struct Delivery {
    requester: AgentId,
    issue: IssueId,
    deadline: Tick,
}

/// What the manager believes one bot can spare: per item, what it reported holding less
/// what its own unplaced cells took then (the cells it places later come out of that
/// stock, so the difference holds until its inventory changes otherwise), less what the
/// manager has ordered it to hand over since.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Belief {
    spare: BTreeMap<ItemId, u32>,
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

/// The manager core: pure and synchronous; the episode hands it every message with the
/// task status, and it answers with a [`Replan`].
#[derive(Debug, Clone)]
pub struct Manager {
    config: ManagerConfig,
    /// The owner of each blueprint cell (the crew's split of the work).
    owners: Vec<AgentId>,
    /// Per agent: what it last reported, as a belief; `None` until it reports.
    beliefs: Vec<Option<Belief>>,
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
    /// Modelled prompt tokens of the re-plan (the scripted executor's figure; under
    /// `llm` the re-plan's prompt is its rendered text, counted).
    pub tokens: u32,
}

impl Manager {
    /// A manager for a crew of `crew` agents and a blueprint split among them (`owners`:
    /// the owner of each cell). It knows no inventory yet.
    pub fn new(config: ManagerConfig, owners: Vec<AgentId>, crew: usize) -> Self {
        Manager { config, owners, beliefs: vec![None; crew], next_window: 0, open: BTreeMap::new() }
    }

    /// Items of `item` the agent's own unplaced cells still take.
    fn need(&self, agent: AgentId, item: ItemId, unplaced: &[Unplaced]) -> u32 {
        unplaced.iter().filter(|u| u.item == item && self.owners.get(u.cell) == Some(&agent)).count() as u32
    }

    /// The owner of a blueprint cell.
    pub fn owner(&self, cell: usize) -> Option<AgentId> {
        self.owners.get(cell).copied()
    }

    /// Everything the manager believes the bots can spare, by bot and item.
    pub fn spares(&self) -> impl Iterator<Item = (AgentId, ItemId, u32)> + '_ {
        self.beliefs
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.as_ref().map(|b| (AgentId(i as u32), b)))
            .flat_map(|(a, b)| b.spare.iter().map(move |(&item, &n)| (a, item, n)))
    }

    /// What the manager believes `agent` can spare of `item` (nothing, if it never
    /// reported).
    pub fn believed_spare(&self, agent: AgentId, item: ItemId) -> u32 {
        self.beliefs.get(agent.index()).and_then(Option::as_ref).and_then(|b| b.spare.get(&item)).copied().unwrap_or(0)
    }

    /// The teammates of `from` the manager believes can spare some `item`, with how
    /// many, the one it would order first first (most to spare, then the lowest id).
    pub fn donors(&self, from: AgentId, item: ItemId) -> Vec<(AgentId, u32)> {
        let mut d: Vec<(AgentId, u32)> = (0..self.beliefs.len() as u32)
            .map(AgentId)
            .filter(|a| *a != from)
            .map(|a| (a, self.believed_spare(a, item)))
            .filter(|(_, s)| *s > 0)
            .collect();
        d.sort_by_key(|&(a, s)| (std::cmp::Reverse(s), a));
        d
    }

    /// Handles one message `from` an agent at `now` by the manager's own rule;
    /// `unplaced` is the task status.
    #[cfg(test)]
    pub fn handle(&mut self, from: AgentId, ask: &ManagerAsk, now: Tick, unplaced: &[Unplaced]) -> Replan {
        self.handle_choosing(from, ask, now, unplaced, None)
    }

    /// As [`Self::handle`], with the re-plan of a missing item chosen elsewhere (a
    /// model-driven manager, `--bots model`): `Some(Some(giver))` orders one of
    /// [`Self::donors`], `Some(None)` tells the bot to recover locally, `None` leaves it
    /// to the manager's own rule (the first donor).
    pub fn handle_choosing(
        &mut self,
        from: AgentId,
        ask: &ManagerAsk,
        now: Tick,
        unplaced: &[Unplaced],
        chosen: Option<Option<AgentId>>,
    ) -> Replan {
        let mut r = Replan {
            pause: self.config.replan_base + unplaced.len() as u64 / self.config.replan_per.max(1),
            tokens: 300 + 4 * unplaced.len() as u32,
            ..Replan::default()
        };
        match *ask {
            ManagerAsk::Report(ref report) => {
                let spare = report
                    .items
                    .iter()
                    .map(|&(item, n)| (item, n.saturating_sub(self.need(from, item, unplaced))))
                    .filter(|(_, s)| *s > 0)
                    .collect();
                if let Some(b) = self.beliefs.get_mut(from.index()) {
                    *b = Some(Belief { spare });
                }
                // Folding a report in is bookkeeping: no re-plan, no answer.
                r.pause = 0;
                r.tokens = 0;
            }
            ManagerAsk::Received { window } => {
                if self.open.remove(&window).is_some() {
                    r.confirmed.push(window);
                }
                // A confirmation is bookkeeping, not a re-plan.
                r.pause = 0;
                r.tokens = LINE_TOKENS;
            }
            ManagerAsk::Issue { issue, item: None } => r.directives.push((from, Directive::Resume { issue })),
            ManagerAsk::Issue { issue, item: Some((item, count)) } => {
                let donors = self.donors(from, item);
                let donor = match chosen {
                    None => donors.first().copied(),
                    Some(pick) => pick.and_then(|g| donors.iter().find(|(a, _)| *a == g).copied()),
                };
                match donor {
                    Some((giver, s)) => {
                        let window = WindowId(self.next_window);
                        self.next_window += 1;
                        let count = s.min(count);
                        // Promised away: not counted on again until the giver reports anew
                        // (even if the delivery fails: the manager cannot tell why).
                        if let Some(Some(b)) = self.beliefs.get_mut(giver.index()) {
                            b.spare.insert(item, s - count);
                        }
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

#[cfg(test)]
mod tests {
    use super::*;

    const GLASS: ItemId = ItemId(7);
    const STONE: ItemId = ItemId(3);

    fn report(items: &[(ItemId, u32)]) -> ManagerAsk {
        ManagerAsk::Report(Report { items: items.to_vec() })
    }

    fn ask(issue: u32, item: ItemId, count: u32) -> ManagerAsk {
        ManagerAsk::Issue { issue: IssueId::new(AgentId(0), issue), item: Some((item, count)) }
    }

    fn givers(r: &Replan) -> Vec<(AgentId, u32)> {
        r.directives
            .iter()
            .filter_map(|(a, d)| match d {
                Directive::Deliver { count, .. } => Some((*a, *count)),
                _ => None,
            })
            .collect()
    }

    /// Three bots, six cells: cells 0-1 are bot 0's, 2-3 bot 1's, 4-5 bot 2's.
    fn manager() -> Manager {
        let owners = [0, 0, 1, 1, 2, 2].map(AgentId).to_vec();
        Manager::new(ManagerConfig::default(), owners, 3)
    }

    #[test]
    fn a_bot_that_never_reported_is_never_sent_to_give() {
        // Bot 2 may hold any amount of glass: the manager was never told, so it has
        // nothing to go on (the episode gives it no world to look in).
        let mut m = manager();
        let r = m.handle(AgentId(0), &ask(0, GLASS, 2), Tick(5), &[]);
        assert!(givers(&r).is_empty());
        assert_eq!(r.directives, vec![(AgentId(0), Directive::RecoverLocally { issue: IssueId::new(AgentId(0), 0) })]);
    }

    #[test]
    fn the_manager_orders_what_the_reports_say_and_not_more() {
        let mut m = manager();
        let glass_cells = [Unplaced { cell: 2, item: GLASS }, Unplaced { cell: 4, item: GLASS }];
        // Bot 1 reports 4 glass and needs 1 itself: 3 to spare. Bot 2 reports none.
        m.handle(AgentId(1), &report(&[(GLASS, 4), (STONE, 9)]), Tick(0), &glass_cells);
        m.handle(AgentId(2), &report(&[(STONE, 1)]), Tick(0), &glass_cells);
        assert_eq!((m.believed_spare(AgentId(1), GLASS), m.believed_spare(AgentId(2), GLASS)), (3, 0));
        let r = m.handle(AgentId(0), &ask(0, GLASS, 2), Tick(10), &glass_cells);
        assert_eq!(givers(&r), vec![(AgentId(1), 2)]);
        // What it ordered away is not counted on again: one left, then none.
        let r = m.handle(AgentId(0), &ask(1, GLASS, 2), Tick(20), &glass_cells);
        assert_eq!(givers(&r), vec![(AgentId(1), 1)]);
        let r = m.handle(AgentId(0), &ask(2, GLASS, 2), Tick(30), &glass_cells);
        assert!(givers(&r).is_empty(), "bot 2 reported no glass: {r:?}");
        // A new report replaces the belief: bot 2 now holds 5 and needs 1.
        m.handle(AgentId(2), &report(&[(GLASS, 5)]), Tick(40), &glass_cells);
        let r = m.handle(AgentId(0), &ask(3, GLASS, 2), Tick(50), &glass_cells);
        assert_eq!(givers(&r), vec![(AgentId(2), 2)]);
    }

    #[test]
    fn a_report_is_counted_and_costs_no_replan() {
        let mut m = manager();
        let ask = report(&[(GLASS, 1), (STONE, 2)]);
        assert_eq!(ask.tokens(), LINE_TOKENS + 2 * REPORT_ITEM_TOKENS);
        assert_eq!(report(&[]).tokens(), LINE_TOKENS);
        let r = m.handle(AgentId(1), &ask, Tick(0), &[Unplaced { cell: 0, item: GLASS }]);
        assert_eq!((r.pause, r.directives.len(), r.tokens), (0, 0, 0));
    }
}
