//! The order flood: arrivals every interval, lifetimes counting down, completion on the
//! serving table. The timing follows MindAgent's `TaskManager` (`overcooked/game.py`):
//! the first order is drawn at reset, every step's end lowers each pending order's
//! lifetime by one and adds a new order when the interval's timer runs out, at most six
//! orders are pending (`max_num_tasks = 6`; an arrival beyond that is skipped, as there),
//! and the dish is drawn uniformly from the level's `task_list` (`rng.choice`).

use gatecrew_protocol::ItemId;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::level::{Level, Timing};

/// MindAgent's `max_num_tasks` default: at most six orders pending.
pub const MAX_PENDING: usize = 6;

/// An order, numbered from 0 in arrival order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OrderId(pub u32);

/// An order on the board of the pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Order {
    /// Its number.
    pub id: OrderId,
    /// The dish.
    pub dish: ItemId,
    /// What must be on the serving table.
    pub serve: Vec<ItemId>,
    /// The step at which it arrived (the world's time then).
    pub arrived: u32,
    /// Steps left: actions of the next `remaining` steps can still complete it.
    pub remaining: u32,
}

/// Pending orders and the arrival clock.
#[derive(Debug, Clone)]
pub(crate) struct Orders {
    pub pending: Vec<Order>,
    timing: Timing,
    timer: u32,
    next: u32,
    pub skipped: u32,
}

impl Orders {
    pub fn new(timing: Timing) -> Self {
        Orders { pending: Vec::new(), timing, timer: 0, next: 0, skipped: 0 }
    }

    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    /// Draws a dish and adds its order (unless six are pending).
    pub fn arrive(&mut self, level: &Level, rng: &mut ChaCha8Rng, now: u32) -> Option<OrderId> {
        let k = rng.random_range(0..level.menu.len());
        if self.pending.len() >= MAX_PENDING {
            self.skipped += 1;
            return None;
        }
        let m = &level.menu[k];
        let id = OrderId(self.next);
        self.next += 1;
        let remaining = self.timing.lifetimes.get(k).copied().unwrap_or(m.lifetime);
        self.pending.push(Order { id, dish: m.dish, serve: m.serve.clone(), arrived: now, remaining });
        Some(id)
    }

    /// Pending orders in MindAgent's order: least lifetime left first, then oldest.
    pub fn by_urgency(&self) -> Vec<&Order> {
        let mut v: Vec<&Order> = self.pending.iter().collect();
        v.sort_by_key(|o| (o.remaining, o.id));
        v
    }

    /// Completes every order whose items are on `table` (most urgent first), taking
    /// the items off it.
    pub fn serve(&mut self, table: &mut Vec<ItemId>) -> Vec<Order> {
        let ids: Vec<OrderId> = self.by_urgency().iter().map(|o| o.id).collect();
        let mut done = Vec::new();
        for id in ids {
            let Some(pos) = self.pending.iter().position(|o| o.id == id) else { continue };
            if crate::recipe::sub_multiset(&self.pending[pos].serve, table) {
                for item in &self.pending[pos].serve {
                    if let Some(p) = table.iter().position(|t| t == item) {
                        table.swap_remove(p);
                    }
                }
                done.push(self.pending.remove(pos));
            }
        }
        done
    }

    /// End of a step: lifetimes down by one, the expired out; the timer forward, and a
    /// new order when it reaches the interval. Returns (failed, arrived).
    pub fn tick(&mut self, level: &Level, rng: &mut ChaCha8Rng, now: u32) -> (Vec<Order>, Option<OrderId>) {
        for o in &mut self.pending {
            o.remaining = o.remaining.saturating_sub(1);
        }
        let (failed, kept): (Vec<Order>, Vec<Order>) = self.pending.drain(..).partition(|o| o.remaining == 0);
        self.pending = kept;
        self.timer += 1;
        let mut arrived = None;
        if self.timer >= self.timing.interval {
            self.timer = 0;
            arrived = self.arrive(level, rng, now);
        }
        (failed, arrived)
    }

    /// How many of `item` the pending orders still want on the table beyond what lies there.
    pub fn wanted_on_table(&self, item: ItemId, table: &[ItemId]) -> usize {
        let want: usize = self.pending.iter().map(|o| o.serve.iter().filter(|&&s| s == item).count()).sum();
        want.saturating_sub(table.iter().filter(|&&t| t == item).count())
    }
}
