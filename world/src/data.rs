//! Game data: items, blocks, tools, crafting and smelting recipes, fuels, loaded from
//! the JSON file that `scripts/gen-data` derives from Minecraft's own data. Nothing
//! about recipes is written in Rust; this module only checks the file and indexes it.

mod raw;
mod table;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_protocol::{ItemId, ItemRegistry};
use rustc_hash::FxHashMap;
use table::{ById, Lists};

use crate::error::{DataError, DataErrorKind};

/// A block type of the data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct BlockId(pub u16);

impl BlockId {
    /// Air: the first block of every Minecraft version.
    pub const AIR: BlockId = BlockId(0);
}

/// A tool kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ToolKind {
    /// Stone, ores.
    Pickaxe,
    /// Wood.
    Axe,
    /// Dirt, sand.
    Shovel,
    /// Leaves, crops.
    Hoe,
    /// Cobwebs.
    Sword,
}

impl ToolKind {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pickaxe" => ToolKind::Pickaxe,
            "axe" => ToolKind::Axe,
            "shovel" => ToolKind::Shovel,
            "hoe" => ToolKind::Hoe,
            "sword" => ToolKind::Sword,
            _ => return None,
        })
    }

    /// The data file's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Pickaxe => "pickaxe",
            ToolKind::Axe => "axe",
            ToolKind::Shovel => "shovel",
            ToolKind::Hoe => "hoe",
            ToolKind::Sword => "sword",
        }
    }
}

/// A tool requirement: this kind, at least this tier level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToolNeed {
    /// The kind.
    pub kind: ToolKind,
    /// Minimum tier level (wooden 0, stone 1, iron 2, ...).
    pub level: u8,
}

/// What a tool item is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolInfo {
    /// Its kind.
    pub kind: ToolKind,
    /// Its tier level.
    pub level: u8,
    /// Mining speed multiplier on blocks of its kind.
    pub speed: f32,
}

/// A block type.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockInfo {
    /// Minecraft name.
    pub name: String,
    /// The item that places it.
    pub item: Option<ItemId>,
    /// Hardness; `None` for unbreakable blocks.
    pub hardness: Option<f32>,
    /// The tool kind that mines it fastest.
    pub tool: Option<ToolKind>,
    /// The tool it needs to drop anything.
    pub needs: Option<ToolNeed>,
    /// What it drops (one of each).
    pub drops: Vec<ItemId>,
    /// Whether it has a full-block collision box.
    pub solid: bool,
    /// Whether a bot walks through it.
    pub passable: bool,
    /// 2 for doors and other two-block placeables.
    pub height: u8,
    /// Whether it falls when the cell below is empty (sand, gravel, concrete powder).
    pub gravity: bool,
    /// Which neighbour must hold it.
    pub attach: Attach,
    /// Whether its item also mounts it on a wall (a `torch` item placed against a side
    /// becomes a `wall_torch`): a blueprint's floor variant may then hang on a side.
    pub wall_mount: bool,
}

/// Which neighbouring block a placed block needs (vanilla's `canSurvive`, exported by
/// `scripts/gen-data` per block).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Attach {
    /// Any neighbouring face holding a solid block (the ordinary placement rule).
    Any,
    /// The block below (torches, carpets, doors, plants).
    Below,
    /// The block its `facing` points away from (wall torches, ladders, wall signs).
    Behind,
    /// By its `face` state: floor below, ceiling above, wall behind (buttons, levers).
    Face,
    /// Below, or above (lanterns, hanging signs).
    Hang,
}

impl Attach {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "any" => Attach::Any,
            "below" => Attach::Below,
            "behind" => Attach::Behind,
            "face" => Attach::Face,
            "hang" => Attach::Hang,
            _ => return None,
        })
    }
}

/// Index of a crafting recipe in the data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecipeId(pub u16);

/// A crafting recipe with its ingredients summed up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// What it makes.
    pub result: ItemId,
    /// How many per craft.
    pub count: u32,
    /// 2 (inventory grid) or 3 (needs a crafting table in reach).
    pub grid: u8,
    /// Ingredients per craft.
    pub ingredients: Vec<(ItemId, u32)>,
}

/// A furnace recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Smelt {
    /// Input item.
    pub input: ItemId,
    /// Output item.
    pub output: ItemId,
    /// Ticks per item.
    pub ticks: u32,
}

