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
//! The gate prices a recovery on every decision, so a planner can borrow its buffers
//! ([`Scratch`]) from its caller: once they have grown, a query allocates nothing.
//! The memo is cleared per planner: it is only valid for one position,
//! inventory and memory, and its entries depend on the search path (an item on the
//! stack is refused), so it is never carried from one decision to the next.
//!
//! Counts reach here from chat ("get 1100000000 crafting tables") and from task files:
//! every sum and product saturates (a saturated cost is above any budget, so the route is
//! refused), and clippy's `arithmetic_side_effects` keeps it that way.
#![deny(clippy::arithmetic_side_effects)]

use std::borrow::BorrowMut;

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
    /// [`Knowledge::stored`] appended to `out`, in the same order; a knowledge that can
    /// do it without allocating says so by overriding this.
    fn stored_into(&self, item: ItemId, out: &mut Vec<(Pos, u32)>) {
        out.extend(self.stored(item));
    }
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

/// The buffers of a planner: a caller that plans often keeps one and lends it to each
/// planner ([`Planner::with_scratch`]), so that a query allocates nothing once they
/// have grown.
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    /// Memo of `(item, deficit)`, sorted by key: a query looks up a few dozen at most.
    memo: Vec<((ItemId, u32), Option<Estimate>)>,
    stack: Vec<ItemId>,
    /// Spare lists for the recursive steps (a step takes one and gives it back).
    ids: Vec<Vec<ItemId>>,
    fuels: Vec<Vec<(ItemId, u32)>>,
    stores: Vec<Vec<(Pos, u32)>>,
}

impl Scratch {
    /// Swaps a spare list of stores (empty) into `out`, for a caller that lists
    /// [`Knowledge::stored_into`] itself; [`Scratch::give_back_stores`] returns it.
    pub fn lend_stores<'o>(&mut self, out: &'o mut Vec<(Pos, u32)>) -> &'o mut Vec<(Pos, u32)> {
        *out = self.stores.pop().unwrap_or_default();
        out.clear();
        out
    }

    /// Returns a list lent by [`Scratch::lend_stores`].
    pub fn give_back_stores(&mut self, stores: Vec<(Pos, u32)>) {
        self.stores.push(stores);
    }
}

/// A planner over some knowledge. One planner per question: the memo assumes the
/// knowledge does not change.
pub struct Planner<'k, K: Knowledge, S: BorrowMut<Scratch> = Scratch> {
    k: &'k K,
    budget: u64,
    s: S,
}

impl<'k, K: Knowledge> Planner<'k, K> {
    /// A planner that gives up on routes dearer than `budget` ticks.
    pub fn new(k: &'k K, budget: u64) -> Self {
        Planner { k, budget, s: Scratch::default() }
    }
}

impl<'k, 's, K: Knowledge> Planner<'k, K, &'s mut Scratch> {
    /// [`Planner::new`] with borrowed buffers (emptied first).
    pub fn with_scratch(k: &'k K, budget: u64, s: &'s mut Scratch) -> Self {
        s.memo.clear();
        s.stack.clear();
        Planner { k, budget, s }
    }
}

impl<'k, K: Knowledge, S: BorrowMut<Scratch>> Planner<'k, K, S> {
    /// Cost of holding `count` of `item` (what is already held counts).
    pub fn obtain(&mut self, item: ItemId, count: u32) -> Option<Estimate> {
        let deficit = count.saturating_sub(self.k.held(item));
        if deficit == 0 {
            return Some(Estimate { ticks: 0, route: Route::Held });
        }
        self.acquire(item, deficit)
    }

