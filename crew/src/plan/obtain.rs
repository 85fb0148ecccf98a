//! What an `obtain` OR's alternatives are, for both expansions of it: the crew agent's
//! lazy one (one level, when its local solver first needs the item:
//! `agent/recover.rs`) and the partner's eager recipe planner (the whole sub-graph at
//! once, labelled for the person: `gatecrew_hitl::recipe`).
//!
//! [`ways`] lists the ways to obtain an item in one fixed order: take it, each recipe,
//! each block dropping it, each furnace recipe, each with its index in the data (the
//! last tie-break of both rankings). [`Way::parts`] lays out one way's children once: a
//! craft is an ALL-OF of obtaining each ingredient, a crafting table for a 3x3 grid, then
//! the craft; mining a block that needs a tool obtains the tool first; a smelt obtains
//! its input and fuel, then a furnace, then the smelt. [`ranked`] puts the ways in cost
//! order, the same for both, given the caller's judgement of which ways to keep and what
//! an unpriced one costs (the agent: priced routes only; the partner: unpriced ones
//! too, after them, by a knowledge-free estimate). The callers keep which tool and fuel
//! to plan for and how a part becomes a node (the agent's station is a leaf, the
//! partner's an OR the person can see; the partner shares one `obtain` node between
//! parents).
//!
//! Counts come from chat as well as from the crew: every product and sum saturates.
#![deny(clippy::arithmetic_side_effects)]

use gatecrew_protocol::ItemId;
use gatecrew_world::data::Smelt;
use gatecrew_world::{BlockId, GameData, RecipeId};

use super::Task;

mod rank;

pub use rank::{Alternative, Quote, Rank, ranked};

/// One way to obtain an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// Take it from a container or a dropped stack.
    Take,
    /// Craft it with a recipe.
    Craft(RecipeId),
    /// Mine a block that drops it.
    Mine(BlockId),
    /// Smelt it in a furnace.
    Smelt(Smelt),
}

/// A child of an alternative, in order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Part {
    /// Hold `count` of `item` (an `obtain` OR of its own).
    Obtain {
        /// The item.
        item: ItemId,
        /// How many the alternative needs.
        count: u32,
    },
    /// Have a crafting station in reach: a crafting table or a furnace, by its item.
    Station {
        /// The station's item.
        item: ItemId,
    },
    /// The world work that completes the alternative.
    Work(Task),
}

/// What an alternative needs beyond the way itself, as the caller decides it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extras {
    /// The item that places a crafting table (a 3x3 recipe needs one in reach).
    pub table: Option<ItemId>,
    /// The item that places a furnace.
    pub furnace: Option<ItemId>,
    /// The tool to obtain before mining, if any.
    pub tool: Option<ItemId>,
    /// The fuel to burn when smelting, if one was chosen.
    pub fuel: Option<ItemId>,
}

impl Way {
    /// The rank of the way's kind, the tie-break after cost: take, craft, mine, smelt.
    pub fn rank(self) -> u8 {
        match self {
            Way::Take => 0,
            Way::Craft(_) => 1,
            Way::Mine(_) => 2,
            Way::Smelt(_) => 3,
        }
    }

    /// Whether the alternative is an ALL-OF of its parts, not the one task it is: a
    /// take is a task, and so is mining without a tool to obtain first.
    pub fn all_of(self, extras: &Extras) -> bool {
        match self {
            Way::Take => false,
            Way::Mine(_) => extras.tool.is_some(),
            Way::Craft(_) | Way::Smelt(_) => true,
        }
    }

    /// The children of the alternative obtaining `count` of `item` this way, in order.
    /// `keep(i)` is added to each item obtained on the way (what the caller holds
    /// reserved for other work, so that a craft or a smelt never eats it). The last
    /// part is always the [`Part::Work`].
    pub fn parts(
        self,
        data: &GameData,
        item: ItemId,
        count: u32,
        extras: Extras,
        keep: impl Fn(ItemId) -> u32,
    ) -> Vec<Part> {
        match self {
            Way::Take => vec![Part::Work(Task::Fetch { item })],
            Way::Craft(recipe) => {
                let r = data.recipe(recipe);
                let times = count.div_ceil(r.count.max(1));
                let mut parts: Vec<Part> = r
                    .ingredients
                    .iter()
                    .map(|(ing, per)| Part::Obtain {
                        item: *ing,
                        count: per.saturating_mul(times).saturating_add(keep(*ing)),
                    })
                    .collect();
                if r.grid == 3 {
                    parts.extend(extras.table.map(|item| Part::Station { item }));
                }
                parts.push(Part::Work(Task::Craft { recipe }));
                parts
            }
            Way::Mine(block) => {
                let mut parts: Vec<Part> =
                    extras.tool.map(|tool| Part::Obtain { item: tool, count: 1 }).into_iter().collect();
                parts.push(Part::Work(Task::Collect { item, block }));
                parts
            }
            Way::Smelt(s) => {
                let mut parts = vec![Part::Obtain { item: s.input, count: count.saturating_add(keep(s.input)) }];
                if let Some(fuel) = extras.fuel {
                    let burn = data.fuel_ticks(fuel).unwrap_or(1).max(1);
                    let need = s.ticks.saturating_mul(count).div_ceil(burn);
                    parts.push(Part::Obtain { item: fuel, count: need.saturating_add(keep(fuel)) });
                }
                parts.extend(extras.furnace.map(|item| Part::Station { item }));
                parts.push(Part::Work(Task::Smelt { input: s.input, output: item }));
                parts
            }
        }
    }
}

/// Every way to obtain `item`, in the fixed order (take, recipes, blocks, furnace
/// recipes), each with its index among the ways of its kind in the data.
pub fn ways(data: &GameData, item: ItemId) -> Vec<(Way, usize)> {
    let mut out = vec![(Way::Take, 0)];
    out.extend(data.recipes_for(item).iter().enumerate().map(|(i, r)| (Way::Craft(*r), i)));
    out.extend(data.blocks_dropping(item).iter().enumerate().map(|(i, b)| (Way::Mine(*b), i)));
    out.extend(data.smelts_for(item).enumerate().map(|(i, s)| (Way::Smelt(*s), i)));
    out
}

/// The tool a block needs to drop anything, if it needs one: the first that meets its
/// need in the data.
pub fn tool_for(data: &GameData, block: BlockId) -> Option<ItemId> {
    let need = data.block_info(block).needs?;
    data.tools_satisfying(need).first().copied()
}

#[cfg(test)]
mod tests;
