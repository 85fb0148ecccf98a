//! Why a goal failed, in words, from the plan and what the bot knows of the world:
//! for each item no alternative could get, what each alternative ran into ("no white
//! wool: none in any chest I have seen, no white wool block seen, and no string to
//! craft it from (no cobweb seen)"). Only what the bot saw or tried is said: a chest
//! it never looked into is not claimed empty.

use std::collections::BTreeSet;

use gatecrew_protocol::ItemId;
use gatecrew_world::{ContainerKind, GameData};

use crate::knowledge::Knowledge;
use crate::plan::{Kind, Leaf, Plan, State, StepId};
use crate::words::item_words;

/// How deep a reason follows ingredients ("no string to craft it from (no cobweb
/// seen)"): deeper chains are summed up by their first link.
const DEPTH: usize = 3;

/// The reason a failed goal (or any failed node) failed, as one clause; `None` when
/// the plan holds nothing that says why (no failed step under it). A goal whose every
/// way failed for want of the same ingredient is explained by that ingredient ("no
/// white wool: ...", not "no white bed: no white wool to craft it").
pub(crate) fn why_failed(plan: &Plan, n: StepId, know: &Knowledge, data: &GameData) -> Option<String> {
    let mut seen = BTreeSet::new();
    let mut n = n;
    while let Kind::Obtain { item, .. } = plan.step(n).kind {
        let ways = ways(plan, n, item, know, data, 0, &mut seen.clone());
        let mut blocking: Vec<StepId> = ways.iter().filter_map(|w| w.ingredient).collect();
        blocking.dedup();
        match (blocking.as_slice(), ways.iter().all(|w| w.ingredient.is_some() || w.general)) {
            ([one], true) => n = *one,
            _ => break,
        }
    }
    let r = reason(plan, n, know, data, 0, &mut seen);
    (!r.is_empty()).then(|| r.join("; "))
}

/// What one way of obtaining an item ran into; for a recipe, the ingredient it lacked.
struct Way {
    text: String,
    ingredient: Option<StepId>,
    /// What the bot knows of chests, said of every item (not a way of its own).
    general: bool,
}

fn ways(
    plan: &Plan,
    n: StepId,
    item: ItemId,
    know: &Knowledge,
    data: &GameData,
    depth: usize,
    seen: &mut BTreeSet<StepId>,
) -> Vec<Way> {
    let alts: Vec<StepId> = plan.children(n);
    let mut out: Vec<Way> = Vec::new();
    // The planner adds a chest only when it knows one holding the item: none is a
    // reason of its own (said once, for the item the goal lacks).
    if depth == 0 && !alts.iter().any(|a| matches!(plan.step(*a).kind, Kind::Leaf(Leaf::Fetch { .. }))) {
        out.push(Way { text: chests(know), ingredient: None, general: true });
    }
    for a in alts.into_iter().filter(|a| plan.step(*a).state == State::Failed) {
        for w in way(plan, a, item, know, data, depth, seen) {
            if !out.iter().any(|o| o.text == w.text) {
                out.push(w);
            }
        }
    }
    out
}

fn reason(
    plan: &Plan,
    n: StepId,
    know: &Knowledge,
    data: &GameData,
    depth: usize,
    seen: &mut BTreeSet<StepId>,
) -> Vec<String> {
    if !seen.insert(n) || depth > DEPTH {
        return Vec::new();
    }
    let step = plan.step(n);
    match step.kind {
        Kind::Obtain { item, .. } => {
            let name = item_words(data, item);
            if plan.children(n).is_empty() {
                return vec![format!("no {name}: I know no way to get it here")];
            }
            let ws: Vec<String> = ways(plan, n, item, know, data, depth, seen).into_iter().map(|w| w.text).collect();
            vec![format!("no {name}: {}", list(&ws))]
        }
        Kind::Station { item } => {
            let name = item_words(data, item);
            let inner: Vec<String> = plan
                .children(n)
                .into_iter()
                .filter(|c| plan.step(*c).state == State::Failed)
                .flat_map(|c| reason(plan, c, know, data, depth + 1, seen))
                .collect();
            match inner.as_slice() {
                [] => vec![format!("no {name} in reach and none to place")],
                _ => vec![format!("no {name} in reach ({})", inner.join("; "))],
            }
        }
        Kind::Goals | Kind::AllOf => plan
            .children(n)
            .into_iter()
            .filter(|c| plan.step(*c).state == State::Failed)
            .flat_map(|c| reason(plan, c, know, data, depth, seen))
            .collect(),
        Kind::Leaf(leaf) => leaf_reason(leaf, know, data).into_iter().collect(),
    }
}

