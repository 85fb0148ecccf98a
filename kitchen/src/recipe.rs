//! The recipe book: every item of CuisineWorld, which are raw (stocked by the storage)
//! and how each cooked item is made.
//!
//! Items are [`gatecrew_protocol::ItemId`]s from an [`ItemRegistry`] built from the recipe
//! file, so that the construction world's board carries kitchen items unchanged. An item
//! that some recipe makes is cooked; every other item named as an ingredient is raw and
//! comes from the storage. That is how MindAgent's prompt puts it ("The objects are
//! cooked using tools or are just base ingredients ... You can only obtain base
//! ingredients from the storage"), and on the shared file it gives exactly the 27 base
//! ingredients of MindAgent's `levels/constants.py` (the paper's "27 unique ingredients").

use std::sync::Arc;

use gatecrew_protocol::{ItemId, ItemRegistry};

use crate::tool::ToolKind;

/// How one cooked item is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// What comes out.
    pub product: ItemId,
    /// What goes in, sorted by id (a multiset: MindAgent compares sorted name lists).
    pub ingredients: Vec<ItemId>,
    /// Where it is cooked.
    pub tool: ToolKind,
}

/// Every item and recipe. Built only by the loader, which checks that the graph has no
/// cycle, so every cooked item resolves to raw ingredients.
#[derive(Debug, Clone)]
pub struct RecipeBook {
    items: Arc<ItemRegistry>,
    recipes: Vec<Recipe>,
    by_product: Vec<Option<usize>>,
    /// Each item's expansion size, as the loader counted it.
    expansion: Vec<u64>,
}

impl RecipeBook {
    /// A book from a registry and recipes (products unique); the loader's constructor.
    pub(crate) fn new(items: Arc<ItemRegistry>, recipes: Vec<Recipe>) -> Self {
        let mut by_product = vec![None; items.len()];
        for (i, r) in recipes.iter().enumerate() {
            by_product[r.product.index()] = Some(i);
        }
        let expansion = vec![1; items.len()];
        RecipeBook { items, recipes, by_product, expansion }
    }

    /// The book with each item's expansion size ([`RecipeBook::expansion`]), which the
    /// loader counted and bounded.
    pub(crate) fn with_expansions(mut self, sizes: Vec<u64>) -> Self {
        self.expansion = sizes;
        self
    }

    /// The nodes of `item`'s full expansion: itself, every recipe below it and every
    /// raw ingredient, counted with repeats; the work of one walk down from it (the step
    /// estimates, the planner). At most [`crate::load::MAX_EXPANSION`].
    pub fn expansion(&self, item: ItemId) -> u64 {
        self.expansion.get(item.index()).copied().unwrap_or(1)
    }

    /// The item registry (for the board).
    pub fn items(&self) -> &Arc<ItemRegistry> {
        &self.items
    }

    /// An item's name.
    pub fn name(&self, item: ItemId) -> &str {
        if self.items.contains(item) { self.items.name(item) } else { "?" }
    }

    /// Looks a name up.
    pub fn item(&self, name: &str) -> Option<ItemId> {
        self.items.parse(name).ok()
    }

    /// Every recipe, in the file's key order.
    pub fn recipes(&self) -> &[Recipe] {
        &self.recipes
    }

    /// How `item` is made, if it is cooked.
    pub fn recipe_for(&self, item: ItemId) -> Option<&Recipe> {
        self.by_product.get(item.index()).copied().flatten().map(|i| &self.recipes[i])
    }

    /// Whether the storage stocks `item`.
    pub fn is_raw(&self, item: ItemId) -> bool {
        self.items.contains(item) && self.recipe_for(item).is_none()
    }

    /// The raw items, in id order.
    pub fn raw_items(&self) -> Vec<ItemId> {
        (0..self.items.len()).filter_map(|i| u16::try_from(i).ok()).map(ItemId).filter(|&i| self.is_raw(i)).collect()
    }

    /// The recipe cooked at `tool` from exactly `contents` (any order), if any.
    pub fn cooks(&self, tool: ToolKind, contents: &[ItemId]) -> Option<&Recipe> {
        let mut sorted = contents.to_vec();
        sorted.sort_unstable();
        self.recipes.iter().find(|r| r.tool == tool && r.ingredients == sorted)
    }

    /// Whether `contents` plus `item` still fits some recipe of `tool` (is a
    /// sub-multiset of its ingredients): MindAgent refuses a `put` that "will result in
    /// waste".
    pub fn fits(&self, tool: ToolKind, contents: &[ItemId], item: ItemId) -> bool {
        let mut want = contents.to_vec();
        want.push(item);
        self.recipes.iter().filter(|r| r.tool == tool).any(|r| sub_multiset(&want, &r.ingredients))
    }

    /// Steps one agent alone needs to hold `item`, starting empty-handed at some
    /// location other than the storage: 2 for a raw item (goto storage, get); for a
    /// cooked one, every ingredient fetched and put in turn (its own steps + goto + put),
    /// then activate, wait, get. A coarse serial bound used for the crews' estimates.
    pub fn solo_steps(&self, item: ItemId) -> u32 {
        match self.recipe_for(item) {
            None => 2,
            Some(r) => {
                let inputs: u32 = r.ingredients.iter().map(|&i| self.solo_steps(i) + 2).sum();
                inputs + 1 + r.tool.wait_steps() + 1
            }
        }
    }

    /// Steps a crew with enough agents needs to hold `item`: ingredients fetched in
    /// parallel, so the slowest one counts. `solo_steps`' parallel twin and the lower
    /// bound behind [`crate::Level::min_steps`].
    pub fn parallel_steps(&self, item: ItemId) -> u32 {
        match self.recipe_for(item) {
            None => 2,
            Some(r) => {
                let inputs = r.ingredients.iter().map(|&i| self.parallel_steps(i) + 2).max().unwrap_or(0);
                inputs + 1 + r.tool.wait_steps() + 1
            }
        }
    }
}

/// Whether every element of `a` occurs in `b` at least as often.
pub(crate) fn sub_multiset(a: &[ItemId], b: &[ItemId]) -> bool {
    let mut rest = b.to_vec();
    a.iter().all(|x| match rest.iter().position(|y| y == x) {
        Some(p) => {
            rest.swap_remove(p);
            true
        }
        None => false,
    })
}
