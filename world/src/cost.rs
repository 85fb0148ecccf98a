//! Estimated cost, in ticks, of obtaining items without help: the recovery planner
//! behind the world's oracle (full knowledge) and behind each agent's own estimate of
//! local recoverability (only what it has seen). Both use the same [`Knowledge`] trait,
//! so the oracle and the agents disagree only about what they know, never about how
//! the world works.
//!
//! Sources, each priced as the ticks to use it: take from a known container or dropped
//! stack; craft (recursively obtaining the ingredients, plus a crafting table for 3x3
//! recipes); mine a known resource block (plus a tool where the block needs one);
//! smelt (input, fuel, furnace). The search is depth-limited, memoised per query and
//! pruned at the budget, and it never counts teammates' inventories.
//!
//! Counts reach here from chat ("get 1100000000 crafting tables") and from task files:
//! every sum and product saturates (a saturated cost is above any budget, so the route is
//! refused), and clippy's `arithmetic_side_effects` keeps it that way.
#![deny(clippy::arithmetic_side_effects)]

use std::collections::HashMap;

use gatecrew_protocol::{ItemId, Pos};

use crate::data::{BlockId, GameData, RecipeId, Smelt, ToolNeed};
use crate::world::TickCosts;

/// What a planner may use.
pub trait Knowledge {
    /// The game data.
    fn data(&self) -> &GameData;
    /// Where the bot stands.
    fn here(&self) -> Pos;
    /// How many the bot holds.
    fn held(&self, item: ItemId) -> u32;
    /// Known containers or dropped stacks holding the item: `(position, count)`.
    fn stored(&self, item: ItemId) -> Vec<(Pos, u32)>;
    /// The nearest known natural block of a kind.
    fn nearest_resource(&self, block: BlockId) -> Option<Pos>;
    /// A known crafting table.
    fn table(&self) -> Option<Pos>;
    /// A known furnace.
    fn furnace(&self) -> Option<Pos>;
    /// The item that places a crafting table.
    fn table_item(&self) -> Option<ItemId>;
    /// The item that places a furnace.
    fn furnace_item(&self) -> Option<ItemId>;
    /// Reach distance.
    fn reach(&self) -> f64;
    /// Tick costs.
    fn ticks(&self) -> TickCosts;
}

/// How an item is best obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Already held.
    Held,
    /// From a container or a dropped stack.
    Take,
    /// By crafting.
    Craft,
    /// By mining.
    Mine,
    /// By smelting.
    Smelt,
}

/// A priced way to obtain items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// Ticks.
    pub ticks: u64,
    /// The first step of the cheapest route.
    pub route: Route,
}

const MAX_DEPTH: usize = 5;

/// A planner over some knowledge. One planner per question: the memo assumes the
/// knowledge does not change.
pub struct Planner<'k, K: Knowledge> {
    k: &'k K,
    budget: u64,
    memo: HashMap<(ItemId, u32), Option<Estimate>>,
    stack: Vec<ItemId>,
}

impl<'k, K: Knowledge> Planner<'k, K> {
    /// A planner that gives up on routes dearer than `budget` ticks.
    pub fn new(k: &'k K, budget: u64) -> Self {
        Planner { k, budget, memo: HashMap::new(), stack: Vec::new() }
    }

    /// Cost of holding `count` of `item` (what is already held counts).
    pub fn obtain(&mut self, item: ItemId, count: u32) -> Option<Estimate> {
        let deficit = count.saturating_sub(self.k.held(item));
        if deficit == 0 {
            return Some(Estimate { ticks: 0, route: Route::Held });
        }
        self.acquire(item, deficit)
    }

    fn travel(&self, to: Pos) -> u64 {
        let here = self.k.here();
        let d = (here.dist(to) - self.k.reach()).max(0.0);
        // Paths bend around obstacles; a fifth more than the straight line is a fair
        // average on building sites.
        // `as` saturates from f64; a NaN distance (never produced) would give 0.
        ((d * 1.2).ceil() as u64).saturating_mul(self.k.ticks().move_per_block)
    }

    fn acquire(&mut self, item: ItemId, deficit: u32) -> Option<Estimate> {
        if let Some(e) = self.memo.get(&(item, deficit)) {
            return *e;
        }
        if self.stack.len() >= MAX_DEPTH || self.stack.contains(&item) {
            return None;
        }
        self.stack.push(item);
        let best =
            [self.take(item, deficit), self.craft(item, deficit), self.mine(item, deficit), self.smelt(item, deficit)]
                .into_iter()
                .flatten()
                .filter(|e| e.ticks <= self.budget)
                .min_by_key(|e| e.ticks);
        self.stack.pop();
        self.memo.insert((item, deficit), best);
        best
    }

    /// Cost of taking `deficit` items from known containers and dropped stacks.
    pub fn take(&self, item: ItemId, deficit: u32) -> Option<Estimate> {
        let mut stores = self.k.stored(item);
        stores.sort_by_key(|(p, _)| self.travel(*p));
        let (mut got, mut ticks, mut last) = (0u32, 0u64, self.k.here());
        for (p, n) in stores {
            // Walk from store to store.
            let leg = ((last.dist(p) * 1.2).ceil() as u64).saturating_mul(self.k.ticks().move_per_block);
            let walk = if got == 0 { self.travel(p) } else { leg };
            ticks = ticks.saturating_add(walk).saturating_add(self.k.ticks().chest);
            last = p;
            got = got.saturating_add(n);
            if got >= deficit {
                return Some(Estimate { ticks, route: Route::Take });
            }
        }
        None
    }

