//! Knowledge-free costs, for alternatives the bot cannot price from what it knows yet:
//! mining a natural block 40 (plus its tool), a craft 10 plus its ingredients per unit,
//! a smelt 200 plus its input; and the fuel to plan for when none could be priced.
#![deny(clippy::arithmetic_side_effects)]

use std::collections::BTreeMap;

use gatecrew_protocol::ItemId;
use gatecrew_world::{BlockId, GameData, RecipeId};

use super::UNKNOWN;
use crate::words::Vocabulary;

/// The knowledge-free estimates, memoised per item for one planner: a separate part of
/// it, so that the shared ranking can judge a way with them while it prices with the
/// planner's cost planner.
pub(super) struct Statics<'a> {
    data: &'a GameData,
    vocab: &'a Vocabulary,
    memo: BTreeMap<ItemId, u64>,
}

impl<'a> Statics<'a> {
    pub(super) fn new(data: &'a GameData, vocab: &'a Vocabulary) -> Self {
        Statics { data, vocab, memo: BTreeMap::new() }
    }

    /// A fuel to plan for when none could be priced: the cheapest by the knowledge-free
    /// estimate, not the item being smelted nor one being expanded (`stack`).
    pub(super) fn default_fuel(&mut self, input: ItemId, stack: &[ItemId]) -> Option<ItemId> {
        let fuels = self.data.fuels();
        let mut best: Option<(u64, usize, ItemId)> = None;
        for (f, burn) in fuels {
            if f == input || stack.contains(&f) {
                continue;
            }
            let per_item = u64::from(burn / 200).max(1);
            let c = self.cost(f, 0).checked_div(per_item).unwrap_or(UNKNOWN);
            let key = (c, self.vocab.preference(f), f);
            if c < UNKNOWN && best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                best = Some(key);
            }
        }
        best.map(|(_, _, f)| f)
    }

    /// Knowledge-free cost of one item: mining a natural block 40 (plus its tool), a
    /// craft 10 plus its ingredients per unit, a smelt 200 plus its input.
    pub(super) fn cost(&mut self, item: ItemId, depth: usize) -> u64 {
        if let Some(&c) = self.memo.get(&item) {
            return c;
        }
        if depth > 8 {
            return UNKNOWN;
        }
        // Provisional while computing: a cycle prices as unknown.
        self.memo.insert(item, UNKNOWN);
        let mut best = UNKNOWN;
        let blocks: Vec<BlockId> = self.data.blocks_dropping(item).to_vec();
        for b in blocks {
            if self.vocab.natural(b) {
                best = best.min(40);
            }
        }
        for &rid in self.data.recipes_for(item).to_vec().iter() {
            let r = self.data.recipe(rid).clone();
            let mut c: u64 = 10;
            for (ing, n) in &r.ingredients {
                c = c.saturating_add(self.cost(*ing, depth.saturating_add(1)).saturating_mul(u64::from(*n)));
            }
            best = best.min(c.checked_div(u64::from(r.count)).unwrap_or(UNKNOWN));
        }
        for s in self.data.smelts_for(item).copied().collect::<Vec<_>>() {
            best = best.min(self.cost(s.input, depth.saturating_add(1)).saturating_add(u64::from(s.ticks)));
        }
        let best = best.min(UNKNOWN);
        self.memo.insert(item, best);
        best
    }

    pub(super) fn recipe(&mut self, rid: RecipeId) -> u64 {
        let r = self.data.recipe(rid).clone();
        let mut c: u64 = 10;
        for (ing, n) in &r.ingredients {
            let unit = self.cost(*ing, 1);
            if unit >= UNKNOWN {
                return UNKNOWN;
            }
            c = c.saturating_add(unit.saturating_mul(u64::from(*n)));
        }
        c.checked_div(u64::from(r.count)).unwrap_or(UNKNOWN)
    }

    pub(super) fn tool(&mut self, b: BlockId) -> u64 {
        let Some(need) = self.data.block_info(b).needs else { return 0 };
        let tools = self.data.tools_satisfying(need);
        tools.into_iter().map(|t| self.cost(t, 1)).min().unwrap_or(UNKNOWN).min(10_000)
    }
}
