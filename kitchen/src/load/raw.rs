//! The two files exactly as MindAgent writes them (`assets/recipe.json`,
//! `assets/tasks_level_final.json`); every key not listed here is an error.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One entry of `recipe.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRecipe {
    pub ingredients: Vec<String>,
    pub location: String,
}

/// `recipe.json`: product name -> recipe.
pub(crate) type RawRecipes = BTreeMap<String, RawRecipe>;

/// One entry of a level's `task_list`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTask {
    pub ingredients: Vec<String>,
    pub location: String,
    pub task_lifetime: u32,
}

/// One level of `tasks_level_final.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLevel {
    pub task_interval: u32,
    pub task_list: BTreeMap<String, RawTask>,
    pub kitchen: Vec<String>,
    pub num_agents: u32,
    /// Read by MindAgent's `World.__init__` when present.
    #[serde(default)]
    pub max_steps: Option<u32>,
}

/// `tasks_level_final.json`: level name -> level.
pub(crate) type RawLevels = BTreeMap<String, RawLevel>;