/// Items, blocks, tools and recipes of one game version, indexed.
#[derive(Debug, Clone)]
pub struct GameData {
    /// The game version, e.g. `1.20.4`.
    pub version: String,
    /// Where the data was read from.
    pub source: PathBuf,
    items: Arc<ItemRegistry>,
    blocks: Vec<BlockInfo>,
    block_index: FxHashMap<String, BlockId>,
    /// By item id; the planner asks these on every gate decision.
    tools: ById<ToolInfo>,
    /// Tool items, weakest first, ties by item id.
    tools_by_level: Vec<(ItemId, ToolInfo)>,
    recipes: Vec<Recipe>,
    smelting: Vec<Smelt>,
    fuels: ById<u32>,
    /// Fuels, longest burning first, ties by item id.
    fuels_by_ticks: Vec<(ItemId, u32)>,
    recipes_for: Lists<RecipeId>,
    smelts_for: Lists<usize>,
    block_for_item: ById<BlockId>,
    blocks_dropping: Lists<BlockId>,
}

impl GameData {
    /// Reads and checks a data file.
    pub fn load(path: &Path) -> Result<Self, DataError> {
        let text = gatecrew_protocol::limits::read_text_file(path)
            .map_err(|e| DataError::new(path, DataErrorKind::Io(e.to_string())))?;
        Self::from_json(&text, path)
    }

    /// Parses and checks the data file's text; `path` is only used in errors.
    pub fn from_json(text: &str, path: &Path) -> Result<Self, DataError> {
        let raw: raw::RawData = serde_json::from_str(text).map_err(|e| {
            DataError::new(path, DataErrorKind::Syntax { line: e.line(), column: e.column(), message: e.to_string() })
        })?;
        build(raw, path)
    }

    /// The item registry (shared with the board and the agents).
    pub fn items(&self) -> &Arc<ItemRegistry> {
        &self.items
    }

    /// Looks an item name up.
    pub fn item(&self, name: &str) -> Result<ItemId, gatecrew_protocol::UnknownItem> {
        self.items.parse(name)
    }

    /// An item's name.
    pub fn item_name(&self, id: ItemId) -> &str {
        self.items.name(id)
    }

    /// Looks a block name up (a `minecraft:` prefix is accepted).
    pub fn block(&self, name: &str) -> Option<BlockId> {
        let bare = name.strip_prefix("minecraft:").unwrap_or(name);
        self.block_index.get(bare).copied()
    }

    /// The closest known block name, for error messages.
    pub fn suggest_block(&self, name: &str) -> Option<&str> {
        self.blocks
            .iter()
            .map(|b| (strsim_distance(name, &b.name), b.name.as_str()))
            .filter(|(d, n)| *d <= 2.max(n.len() / 4))
            .min()
            .map(|(_, n)| n)
    }

    /// A block's properties.
    pub fn block_info(&self, id: BlockId) -> &BlockInfo {
        &self.blocks[usize::from(id.0)]
    }

    /// A block's name.
    pub fn block_name(&self, id: BlockId) -> &str {
        &self.block_info(id).name
    }

    /// The block an item places.
    pub fn block_for_item(&self, item: ItemId) -> Option<BlockId> {
        self.block_for_item.get(item.index())
    }

    /// Resource blocks that drop `item` when mined, in data order.
    pub fn blocks_dropping(&self, item: ItemId) -> &[BlockId] {
        self.blocks_dropping.get(item.index())
    }

    /// Whether the item is a tool, and which.
    pub fn tool(&self, item: ItemId) -> Option<ToolInfo> {
        self.tools.get(item.index())
    }

    /// [`GameData::tools_satisfying`] into `out` (cleared first): the same items in the
    /// same order, without allocating once `out` has grown: the gate's planner asks on
    /// every decision.
    pub fn tools_satisfying_into(&self, need: ToolNeed, out: &mut Vec<ItemId>) {
        out.clear();
        out.extend(self.satisfying(need));
    }