    fn s(&mut self) -> &mut Scratch {
        self.s.borrow_mut()
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
        if let Ok(i) = self.s().memo.binary_search_by_key(&(item, deficit), |e| e.0) {
            return self.s().memo[i].1;
        }
        let s = self.s();
        if s.stack.len() >= MAX_DEPTH || s.stack.contains(&item) {
            return None;
        }
        s.stack.push(item);
        let best =
            [self.take(item, deficit), self.craft(item, deficit), self.mine(item, deficit), self.smelt(item, deficit)]
                .into_iter()
                .flatten()
                .filter(|e| e.ticks <= self.budget)
                .min_by_key(|e| e.ticks);
        let s = self.s();
        s.stack.pop();
        // The search below added entries: find the place again (overwriting, as a map
        // insert would, though the item on the stack keeps its own key out).
        match s.memo.binary_search_by_key(&(item, deficit), |e| e.0) {
            Ok(i) => s.memo[i].1 = best,
            Err(i) => s.memo.insert(i, ((item, deficit), best)),
        }
        best
    }

    /// Cost of taking `deficit` items from known containers and dropped stacks.
    pub fn take(&mut self, item: ItemId, deficit: u32) -> Option<Estimate> {
        let mut stores = self.s().stores.pop().unwrap_or_default();
        stores.clear();
        self.k.stored_into(item, &mut stores);
        let best = self.take_from(&mut stores, deficit);
        self.s().stores.push(stores);
        best
    }

    fn take_from(&self, stores: &mut [(Pos, u32)], deficit: u32) -> Option<Estimate> {
        stores.sort_by_key(|(p, _)| self.travel(*p));
        let (mut got, mut ticks, mut last) = (0u32, 0u64, self.k.here());
        for &(p, n) in stores.iter() {
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
        // The data outlives the planner: no copy of the recipe list.
        let k: &'k K = self.k;
        k.data().recipes_for(item).iter().filter_map(|&rid| self.craft_with(rid, deficit)).min_by_key(|e| e.ticks)
    }

    /// Cost of making `deficit` items with one recipe, ingredients and table included.
    pub fn craft_with(&mut self, rid: RecipeId, deficit: u32) -> Option<Estimate> {
        let k: &'k K = self.k;
        let r = k.data().recipe(rid);
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
        let mut tools = self.s().ids.pop().unwrap_or_default();
        self.k.data().tools_satisfying_into(need, &mut tools);
        let best = if tools.iter().any(|t| self.k.held(*t) > 0) {
            Some(0)
        } else {
            tools.iter().filter_map(|&t| self.obtain(t, 1).map(|e| e.ticks)).min()
        };
        self.s().ids.push(tools);
        best
    }

    fn mine(&mut self, item: ItemId, deficit: u32) -> Option<Estimate> {
        let k: &'k K = self.k;
        k.data().blocks_dropping(item).iter().filter_map(|&b| self.mine_from(b, deficit)).min_by_key(|e| e.ticks)
    }

    /// Cost of mining `deficit` drops from known blocks of one kind, tool included.
    pub fn mine_from(&mut self, b: BlockId, deficit: u32) -> Option<Estimate> {
        let at = self.k.nearest_resource(b)?;
        let k: &'k K = self.k;
        let info = k.data().block_info(b);
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
        let k: &'k K = self.k;
        k.data().smelts_for(item).filter_map(|s| self.smelt_with(*s, deficit).map(|(e, _)| e)).min_by_key(|e| e.ticks)
    }

    /// Cost of smelting `deficit` items with one furnace recipe, and the cheapest fuel.
    pub fn smelt_with(&mut self, s: Smelt, deficit: u32) -> Option<(Estimate, ItemId)> {
        let input = self.obtain(s.input, deficit)?;
        let burn_needed = s.ticks.checked_mul(deficit)?;
        let mut fuels = self.s().fuels.pop().unwrap_or_default();
        self.k.data().fuels_into(&mut fuels);
        let cheapest = fuels
            .iter()
            .filter_map(|(f, burn)| {
                self.obtain(*f, burn_needed.checked_div_ceil_or_none(*burn)?).map(|e| (e.ticks, *f))
            })
            .min();
        self.s().fuels.push(fuels);
        let (fuel_ticks, fuel) = cheapest?;
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
