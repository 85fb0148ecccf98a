//! VillagerBench's description lines, one task per key; [`lines`] reads every shape
//! of line the published file holds.
//!
//! Facing `A` is any; `N`, `S`, `E`, `W` are `facing=north|south|east|west`; `x`, `y`,
//! `z` are `axis=...`, as VillagerBench's own renderer sets them. A later line that names
//! a position again replaces the earlier block there.

use std::collections::BTreeMap;
use std::path::Path;

use gatecrew_protocol::Pos;
use gatecrew_world::BlockState;
use gatecrew_world::state::{Axis, Facing};
use serde_json::Value;

use crate::error::TaskError;
use crate::json::{index, key};
use crate::names::Resolver;
use crate::task::{Format, ImportedTask, TaskCell, Warning};

pub mod lines;

use lines::MAX_CELLS;

/// Whether a task entry looks like a list of description lines.
pub(crate) fn looks_like(v: &Value) -> bool {
    // Some lines name their block with `name:`; one `material` anywhere marks the format.
    v.as_array().is_some_and(|a| {
        a.iter().all(Value::is_string) && a.iter().any(|l| l.as_str().is_some_and(|s| s.contains("material")))
    })
}

/// The state a VillagerBench facing letter (or a full facing word) stands for.
pub(crate) fn facing_state(f: &str) -> Option<BlockState> {
    let mut s = BlockState::default();
    match f.trim() {
        "A" | "a" | "" => {}
        "N" | "north" => s.facing = Some(Facing::North),
        "S" | "south" => s.facing = Some(Facing::South),
        "E" | "east" => s.facing = Some(Facing::East),
        "W" | "west" => s.facing = Some(Facing::West),
        "up" => s.facing = Some(Facing::Up),
        "down" => s.facing = Some(Facing::Down),
        "x" => s.axis = Some(Axis::X),
        "y" => s.axis = Some(Axis::Y),
        "z" => s.axis = Some(Axis::Z),
        _ => return None,
    }
    Some(s)
}

/// Reads one task, a list of description lines found at `$.<id>`. A later line that
/// names a cell again replaces the earlier block there, and a warning says so.
pub(crate) fn import_lines(
    file: &Path,
    id: &str,
    v: &Value,
    names: &mut Resolver<'_>,
) -> Result<ImportedTask, TaskError> {
    let base = key("$", id);
    let lines = v.as_array().ok_or_else(|| TaskError::at(file, base.clone(), "expected a list of lines"))?;
    let mut cells: BTreeMap<Pos, (TaskCell, String)> = BTreeMap::new();
    let mut budget = MAX_CELLS;
    let mut described = 0usize;
    let mut warnings = Vec::new();
    let mut notes = Vec::new();
    // (line, earlier line) -> (cells given again, the first of them, its earlier block)
    let mut again: BTreeMap<(usize, String), (usize, Pos, gatecrew_world::BlockId)> = BTreeMap::new();
    for (i, l) in lines.iter().enumerate() {
        let path = index(&base, i);
        let text = l.as_str().ok_or_else(|| TaskError::at(file, path.clone(), "expected a string"))?;
        let line = lines::read(text, &mut budget).map_err(|e| TaskError::at(file, path.clone(), e.0))?;
        notes.extend(line.notes.iter().map(|n| format!("{path}: {n}")));
        for seg in line.segments {
            described += seg.cells.len();
            // The name once per segment; an unknown one fails the import with every other.
            let Some((block, _)) = names.block(&seg.block, BlockState::default(), &path) else {
                continue;
            };
            for (pos, facing) in seg.cells {
                let Some(state) = facing_state(&facing) else {
                    names.problem(path.clone(), format!("unknown facing \"{facing}\" (A, N, S, E, W, x, y or z)"));
                    continue;
                };
                if let Some((old, at)) = cells.insert(pos, (TaskCell { pos, block, state }, path.clone())) {
                    let e = again.entry((i, at)).or_insert((0, pos, old.block));
                    e.0 += 1;
                }
            }
        }
    }
    for ((i, at), (n, pos, old)) in again {
        let what = if n == 1 { format!("cell {pos} is") } else { format!("{n} cells (first {pos}) are") };
        warnings.push(Warning {
            path: index(&base, i),
            cells: n,
            message: format!(
                "{what} given again (first at {at}, as {}); the later block is built",
                names.block_name(old)
            ),
        });
    }
    Ok(ImportedTask {
        id: id.to_owned(),
        format: Format::VillagerLines,
        goal: None,
        cells: cells.into_values().map(|(c, _)| c).collect(),
        agent_count: None,
        timeout_s: None,
        inventories: None,
        notes,
        described,
        warnings,
        humans: Vec::new(),
        contents: Vec::new(),
        left_out: Vec::new(),
    })
}

/// The number of cells a list of description lines describes, without resolving
/// names (for listings).
pub(crate) fn count_cells(v: &Value) -> Result<usize, String> {
    let mut budget = MAX_CELLS;
    let mut n = 0usize;
    for (i, l) in v.as_array().into_iter().flatten().enumerate() {
        let text = l.as_str().ok_or_else(|| format!("[{i}]: expected a string"))?;
        let line = lines::read(text, &mut budget).map_err(|e| format!("[{i}]: {e}"))?;
        n += line.segments.iter().map(|s| s.cells.len()).sum::<usize>();
    }
    Ok(n)
}
