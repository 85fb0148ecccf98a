//! Node names against the live plan: the exact label first, then the item the words
//! name (its `obtain` node, or the alternative a verb points to: "craft", "collect",
//! "take from the chest"), then a fuzzy match on labels. Two or more equally good
//! candidates make the bot ask one clarifying question (paper 003).

use std::collections::BTreeSet;

use gatecrew_protocol::ItemId;
use gatecrew_world::GameData;

use crate::parts::{PartMatch, PartRef, find_part, mentions_part};
use crate::plan::{Group, Kind, Leaf, Plan, StepId};
use crate::words::{Vocabulary, singular, words};

/// Candidates listed in a clarifying question, at most.
pub const MAX_OPTIONS: usize = 3;

/// How well a node name fits the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Exactly one node.
    One(StepId),
    /// Several fit equally well (in plan order, at most [`MAX_OPTIONS`]).
    Many(Vec<StepId>),
    /// A named part of a build that is not a node of its own yet (a material, a
    /// layer): its leaves, gathered into a part node when acted on.
    Part(PartRef),
    /// Several parts fit ("the wall" of four).
    Parts(Vec<PartRef>),
    /// None fits.
    None,
}

/// A part found, as a node when one holds exactly its leaves.
fn part_resolution(plan: &Plan, p: PartRef) -> Resolution {
    let want: BTreeSet<StepId> = p.leaves.iter().copied().collect();
    let node = plan.ids().into_iter().find(|n| {
        plan.group(*n) == Some(Group::Part) && plan.children(*n).into_iter().collect::<BTreeSet<_>>() == want
    });
    match node {
        Some(n) => Resolution::One(n),
        None => Resolution::Part(p),
    }
}

/// The `place` leaves a resolution stands for (a part node's children, a part's
/// leaves, a build's every leaf), for comparing parts however they were reached.
pub fn leaves_of(plan: &Plan, r: &Resolution) -> BTreeSet<StepId> {
    match r {
        Resolution::One(n) => {
            plan.below(*n).into_iter().filter(|c| matches!(plan.step(*c).kind, Kind::Leaf(Leaf::Place(_)))).collect()
        }
        Resolution::Part(p) => p.leaves.iter().copied().collect(),
        _ => BTreeSet::new(),
    }
}

const STOPWORDS: [&str; 14] =
    ["the", "a", "an", "of", "for", "from", "to", "my", "some", "it", "them", "that", "this", "those"];

fn key_words(text: &str) -> BTreeSet<String> {
    words(text).iter().map(|w| singular(w)).filter(|w| !STOPWORDS.contains(&w.as_str())).collect()
}

fn norm(text: &str) -> String {
    words(text).iter().map(|w| singular(w)).filter(|w| !STOPWORDS.contains(&w.as_str())).collect::<Vec<_>>().join(" ")
}

/// The item a node is about, and what it does with it.
fn node_item(plan: &Plan, data: &GameData, n: StepId) -> Option<(ItemId, &'static str)> {
    Some(match plan.step(n).kind {
        Kind::Obtain { item, .. } => (item, "obtain"),
        Kind::Station { item } => (item, "station"),
        Kind::Leaf(Leaf::Collect { item, .. }) => (item, "collect"),
        Kind::Leaf(Leaf::Craft { recipe }) => (data.recipe(recipe).result, "craft"),
        Kind::Leaf(Leaf::Smelt { output, .. }) => (output, "smelt"),
        Kind::Leaf(Leaf::Fetch { item, .. }) => (item, "fetch"),
        Kind::Leaf(Leaf::UseStation { item } | Leaf::PlaceStation { item }) => (item, "station"),
        Kind::Leaf(Leaf::Place(c)) => (c.item, "place"),
        Kind::AllOf => {
            let label = &plan.step(n).label;
            let verb = if label.starts_with("craft") {
                "craft_and"
            } else if label.starts_with("mine") {
                "collect"
            } else if label.starts_with("smelt") {
                "smelt"
            } else {
                "station"
            };
            // The item an ALL-OF makes is its parent OR's.
            let parent = plan.parents(n).into_iter().find_map(|p| match plan.step(p).kind {
                Kind::Obtain { item, .. } | Kind::Station { item } => Some(item),
                _ => None,
            })?;
            (parent, verb)
        }
        Kind::Goals | Kind::Leaf(Leaf::Share | Leaf::GoTo { .. }) => return None,
    })
}

