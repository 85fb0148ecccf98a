//! VillagerBench's raw blueprint schema:
//!
//! ```json
//! { "cow_pasture": { "size": [5, 1, 9], "blocks": [
//!     { "name": "oak_fence_gate", "position": [2, 0, 0], "facing": "east", "open": "false" } ],
//!   "entities": [ { "name": "cow", "position": [1.5, 0, 1.5] } ] } }
//! ```
//!
//! `facing` may be a VillagerBench letter or a Minecraft word; every other string or
//! boolean property of a block is a block state (`open`, `half`, `hinge`...). Numeric
//! properties (`age`, `moisture`) and ones this world does not model are reported, not
//! refused: the block is built and the property is not checked. A chest's `items` are
//! its contents. Entities are not modelled: a note says how many were left out.

use std::collections::BTreeMap;
use std::path::Path;

use gatecrew_protocol::{ItemId, MAX_COUNT, Pos};
use gatecrew_world::state::StateError;
use serde::Deserialize;
use serde_json::Value;

use crate::error::TaskError;
use crate::json::{index, key, typed};
use crate::names::Resolver;
use crate::task::{Format, ImportedTask, TaskCell, Warning};
use crate::villager::facing_state;

#[derive(Deserialize)]
struct RawBlueprint {
    blocks: Vec<RawBlock>,
    #[serde(default)]
    #[allow(dead_code)]
    size: Option<[i64; 3]>,
    #[serde(default)]
    entities: Vec<Value>,
}

#[derive(Deserialize)]
struct RawBlock {
    name: String,
    position: [i32; 3],
    #[serde(flatten)]
    props: BTreeMap<String, Value>,
}

/// Whether a value looks like a raw blueprint.
pub(crate) fn looks_like(v: &Value) -> bool {
    v.get("blocks").is_some_and(Value::is_array)
}

/// Properties not modelled, gathered over a task: (property, value) -> (first path, cells).
pub(crate) type Unmodelled = BTreeMap<String, (String, usize)>;

/// One warning per unmodelled `key=value`, naming its first cell and how many share it.
pub(crate) fn unmodelled_warnings(u: Unmodelled) -> Vec<Warning> {
    u.into_iter()
        .map(|(prop, (path, n))| Warning {
            path,
            cells: 0,
            message: format!(
                "{prop} is a block property this world does not model; the block is built and {prop} is not checked{}",
                if n > 1 { format!(" ({n} cells)") } else { String::new() }
            ),
        })
        .collect()
}

/// Reads one raw blueprint found at `base` (`$.<id>`, or `$` for a bare blueprint).
pub(crate) fn import(
    file: &Path,
    id: &str,
    base: &str,
    v: &Value,
    names: &mut Resolver<'_>,
) -> Result<ImportedTask, TaskError> {
    let raw: RawBlueprint = typed(v, base).map_err(|(p, m)| TaskError::at(file, p, m))?;
    let mut cells: BTreeMap<Pos, (TaskCell, String)> = BTreeMap::new();
    let mut warnings = Vec::new();
    let mut unmodelled = Unmodelled::new();
    let mut contents: BTreeMap<Pos, Vec<(ItemId, u32)>> = BTreeMap::new();
    let blocks_path = key(base, "blocks");
    for (i, b) in raw.blocks.iter().enumerate() {
        let path = index(&blocks_path, i);
        let pos = Pos::from(b.position);
        let mut state = gatecrew_world::BlockState::default();
        let mut ok = true;
        for (k, val) in &b.props {
            let kpath = key(&path, k);
            if k == "items" {
                match items(val, &kpath, names) {
                    Ok(list) => {
                        contents.insert(pos, list);
                    }
                    Err(m) => {
                        names.problem(kpath, m);
                        ok = false;
                    }
                }
                continue;
            }
            let text = match val {
                Value::String(s) => s.clone(),
                Value::Bool(v) => v.to_string(),
                // Numbers are growth stages and levels (`age`, `moisture`): real
                // properties this world does not model.
                Value::Number(n) => {
                    note(&mut unmodelled, format!("{k}={n}"), &kpath);
                    continue;
                }
                other => {
                    note(&mut unmodelled, format!("{k}={other}"), &kpath);
                    continue;
                }
            };
            let result = if k == "facing" {
                match facing_state(&text) {
                    Some(f) => {
                        state.facing = f.facing;
                        state.axis = state.axis.or(f.axis);
                        Ok(())
                    }
                    None => Err(format!("unknown facing \"{text}\"")),
                }
            } else {
                match state.set_property(k, &text) {
                    Ok(()) => Ok(()),
                    Err(StateError::UnknownProperty(_)) => {
                        note(&mut unmodelled, format!("{k}={text}"), &kpath);
                        Ok(())
                    }
                    Err(e) => Err(e.to_string()),
                }
            };
            if let Err(m) = result {
                names.problem(kpath, m);
                ok = false;
            }
        }
        let Some((block, state)) = names.block(&b.name, state, &key(&path, "name")) else {
            continue;
        };
        if ok {
            if let Some((old, at)) = cells.insert(pos, (TaskCell { pos, block, state }, path.clone())) {
                warnings.push(Warning {
                    path: path.clone(),
                    cells: 1,
                    message: format!(
                        "cell {pos} is given again (first at {at}, as {}); the later block is built",
                        names.block_name(old.block)
                    ),
                });
            }
        }
    }
    warnings.extend(unmodelled_warnings(unmodelled));
    let mut notes = Vec::new();
    if !raw.entities.is_empty() {
        notes.push(format!("{} entities are not modelled and were left out", raw.entities.len()));
    }
    Ok(ImportedTask {
        id: id.to_owned(),
        format: Format::VillagerRaw,
        goal: None,
        described: raw.blocks.len(),
        cells: cells.into_values().map(|(c, _)| c).collect(),
        agent_count: None,
        timeout_s: None,
        inventories: None,
        notes,
        warnings,
        humans: Vec::new(),
        contents: contents.into_iter().collect(),
        left_out: Vec::new(),
    })
}

pub(crate) fn note(u: &mut Unmodelled, prop: String, path: &str) {
    u.entry(prop).or_insert_with(|| (path.to_owned(), 0)).1 += 1;
}

/// A container's `items`: `[{"name": "iron_axe", "count": 1}, ...]`.
fn items(v: &Value, path: &str, names: &mut Resolver<'_>) -> Result<Vec<(ItemId, u32)>, String> {
    let list = v.as_array().ok_or("items must be a list of {name, count}")?;
    let mut out = Vec::new();
    for (j, it) in list.iter().enumerate() {
        let ipath = index(path, j);
        let name = it.get("name").and_then(Value::as_str).ok_or(format!("{ipath}: an item needs a name"))?;
        let count = match it.get("count") {
            None => 1,
            Some(c) => c
                .as_u64()
                .filter(|c| (1..=u64::from(MAX_COUNT)).contains(c))
                .ok_or(format!("{ipath}.count: {c} is not a count in 1..={MAX_COUNT}"))?,
        };
        if let Some(item) = names.item(name, &key(&ipath, "name")) {
            out.push((item, u32::try_from(count).unwrap_or(MAX_COUNT)));
        }
    }
    Ok(out)
}