/// What one failed alternative of obtaining `item` ran into.
fn way(
    plan: &Plan,
    a: StepId,
    item: ItemId,
    know: &Knowledge,
    data: &GameData,
    depth: usize,
    seen: &mut BTreeSet<StepId>,
) -> Vec<Way> {
    let text = |t: String| Way { text: t, ingredient: None, general: false };
    match plan.step(a).kind {
        Kind::Leaf(leaf) => leaf_reason(leaf, know, data).into_iter().map(text).collect(),
        Kind::AllOf => {
            // A recipe (or a smelt, a mine with its tool): the part that failed.
            let parts: Vec<StepId> =
                plan.children(a).into_iter().filter(|c| plan.step(*c).state == State::Failed).collect();
            let verb = match plan.children(a).last().map(|c| plan.step(*c).kind) {
                Some(Kind::Leaf(Leaf::Smelt { .. })) => "smelt it from",
                Some(Kind::Leaf(Leaf::Collect { .. })) => "mine it with",
                _ => "craft it from",
            };
            let mut out = Vec::new();
            for p in parts {
                match plan.step(p).kind {
                    Kind::Obtain { item: what, .. } if what != item => {
                        let inner = reason(plan, p, know, data, depth + 1, seen);
                        let what = item_words(data, what);
                        let why = inner.first().and_then(|r| r.split_once(": ")).map(|(_, w)| w.to_owned());
                        out.push(Way {
                            text: match why {
                                Some(w) => format!("no {what} to {verb} ({w})"),
                                None => format!("no {what} to {verb}"),
                            },
                            ingredient: Some(p),
                            general: false,
                        });
                    }
                    _ => out.extend(reason(plan, p, know, data, depth + 1, seen).into_iter().map(text)),
                }
            }
            if out.is_empty() {
                out.push(text(format!("I could not {}", verb.trim_end_matches(" from").trim_end_matches(" with"))));
            }
            out
        }
        _ => reason(plan, a, know, data, depth + 1, seen).into_iter().map(text).collect(),
    }
}

/// What the bot knows of chests: none seen, none looked into, or none holding it.
fn chests(know: &Knowledge) -> String {
    let chests: Vec<bool> = know
        .memory()
        .containers()
        .values()
        .filter(|c| c.kind == ContainerKind::Chest)
        .map(|c| c.contents.is_some())
        .collect();
    let looked = chests.iter().filter(|l| **l).count();
    match (chests.len(), looked) {
        (0, _) => "no chest seen".to_owned(),
        (n, 0) => format!("none in any chest I know ({n} seen, none looked into)"),
        (n, l) if l == n => format!("none in the {l} chest(s) I looked into"),
        (n, l) => format!("none in the {l} chest(s) I looked into ({} not looked into)", n - l),
    }
}

/// What a failed leaf ran into, from what the bot knows now.
fn leaf_reason(leaf: Leaf, know: &Knowledge, data: &GameData) -> Option<String> {
    let mem = know.memory();
    Some(match leaf {
        Leaf::Fetch { item, from: Some(p) } => match know.contents(p, item) {
            Some(0) | None if mem.containers().get(&p).is_some_and(|c| c.contents.is_some()) => {
                format!("none left in the chest at ({}, {}, {})", p.x, p.y, p.z)
            }
            _ => format!("I could not take it from the chest at ({}, {}, {})", p.x, p.y, p.z),
        },
        Leaf::Fetch { from: None, .. } => chests(know),
        Leaf::Collect { block, .. } => {
            let name = data.block_name(block).replace('_', " ");
            if mem.resources().values().any(|b| *b == block) {
                format!("I could not reach the {name} I saw")
            } else {
                format!("no {name} seen to mine")
            }
        }
        Leaf::Craft { .. } => "I lacked an ingredient when crafting".to_owned(),
        Leaf::Smelt { .. } => "no furnace in reach, or nothing to smelt or burn".to_owned(),
        Leaf::UseStation { item } => format!("no {} I know of", item_words(data, item)),
        Leaf::PlaceStation { item } => format!("no {} to place", item_words(data, item)),
        Leaf::Share | Leaf::Place(_) => return None,
    })
}

/// "a, b, and c".
fn list(v: &[String]) -> String {
    match v {
        [] => String::new(),
        [a] => a.clone(),
        [a, b] => format!("{a}, and {b}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
    }
}
