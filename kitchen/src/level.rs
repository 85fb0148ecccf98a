//! A CuisineWorld level as loaded: its menu (the dishes orders are drawn from, each with
//! its lifetime), its kitchen (the location instances), the order interval, and the
//! dishes it cannot make.

use std::fmt;

use gatecrew_protocol::ItemId;
use serde::Serialize;

use crate::recipe::RecipeBook;
use crate::tool::ToolKind;

/// One dish of a level's `task_list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuDish {
    /// The dish (the `task_list` key).
    pub dish: ItemId,
    /// What must be on the serving table to complete the order (`ingredients`; in the
    /// shared file always the dish itself).
    pub serve: Vec<ItemId>,
    /// Steps from arrival until the order fails (`task_lifetime`).
    pub lifetime: u32,
}

/// A dish that needs a tool the level's kitchen lacks: orders for it can only fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The dish.
    pub dish: ItemId,
    /// The missing tool kind.
    pub tool: ToolKind,
    /// The item in the dish's recipe tree that needs it.
    pub needed_for: ItemId,
}

/// A level, every name resolved against the recipe book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    /// `level_0` ...
    pub name: String,
    /// A new order every this many steps (`task_interval`).
    pub task_interval: u32,
    /// The dishes orders are drawn from, in the file's key order (sorted).
    pub menu: Vec<MenuDish>,
    /// The location instances, in the file's order.
    pub kitchen: Vec<ToolKind>,
    /// The crew size the file suggests (`num_agents`); runs may override it.
    pub num_agents: u32,
    /// An episode length the file may set (`max_steps`, read by MindAgent's
    /// `World.__init__`; absent from the shared file).
    pub max_steps: Option<u32>,
    /// Dishes whose recipe tree needs a tool the kitchen lacks.
    pub blocked: Vec<Blocked>,
}

/// Why a level cannot be completed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("level {level} is not completable: {}", .reasons.join("; "))]
pub struct NotCompletable {
    /// The level.
    pub level: String,
    /// One line per blocked dish.
    pub reasons: Vec<String>,
}

/// Order interval and lifetimes for one run of a level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Timing {
    /// A new order every this many steps.
    pub interval: u32,
    /// The lifetime of each menu dish, in menu order.
    pub lifetimes: Vec<u32>,
}

/// MindAgent's `levels/constants.py`: `BETA = 2.5` (lifetime = beta x interval).
pub const ORACLE_BETA: f64 = 2.5;
/// MindAgent's `levels/utils.py`: the graph's step count is scaled by 0.3 (the paper's
/// appendix E.4: "adjusted by a scaling factor of 0.3 and the variable tau").
pub const ORACLE_SCALE: f64 = 0.3;

impl Level {
    /// `Ok` when every menu dish can be made in this kitchen; otherwise the reasons.
    pub fn completable(&self, book: &RecipeBook) -> Result<(), NotCompletable> {
        if self.blocked.is_empty() {
            return Ok(());
        }
        let reasons = self
            .blocked
            .iter()
            .map(|b| {
                format!(
                    "{} needs a {} (for {}), which the kitchen lacks",
                    book.name(b.dish),
                    b.tool,
                    book.name(b.needed_for)
                )
            })
            .collect();
        Err(NotCompletable { level: self.name.clone(), reasons })
    }

    /// Whether `dish` is on the menu and makeable here.
    pub fn makeable(&self, dish: ItemId) -> bool {
        self.menu.iter().any(|m| m.dish == dish) && !self.blocked.iter().any(|b| b.dish == dish)
    }

    /// The fewest steps from an order's arrival to its dish on the serving table with
    /// enough agents and free tools, agents starting away from the storage: the recipe
    /// tree's critical path ([`RecipeBook::parallel_steps`]) plus goto and put.
    pub fn min_steps(book: &RecipeBook, dish: ItemId) -> u32 {
        book.parallel_steps(dish) + 2
    }

    /// The file's timing at an interval factor: `ceil(factor x task_interval)` (ceil, as
    /// MindAgent rounds its intervals), lifetimes as written.
    pub fn file_timing(&self, factor: f64) -> Timing {
        Timing {
            interval: ceil_steps(factor * f64::from(self.task_interval)),
            lifetimes: self.menu.iter().map(|m| m.lifetime).collect(),
        }
    }

    /// The timing MindAgent's experiment script used (`agents/gpt_agent.py` builds the
    /// world with `use_task_lifetime_interval_oracle=True`, `alpha` in the five factors
    /// and `beta=2.5`), which overrides the file's numbers: per dish, `w` = 3 steps per
    /// node of its recipe graph plus `occupied - 1` for each activation that waits
    /// (`compute_wait_time`); its interval is `alpha * w * 0.3` and its lifetime
    /// `ceil(beta * interval)`; the level's interval is the largest dish interval,
    /// rounded up (`compute_lifetime_task_intervals`, `TaskManager.__init__`).
    pub fn oracle_timing(&self, book: &RecipeBook, alpha: f64) -> Timing {
        let raw: Vec<f64> =
            self.menu.iter().map(|m| alpha * f64::from(oracle_steps(book, m.dish)) * ORACLE_SCALE).collect();
        let interval = raw.iter().copied().fold(0.0, f64::max);
        Timing { interval: ceil_steps(interval), lifetimes: raw.iter().map(|i| ceil_steps(ORACLE_BETA * i)).collect() }
    }
}

/// `ceil(x)` as a step count, at least 1.
fn ceil_steps(x: f64) -> u32 {
    // Factors and file numbers are small and positive; the cast saturates otherwise.
    (x.ceil() as u32).max(1)
}

/// MindAgent's `compute_wait_time`: 3 steps per distinct node of the recipe graph, plus
/// `occupied - 1` per cooked node (walked as a tree) whose tool occupies more than 1.
fn oracle_steps(book: &RecipeBook, dish: ItemId) -> u32 {
    let mut nodes: Vec<ItemId> = Vec::new();
    let mut wait = 0;
    let mut queue = vec![dish];
    while let Some(item) = queue.pop() {
        if !nodes.contains(&item) {
            nodes.push(item);
        }
        if let Some(r) = book.recipe_for(item) {
            wait += r.tool.wait_steps();
            queue.extend(r.ingredients.iter().copied());
        }
    }
    wait + 3 * nodes.len() as u32
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.name)
    }
}
