//! VillagerBench's description lines, one task per key:
//!
//! ```text
//! material: X facing: F position: [x, y, z]
//! [material:X facing:F positions:[start:[x y z] end:[x y z]]]     (every cell of the box)
//! [material:X facing:F positions:[[x y z] [x y z] ...]]
//! ```
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
use crate::task::{Format, ImportedTask, TaskCell};

/// Whether a task entry looks like a list of description lines.
pub(crate) fn looks_like(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(|l| l.as_str().is_some_and(|s| s.contains("material"))))
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

/// The word after `label` up to the next space or bracket.
fn field<'t>(line: &'t str, label: &str) -> Option<&'t str> {
    let at = line.find(label)? + label.len();
    let rest = line[at..].trim_start();
    let end = rest.find(|c: char| c.is_whitespace() || c == ']' || c == '[').unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Every innermost `[...]` group of `text` as three integers.
fn triples(text: &str) -> Result<Vec<Pos>, String> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match c {
            '[' => open = Some(i),
            ']' => {
                if let Some(s) = open.take() {
                    let nums: Result<Vec<i32>, _> = text[s + 1..i]
                        .split(|c: char| c == ',' || c.is_whitespace())
                        .filter(|t| !t.is_empty())
                        .map(str::parse::<i32>)
                        .collect();
                    match nums {
                        Ok(n) if n.len() == 3 => out.push(Pos::new(n[0], n[1], n[2])),
                        _ => return Err(format!("\"[{}]\" is not a position [x y z]", &text[s + 1..i])),
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The positions a line names.
fn positions(line: &str) -> Result<Vec<Pos>, String> {
    if let Some(at) = line.find("positions:") {
        let rest = &line[at + "positions:".len()..];
        if rest.contains("start:") {
            // The end is looked for after the start: an `end:` before it sliced backwards
            // (found by the `task_file` fuzz target).
            let s = rest.find("start:").unwrap_or(0);
            let e = rest[s..].find("end:").map(|i| s + i).ok_or("a start without an end")?;
            let (a, b) = (triples(&rest[s..e])?, triples(&rest[e..])?);
            let (Some(a), Some(b)) = (a.first(), b.first()) else {
                return Err("start and end need a position each".into());
            };
            // Counted before it is listed: a run across the whole `i32` range would not
            // fit in memory.
            let side = |p: i32, q: i32| (i64::from(p) - i64::from(q)).unsigned_abs() + 1;
            if side(a.x, b.x).saturating_mul(side(a.y, b.y)).saturating_mul(side(a.z, b.z)) > 100_000 {
                return Err("the run spans more than 100000 cells".into());
            }
            let mut v = Vec::new();
            for x in a.x.min(b.x)..=a.x.max(b.x) {
                for y in a.y.min(b.y)..=a.y.max(b.y) {
                    for z in a.z.min(b.z)..=a.z.max(b.z) {
                        v.push(Pos::new(x, y, z));
                    }
                }
            }
            return Ok(v);
        }
        return triples(rest);
    }
    if let Some(at) = line.find("position:") {
        let v = triples(&line[at + "position:".len()..])?;
        if v.len() == 1 {
            return Ok(v);
        }
        return Err("position: needs exactly one [x, y, z]".into());
    }
    Err("no position: or positions: in the line".into())
}

/// Reads one task, a list of description lines found at `$.<id>`.
pub(crate) fn import_lines(
    file: &Path,
    id: &str,
    v: &Value,
    names: &mut Resolver<'_>,
) -> Result<ImportedTask, TaskError> {
    let base = key("$", id);
    let lines = v.as_array().ok_or_else(|| TaskError::at(file, base.clone(), "expected a list of lines"))?;
    let mut cells: BTreeMap<Pos, TaskCell> = BTreeMap::new();
    for (i, l) in lines.iter().enumerate() {
        let path = index(&base, i);
        let line = l.as_str().ok_or_else(|| TaskError::at(file, path.clone(), "expected a string"))?;
        let material = field(line, "material:").filter(|m| !m.is_empty());
        let Some(material) = material else {
            return Err(TaskError::at(file, path, "no material: in the line"));
        };
        let facing = field(line, "facing:").unwrap_or("A");
        let at = positions(line).map_err(|m| TaskError::at(file, path.clone(), m))?;
        let Some(state) = facing_state(facing) else {
            names.problem(path.clone(), format!("unknown facing \"{facing}\" (A, N, S, E, W, x, y or z)"));
            continue;
        };
        let Some((block, state)) = names.block(material, state, &path) else {
            continue;
        };
        for pos in at {
            cells.insert(pos, TaskCell { pos, block, state });
        }
    }
    Ok(ImportedTask {
        id: id.to_owned(),
        format: Format::VillagerLines,
        goal: None,
        cells: cells.into_values().collect(),
        agent_count: None,
        timeout_s: None,
        inventories: None,
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_three_shapes() {
        assert_eq!(positions("material: torch facing: A position: [-8, -58, 0]").unwrap(), vec![Pos::new(-8, -58, 0)]);
        let run = positions("[material:ladder facing:N positions:[start:[-9 -60 0] end:[-9 -58 0]]]").unwrap();
        assert_eq!(run, vec![Pos::new(-9, -60, 0), Pos::new(-9, -59, 0), Pos::new(-9, -58, 0)]);
        let list = positions("[material:pumpkin facing:A positions:[[-9 -60 -2] [-10 -60 -1]]]").unwrap();
        assert_eq!(list, vec![Pos::new(-9, -60, -2), Pos::new(-10, -60, -1)]);
        assert_eq!(field("[material:ladder facing:N positions:[", "material:"), Some("ladder"));
        assert_eq!(field("material: torch facing: A position", "facing:"), Some("A"));
        assert!(positions("[material:x facing:A positions:[[1 2] [3 4 5]]]").is_err());
    }
}
