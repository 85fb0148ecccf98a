//! Blueprints: the blocks to build, loaded from TOML, with their support order.
//!
//! ```toml
//! name = "small house"
//! [[fill]]              # boxes first, in file order; later ones overwrite
//! from = [0, 0, 0]
//! to = [5, 2, 5]
//! block = "oak_planks"
//! shape = "walls"       # "solid" (default) or "walls" (the four vertical sides)
//! [[block]]             # then single blocks, in file order
//! at = [2, 0, 0]
//! block = "oak_door[half=lower,hinge=left,facing=north]"  # optional block state
//! ```
//!
//! Two-block-tall blocks (doors) fill the cell above too, with `half=upper` there when
//! the lower cell says `half=lower`.
//!
//! `air` carves a cell out. Cells are ordered by Minecraft's placement rule (see
//! [`crate::placement`]): from the ground outward, each cell after a neighbour it can be
//! placed against. A part that touches nothing built (a floating platform) starts from
//! one cell placed against a temporary scaffold block ([`Blueprint::floats`]). Loading
//! refuses only what can never be built: a cell outside the world or below the ground,
//! and a falling or attached block whose only possible support is a cell the blueprint
//! leaves empty (sand over air, a torch on nothing).

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

use gatecrew_protocol::Pos;
use serde::Deserialize;
use toml::Spanned;

use crate::data::{BlockId, GameData};
use crate::error::{LineIndex, LoadError, LoadErrorKind};
use crate::limits;
use crate::placement;
use crate::state::{BlockState, parse_block_spec};

mod index;
mod left_out;
use index::CellIndex;
pub use left_out::{LeftOut, LeftOutReason};

/// The farthest a blueprint coordinate may lie from the origin on any axis: Minecraft's
/// world border. Keeps every extent and neighbour computation inside `i32`: a door at
/// `y = i32::MAX` or a fill across the whole `i32` range would overflow.
pub const MAX_COORD: i32 = 30_000_000;

fn in_world(p: Pos) -> bool {
    [p.x, p.y, p.z].iter().all(|c| (-MAX_COORD..=MAX_COORD).contains(c))
}

fn outside_world(p: Pos) -> String {
    format!("position {p} is outside the world (every coordinate within ±{MAX_COORD})")
}

/// Which part of a block a cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// An ordinary one-cell block.
    Whole,
    /// The bottom of a two-cell block; placing it fills the top too.
    Lower,
    /// The top of a two-cell block; never placed on its own.
    Upper,
}

/// One blueprint cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Where.
    pub pos: Pos,
    /// Which block.
    pub block: BlockId,
    /// The state it must have (only the properties given are checked).
    pub state: BlockState,
    /// Which part.
    pub part: Part,
    /// The cell that must be placed before this one, and that it is placed against
    /// (`None`: it rests on the ground, or it starts a floating part and is placed
    /// against a temporary scaffold block, see [`Blueprint::floats`]).
    pub support: Option<usize>,
    /// Steps from the ground (or from the start of a floating part) through supports;
    /// floating parts come after every part connected to the ground.
    pub level: u32,
}