    fn satisfying(&self, need: ToolNeed) -> impl Iterator<Item = ItemId> + '_ {
        self.tools_by_level.iter().filter(move |(_, t)| t.kind == need.kind && t.level >= need.level).map(|(id, _)| *id)
    }

    /// Tool items of a kind at or above a level, weakest first.
    pub fn tools_satisfying(&self, need: ToolNeed) -> Vec<ItemId> {
        self.satisfying(need).collect()
    }

    /// All crafting recipes.
    pub fn recipes(&self) -> &[Recipe] {
        &self.recipes
    }

    /// A recipe by id.
    pub fn recipe(&self, id: RecipeId) -> &Recipe {
        &self.recipes[usize::from(id.0)]
    }

    /// The recipes that make an item, in data order.
    pub fn recipes_for(&self, item: ItemId) -> &[RecipeId] {
        self.recipes_for.get(item.index())
    }

    /// The furnace recipes that make an item.
    pub fn smelts_for(&self, item: ItemId) -> impl Iterator<Item = &Smelt> + '_ {
        self.smelts_for.get(item.index()).iter().map(|&i| &self.smelting[i])
    }

    /// The furnace recipe for an input.
    pub fn smelt_of(&self, input: ItemId) -> Option<&Smelt> {
        self.smelting.iter().find(|s| s.input == input)
    }

    /// Burn time of a fuel in ticks.
    pub fn fuel_ticks(&self, item: ItemId) -> Option<u32> {
        self.fuels.get(item.index())
    }

    /// [`GameData::fuels`] into `out` (cleared first), in the same order.
    pub fn fuels_into(&self, out: &mut Vec<(ItemId, u32)>) {
        out.clear();
        out.extend_from_slice(&self.fuels_by_ticks);
    }

    /// Fuels, best (longest burning) first, ties by item id.
    pub fn fuels(&self) -> Vec<(ItemId, u32)> {
        self.fuels_by_ticks.clone()
    }
}

/// The item of a table index (tables are as long as the registry, whose ids are `u16`).
fn item_id(i: usize) -> ItemId {
    ItemId(u16::try_from(i).expect("a table is indexed by item id"))
}

