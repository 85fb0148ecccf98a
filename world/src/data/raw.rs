//! The data file's shape, as written by `scripts/gen-data/gen.mjs`.

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawData {
    pub version: String,
    #[allow(dead_code)]
    pub source: String,
    pub items: Vec<RawItem>,
    pub blocks: Vec<RawBlock>,
    pub tools: RawTools,
    pub recipes: Vec<RawRecipe>,
    pub smelting: Vec<RawSmelt>,
    pub fuels: Vec<RawFuel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawItem {
    pub name: String,
    pub stack: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBlock {
    pub name: String,
    pub item: Option<String>,
    pub hardness: Option<f32>,
    pub tool: Option<String>,
    pub needs: Option<RawNeeds>,
    pub drops: Vec<String>,
    pub solid: bool,
    pub passable: bool,
    pub height: u8,
    // Both absent in data files written before placement rules were exported: such a
    // block then places by the ordinary rule and does not fall.
    #[serde(default)]
    pub gravity: bool,
    #[serde(default)]
    pub attach: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNeeds {
    pub kind: String,
    pub tier: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTools {
    pub tiers: Vec<RawTier>,
    pub items: Vec<RawToolItem>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTier {
    pub name: String,
    pub speed: f32,
    pub level: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawToolItem {
    pub item: String,
    pub kind: String,
    pub tier: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRecipe {
    pub result: String,
    pub count: u32,
    pub grid: u8,
    #[serde(default)]
    #[allow(dead_code)]
    pub shape: Option<Vec<String>>,
    pub ingredients: Vec<RawIngredient>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawIngredient {
    pub item: String,
    pub count: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSmelt {
    pub input: String,
    pub output: String,
    pub ticks: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFuel {
    pub item: String,
    pub ticks: u32,
}