/// A checked blueprint: cells sorted by position, each with a support.
#[derive(Debug, Clone, PartialEq)]
pub struct Blueprint {
    /// Display name.
    pub name: String,
    cells: Vec<Cell>,
    index: CellIndex,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBlueprint {
    name: String,
    #[serde(default)]
    fill: Vec<RawFill>,
    #[serde(default)]
    block: Vec<RawBlock>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFill {
    from: Pos,
    to: Pos,
    block: Spanned<String>,
    #[serde(default)]
    shape: FillShape,
}

#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum FillShape {
    #[default]
    Solid,
    Walls,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBlock {
    at: Spanned<Pos>,
    block: Spanned<String>,
}

impl Blueprint {
    /// Loads a blueprint file.
    pub fn load(path: &Path, data: &GameData) -> Result<Self, LoadError> {
        // A file past the limit is refused before it is read when the file system knows
        // its size, else after `limit + 1` bytes (special files report 0).
        let size = std::fs::metadata(path).map_err(|e| LoadError::new(path, LoadErrorKind::Io(e.to_string())))?.len();
        check_size(size, path)?;
        let max = limits::max_blueprint_bytes().map_err(|e| LoadError::new(path, LoadErrorKind::Invalid(e)))?;
        let text = gatecrew_protocol::limits::read_text_file_capped(path, max).map_err(|e| match e {
            gatecrew_protocol::limits::ReadFileError::TooLarge { .. } => LoadError::new(
                path,
                LoadErrorKind::Invalid(format!(
                    "the file is more than the limit of {max} bytes for a blueprint (set {} for more)",
                    limits::MAX_BLUEPRINT_BYTES_VAR
                )),
            ),
            e => LoadError::new(path, LoadErrorKind::Io(e.to_string())),
        })?;
        Self::parse(&text, path, data)
    }

    /// Parses blueprint text; `path` is only used in errors. The cells written in total
    /// are limited by [`limits::max_blueprint_cells`].
    pub fn parse(text: &str, path: &Path, data: &GameData) -> Result<Self, LoadError> {
        check_size(u64::try_from(text.len()).unwrap_or(u64::MAX), path)?;
        let max_cells = limits::max_blueprint_cells().map_err(|e| LoadError::new(path, LoadErrorKind::Invalid(e)))?;
        Self::parse_with_limit(text, path, data, max_cells)
    }

    /// Parses blueprint text, refusing one whose fills and blocks write more than
    /// `max_cells` cells in total (an error at the entry that crosses the limit).
    pub fn parse_with_limit(text: &str, path: &Path, data: &GameData, max_cells: u64) -> Result<Self, LoadError> {
        let raw: RawBlueprint = crate::error::parse_toml_within(path, text, limits::MAX_BLUEPRINT_TOML_NODES)?;
        let lines = LineIndex::new(text);
        let line_of = |_: &str, offset: usize| lines.line(offset);
        let too_many = |line: usize| {
            LoadError::new(
                path,
                LoadErrorKind::Invalid(format!(
                    "the blueprint writes more than {max_cells} cells in total (the limit; set {} for more)",
                    limits::MAX_BLUEPRINT_CELLS_VAR
                )),
            )
            .line(line)
        };
        let mut written: u64 = 0;
        let mut unknown = Vec::new();
        let mut resolve = |spec: &Spanned<String>| -> Option<(BlockId, BlockState)> {
            let line = line_of(text, spec.span().start);
            let (name, state) = match parse_block_spec(spec.get_ref()) {
                Ok(v) => v,
                Err(e) => {
                    unknown.push((line, e.to_string()));
                    return None;
                }
            };
            let found = data.block(&name);
            if found.is_none() {
                let hint = data.suggest_block(&name).map(|s| format!(" (did you mean \"{s}\"?)")).unwrap_or_default();
                unknown.push((line, format!("unknown block \"{name}\"{hint}")));
            }
            found.map(|b| (b, state))
        };
        // (block, state, line of the entry that set it)
        let mut cells: Cells = BTreeMap::new();
        let mut explicit = std::collections::BTreeSet::new();
        for f in &raw.fill {
            let Some((block, state)) = resolve(&f.block) else {
                continue;
            };
            let line = line_of(text, f.block.span().start);
            if let Some(p) = [f.from, f.to].into_iter().find(|p| !in_world(*p)) {
                return Err(LoadError::new(path, LoadErrorKind::Invalid(outside_world(p))).line(line));
            }
            let (lo, hi) = (min_corner(f.from, f.to), max_corner(f.from, f.to));
            let side = |a: i32, b: i32| i64::from(b) - i64::from(a) + 1;
            let volume = side(lo.x, hi.x).saturating_mul(side(lo.y, hi.y)).saturating_mul(side(lo.z, hi.z));
            if volume > 1_000_000 {
                return Err(
                    LoadError::new(path, LoadErrorKind::Invalid("fill larger than a million blocks".into())).line(line)
                );
            }
            // Counted before the cells are made, so that fifty large fills are refused
            // before they take memory: a small file of them would abort on allocation.
            let count = match f.shape {
                FillShape::Solid => volume,
                FillShape::Walls => {
                    let inner = |a: i32, b: i32| (side(a, b) - 2).max(0);
                    volume - inner(lo.x, hi.x) * side(lo.y, hi.y) * inner(lo.z, hi.z)
                }
            };
            written = written.saturating_add(u64::try_from(count).unwrap_or(u64::MAX));
            if written > max_cells {
                return Err(too_many(line));
            }
            for x in lo.x..=hi.x {
                for y in lo.y..=hi.y {
                    for z in lo.z..=hi.z {
                        let on_side = x == lo.x || x == hi.x || z == lo.z || z == hi.z;
                        if f.shape == FillShape::Solid || on_side {
                            cells.insert(Pos::new(x, y, z), (block, state, line));
                        }
                    }
                }
            }
        }
        for b in &raw.block {
            let line = line_of(text, b.at.span().start);
            written = written.saturating_add(1);
            if written > max_cells {
                return Err(too_many(line));
            }
            if !in_world(*b.at.get_ref()) {
                return Err(LoadError::new(path, LoadErrorKind::Invalid(outside_world(*b.at.get_ref()))).line(line));
            }
            let Some((block, state)) = resolve(&b.block) else {
                continue;
            };
            cells.insert(*b.at.get_ref(), (block, state, line));
            explicit.insert(*b.at.get_ref());
        }
        if !unknown.is_empty() {
            return Err(LoadError::new(path, LoadErrorKind::UnknownBlocks(unknown)));
        }
        // A two-cell block placed explicitly takes the cell above from a fill.
        let tall: Vec<(Pos, BlockId, BlockState)> = explicit
            .iter()
            .filter_map(|p| cells.get(p).map(|(b, s, _)| (*p, *b, *s)))
            .filter(|(_, b, _)| data.block_info(*b).height == 2)
            .collect();
        // Bottom up, so that a top half given explicitly is known as the top of the block
        // below it, not taken for another block that claims the cell above (found by the
        // `blueprint` fuzz target: both halves of a door listed gave a four-cell door).
        let mut tops = std::collections::BTreeSet::new();
        for (p, b, s) in tall {
            if tops.contains(&p) {
                continue;
            }
            tops.insert(p.up());
            if !explicit.contains(&p.up()) {
                let line = cells[&p].2;
                cells.insert(p.up(), (b, s.upper_half(), line));
            }
        }
        cells.retain(|_, (b, _, _)| *b != BlockId::AIR);
        Self::from_cells(raw.name, cells, path, data)
    }

    /// Builds a blueprint from `(position, block)` pairs (used by generators).
    pub fn from_blocks(
        name: &str,
        blocks: impl IntoIterator<Item = (Pos, BlockId)>,
        data: &GameData,
    ) -> Result<Self, LoadError> {
        let cells = blocks.into_iter().map(|(p, b)| (p, b, BlockState::default()));
        Self::from_states(name, cells, Path::new("<generated>"), data)
    }

    /// Builds a blueprint from `(position, block, state)` triples read from `path` (named
    /// in errors): air is skipped, later triples overwrite earlier ones.
    pub fn from_states(
        name: &str,
        blocks: impl IntoIterator<Item = (Pos, BlockId, BlockState)>,
        path: &Path,
        data: &GameData,
    ) -> Result<Self, LoadError> {
        let cells = blocks.into_iter().filter(|(_, b, _)| *b != BlockId::AIR).map(|(p, b, s)| (p, (b, s, 0))).collect();
        Self::from_cells(name.to_owned(), cells, path, data)
    }

    /// Builds a blueprint from `(position, block, state)` triples like
    /// [`Blueprint::from_states`], leaving out every cell that can never be built (a
    /// carpet over a cell the blueprint leaves empty, a door with a block in the cell its
    /// top needs, a block no item places), and whatever stood only on such a cell, as
    /// Minecraft would: each left-out cell comes back with its reason. Other systems'
    /// task files hold such cells and their runners build the rest; a blueprint written
    /// for gatecrew is refused instead ([`Blueprint::from_states`]) so that its author
    /// hears of it.
    pub fn from_states_partial(
        name: &str,
        blocks: impl IntoIterator<Item = (Pos, BlockId, BlockState)>,
        path: &Path,
        data: &GameData,
    ) -> Result<(Self, Vec<LeftOut>), LoadError> {
        let cells = blocks.into_iter().filter(|(_, b, _)| *b != BlockId::AIR).map(|(p, b, s)| (p, (b, s, 0))).collect();
        let mut left = Vec::new();
        let bp = Self::assemble(name.to_owned(), cells, path, data, Some(&mut left))?;
        Ok((bp, left))
    }

    fn from_cells(name: String, cells: Cells, path: &Path, data: &GameData) -> Result<Self, LoadError> {
        Self::assemble(name, cells, path, data, None)
    }

    /// Checks and orders the cells. With `left` (a partial blueprint) a cell that can
    /// never be built is moved there instead of refusing the blueprint; leaving one out
    /// may strand what stood on it, so the check runs again until nothing more goes.
    fn assemble(
        name: String,
        mut cells: Cells,
        path: &Path,
        data: &GameData,
        mut left: Option<&mut Vec<LeftOut>>,
    ) -> Result<Self, LoadError> {
        let invalid = |line: usize, msg: String| {
            let e = LoadError::new(path, LoadErrorKind::Invalid(msg));
            if line > 0 { e.line(line) } else { e }
        };
        if let Some((p, (_, _, line))) = cells.iter().find(|(p, _)| !in_world(**p)) {
            return Err(invalid(*line, outside_world(*p)));
        }
        // Two-cell blocks claim the cell above.
        let tall: Vec<(Pos, BlockId, BlockState, usize)> = cells
            .iter()
            .filter(|(_, (b, _, _))| data.block_info(*b).height == 2)
            .map(|(p, (b, s, l))| (*p, *b, *s, *l))
            .collect();
        let mut uppers = std::collections::BTreeSet::new();
        for (p, b, state, line) in tall {
            if uppers.contains(&p) {
                continue;
            }
            let upper_state = match cells.get(&p.up()) {
                Some((other, _, _)) if *other != b => {
                    if let Some(left) = left.as_deref_mut() {
                        left.push(LeftOut { pos: p, block: b, reason: LeftOutReason::TopTaken { by: *other } });
                        cells.remove(&p);
                        continue;
                    }
                    return Err(invalid(
                        line,
                        format!(
                            "{} at {p} needs the cell above free, but it holds {}",
                            data.block_name(b),
                            data.block_name(*other)
                        ),
                    ));
                }
                Some((_, s, _)) => *s,
                None => state.upper_half(),
            };
            cells.insert(p.up(), (b, upper_state, line));
            uppers.insert(p.up());
        }
        for (p, (_, _, line)) in &cells {
            if p.y < 0 {
                return Err(invalid(*line, format!("block at {p} is below the ground (y < 0)")));
            }
        }
        let placeless: Vec<Pos> = cells
            .iter()
            .filter(|(p, (b, _, _))| data.block_info(*b).item.is_none() && !uppers.contains(*p))
            .map(|(p, _)| *p)
            .collect();
        for p in placeless {
            let (b, _, line) = cells[&p];
            match left.as_deref_mut() {
                Some(left) => {
                    left.push(LeftOut { pos: p, block: b, reason: LeftOutReason::NoItem });
                    cells.remove(&p);
                }
                None => {
                    return Err(invalid(
                        line,
                        format!("block \"{}\" at {p} cannot be placed: no item places it", data.block_name(b)),
                    ));
                }
            }
        }
        loop {
            let positions: Vec<Pos> = cells.keys().copied().collect();
            let index = CellIndex::new(&positions);
            let mut out: Vec<Cell> = positions
                .iter()
                .map(|p| {
                    let (block, state, _) = cells[p];
                    let part = if uppers.contains(p) {
                        Part::Upper
                    } else if data.block_info(block).height == 2 {
                        Part::Lower
                    } else {
                        Part::Whole
                    };
                    Cell { pos: *p, block, state, part, support: None, level: u32::MAX }
                })
                .collect();
            let rejected = match order_cells(&mut out, &index, data, left.is_some()) {
                Ok(()) => return Ok(Blueprint { name, cells: out, index }),
                Err(r) => r,
            };
            let Some(left) = left.as_deref_mut() else {
                let (p, reason) = &rejected[0];
                let at = |p: &Pos| index.get(*p).expect("a rejected cell is a cell");
                return Err(invalid(cells[p].2, reason.describe(out[at(p)].block, *p, data)));
            };
            for (p, reason) in rejected {
                let cell = out[index.get(p).expect("a rejected cell is a cell")];
                let block = cell.block;
                cells.remove(&p);
                if cell.part == Part::Lower {
                    cells.remove(&p.up());
                }
                left.push(LeftOut { pos: p, block, reason });
            }
        }
    }

    /// Whether cell `i` starts a floating part: no support in the blueprint and no
    /// ground to rest on, so it is placed against a temporary scaffold block.
    pub fn floats(&self, i: usize, data: &GameData) -> bool {
        let c = &self.cells[i];
        c.support.is_none() && c.part != Part::Upper && !on_ground(c, data)
    }

    /// All cells, sorted by position.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The cell at a position.
    pub fn cell_at(&self, p: Pos) -> Option<&Cell> {
        self.index.get(p).map(|i| &self.cells[i])
    }

    /// Index of the cell at a position.
    pub fn index_of(&self, p: Pos) -> Option<usize> {
        self.index.get(p)
    }

    /// Number of cells (what TSR divides by).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether there is nothing to build.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Items needed to build it: one per placed cell (upper halves come free).
    pub fn materials(&self, data: &GameData) -> BTreeMap<gatecrew_protocol::ItemId, u32> {
        let mut m = BTreeMap::new();
        for c in &self.cells {
            if c.part != Part::Upper {
                if let Some(item) = data.block_info(c.block).item {
                    *m.entry(item).or_insert(0) += 1;
                }
            }
        }
        m
    }

    /// The bounding box of the cells.
    pub fn extent(&self) -> Option<(Pos, Pos)> {
        let first = self.cells.first()?.pos;
        Some(self.cells.iter().fold((first, first), |(lo, hi), c| (min_corner(lo, c.pos), max_corner(hi, c.pos))))
    }
}

/// Refuses a blueprint text larger than [`limits::max_blueprint_bytes`].
fn check_size(size: u64, path: &Path) -> Result<(), LoadError> {
    let max = limits::max_blueprint_bytes().map_err(|e| LoadError::new(path, LoadErrorKind::Invalid(e)))?;
    if size > max {
        return Err(LoadError::new(
            path,
            LoadErrorKind::Invalid(format!(
                "the file is {size} bytes, more than the limit of {max} for a blueprint (set {} for more)",
                limits::MAX_BLUEPRINT_BYTES_VAR
            )),
        ));
    }
    Ok(())
}

fn on_ground(c: &Cell, data: &GameData) -> bool {
    placement::anchors(data.block_info(c.block), &c.state, c.pos).iter().any(|a| a.y < 0)
}

/// Orders the cells by the placement rule: breadth-first from the cells that rest on
/// the ground, each cell reached from a neighbour it may be placed against; then each
/// floating part from its lowest cell that can lean on a temporary block outside the
/// blueprint. Upper halves go with their lower half. Errors name the cells that can
/// never be built: the first only, or with `all` every one found.
fn order_cells(
    out: &mut [Cell],
    index: &CellIndex,
    data: &GameData,
    all: bool,
) -> Result<(), Vec<(Pos, LeftOutReason)>> {
    let anchors = |c: &Cell| placement::anchors(data.block_info(c.block), &c.state, c.pos);
    // Never buildable: every cell it could rest on is empty in the blueprint, and a
    // temporary block there would leave it falling or hanging on nothing when removed.
    let mut never = Vec::new();
    for c in out.iter().filter(|c| c.part != Part::Upper) {
        let info = data.block_info(c.block);
        if info.attach == crate::data::Attach::Any && !info.gravity {
            continue;
        }
        let a = anchors(c);
        if a.iter().all(|p| p.y >= 0 && !index.contains(*p)) {
            never.push((c.pos, LeftOutReason::NothingToHold { at: a }));
            if !all {
                break;
            }
        }
    }
    if !never.is_empty() {
        return Err(never);
    }
    let mut queue = VecDeque::new();
    let reach = |out: &mut [Cell], i: usize, support: Option<usize>, level: u32, queue: &mut VecDeque<usize>| {
        out[i].support = support;
        out[i].level = level;
        queue.push_back(i);
    };
    // `strict`: a cell with a blueprint cell below waits for that one (bottom-up where
    // the blueprint allows it, the order builds had before the rule above); otherwise
    // any neighbour the rule allows.
    let spread = |out: &mut [Cell], queue: &mut VecDeque<usize>, strict: bool| {
        while let Some(i) = queue.pop_front() {
            let (p, level) = (out[i].pos, out[i].level);
            for q in p.neighbours() {
                let Some(j) = index.get(q) else { continue };
                let below = index.get(q.down());
                // The top half of a two-cell block comes with its lower half only.
                let upper = out[j].part == Part::Upper;
                if out[j].level != u32::MAX || (upper && below != Some(i)) || (!upper && !anchors(&out[j]).contains(&p))
                {
                    continue;
                }
                if strict && below.is_some() && below != Some(i) {
                    continue;
                }
                reach(out, j, Some(i), level + 1, queue);
            }
        }
    };
    for i in 0..out.len() {
        if out[i].part != Part::Upper && on_ground(&out[i], data) {
            reach(out, i, None, 0, &mut queue);
        }
    }
    loop {
        spread(out, &mut queue, true);
        if out.iter().all(|c| c.level != u32::MAX) {
            return Ok(());
        }
        // What hangs: reached sideways or from above, from every cell placed so far.
        let mut placed: Vec<usize> = (0..out.len()).filter(|&i| out[i].level != u32::MAX).collect();
        placed.sort_by_key(|&i| (out[i].level, i));
        queue.extend(placed);
        spread(out, &mut queue, false);
        let left: Vec<usize> = (0..out.len()).filter(|&i| out[i].level == u32::MAX).collect();
        if left.is_empty() {
            return Ok(());
        }
        // A floating part: start from its lowest cell that can lean sideways on a
        // temporary block outside the blueprint (a bot's pillar beside it).
        let next = out.iter().filter(|c| c.level != u32::MAX).map(|c| c.level + 1).max().unwrap_or(0);
        let seed = left
            .iter()
            .copied()
            .filter(|&i| out[i].part != Part::Upper)
            .filter(|&i| {
                let c = &out[i];
                let a = anchors(c);
                c.pos.neighbours()[2..].iter().any(|n| a.contains(n) && !index.contains(*n))
            })
            .min_by_key(|&i| (out[i].pos.y, out[i].pos));
        match seed {
            Some(i) => reach(out, i, None, next, &mut queue),
            None => {
                // An upper half is left out with its lower half.
                let mut stranded: Vec<Pos> = left
                    .iter()
                    .map(|&i| if out[i].part == Part::Upper { out[i].pos.down() } else { out[i].pos })
                    .collect();
                stranded.dedup();
                stranded.truncate(if all { usize::MAX } else { 1 });
                return Err(stranded.into_iter().map(|p| (p, LeftOutReason::NoSupport)).collect());
            }
        }
    }
}

/// Cells being assembled: block, state and the line of the entry that set it (0: none).
type Cells = BTreeMap<Pos, (BlockId, BlockState, usize)>;

fn min_corner(a: Pos, b: Pos) -> Pos {
    Pos::new(a.x.min(b.x), a.y.min(b.y), a.z.min(b.z))
}

fn max_corner(a: Pos, b: Pos) -> Pos {
    Pos::new(a.x.max(b.x), a.y.max(b.y), a.z.max(b.z))
}
