//! A part a person names, found among the plan's `place` leaves: by layer ("the second
//! floor", "the top row", "level 2"), function ("the windows", "the roof"), side ("the
//! north wall", "the front"), material ("the stone part", "the oak planks") or several
//! at once ("the stone walls"). "The wall" when the walls have several sides, or "the
//! door" when there are several doors, is ambiguous: each is an option.

use std::collections::BTreeSet;

use gatecrew_world::GameData;

use super::{CellFacts, Function, Side, place_leaves};
use crate::plan::{Plan, StepId};
use crate::words::{singular, words};

/// Words that name a layer when an ordinal or top/bottom goes with them.
pub const LAYER_WORDS: [&str; 9] = ["layer", "level", "row", "storey", "story", "tier", "course", "floor", "lvl"];

const ORDINALS: [(&str, u16); 30] = [
    ("first", 1),
    ("1st", 1),
    ("one", 1),
    ("1", 1),
    ("second", 2),
    ("2nd", 2),
    ("two", 2),
    ("2", 2),
    ("third", 3),
    ("3rd", 3),
    ("three", 3),
    ("3", 3),
    ("fourth", 4),
    ("4th", 4),
    ("four", 4),
    ("4", 4),
    ("fifth", 5),
    ("5th", 5),
    ("five", 5),
    ("5", 5),
    ("sixth", 6),
    ("6th", 6),
    ("six", 6),
    ("6", 6),
    ("seventh", 7),
    ("7th", 7),
    ("7", 7),
    ("eighth", 8),
    ("8th", 8),
    ("8", 8),
];

const TOP: [&str; 6] = ["top", "highest", "upper", "uppermost", "last", "topmost"];
const BOTTOM: [&str; 5] = ["bottom", "lowest", "ground", "lower", "bottommost"];
const WOOD: [&str; 10] = ["oak", "spruce", "birch", "jungle", "acacia", "dark", "mangrove", "cherry", "planks", "log"];

/// A part found: its name and its leaves (plan order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartRef {
    /// What to call it ("the windows").
    pub name: String,
    /// Its `place` leaves.
    pub leaves: Vec<StepId>,
}

/// How a phrase fits the plan's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartMatch {
    /// No part named, or none of its cells in the plan.
    None,
    /// One part.
    One(PartRef),
    /// Several parts fit ("the wall" of a house with four).
    Many(Vec<PartRef>),
}

fn ordinal(w: &str) -> Option<u16> {
    ORDINALS.iter().find(|(o, _)| *o == w).map(|(_, n)| *n)
}

/// The layer the words name, if any: (level, name).
fn layer(ws: &[String], levels: u16) -> Option<(u16, String)> {
    for (i, w) in ws.iter().enumerate() {
        if !LAYER_WORDS.contains(&w.as_str()) {
            continue;
        }
        let prev = i.checked_sub(1).map(|j| ws[j].as_str());
        let prev2 = i.checked_sub(2).map(|j| ws[j].as_str());
        let next = ws.get(i + 1).map(String::as_str);
        let noun = if w == "row" { "row" } else { "layer" };
        if prev.or(prev2).is_some_and(|p| TOP.contains(&p)) {
            return Some((levels, format!("the top {noun}")));
        }
        if prev.or(prev2).is_some_and(|p| BOTTOM.contains(&p)) {
            return Some((1, format!("the bottom {noun}")));
        }
        if let Some(n) = prev.and_then(ordinal).or_else(|| next.and_then(ordinal)) {
            // "the first floor" is the ground floor, counted from the bottom.
            return Some((n, format!("{noun} {n}")));
        }
    }
    // "the top", "the very top": the top layer.
    if ws.iter().any(|w| w == "top")
        && !ws.iter().any(|w| Function::ALL.iter().any(|f| f.words().contains(&w.as_str())))
    {
        return Some((levels, "the top layer".into()));
    }
    None
}

/// The function the words name, whether said in the singular, and the words used.
fn function(ws: &[String], raw: &[String], skip: Option<&str>) -> Option<(Function, bool)> {
    for (w, r) in ws.iter().zip(raw) {
        if Some(w.as_str()) == skip {
            continue;
        }
        for f in Function::ALL {
            if f.words().contains(&w.as_str()) {
                return Some((f, w == r));
            }
        }
    }
    None
}

fn side(ws: &[String], facts: &[CellFacts]) -> Option<(Side, &'static str)> {
    for w in ws {
        let s = match w.as_str() {
            "north" | "northern" => Side::North,
            "south" | "southern" => Side::South,
            "west" | "western" => Side::West,
            "east" | "eastern" => Side::East,
            // The front is the side with a door; the back the one across.
            "front" | "back" | "rear" => {
                let door = facts.iter().find(|f| f.function == Function::Doors).and_then(|f| f.side)?;
                let s = if w == "front" {
                    door
                } else {
                    match door {
                        Side::North => Side::South,
                        Side::South => Side::North,
                        Side::West => Side::East,
                        Side::East => Side::West,
                    }
                };
                return Some((s, if w == "front" { "front" } else { "back" }));
            }
            _ => continue,
        };
        return Some((s, s.name()));
    }
    None
}

