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

use gatecrew_crew::setup::MAX_CREW;
use gatecrew_protocol::{MAX_COUNT, Pos};
use serde::Deserialize;
use serde_json::Value;

use crate::error::TaskError;
use crate::json::{index, key, typed};
use crate::names::Resolver;
use crate::raw::{Unmodelled, note, unmodelled_warnings};
use crate::task::{Format, ImportedTask, TaskCell, Warning};

#[derive(Deserialize)]
struct RawTask {
    #[serde(rename = "type")]
    kind: Option<String>,
    goal: Option<String>,
    agent_count: Option<u32>,
    #[serde(default)]
    human_count: Option<u32>,
    #[serde(default)]
    usernames: Vec<String>,
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
    let _ = &raw.kind;
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
    let mut unmodelled = Unmodelled::new();
    let mut described = 0usize;
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
            described += row.len();
            for (k, spec) in row.iter().enumerate() {
                let cpath = index(&rpath, k);
                let Some((block, state, extra)) = names.block_spec_lenient(spec, &cpath) else {
                    continue;
                };
                for prop in extra {
                    note(&mut unmodelled, prop, &cpath);
                }
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
    let mut warnings = unmodelled_warnings(unmodelled);
    let bots = raw.agent_count.map(|n| n as usize);
    if let Some(n) = bots {
        if !(1..=MAX_CREW).contains(&n) {
            return Err(TaskError::at(
                file,
                key(&base, "agent_count"),
                format!("{n} agents; a crew has 1 to {MAX_CREW} (as for a crew config)"),
            ));
        }
    }
    let humans = humans(&raw, &base, &mut warnings);
    if humans.len() > 16 {
        return Err(TaskError::at(file, key(&base, "human_count"), format!("{} humans; at most 16", humans.len())));
    }
    let inv_path = key(&base, "initial_inventory");
    // MindCraft gives participant i the inventory under "i" (bots first, then humans)
    // and nothing to one with no entry; without `agent_count` the inventories say how
    // many bots there are.
    let crew = bots.unwrap_or(raw.initial_inventory.len().saturating_sub(humans.len()).max(1));
    let participants = crew + humans.len();
    let mut inventories = vec![Vec::new(); participants];
    for (agent, items) in &raw.initial_inventory {
        let apath = key(&inv_path, agent);
        let Some(slot) = agent.parse::<usize>().ok().filter(|a| *a < participants) else {
            let what = if humans.is_empty() { "agent" } else { "participant" };
            if agent.parse::<usize>().is_ok() && raw.agent_count.is_some() {
                // MindCraft never hands these out: run as it does, and say so.
                let held: i64 = items.values().sum();
                warnings.push(Warning {
                    path: apath,
                    cells: 0,
                    message: format!(
                        "\"{agent}\" is not an {what} index in 0..{participants} (agent_count {crew}, {} humans); \
                         MindCraft gives its {held} items to nobody, and so does this run",
                        humans.len()
                    ),
                });
                continue;
            }
            return Err(TaskError::at(file, apath, format!("\"{agent}\" is not an {what} index in 0..{participants}")));
        };
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
    for (i, inv) in inventories.iter().enumerate() {
        if inv.is_empty() && !raw.initial_inventory.is_empty() && !raw.initial_inventory.contains_key(&i.to_string()) {
            warnings.push(Warning {
                path: inv_path.clone(),
                cells: 0,
                message: format!("participant {i} has no entry; it starts with nothing, as in MindCraft"),
            });
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
        described,
        warnings,
        humans,
        contents: Vec::new(),
        left_out: Vec::new(),
    })
}

/// The human participants' names: `usernames`, padded or cut to `human_count`.
fn humans(raw: &RawTask, base: &str, warnings: &mut Vec<Warning>) -> Vec<String> {
    let count = raw.human_count.map_or(raw.usernames.len(), |n| n as usize);
    let mut names: Vec<String> = raw.usernames.iter().take(count).cloned().collect();
    if raw.usernames.len() != count {
        warnings.push(Warning {
            path: key(base, "usernames"),
            cells: 0,
            message: format!(
                "{} usernames for human_count {count}; the first {count} are used, the rest are named human<i>",
                raw.usernames.len()
            ),
        });
    }
    while names.len() < count {
        names.push(format!("human{}", names.len()));
    }
    names
}

/// `base + by`, if it fits: a level at `i32::MAX` overflowed (the overflow class the
/// `task_file` fuzz target found in the site setup).
fn offset(base: i32, by: usize) -> Option<i32> {
    i32::try_from(by).ok().and_then(|b| base.checked_add(b))
}
