//! MindCraft's MineCollab construction tasks:
//!
//! ```json
//! { "<id>": { "type": "construction", "goal": "...", "agent_count": 2, "timeout": 1000,
//!   "initial_inventory": { "0": { "stone": 23 }, "1": { ... } },
//!   "blueprint": { "materials": { ... }, "levels": [ { "level": 0,
//!     "coordinates": [x, y, z], "placement": [[ "air", "dark_oak_door[half=lower]" ]] } ] } } }
//! ```
//!
//! A level's placement is a grid of rows: row `j`, column `k` is the cell
//! `(x + k, y, z + j)` from the level's `coordinates`, as MindCraft's checker reads it.
//! Files whose levels all repeat the same `coordinates` (the small church does) would put
//! every level into one layer; those are stacked instead, level `i` at `y + i`, and a
//! note says so.

use std::collections::{BTreeMap, btree_map::Entry};
use std::path::Path;

use gatecrew_protocol::{MAX_COUNT, Pos};
use serde::Deserialize;
use serde_json::Value;

use crate::error::TaskError;
use crate::json::{index, key, typed};
use crate::names::Resolver;
use crate::task::{Format, ImportedTask, TaskCell};

#[derive(Deserialize)]
struct RawTask {
    #[serde(rename = "type")]
    kind: Option<String>,
    goal: Option<String>,
    agent_count: Option<u32>,
    timeout: Option<u64>,
    #[serde(default)]
    initial_inventory: BTreeMap<String, BTreeMap<String, i64>>,
    blueprint: RawBlueprint,
}

#[derive(Deserialize)]
struct RawBlueprint {
    #[serde(default)]
    #[allow(dead_code)]
    materials: BTreeMap<String, i64>,
    levels: Vec<RawLevel>,
}

#[derive(Deserialize)]
struct RawLevel {
    #[allow(dead_code)]
    level: Option<i64>,
    coordinates: [i32; 3],
    placement: Vec<Vec<String>>,
}

/// Whether a task entry looks like MineCollab's.
pub(crate) fn looks_like(v: &Value) -> bool {
    v.get("blueprint").is_some_and(|b| b.get("levels").is_some())
        || v.get("type").and_then(Value::as_str).is_some_and(|t| t == "construction")
}

/// Reads one task entry found at `$.<id>`.
pub(crate) fn import(file: &Path, id: &str, v: &Value, names: &mut Resolver<'_>) -> Result<ImportedTask, TaskError> {
    let base = key("$", id);
    if let Some(kind) = v.get("type").and_then(Value::as_str).filter(|k| *k != "construction") {
        return Err(TaskError::at(file, key(&base, "type"), format!("a \"{kind}\" task; only construction tasks run")));
    }
    let raw: RawTask = typed(v, &base).map_err(|(p, m)| TaskError::at(file, p, m))?;
    let _ = raw.kind;
    let levels_path = key(&key(&base, "blueprint"), "levels");
    let mut notes = Vec::new();
    let first_y = raw.blueprint.levels.first().map(|l| l.coordinates[1]);
    let stacked =
        raw.blueprint.levels.len() > 1 && raw.blueprint.levels.iter().all(|l| Some(l.coordinates[1]) == first_y);
    if stacked {
        notes.push(format!(
            "all {} levels give the same coordinates; level i is read at y + i",
            raw.blueprint.levels.len()
        ));
    }
    let mut cells: BTreeMap<Pos, (TaskCell, String)> = BTreeMap::new();
    for (i, level) in raw.blueprint.levels.iter().enumerate() {
        let lpath = index(&levels_path, i);
        let [x0, y0, z0] = level.coordinates;
        let y = if stacked { offset(y0, i) } else { Some(y0) };
        let Some(y) = y else {
            return Err(TaskError::at(
                file,
                key(&lpath, "coordinates"),
                format!("level {i} stacked above y = {y0} overflows"),
            ));
        };
        let width = level.placement.first().map_or(0, Vec::len);
        for (j, row) in level.placement.iter().enumerate() {
            let rpath = index(&key(&lpath, "placement"), j);
            if row.len() != width {
                return Err(TaskError::at(
                    file,
                    rpath,
                    format!("row has {} cells, expected {width} (the length of row 0)", row.len()),
                ));
            }
            for (k, spec) in row.iter().enumerate() {
                let cpath = index(&rpath, k);
                let Some((block, state)) = names.block_spec(spec, &cpath) else {
                    continue;
                };
                let (Some(x), Some(z)) = (offset(x0, k), offset(z0, j)) else {
                    return Err(TaskError::at(
                        file,
                        cpath,
                        format!("the cell's position overflows: [{x0} + {k}, {y}, {z0} + {j}]"),
                    ));
                };
                let pos = Pos::new(x, y, z);
                match cells.entry(pos) {
                    Entry::Vacant(e) => {
                        e.insert((TaskCell { pos, block, state }, cpath));
                    }
                    Entry::Occupied(e) => {
                        return Err(TaskError::at(file, cpath, format!("cell {pos} is also given at {}", e.get().1)));
                    }
                }
            }
        }
    }
    let agent_count = raw.agent_count.map(|n| n as usize);
    if let Some(n) = agent_count {
        if !(1..=16).contains(&n) {
            return Err(TaskError::at(file, key(&base, "agent_count"), format!("{n} agents; a crew has 1 to 16")));
        }
    }
    let crew = agent_count.unwrap_or(raw.initial_inventory.len().max(1));
    let inv_path = key(&base, "initial_inventory");
    let mut inventories = vec![Vec::new(); crew];
    for (agent, items) in &raw.initial_inventory {
        let apath = key(&inv_path, agent);
        let slot = agent.parse::<usize>().ok().filter(|a| *a < crew).ok_or_else(|| {
            TaskError::at(file, apath.clone(), format!("\"{agent}\" is not an agent index in 0..{crew}"))
        })?;
        for (name, &count) in items {
            let ipath = key(&apath, name);
            if !(0..=i64::from(MAX_COUNT)).contains(&count) {
                let why = if count < 0 { "is negative".to_owned() } else { format!("exceeds {MAX_COUNT}") };
                return Err(TaskError::at(file, ipath, format!("count {count} {why}")));
            }
            if let Some(item) = names.item(name, &ipath) {
                if count > 0 {
                    inventories[slot].push((item, count as u32));
                }
            }
        }
    }
    Ok(ImportedTask {
        id: id.to_owned(),
        format: Format::MineCollab,
        goal: raw.goal,
        cells: cells.into_values().map(|(c, _)| c).collect(),
        agent_count: Some(crew),
        timeout_s: raw.timeout,
        inventories: Some(inventories),
        notes,
    })
}

/// `base + by`, if it fits: a level at `i32::MAX` overflowed (the overflow class the
/// `task_file` fuzz target found in the site setup).
fn offset(base: i32, by: usize) -> Option<i32> {
    i32::try_from(by).ok().and_then(|b| base.checked_add(b))
}
