//! The viewer's state, folded from trace events alone (a pure, synchronous core: the
//! live hub and the replay both drive it, and the tests check it event by event).
//!
//! Nothing here reads the world: positions come from verified `move_to` outcomes,
//! blueprint progress from verified `place` and `mine` outcomes at blueprint cells.
//! Inventories are exact when the driver hands over the world's [`Inventories`]
//! (a live run, a re-simulated replay); otherwise they are the scene's starting
//! inventories plus the item movements the trace records, and what the trace does not
//! record (the drops a `mine` or `pick_up` yields, the output of a `smelt`) is not
//! guessed; the page says so.

mod blocks;
mod board;
mod bots;
mod log;
mod panel;

use gatecrew_protocol::trace::{Event, EventKind};
use serde::Serialize;

pub use blocks::{Blocks, CellView, LayerView};
pub use board::{Board, GateView, PublicLine, ThreadMessage, ThreadView};
pub use bots::{Blocker, BotView, Cooldown, Handover, Outcome};
pub use log::{LOG_MAX, Log, LogEntry, features};
pub use panel::{Counts, Panel};

use crate::inventory::{Inventories, InventorySource};
use crate::scene::Scene;

/// Everything the page shows at one tick.
#[derive(Debug, Clone, Serialize)]
pub struct ViewState {
    /// `live` or `replay`.
    pub mode: &'static str,
    /// Episode id.
    pub episode: String,
    /// Policy.
    pub policy: String,
    /// Seed.
    pub seed: u64,
    /// Blueprint name.
    pub blueprint: String,
    /// The latest tick folded in.
    pub tick: u64,
    /// Why the episode ended, once it has.
    pub ended: Option<String>,
    /// Events folded in.
    pub events: u64,
    /// One card per bot.
    pub bots: Vec<BotView>,
    /// The board, one thread per window.
    pub board: Board,
    /// Blueprint progress.
    pub blocks: Blocks,
    /// Confirmed hand-overs, for the map's arrows.
    pub handovers: Vec<Handover>,
    /// DESIGN section 8's metrics so far.
    pub metrics: Panel,
    /// The latest events in words.
    pub log: Log,
    /// Whether the ghost and the inventories come from the run's setup.
    pub from_setup: bool,
    /// Where the inventories come from: `world` (exact) or `trace` (approximate).
    pub inventory_from: InventorySource,
    /// The tick of the world's inventories shown (with `world`).
    pub inventory_tick: Option<u64>,
    /// What the page must say about the data's limits.
    pub notes: Vec<String>,
    #[serde(skip)]
    cooldown_ticks: u64,
}

impl ViewState {
    /// The state before the first event.
    pub fn new(scene: &Scene, mode: &'static str) -> Self {
        ViewState {
            mode,
            episode: String::new(),
            policy: String::new(),
            seed: 0,
            blueprint: scene.blueprint.clone(),
            tick: 0,
            ended: None,
            events: 0,
            bots: scene.bots.iter().enumerate().map(|(i, b)| BotView::start(i as u32, b)).collect(),
            board: Board::default(),
            blocks: Blocks::new(&scene.cells),
            handovers: Vec::new(),
            metrics: Panel::default(),
            log: Log::new(),
            from_setup: scene.from_setup,
            inventory_from: scene.inventory,
            inventory_tick: None,
            notes: scene.notes.clone(),
            cooldown_ticks: scene.cooldown_ticks,
        }
    }

