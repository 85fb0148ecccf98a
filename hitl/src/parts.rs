//! Named parts of any build. People name the parts of a building, not its cells: "the
//! windows", "the roof", "the stone part", "the second floor", "the top row". The
//! partner's plan of a blueprint share is a build node whose children are parts by
//! function, each an ALL-OF of one `place` leaf per cell; every leaf also carries its
//! material and its layer, so any other part a person names (a material, a layer, a
//! side, or a mix: "the stone walls") is found among the leaves and, when acted on,
//! gathered into a part node of its own ([`crate::plan::Plan::gather`]).
//!
//! Function is inferred from blocks and geometry, for any blueprint: doors by block;
//! windows are glass; stairs and fences by block; the floor is the lowest layer when it
//! covers the inside; the roof is the top layers that cover the inside (down to the
//! first hollow layer); walls are the rest of the outline; anything else is "other".
//! Layers are the blueprint's distinct heights, bottom first (a MineCollab level is a
//! layer).

use std::collections::{BTreeMap, BTreeSet};

use gatecrew_protocol::{ItemId, Pos};
use gatecrew_world::{Blueprint, GameData};

use crate::plan::{Kind, Leaf, Plan, StepId};
use crate::words::{singular, words};

mod find;

pub use find::{LAYER_WORDS, PartMatch, PartRef, find_part};

/// What a cell is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Function {
    /// The lowest layer, covering the inside.
    Floor,
    /// The outline between floor and roof.
    Walls,
    /// Doors (and gates).
    Doors,
    /// Glass.
    Windows,
    /// Stair blocks (steps, often a roof's edge).
    Stairs,
    /// Fences and walls of fence blocks.
    Fences,
    /// The top layers covering the inside.
    Roof,
    /// Anything else (pillars, furniture inside).
    Other,
}

impl Function {
    /// Every function, in building order.
    pub const ALL: [Function; 8] = [
        Function::Floor,
        Function::Walls,
        Function::Doors,
        Function::Windows,
        Function::Stairs,
        Function::Fences,
        Function::Roof,
        Function::Other,
    ];

    /// The part's name.
    pub fn name(self) -> &'static str {
        match self {
            Function::Floor => "the floor",
            Function::Walls => "the walls",
            Function::Doors => "the doors",
            Function::Windows => "the windows",
            Function::Stairs => "the stairs",
            Function::Fences => "the fences",
            Function::Roof => "the roof",
            Function::Other => "the other blocks",
        }
    }

    /// The words that name it (singular).
    pub fn words(self) -> &'static [&'static str] {
        match self {
            Function::Floor => &["floor", "flooring", "foundation", "base", "ground"],
            Function::Walls => &["wall", "side", "outline"],
            Function::Doors => &["door", "doorway", "entrance", "gate", "entry"],
            Function::Windows => &["window", "glass", "pane", "glazing"],
            Function::Stairs => &["stair", "staircase", "steps"],
            Function::Fences => &["fence", "railing", "fencing"],
            Function::Roof => &["roof", "ceiling", "rooftop", "roofing"],
            Function::Other => &["inside", "interior"],
        }
    }
}

/// Which side of the outline a cell is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// Smallest z.
    North,
    /// Largest z.
    South,
    /// Smallest x.
    West,
    /// Largest x.
    East,
}

impl Side {
    /// The side's name.
    pub fn name(self) -> &'static str {
        match self {
            Side::North => "north",
            Side::South => "south",
            Side::West => "west",
            Side::East => "east",
        }
    }
}

/// What a `place` leaf knows about its cell, for naming parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellFacts {
    /// Blueprint cell index.
    pub cell: u32,
    /// The cell's world position.
    pub pos: Pos,
    /// The item that places it.
    pub item: ItemId,
    /// What it is for.
    pub function: Function,
    /// Its layer, 1 = the lowest of the blueprint.
    pub level: u16,
    /// The blueprint's number of layers.
    pub levels: u16,
    /// The outline side it is on, if any (corners: the first of north, south, west, east).
    pub side: Option<Side>,
}

