//! The ordered list of an `obtain` OR's alternatives, for both of its expansions: the
//! crew agent's local solver and the partner's recipe planner rank the same [`ways`]
//! with the same cost estimate (`gatecrew_world::cost`) and the same tie-breaks, here.
//!
//! What differs between them is a judgement the caller passes in: which ways to keep at
//! all and what an unpriced one costs. The agent keeps only the ways it can price (its
//! rank is the price); the partner also keeps ways it cannot price yet, after the priced
//! ones, by a knowledge-free estimate and the vocabulary's preference, so that the
//! person sees a plan even before the bot knows where the trees are. The order is then
//! (priced first, cost, preference, way kind, index in the data) for both.
//!
//! Pricing is lazy: the caller's judgement asks for the price when it wants it. The
//! cost planner memoises by item and count with a depth cut, so what it answers can
//! depend on what it was asked before; asking only when the caller would have asked
//! keeps both expansions' answers what they were when each priced on its own.
#![deny(clippy::arithmetic_side_effects)]

use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::cost::{Knowledge, Planner};

use super::{Way, ways};

/// Where a way stands among an item's alternatives, as the caller judged it. Fields are
/// compared in order, so priced ways come first, then the ones a person said they like,
/// then cheaper ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    /// Whether the bot could not price the way from what it knows.
    pub unpriced: bool,
    /// How a person's stated taste ranks the way, lower first: the partner's newest
    /// preference naming it is 0 (`usize::MAX`: no preference names it; the agent's
    /// always).
    pub liked: usize,
    /// Its cost in ticks: the price, or the caller's estimate when unpriced.
    pub cost: u64,
    /// The caller's preference among equal costs, lower first (0: no preference).
    pub preference: usize,
}

impl Rank {
    /// A priced way with no preference: the agent's whole judgement.
    pub fn priced(cost: u64) -> Self {
        Rank { unpriced: false, liked: usize::MAX, cost, preference: 0 }
    }
}

/// One way to obtain the item, in the ranked list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alternative {
    /// The way.
    pub way: Way,
    /// The fuel a smelt was priced with (`None` when unpriced or not a smelt).
    pub fuel: Option<ItemId>,
    /// The nearest known container or stack holding the item, for a take whose caller
    /// asked for it ([`Quote::store`]): the partner names it to the person.
    pub from: Option<Pos>,
}

/// One way of an item put to the caller's judgement, with its price on demand.
pub struct Quote<'q, 'k, K: Knowledge> {
    k: &'k K,
    planner: &'q mut Planner<'k, K>,
    item: ItemId,
    count: u32,
    way: Way,
    fuel: Option<ItemId>,
    from: Option<Pos>,
}

impl<K: Knowledge> Quote<'_, '_, K> {
    /// The way being judged.
    pub fn way(&self) -> Way {
        self.way
    }

    /// What the way costs, in ticks, from what the bot knows; `None` when it cannot be
    /// priced (nothing known to take or mine, over the budget, a cycle).
    pub fn price(&mut self) -> Option<u64> {
        let (item, n) = (self.item, self.count);
        match self.way {
            Way::Take => self.planner.take(item, n).map(|e| e.ticks),
            Way::Craft(rid) => self.planner.craft_with(rid, n).map(|e| e.ticks),
            Way::Mine(b) => self.planner.mine_from(b, n).map(|e| e.ticks),
            Way::Smelt(s) => self.planner.smelt_with(s, n).map(|(e, fuel)| {
                self.fuel = Some(fuel);
                e.ticks
            }),
        }
    }

    /// The nearest known container or stack holding the item (by squared distance,
    /// then position, so ties break the same everywhere).
    pub fn store(&mut self) -> Option<Pos> {
        let here = self.k.here();
        let mut stores = self.k.stored(self.item);
        stores.sort_by_key(|(p, _)| (p.dist_sq(here), *p));
        self.from = stores.first().map(|(p, _)| *p);
        self.from
    }
}

/// The alternatives for holding `count` more of `item`, in order, at most `max`.
/// `judge` ranks each way or drops it (`None`); the order after its [`Rank`] is the way's
/// kind (take, craft, mine, smelt) and its index in the data.
pub fn ranked<'k, K: Knowledge>(
    k: &'k K,
    planner: &mut Planner<'k, K>,
    item: ItemId,
    count: u32,
    max: usize,
    mut judge: impl FnMut(&mut Quote<'_, 'k, K>) -> Option<Rank>,
) -> Vec<Alternative> {
    let mut out: Vec<(Rank, u8, usize, Alternative)> = Vec::new();
    for (way, index) in ways(k.data(), item) {
        let mut q = Quote { k, planner: &mut *planner, item, count, way, fuel: None, from: None };
        if let Some(rank) = judge(&mut q) {
            out.push((rank, way.rank(), index, Alternative { way, fuel: q.fuel, from: q.from }));
        }
    }
    out.sort_by_key(|(rank, kind, index, _)| (*rank, *kind, *index));
    out.into_iter().take(max).map(|(.., a)| a).collect()
}
