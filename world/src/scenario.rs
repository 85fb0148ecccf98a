//! The world section of a crew config: bounds, rules, terrain, containers, and the
//! bots' starting positions and inventories. Item names and counts keep their source
//! spans so that an error names the line.
//!
//! ```toml
//! [world]
//! bounds = { min = [-16, 0, -16], max = [24, 12, 24] }
//! trees = [{ at = [-6, 0, 2], height = 4 }]
//! chests = [{ at = [8, 0, -3], items = { oak_log = 6 } }]
//! [world.rules]
//! reach = 4.5
//! [[agents]]
//! start = [-2, 0, -2]
//! inventory = { cobblestone = 8, oak_planks = 20 }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatecrew_protocol::{ItemId, MAX_COUNT, Pos};
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::data::{BlockId, GameData};
use crate::error::{LoadError, LoadErrorKind, line_of};
use crate::grid::Bounds;
use crate::inventory::Inventory;
use crate::world::{Rules, World};

/// Item name -> count, as written in a config.
pub type ItemCounts = BTreeMap<Spanned<String>, Spanned<i64>>;

/// The text a spec was read from, for line numbers in errors.
#[derive(Debug, Clone)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// Its text.
    pub text: Arc<str>,
}

impl Source {
    /// A source for a file's text.
    pub fn new(path: &Path, text: &str) -> Self {
        Source { path: path.to_path_buf(), text: Arc::from(text) }
    }

    /// An error at a span.
    pub fn error_at(&self, span: std::ops::Range<usize>, kind: LoadErrorKind) -> LoadError {
        let e = LoadError::new(&self.path, kind);
        if self.text.is_empty() { e } else { e.line(line_of(&self.text, span.start)) }
    }
}

/// A tree: a column of logs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeSpec {
    /// Base of the trunk.
    pub at: Spanned<Pos>,
    /// Trunk height.
    #[serde(default = "default_tree_height")]
    pub height: u8,
    /// Log block.
    #[serde(default = "default_log")]
    pub log: Spanned<String>,
}

fn default_tree_height() -> u8 {
    4
}

fn default_log() -> Spanned<String> {
    Spanned::new(0..0, "oak_log".to_owned())
}

/// A box of natural blocks (stone, sand, ore).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FillSpec {
    /// One corner.
    pub from: Spanned<Pos>,
    /// The other corner.
    pub to: Spanned<Pos>,
    /// The block.
    pub block: Spanned<String>,
}

/// A single natural block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSpec {
    /// Where.
    pub at: Spanned<Pos>,
    /// The block.
    pub block: Spanned<String>,
}

/// A chest and its contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChestSpec {
    /// Where.
    pub at: Spanned<Pos>,
    /// Contents.
    #[serde(default)]
    pub items: ItemCounts,
}

/// A furnace or crafting table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StationSpec {
    /// Where.
    pub at: Spanned<Pos>,
}

/// The `[world]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldSpec {
    /// The extent (`min.y` must be 0: the ground is just below).
    pub bounds: Bounds,
    /// Physical rules and tick costs.
    #[serde(default)]
    pub rules: Rules,
    /// Trees.
    #[serde(default)]
    pub trees: Vec<TreeSpec>,
    /// Boxes of natural blocks.
    #[serde(default)]
    pub fill: Vec<FillSpec>,
    /// Single natural blocks.
    #[serde(default)]
    pub blocks: Vec<BlockSpec>,
    /// Chests.
    #[serde(default)]
    pub chests: Vec<ChestSpec>,
    /// Furnaces.
    #[serde(default)]
    pub furnaces: Vec<StationSpec>,
    /// Crafting tables.
    #[serde(default)]
    pub tables: Vec<StationSpec>,
}

/// One `[[agents]]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    /// Starting feet position.
    pub start: Spanned<Pos>,
    /// Starting inventory.
    #[serde(default)]
    pub inventory: ItemCounts,
}

/// Resolves item counts against the data: unknown names and negative or absurd counts
/// are errors at their line.
pub fn resolve_counts(
    counts: &ItemCounts,
    data: &GameData,
    src: &Source,
    key: &str,
) -> Result<Vec<(ItemId, u32)>, LoadError> {
    let mut out = Vec::with_capacity(counts.len());
    for (name, n) in counts {
        let item = data.item(name.get_ref()).map_err(|e| {
            src.error_at(name.span(), LoadErrorKind::UnknownItem(e.to_string())).at(format!("{key}.{}", name.get_ref()))
        })?;
        let v = *n.get_ref();
        if v < 0 || v > i64::from(MAX_COUNT) {
            return Err(src
                .error_at(n.span(), LoadErrorKind::Invalid(format!("count {v} is not in 0..={MAX_COUNT}")))
                .at(format!("{key}.{}", name.get_ref())));
        }
        if v > 0 {
            out.push((item, v as u32));
        }
    }
    Ok(out)
}