fn strsim_distance(a: &str, b: &str) -> usize {
    // Levenshtein over bytes; names are ASCII.
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn build(raw: raw::RawData, path: &Path) -> Result<GameData, DataError> {
    let err = |key: String, kind: DataErrorKind| DataError::new(path, kind).at(key);
    let items = ItemRegistry::new(raw.items.iter().map(|i| (i.name.clone(), i.stack)))
        .map_err(|e| err("items".into(), DataErrorKind::Invalid(e.to_string())))?;
    let item =
        |name: &str, key: String| items.parse(name).map_err(|e| err(key, DataErrorKind::UnknownItem(e.to_string())));

    let mut tiers = HashMap::new();
    for t in &raw.tools.tiers {
        tiers.insert(t.name.as_str(), (t.level, t.speed));
    }
    let tier = |name: &str, key: String| {
        tiers
            .get(name)
            .copied()
            .ok_or_else(|| err(key, DataErrorKind::Invalid(format!("unknown tool tier \"{name}\""))))
    };
    let kind = |name: &str, key: String| {
        ToolKind::parse(name).ok_or_else(|| err(key, DataErrorKind::Invalid(format!("unknown tool kind \"{name}\""))))
    };

    let mut tool_list = Vec::with_capacity(raw.tools.items.len());
    for (i, t) in raw.tools.items.iter().enumerate() {
        let id = item(&t.item, format!("tools.items[{i}].item"))?;
        let (level, speed) = tier(&t.tier, format!("tools.items[{i}].tier"))?;
        tool_list.push((id.index(), ToolInfo { kind: kind(&t.kind, format!("tools.items[{i}].kind"))?, level, speed }));
    }
    let tools = ById::new(items.len(), tool_list);
    let mut tools_by_level: Vec<(ItemId, ToolInfo)> = tools.iter().map(|(i, t)| (item_id(i), t)).collect();
    tools_by_level.sort_by_key(|(id, t)| (t.level, *id));

    let mut blocks = Vec::with_capacity(raw.blocks.len());
    let mut block_index = FxHashMap::default();
    for (i, b) in raw.blocks.iter().enumerate() {
        let key = |f: &str| format!("blocks[{i}] ({}).{f}", b.name);
        let needs = match &b.needs {
            None => None,
            Some(n) => {
                Some(ToolNeed { kind: kind(&n.kind, key("needs.kind"))?, level: tier(&n.tier, key("needs.tier"))?.0 })
            }
        };
        let tool = match &b.tool {
            None => None,
            Some(t) => Some(kind(t, key("tool"))?),
        };
        let drops = b.drops.iter().map(|d| item(d, key("drops"))).collect::<Result<Vec<_>, _>>()?;
        let placing = match &b.item {
            None => None,
            Some(n) => Some(item(n, key("item"))?),
        };
        let attach = match b.attach.as_deref() {
            None => Attach::Any,
            Some(a) => Attach::parse(a).ok_or_else(|| {
                err(
                    key("attach"),
                    DataErrorKind::Invalid(format!("unknown attach rule \"{a}\" (any, below, behind, face, hang)")),
                )
            })?,
        };
        if !(1..=2).contains(&b.height) {
            return Err(err(key("height"), DataErrorKind::Invalid(format!("height {} is not 1 or 2", b.height))));
        }
        let id = BlockId(
            u16::try_from(i).map_err(|_| err("blocks".into(), DataErrorKind::Invalid("too many blocks".into())))?,
        );
        if block_index.insert(b.name.clone(), id).is_some() {
            return Err(err(key("name"), DataErrorKind::Invalid(format!("block \"{}\" listed twice", b.name))));
        }
        blocks.push(BlockInfo {
            name: b.name.clone(),
            item: placing,
            hardness: b.hardness,
            tool,
            needs,
            drops,
            solid: b.solid,
            passable: b.passable,
            height: b.height,
            gravity: b.gravity,
            attach,
            wall_mount: false,
        });
    }
    // A floor block whose item also places a wall-mounted block may go on a side.
    let wall_items: std::collections::HashSet<ItemId> =
        blocks.iter().filter(|b| b.attach == Attach::Behind).filter_map(|b| b.item).collect();
    for b in &mut blocks {
        b.wall_mount = b.attach == Attach::Below && b.item.is_some_and(|i| wall_items.contains(&i));
    }
    if blocks.first().map(|b| b.name.as_str()) != Some("air") {
        return Err(err("blocks[0]".into(), DataErrorKind::Invalid("the first block must be air".into())));
    }

    let mut recipes = Vec::with_capacity(raw.recipes.len());
    for (i, r) in raw.recipes.iter().enumerate() {
        let key = |f: &str| format!("recipes[{i}] ({}).{f}", r.result);
        let result = item(&r.result, key("result"))?;
        if r.count == 0 {
            return Err(err(key("count"), DataErrorKind::Invalid("count must be at least 1".into())));
        }
        if r.grid != 2 && r.grid != 3 {
            return Err(err(key("grid"), DataErrorKind::Invalid(format!("grid {} is not 2 or 3", r.grid))));
        }
        if r.ingredients.is_empty() {
            return Err(err(key("ingredients"), DataErrorKind::Invalid("a recipe needs ingredients".into())));
        }
        let mut ingredients = Vec::with_capacity(r.ingredients.len());
        for (j, ing) in r.ingredients.iter().enumerate() {
            let id = item(&ing.item, format!("recipes[{i}] ({}).ingredients[{j}].item", r.result))?;
            if ing.count == 0 || ing.count > 9 {
                return Err(err(
                    format!("recipes[{i}] ({}).ingredients[{j}].count", r.result),
                    DataErrorKind::Invalid(format!("count {} is not in 1..=9", ing.count)),
                ));
            }
            ingredients.push((id, ing.count));
        }
        recipes.push(Recipe { result, count: r.count, grid: r.grid, ingredients });
    }

    let mut smelting = Vec::with_capacity(raw.smelting.len());
    for (i, s) in raw.smelting.iter().enumerate() {
        smelting.push(Smelt {
            input: item(&s.input, format!("smelting[{i}].input"))?,
            output: item(&s.output, format!("smelting[{i}].output"))?,
            ticks: s.ticks.max(1),
        });
    }
    let mut fuel_list = Vec::with_capacity(raw.fuels.len());
    for (i, f) in raw.fuels.iter().enumerate() {
        fuel_list.push((item(&f.item, format!("fuels[{i}].item"))?.index(), f.ticks.max(1)));
    }
    let fuels = ById::new(items.len(), fuel_list);
    let mut fuels_by_ticks: Vec<(ItemId, u32)> = fuels.iter().map(|(i, t)| (item_id(i), t)).collect();
    fuels_by_ticks.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));

    let n = items.len();
    let recipes_for = Lists::new(n, recipes.iter().enumerate().map(|(i, r)| (r.result.index(), RecipeId(i as u16))));
    let smelts_for = Lists::new(n, smelting.iter().enumerate().map(|(i, s)| (s.output.index(), i)));
    // The first block in data order wins: `oak_sign` places the standing sign, not the
    // wall sign listed after it (so the pairs go in last to first).
    let block_for_item = ById::new(
        n,
        blocks.iter().enumerate().rev().filter_map(|(i, b)| b.item.map(|it| (it.index(), BlockId(i as u16)))),
    );
    let blocks_dropping = Lists::new(
        n,
        blocks.iter().enumerate().flat_map(|(i, b)| b.drops.iter().map(move |d| (d.index(), BlockId(i as u16)))),
    );

    Ok(GameData {
        version: raw.version,
        source: path.to_path_buf(),
        items: Arc::new(items),
        blocks,
        block_index,
        tools,
        tools_by_level,
        recipes,
        smelting,
        fuels,
        fuels_by_ticks,
        recipes_for,
        smelts_for,
        block_for_item,
        blocks_dropping,
    })
}