/// The verb family the words point to.
fn verb_of(ws: &[String]) -> Option<&'static str> {
    for w in ws {
        let v = match w.as_str() {
            "craft" | "crafting" | "make" | "making" => "craft",
            "collect" | "collecting" | "mine" | "mining" | "chop" | "chopping" | "gather" | "gathering" | "dig"
            | "harvest" | "cut" => "collect",
            "take" | "taking" | "fetch" | "chest" | "storage" => "fetch",
            "smelt" | "smelting" | "cook" => "smelt",
            "place" | "placing" => "station",
            _ => continue,
        };
        return Some(v);
    }
    None
}

/// Resolves node words against the plan. Nodes no longer reachable are ignored.
pub fn resolve(plan: &Plan, phrase: &str, vocab: &Vocabulary, data: &GameData) -> Resolution {
    let live = plan.reachable();
    let ids: Vec<StepId> = plan.ids().into_iter().filter(|n| live.contains(n)).collect();
    let want = norm(phrase);
    if want.is_empty() {
        return Resolution::None;
    }
    // 1. The exact label.
    let exact: Vec<StepId> = ids.iter().copied().filter(|n| norm(plan.label(*n)) == want).collect();
    if !exact.is_empty() {
        return pick(plan, exact);
    }
    // 2. A part of a build named by function, layer or side ("the windows", "the top
    // row"); a material alone is a part only when no other node is about it.
    let part = find_part(plan, phrase, data);
    if mentions_part(phrase) {
        match part {
            PartMatch::One(p) => return part_resolution(plan, p),
            PartMatch::Many(v) => return Resolution::Parts(v),
            PartMatch::None => {}
        }
    }
    // 3. The item named: its obtain node, or the alternative the verb points to.
    let ws = words(phrase);
    let items = vocab.items_in(&ws);
    let about_items: Vec<(StepId, &'static str)> = items
        .first()
        .map(|&(item, _)| {
            ids.iter()
                .filter(|n| !matches!(plan.step(**n).kind, Kind::Leaf(Leaf::Place(_))))
                .filter_map(|n| node_item(plan, data, *n).filter(|(i, _)| *i == item).map(|(_, v)| (*n, v)))
                .collect()
        })
        .unwrap_or_default();
    if about_items.is_empty() {
        if let PartMatch::One(p) = part {
            return part_resolution(plan, p);
        }
    }
    if !about_items.is_empty() {
        let verb = verb_of(&ws);
        let about = about_items;
        let by_verb: Vec<StepId> = match verb {
            Some("craft") => about.iter().filter(|(_, v)| *v == "craft_and").map(|(n, _)| *n).collect(),
            Some(v) => about.iter().filter(|(_, k)| *k == v).map(|(n, _)| *n).collect(),
            None => Vec::new(),
        };
        let obtain: Vec<StepId> = about.iter().filter(|(_, v)| *v == "obtain").map(|(n, _)| *n).collect();
        let station: Vec<StepId> = about.iter().filter(|(_, v)| *v == "station").map(|(n, _)| *n).collect();
        for set in [by_verb, obtain, station, about.iter().map(|(n, _)| *n).collect()] {
            if !set.is_empty() {
                // Another item named ("planks from birch logs") narrows the set.
                let more: Vec<String> =
                    items.iter().skip(1).map(|(i, _)| norm(&data.item_name(*i).replace('_', " "))).collect();
                let narrowed: Vec<StepId> = set
                    .iter()
                    .copied()
                    .filter(|n| more.iter().all(|m| norm(plan.label(*n)).contains(m.as_str())))
                    .collect();
                return pick(plan, if narrowed.is_empty() { set } else { narrowed });
            }
        }
    }
    // The crew's building work, by any of its words.
    const BUILD: [&str; 9] =
        ["build", "building", "house", "wall", "blueprint", "construction", "share", "structure", "home"];
    if items.is_empty() && ws.iter().any(|w| BUILD.contains(&w.as_str())) {
        let share: Vec<StepId> = ids
            .iter()
            .copied()
            .filter(|n| plan.step(*n).kind == Kind::Leaf(Leaf::Share) || plan.group(*n) == Some(Group::Build))
            .collect();
        if !share.is_empty() {
            return pick(plan, share);
        }
    }
    // 4. Fuzzy on labels: shared words, then string similarity.
    let want_words = key_words(phrase);
    let mut scored: Vec<(f64, StepId)> = ids
        .iter()
        // Single cells are named through their parts, never by fuzzy match.
        .filter(|n| **n != plan.root() && !matches!(plan.step(**n).kind, Kind::Leaf(Leaf::Place(_))))
        .map(|n| {
            let lw = key_words(plan.label(*n));
            let shared = want_words.intersection(&lw).count() as f64;
            let union = want_words.union(&lw).count().max(1) as f64;
            let jw = strsim::jaro_winkler(&want, &norm(plan.label(*n)));
            (0.7 * shared / union + 0.3 * jw, *n)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    match scored.first() {
        Some(&(best, _)) if best >= 0.45 => {
            let close: Vec<StepId> = scored.iter().take_while(|(s, _)| *s >= best - 0.02).map(|(_, n)| *n).collect();
            pick(plan, close)
        }
        _ => Resolution::None,
    }
}

/// One candidate, or the one on the active path, or a question.
fn pick(plan: &Plan, mut set: Vec<StepId>) -> Resolution {
    set.sort();
    set.dedup();
    match set.len() {
        0 => Resolution::None,
        1 => Resolution::One(set[0]),
        _ => {
            let on_path: Vec<StepId> = set.iter().copied().filter(|n| plan.path().contains(n)).collect();
            if on_path.len() == 1 {
                return Resolution::One(on_path[0]);
            }
            set.truncate(MAX_OPTIONS);
            Resolution::Many(set)
        }
    }
}

/// The option an answer chooses: "2", "the second", "first one", or words that fit one
/// option's label best.
pub fn choose(plan: &Plan, answer: &str, options: &[StepId]) -> Option<StepId> {
    const ORDINALS: [(&str, usize); 12] = [
        ("1", 0),
        ("one", 0),
        ("first", 0),
        ("1st", 0),
        ("2", 1),
        ("two", 1),
        ("second", 1),
        ("2nd", 1),
        ("3", 2),
        ("three", 2),
        ("third", 2),
        ("3rd", 2),
    ];
    let ws = words(answer);
    // Words that tell one option from the others win over an ordinal ("the coal one").
    if let Some(n) = choose_by_words(plan, answer, options) {
        return Some(n);
    }
    for w in &ws {
        if let Some((_, i)) = ORDINALS.iter().find(|(o, _)| o == w) {
            return options.get(*i).copied();
        }
        if w == "last" {
            return options.last().copied();
        }
    }
    None
}

fn choose_by_words(plan: &Plan, answer: &str, options: &[StepId]) -> Option<StepId> {
    let want = key_words(answer);
    let mut best: Vec<(usize, StepId)> = options
        .iter()
        .map(|n| {
            let lw = key_words(plan.label(*n));
            // Words that tell this option from the others count.
            let others: BTreeSet<String> =
                options.iter().filter(|o| *o != n).flat_map(|o| key_words(plan.label(*o))).collect();
            (want.iter().filter(|w| lw.contains(*w) && !others.contains(*w)).count(), *n)
        })
        .collect();
    best.sort_by_key(|b| std::cmp::Reverse(b.0));
    match best.as_slice() {
        [(a, n), (b, _), ..] if *a > 0 && a > b => Some(*n),
        [(a, n)] if *a > 0 => Some(*n),
        _ => None,
    }
}
