//! VillagerBench's raw blueprint schema:
//!
//! ```json
//! { "cow_pasture": { "size": [5, 1, 9], "blocks": [
//!     { "name": "oak_fence_gate", "position": [2, 0, 0], "facing": "east", "open": "false" } ],
//!   "entities": [ { "name": "cow", "position": [1.5, 0, 1.5] } ] } }
//! ```
//!
//! `facing` may be a VillagerBench letter or a Minecraft word; every other string or
//! boolean property of a block is a block state (`open`, `half`, `hinge`...). Entities
//! are not modelled: a note says how many were left out.

use std::collections::BTreeMap;
use std::path::Path;

use gatecrew_protocol::Pos;
use serde::Deserialize;
use serde_json::Value;

use crate::error::TaskError;
use crate::json::{index, key, typed};
use crate::names::Resolver;
use crate::task::{Format, ImportedTask, TaskCell};
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

/// Reads one raw blueprint found at `base` (`$.<id>`, or `$` for a bare blueprint).
pub(crate) fn import(
    file: &Path,
    id: &str,
    base: &str,
    v: &Value,
    names: &mut Resolver<'_>,
) -> Result<ImportedTask, TaskError> {
    let raw: RawBlueprint = typed(v, base).map_err(|(p, m)| TaskError::at(file, p, m))?;
    let mut cells: BTreeMap<Pos, TaskCell> = BTreeMap::new();
    let blocks_path = key(base, "blocks");
    for (i, b) in raw.blocks.iter().enumerate() {
        let path = index(&blocks_path, i);
        let mut state = gatecrew_world::BlockState::default();
        let mut ok = true;
        for (k, val) in &b.props {
            let text = match val {
                Value::String(s) => s.clone(),
                Value::Bool(v) => v.to_string(),
                _ => {
                    names.problem(key(&path, k), format!("block property \"{k}\" must be a string"));
                    ok = false;
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
                state.set_property(k, &text).map_err(|e| e.to_string())
            };
            if let Err(m) = result {
                names.problem(key(&path, k), m);
                ok = false;
            }
        }
        let Some((block, state)) = names.block(&b.name, state, &key(&path, "name")) else {
            continue;
        };
        if ok {
            let pos = Pos::from(b.position);
            cells.insert(pos, TaskCell { pos, block, state });
        }
    }
    let mut notes = Vec::new();
    if !raw.entities.is_empty() {
        notes.push(format!("{} entities are not modelled and were left out", raw.entities.len()));
    }
    Ok(ImportedTask {
        id: id.to_owned(),
        format: Format::VillagerRaw,
        goal: None,
        cells: cells.into_values().collect(),
        agent_count: None,
        timeout_s: None,
        inventories: None,
        notes,
    })
}