fn block(data: &GameData, src: &Source, name: &Spanned<String>) -> Result<BlockId, LoadError> {
    data.block(name.get_ref()).ok_or_else(|| {
        let hint = data.suggest_block(name.get_ref()).map(|s| format!(" (did you mean \"{s}\"?)")).unwrap_or_default();
        src.error_at(name.span(), LoadErrorKind::Invalid(format!("unknown block \"{}\"{hint}", name.get_ref())))
    })
}

impl WorldSpec {
    /// Builds the world with its bots.
    pub fn build(
        &self,
        data: &Arc<GameData>,
        agents: &[AgentSpec],
        seed: u64,
        src: &Source,
    ) -> Result<World, LoadError> {
        let invalid = |span: std::ops::Range<usize>, msg: String| src.error_at(span, LoadErrorKind::Invalid(msg));
        if self.bounds.min.y != 0 || self.bounds.max.y < 3 {
            return Err(LoadError::new(
                &src.path,
                LoadErrorKind::Invalid(
                    "world.bounds: min y must be 0 (the ground lies below) and max y at least 3".into(),
                ),
            )
            .at("world.bounds"));
        }
        if self.bounds.volume() > 4_000_000 || self.bounds.volume() == 0 {
            return Err(LoadError::new(
                &src.path,
                LoadErrorKind::Invalid("world.bounds: volume must be 1..=4,000,000 cells".into()),
            )
            .at("world.bounds"));
        }
        if !(self.rules.reach > 0.0 && self.rules.reach <= 16.0) {
            return Err(LoadError::new(&src.path, LoadErrorKind::Invalid("reach must be in (0, 16]".into()))
                .at("world.rules.reach"));
        }
        let mut w = World::new(data.clone(), self.bounds, self.rules.clone(), seed)
            .map_err(|e| LoadError::new(&src.path, LoadErrorKind::Invalid(e.to_string())).at("world.rules"))?;
        let inside = |p: &Spanned<Pos>| {
            if self.bounds.contains(*p.get_ref()) {
                Ok(*p.get_ref())
            } else {
                Err(invalid(p.span(), format!("{} is outside world.bounds", p.get_ref())))
            }
        };
        for f in &self.fill {
            let b = block(data, src, &f.block)?;
            let (a, z) = (inside(&f.from)?, inside(&f.to)?);
            for x in a.x.min(z.x)..=a.x.max(z.x) {
                for y in a.y.min(z.y)..=a.y.max(z.y) {
                    for zz in a.z.min(z.z)..=a.z.max(z.z) {
                        w.put_natural(Pos::new(x, y, zz), b);
                    }
                }
            }
        }
        for t in &self.trees {
            let log = block(data, src, &t.log)?;
            let base = inside(&t.at)?;
            for h in 0..i32::from(t.height) {
                w.put_natural(base.offset(0, h, 0), log);
            }
        }
        for b in &self.blocks {
            let id = block(data, src, &b.block)?;
            w.put_natural(inside(&b.at)?, id);
        }
        let reg = data.items().clone();
        for (i, c) in self.chests.iter().enumerate() {
            let mut inv = World::chest_inventory();
            for (item, n) in resolve_counts(&c.items, data, src, &format!("world.chests[{i}].items"))? {
                inv.insert_unchecked(item, n);
            }
            if inv.used_slots(&reg) > inv.capacity() {
                return Err(invalid(
                    c.at.span(),
                    format!("chest contents need {} slots, a chest has {}", inv.used_slots(&reg), inv.capacity()),
                ));
            }
            w.put_chest(inside(&c.at)?, inv);
        }
        for f in &self.furnaces {
            w.put_furnace(inside(&f.at)?);
        }
        for t in &self.tables {
            w.put_table(inside(&t.at)?);
        }
        for (i, a) in agents.iter().enumerate() {
            let start = inside(&a.start)?;
            if !w.grid().standable(data, start) {
                return Err(invalid(
                    a.start.span(),
                    format!("agents[{i}] cannot stand at {start}: it needs two free cells with something solid below"),
                ));
            }
            let mut inv: Inventory = World::agent_inventory();
            for (item, n) in resolve_counts(&a.inventory, data, src, &format!("agents[{i}].inventory"))? {
                inv.insert_unchecked(item, n);
            }
            if inv.used_slots(&reg) > inv.capacity() {
                return Err(invalid(
                    a.start.span(),
                    format!("agents[{i}] inventory needs {} slots, a bot has {}", inv.used_slots(&reg), inv.capacity()),
                ));
            }
            w.add_agent(start, inv);
        }
        Ok(w)
    }
}