/// Material words: those a leaf's item name holds ("cobblestone", "oak planks";
/// "stone" in "cobblestone", "wood" for any wood).
fn material(
    ws: &[String],
    data: &GameData,
    facts: &[CellFacts],
) -> Option<(BTreeSet<gatecrew_protocol::ItemId>, String)> {
    const SKIP: [&str; 14] =
        ["the", "part", "bit", "piece", "section", "block", "all", "some", "of", "and", "with", "made", "out", "build"];
    let items: BTreeSet<gatecrew_protocol::ItemId> = facts.iter().map(|f| f.item).collect();
    let mut hit = BTreeSet::new();
    let mut said = Vec::new();
    for w in ws.iter().filter(|w| w.len() >= 3 && !SKIP.contains(&w.as_str())) {
        let wood = ["wood", "wooden", "timber"].contains(&w.as_str());
        let m: Vec<_> = items
            .iter()
            .copied()
            .filter(|i| {
                let name = data.item_name(*i);
                let toks: Vec<&str> = name.split('_').collect();
                toks.contains(&w.as_str())
                    || (w.len() >= 4 && name.contains(w.as_str()))
                    || (wood && toks.iter().any(|t| WOOD.contains(t)))
            })
            .collect();
        if !m.is_empty() {
            hit.extend(m);
            said.push(w.clone());
        } else if !is_part_word(w) {
            // "the oak logs": a word no block of the build has names something else.
            return None;
        }
    }
    (!hit.is_empty()).then(|| (hit, said.join(" ")))
}

/// A word about parts rather than materials: a function, a layer, a side, an ordinal.
fn is_part_word(w: &str) -> bool {
    Function::ALL.iter().any(|f| f.words().contains(&w))
        || LAYER_WORDS.contains(&w)
        || ordinal(w).is_some()
        || TOP.contains(&w)
        || BOTTOM.contains(&w)
        || [
            "north", "south", "east", "west", "front", "back", "rear", "side", "first", "bits", "blocks", "stuff",
            "wall", "walls", "please", "too", "also", "house", "building", "again", "now", "instead",
        ]
        .contains(&w)
}

/// Finds the part a phrase names. See the module docs.
pub fn find_part(plan: &Plan, phrase: &str, data: &GameData) -> PartMatch {
    let leaves = place_leaves(plan);
    if leaves.is_empty() {
        return PartMatch::None;
    }
    let raw = words(phrase);
    let ws: Vec<String> = raw.iter().map(|w| singular(w)).collect();
    let facts: Vec<CellFacts> = leaves.iter().map(|(_, f)| *f).collect();
    let levels = facts.iter().map(|f| f.levels).max().unwrap_or(1);
    let lay = layer(&ws, levels);
    // "floor" as a layer word is not also the floor.
    let skip = lay.as_ref().and_then(|_| ws.iter().find(|w| LAYER_WORDS.contains(&w.as_str())).map(String::as_str));
    let func = function(&ws, &raw, skip);
    let sd = side(&ws, &facts);
    let mat = material(&ws, data, &facts).filter(|_| func.is_none_or(|(f, _)| f != Function::Windows));
    if lay.is_none() && func.is_none() && sd.is_none() && mat.is_none() {
        return PartMatch::None;
    }
    let keep = |f: &CellFacts| {
        lay.as_ref().is_none_or(|(l, _)| f.level == *l)
            && func.is_none_or(|(fun, _)| f.function == fun)
            && sd.is_none_or(|(s, _)| f.side == Some(s))
            && mat.as_ref().is_none_or(|(m, _)| m.contains(&f.item))
    };
    let chosen: Vec<(StepId, CellFacts)> = leaves.iter().copied().filter(|(_, f)| keep(f)).collect();
    if chosen.is_empty() {
        return PartMatch::None;
    }
    let mut adj = String::new();
    for x in [sd.map(|(_, s)| s.to_owned()), mat.as_ref().map(|(_, m)| m.clone())].into_iter().flatten() {
        adj.push(' ');
        adj.push_str(&x);
    }
    // "the south wall": one side's walls are one wall.
    let noun = |f: Function| {
        if f == Function::Walls && sd.is_some() {
            "wall".to_owned()
        } else {
            f.name().trim_start_matches("the ").to_owned()
        }
    };
    let name = match (&lay, func) {
        (Some((_, l)), Some((f, _))) => format!("the{adj} {} of {l}", noun(f)),
        (Some((_, l)), None) if adj.is_empty() => l.clone(),
        (Some((_, l)), None) => format!("the{adj} part of {l}"),
        (None, Some((f, _))) => format!("the{adj} {}", noun(f)),
        (None, None) if mat.is_some() => format!("the{adj} part"),
        (None, None) => format!("the{adj} side"),
    };
    // "the wall" of several sides, "the door" of several doors: ask which.
    if let Some((f, true)) = func {
        if sd.is_none() && lay.is_none() {
            let groups: Vec<(String, Vec<StepId>)> = match f {
                Function::Walls => {
                    let sides: BTreeSet<Side> = chosen.iter().filter_map(|(_, c)| c.side).collect();
                    sides
                        .into_iter()
                        .map(|s| {
                            let l = chosen.iter().filter(|(_, c)| c.side == Some(s)).map(|(n, _)| *n).collect();
                            (format!("the {} wall", s.name()), l)
                        })
                        .collect()
                }
                Function::Doors => chosen
                    .iter()
                    .map(|(n, c)| (format!("the door at ({}, {}, {})", c.pos.x, c.pos.y, c.pos.z), vec![*n]))
                    .collect(),
                _ => Vec::new(),
            };
            if groups.len() >= 2 {
                return PartMatch::Many(groups.into_iter().map(|(name, leaves)| PartRef { name, leaves }).collect());
            }
        }
    }
    PartMatch::One(PartRef { name, leaves: chosen.into_iter().map(|(n, _)| n).collect() })
}