    fn station(&mut self, known: Option<Pos>, item: Option<ItemId>) -> Option<u64> {
        if let Some(p) = known {
            return Some(self.travel(p));
        }
        let item = item?;
        Some(self.obtain(item, 1)?.ticks.saturating_add(self.k.ticks().place))
    }

    fn craft(&mut self, item: ItemId, deficit: u32) -> Option<Estimate> {
        let recipes: Vec<RecipeId> = self.k.data().recipes_for(item).to_vec();
        recipes.into_iter().filter_map(|rid| self.craft_with(rid, deficit)).min_by_key(|e| e.ticks)
    }

    /// Cost of making `deficit` items with one recipe, ingredients and table included.
    pub fn craft_with(&mut self, rid: RecipeId, deficit: u32) -> Option<Estimate> {
        let r = self.k.data().recipe(rid).clone();
        // A recipe of count 0 (never in the data) makes nothing.
        let times = deficit.checked_div_ceil_or_none(r.count)?;
        let mut ticks = self.k.ticks().craft;
        for (ing, n) in &r.ingredients {
            // More than a u32 of one ingredient is no plan at all.
            ticks = ticks.saturating_add(self.obtain(*ing, n.checked_mul(times)?)?.ticks);
            if ticks > self.budget {
                return None;
            }
        }
        if r.grid == 3 {
            ticks = ticks.saturating_add(self.station(self.k.table(), self.k.table_item())?);
        }
        (ticks <= self.budget).then_some(Estimate { ticks, route: Route::Craft })
    }

    /// Cost of holding a tool that meets `need` (0 if one is held or none is needed).
    pub fn tool_cost(&mut self, need: Option<ToolNeed>) -> Option<u64> {
        let Some(need) = need else { return Some(0) };
        let tools = self.k.data().tools_satisfying(need);
        if tools.iter().any(|t| self.k.held(*t) > 0) {
            return Some(0);
        }
        tools.into_iter().filter_map(|t| self.obtain(t, 1).map(|e| e.ticks)).min()
    }

    fn mine(&mut self, item: ItemId, deficit: u32) -> Option<Estimate> {
        let blocks: Vec<BlockId> = self.k.data().blocks_dropping(item).to_vec();
        blocks.into_iter().filter_map(|b| self.mine_from(b, deficit)).min_by_key(|e| e.ticks)
    }

    /// Cost of mining `deficit` drops from known blocks of one kind, tool included.
    pub fn mine_from(&mut self, b: BlockId, deficit: u32) -> Option<Estimate> {
        let at = self.k.nearest_resource(b)?;
        let info = self.k.data().block_info(b).clone();
        let tool = self.tool_cost(info.needs)?;
        let hardness = f64::from(info.hardness.unwrap_or(0.0));
        // Estimated with the tool it would use: a wooden one when one is needed.
        let speed = if info.needs.is_some() { 2.0 } else { 1.0 };
        let t = self.k.ticks();
        let per = ((hardness * 30.0 / speed).ceil() as u64)
            .max(t.min_mine)
            .saturating_add(t.move_per_block.saturating_mul(2));
        let ticks = tool.saturating_add(self.travel(at)).saturating_add(per.saturating_mul(u64::from(deficit)));
        (ticks <= self.budget).then_some(Estimate { ticks, route: Route::Mine })
    }

    fn smelt(&mut self, item: ItemId, deficit: u32) -> Option<Estimate> {
        let recipes: Vec<Smelt> = self.k.data().smelts_for(item).copied().collect();
        recipes.into_iter().filter_map(|s| self.smelt_with(s, deficit).map(|(e, _)| e)).min_by_key(|e| e.ticks)
    }

    /// Cost of smelting `deficit` items with one furnace recipe, and the cheapest fuel.
    pub fn smelt_with(&mut self, s: Smelt, deficit: u32) -> Option<(Estimate, ItemId)> {
        let fuels: Vec<(ItemId, u32)> = self.k.data().fuels();
        let input = self.obtain(s.input, deficit)?;
        let burn_needed = s.ticks.checked_mul(deficit)?;
        let (fuel_ticks, fuel) = fuels
            .iter()
            .filter_map(|(f, burn)| {
                self.obtain(*f, burn_needed.checked_div_ceil_or_none(*burn)?).map(|e| (e.ticks, *f))
            })
            .min()?;
        let furnace = self.station(self.k.furnace(), self.k.furnace_item())?;
        let ticks =
            input.ticks.saturating_add(fuel_ticks).saturating_add(furnace).saturating_add(u64::from(burn_needed));
        (ticks <= self.budget).then_some((Estimate { ticks, route: Route::Smelt }, fuel))
    }
}

/// `div_ceil` that answers `None` for a zero divisor instead of panicking.
trait CheckedDivCeil: Sized {
    fn checked_div_ceil_or_none(self, by: Self) -> Option<Self>;
}

impl CheckedDivCeil for u32 {
    fn checked_div_ceil_or_none(self, by: u32) -> Option<u32> {
        (by != 0).then(|| self.div_ceil(by))
    }
}