/// The facts of every cell of a blueprint that is placed (a door's top half is not),
/// by cell index.
pub fn cell_facts(bp: &Blueprint, data: &GameData) -> BTreeMap<usize, CellFacts> {
    let cells = bp.cells();
    let mut out = BTreeMap::new();
    if cells.is_empty() {
        return out;
    }
    let ys: BTreeSet<i32> = cells.iter().map(|c| c.pos.y).collect();
    let ys: Vec<i32> = ys.into_iter().collect();
    let (lo, hi) = cells.iter().fold(((i32::MAX, i32::MAX), (i32::MIN, i32::MIN)), |((x0, z0), (x1, z1)), c| {
        ((x0.min(c.pos.x), z0.min(c.pos.z)), (x1.max(c.pos.x), z1.max(c.pos.z)))
    });
    let inside = |p: Pos| p.x > lo.0 && p.x < hi.0 && p.z > lo.1 && p.z < hi.1;
    let covers: BTreeSet<i32> = cells.iter().filter(|c| inside(c.pos)).map(|c| c.pos.y).collect();
    // The roof: top layers covering the inside, down to the first hollow one; never the
    // lowest layer (a slab is a floor).
    let mut roof: BTreeSet<i32> = BTreeSet::new();
    if ys.len() >= 2 {
        for y in ys.iter().rev().take(ys.len() - 1) {
            if covers.contains(y) {
                roof.insert(*y);
            } else {
                break;
            }
        }
    }
    // The floor: the lowest layer when it covers the inside, or when it is a
    // foundation of another material than the layer above (three layers or more).
    let materials = |y: i32| -> BTreeSet<gatecrew_world::BlockId> {
        cells
            .iter()
            .filter(|c| c.pos.y == y && !inside(c.pos))
            .filter(|c| !["door", "glass", "pane", "gate"].iter().any(|w| data.block_name(c.block).contains(w)))
            .map(|c| c.block)
            .collect()
    };
    let floor = ys.first().copied().filter(|y| {
        !roof.contains(y)
            && ys.len() >= 2
            && (covers.contains(y) || (ys.len() >= 3 && materials(*y).is_disjoint(&materials(ys[1]))))
    });
    for (i, c) in cells.iter().enumerate() {
        if c.part == gatecrew_world::blueprint::Part::Upper {
            continue;
        }
        let name = data.block_name(c.block);
        let Some(item) = item_of_block(data, c.block) else { continue };
        let p = c.pos;
        let side = if p.z == lo.1 {
            Some(Side::North)
        } else if p.z == hi.1 {
            Some(Side::South)
        } else if p.x == lo.0 {
            Some(Side::West)
        } else if p.x == hi.0 {
            Some(Side::East)
        } else {
            None
        };
        let function = if name.contains("door") || name.ends_with("_gate") {
            Function::Doors
        } else if name.contains("glass") {
            Function::Windows
        } else if roof.contains(&p.y) {
            Function::Roof
        } else if name.contains("stairs") {
            Function::Stairs
        } else if name.contains("fence") {
            Function::Fences
        } else if Some(p.y) == floor {
            Function::Floor
        } else if side.is_some() {
            Function::Walls
        } else {
            Function::Other
        };
        let level = ys.iter().position(|y| *y == p.y).unwrap_or(0) as u16 + 1;
        out.insert(i, CellFacts { cell: i as u32, pos: p, item, function, level, levels: ys.len() as u16, side });
    }
    out
}

/// The item that places a block (by name, else the first item placing it).
pub fn item_of_block(data: &GameData, block: gatecrew_world::BlockId) -> Option<ItemId> {
    let name = data.block_name(block);
    if let Ok(i) = data.item(name) {
        if data.block_for_item(i) == Some(block) {
            return Some(i);
        }
    }
    let reg = data.items();
    (0..reg.len()).filter_map(|i| u16::try_from(i).ok()).map(ItemId).find(|i| data.block_for_item(*i) == Some(block))
}

/// A cell's leaf label: "place glass at (3, 1, 0)".
pub fn leaf_label(data: &GameData, f: &CellFacts) -> String {
    format!("place {} at ({}, {}, {})", data.item_name(f.item).replace('_', " "), f.pos.x, f.pos.y, f.pos.z)
}

/// A part node's label: "build the windows (4 blocks)".
pub fn part_label(name: &str, n: usize) -> String {
    format!("build {name} ({n} block{})", if n == 1 { "" } else { "s" })
}

/// Plans a build: a node labelled `label` (the build) with one part per function, in
/// building order, each with its cells' `place` leaves bottom up. Only `share` cells
/// (blueprint indices) are planned. Returns the build node (unlinked).
pub fn plan_build(
    plan: &mut Plan,
    facts: &BTreeMap<usize, CellFacts>,
    share: &BTreeSet<usize>,
    label: String,
    data: &GameData,
    origin: crate::plan::Origin,
) -> StepId {
    let build = plan.add_step(Kind::AllOf, label, origin);
    plan.set_group(build, crate::plan::Group::Build);
    for f in Function::ALL {
        let mut cells: Vec<&CellFacts> =
            facts.values().filter(|c| c.function == f && share.contains(&(c.cell as usize))).collect();
        if cells.is_empty() {
            continue;
        }
        cells.sort_by_key(|c| (c.level, c.pos));
        let part = plan.add_step(Kind::AllOf, part_label(f.name(), cells.len()), origin);
        plan.set_group(part, crate::plan::Group::Part);
        for c in cells {
            let leaf = plan.add_step(Kind::Leaf(Leaf::Place(*c)), leaf_label(data, c), origin);
            plan.link(part, leaf);
        }
        plan.link(build, part);
    }
    build
}

/// The `place` leaves of the live plan with their facts, in id order.
pub fn place_leaves(plan: &Plan) -> Vec<(StepId, CellFacts)> {
    let live = plan.reachable();
    plan.ids()
        .into_iter()
        .filter(|n| live.contains(n))
        .filter_map(|n| match plan.step(n).kind {
            Kind::Leaf(Leaf::Place(f)) => Some((n, f)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests;

/// Words that say a line is about building parts at all.
pub fn mentions_part(text: &str) -> bool {
    let ws: Vec<String> = words(text).iter().map(|w| singular(w)).collect();
    ws.iter().any(|w| {
        Function::ALL.iter().any(|f| f.words().contains(&w.as_str()))
            || find::LAYER_WORDS.contains(&w.as_str())
            || ["part", "section", "bit", "piece", "top", "bottom"].contains(&w.as_str())
    })
}