    /// Folds one event in.
    pub fn observe(&mut self, ev: &Event) {
        self.tick = self.tick.max(ev.t);
        self.events += 1;
        self.metrics.observe(ev);
        self.log.observe(ev);
        match &ev.kind {
            EventKind::EpisodeStart { policy, seed, agents, blueprint_blocks, blueprint, .. } => {
                self.episode = ev.ep.clone();
                self.policy = policy.as_str().to_owned();
                self.seed = *seed;
                if let Some(b) = blueprint.as_ref().filter(|_| self.blueprint.is_empty()) {
                    self.blueprint = b.clone();
                }
                for a in agents {
                    self.bot(a.0);
                }
                self.blocks.expect_total(*blueprint_blocks);
            }
            EventKind::Action { agent, action, ok, pos, item, .. } => {
                if *ok {
                    if let Some(p) = pos {
                        self.blocks.acted(*action, *p, item.as_deref());
                    }
                }
                let counted = self.inventory_from == InventorySource::Trace;
                self.bot(agent.0).action(ev, counted);
            }
            EventKind::Unfinished { pos: Some(p), block: Some(b), .. } => self.blocks.name(*p, b),
            EventKind::EpisodeEnd { reason, correct_blocks, .. } => {
                self.ended = Some(reason.as_str().to_owned());
                self.blocks.reported(*correct_blocks);
            }
            _ => {}
        }
        // Bot cards read the issue, gate, window and board events too.
        let cooldown = self.cooldown_ticks;
        match &ev.kind {
            EventKind::Issue { agent, .. }
            | EventKind::Gate { agent, .. }
            | EventKind::Adjudication { agent, .. }
            | EventKind::Resolved { agent, .. }
            | EventKind::Fallback { agent, .. }
            | EventKind::Restart { agent, .. }
            | EventKind::AgentFailed { agent, .. } => self.bot(agent.0).note(ev),
            EventKind::Chat { from, tokens, .. } => self.bot(from.0).tokens += u64::from(*tokens),
            EventKind::Manager { from: Some(from), tokens, .. } => self.bot(from.0).tokens += u64::from(*tokens),
            _ => {}
        }
        if let Some(done) = self.board.observe(ev) {
            self.settle(done, ev.t, cooldown);
        }
    }

    /// Brings the derived parts (each bot's `doing`, the block counts) up to date.
    /// Folding leaves them stale on purpose: the live hub folds every event but
    /// publishes a few times a second, and only publishing needs them.
    pub fn refresh(&mut self) {
        let ended = self.ended.is_some();
        for b in &mut self.bots {
            b.refresh(ended);
        }
        self.blocks.refresh();
        self.metrics.refresh(self.blocks.placed, self.blocks.total);
    }

    /// A thread that just closed: hand-overs move items, refusals start a cooldown.
    fn settle(&mut self, done: board::Settled, t: u64, cooldown: u64) {
        match done {
            board::Settled::Confirmed { from, to, item, count } => {
                // The supplier's `give` outcome already took the items out of its
                // inventory; with the world's inventories the next snapshot has both.
                if self.inventory_from == InventorySource::Trace {
                    self.bot(to).receive(&item, count);
                }
                let (from_pos, to_pos) = (self.bot(from).pos, self.bot(to).pos);
                self.handovers.push(Handover { t, from, to, item, count, from_pos, to_pos });
            }
            board::Settled::Refused { requester, item } => {
                if cooldown > 0 {
                    self.bot(requester).cooldown = Some(Cooldown { item, until: t + cooldown });
                }
            }
        }
    }

    /// The world's inventories at the end of `inv.tick` replace the cards' counts.
    pub fn inventories(&mut self, inv: &Inventories) {
        for (i, items) in inv.bots.iter().enumerate() {
            let b = self.bot(i as u32);
            b.inventory.clone_from(items);
            b.inventory_known = true;
        }
        self.inventory_tick = Some(inv.tick);
    }

    /// One bot's inventory in the world at the end of `tick`.
    pub fn inventory(&mut self, id: u32, items: std::collections::BTreeMap<String, u32>, tick: u64) {
        let b = self.bot(id);
        b.inventory = items;
        b.inventory_known = true;
        self.inventory_tick = Some(tick);
    }

    /// The card of a bot, made on first sight.
    fn bot(&mut self, id: u32) -> &mut BotView {
        while self.bots.len() <= id as usize {
            let n = self.bots.len() as u32;
            self.bots.push(BotView::unknown(n));
        }
        &mut self.bots[id as usize]
    }

    /// Tick-dependent parts that change without an event (a cooldown running out).
    pub fn at(&mut self, tick: u64) {
        self.tick = self.tick.max(tick);
        for b in &mut self.bots {
            if b.cooldown.as_ref().is_some_and(|c| c.until <= self.tick) {
                b.cooldown = None;
            }
        }
    }
}
