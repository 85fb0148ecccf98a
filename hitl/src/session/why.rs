//! Why a goal failed, in words: one function, [`why`], from the plan, what the bot
//! knows of the world, what task memory holds and what the crew's board showed. For the
//! item no way could get it says what each way ran into ("no white wool: none in any
//! chest I have seen, no white wool seen to mine, and no string to craft it from (no
//! cobweb seen to mine)"), and what the teammates said of it. Only what the bot saw,
//! tried or heard is said: a chest it never looked into is not claimed empty, and
//! "nobody can supply it" only when every teammate said so on the board.

use std::collections::{BTreeMap, BTreeSet};

use gatecrew_protocol::{AgentId, ItemId};
use gatecrew_world::{ContainerKind, GameData};

use crate::knowledge::Knowledge;
use crate::plan::{Kind, Leaf, Plan, State, StepId};
use crate::words::item_words;

/// How deep a reason follows ingredients ("no string to craft it from (no cobweb
/// seen)"): deeper chains are summed up by their first link.
const DEPTH: usize = 3;

/// What the crew's board showed the bot of its teammates and one item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Heard {
    /// Every teammate, by id.
    pub teammates: Vec<AgentId>,
    /// Teammates seen offering the item on the board (to anyone).
    pub offered: Vec<AgentId>,
    /// Teammates seen saying they cannot supply it (to anyone).
    pub refused: Vec<AgentId>,
}

/// What a reason is built from besides the plan.
pub(crate) struct Evidence<'a> {
    /// What the bot saw and was told.
    pub know: &'a Knowledge,
    /// Game data.
    pub data: &'a GameData,
    /// Items an earlier run in this world found no way to (task memory, inferred), with
    /// that run's name.
    pub remembered: &'a BTreeMap<ItemId, String>,
    /// What the board showed of an item.
    pub board: &'a dyn Fn(ItemId) -> Heard,
    /// Steps whose own check failed, with the check in words (the validator's
    /// criterion): the reason of a step that failed with no failed step under it.
    pub checks: &'a BTreeMap<StepId, String>,
}

/// One clause of a reason; for a recipe, the ingredient whose lack it reports.
struct Clause {
    text: String,
    lacks: Option<StepId>,
    /// What the bot knows of chests, said of every item (not a way of its own).
    general: bool,
}

impl Clause {
    fn plain(text: String) -> Self {
        Clause { text, lacks: None, general: false }
    }
}

/// The reason a failed goal (or any failed node) failed, as one clause. A goal whose
/// every way failed for want of the same ingredient is explained by that ingredient
/// ("no white wool: ...", not "no white bed: no white wool to craft it"). Never empty:
/// a step that failed with nothing failed under it names its own check.
pub(crate) fn why(plan: &Plan, n: StepId, ev: &Evidence<'_>) -> String {
    let mut n = n;
    let mut seen = BTreeSet::new();
    // Down to the ingredient every way lacked.
    while let Kind::Obtain { .. } = plan.step(n).kind {
        let ways = explain(plan, n, ev, 0, &mut seen.clone());
        let mut lacking: Vec<StepId> = ways.iter().filter_map(|w| w.lacks).collect();
        lacking.dedup();
        match lacking.as_slice() {
            [one] if ways.iter().all(|w| w.lacks.is_some() || w.general) => n = *one,
            _ => break,
        }
    }
    let mut clauses = explain(plan, n, ev, 0, &mut seen);
    let text = match plan.step(n).kind {
        Kind::Obtain { item, .. } => {
            clauses.extend(crew_clause(&(ev.board)(item)).map(Clause::plain));
            if let Some(run) = ev.remembered.get(&item) {
                clauses.push(Clause::plain(format!("an earlier run here ({run}) found no way to it either")));
            }
            let ways: Vec<String> = clauses.into_iter().map(|c| c.text).collect();
            format!("no {}: {}", item_words(ev.data, item), list(&ways))
        }
        _ => clauses.into_iter().map(|c| c.text).collect::<Vec<_>>().join("; "),
    };
    if text.is_empty() { "nothing in my plan could do it".to_owned() } else { text }
}

/// Why step `n` failed, clause by clause: for an `obtain`, what each way ran into (the
/// chests it knows first, at the top); for a recipe, the ingredient it lacked and why;
/// for a station, why none was in reach; for a leaf, what it ran into in the world.
fn explain(plan: &Plan, n: StepId, ev: &Evidence<'_>, depth: usize, seen: &mut BTreeSet<StepId>) -> Vec<Clause> {
    if !seen.insert(n) || depth > DEPTH {
        return Vec::new();
    }
    let failed: Vec<StepId> = plan.children(n).into_iter().filter(|c| plan.step(*c).state == State::Failed).collect();
    let mut out: Vec<Clause> = Vec::new();
    match plan.step(n).kind {
        Kind::Obtain { .. } => {
            let alts = plan.children(n);
            if alts.is_empty() {
                return vec![Clause::plain("I know no way to get it here".into())];
            }
            // The planner adds a chest only when it knows one holding the item: none is a
            // reason of its own (said once, for the item the goal lacks).
            if depth == 0 && !alts.iter().any(|a| matches!(plan.step(*a).kind, Kind::Leaf(Leaf::Fetch { .. }))) {
                out.push(Clause { text: chests(ev.know), lacks: None, general: true });
            }
            for a in failed {
                for c in explain(plan, a, ev, depth, seen) {
                    push_new(&mut out, c);
                }
            }
        }
        Kind::AllOf => {
            // A recipe (a smelt, a mine with its tool): the ingredient it lacked. A part
            // of a build: what its steps ran into.
            let made = match plan.parents(n).first().map(|p| plan.step(*p).kind) {
                Some(Kind::Obtain { item, .. }) => Some(item),
                _ => None,
            };
            let verb = match plan.children(n).last().map(|c| plan.step(*c).kind) {
                Some(Kind::Leaf(Leaf::Smelt { .. })) => Some("smelt it from"),
                Some(Kind::Leaf(Leaf::Collect { .. })) => Some("mine it with"),
                Some(Kind::Leaf(Leaf::Craft { .. })) => Some("craft it from"),
                _ => None,
            };
            for p in failed {
                match (plan.step(p).kind, verb) {
                    (Kind::Obtain { item: what, .. }, Some(verb)) if Some(what) != made => {
                        let inner: Vec<String> =
                            explain(plan, p, ev, depth + 1, seen).into_iter().map(|c| c.text).collect();
                        let what = item_words(ev.data, what);
                        let text = match inner.as_slice() {
                            [] => format!("no {what} to {verb}"),
                            _ => format!("no {what} to {verb} ({})", list(&inner)),
                        };
                        push_new(&mut out, Clause { text, lacks: Some(p), general: false });
                    }
                    _ => {
                        for c in explain(plan, p, ev, depth + 1, seen) {
                            push_new(&mut out, Clause::plain(said(plan, p, c.text, ev.data)));
                        }
                    }
                }
            }
            if out.is_empty() {
                if let Some(verb) = verb {
                    let bare = verb.trim_end_matches(" from").trim_end_matches(" with");
                    out.push(Clause::plain(format!("I could not {bare}")));
                }
            }
        }
        Kind::Station { item } => {
            let name = item_words(ev.data, item);
            let inner: Vec<String> = failed
                .into_iter()
                .flat_map(|c| {
                    let texts: Vec<String> =
                        explain(plan, c, ev, depth + 1, seen).into_iter().map(|x| x.text).collect();
                    texts.into_iter().map(move |t| said(plan, c, t, ev.data))
                })
                .collect();
            out.push(Clause::plain(match inner.as_slice() {
                [] => format!("no {name} in reach and none to place"),
                _ => format!("no {name} in reach ({})", inner.join("; ")),
            }));
        }
        Kind::Goals => {
            for c in failed {
                let texts: Vec<String> = explain(plan, c, ev, depth, seen).into_iter().map(|x| x.text).collect();
                for t in texts {
                    push_new(&mut out, Clause::plain(said(plan, c, t, ev.data)));
                }
            }
        }
        Kind::Leaf(leaf) => out.extend(leaf_reason(leaf, ev.know, ev.data).map(Clause::plain)),
    }
    if out.iter().all(|c| c.general) {
        if let Some(check) = ev.checks.get(&n) {
            out.push(Clause::plain(format!("it did not pass its check ({check})")));
        }
    }
    out
}

/// Adds a clause unless one says the same already.
fn push_new(out: &mut Vec<Clause>, c: Clause) {
    if !out.iter().any(|o| o.text == c.text) {
        out.push(c);
    }
}

/// A clause about step `n` said where `n` is not the subject: an `obtain`'s ways
/// become "no X: ..." (a leaf's or a recipe's clause is already a sentence).
fn said(plan: &Plan, n: StepId, text: String, data: &GameData) -> String {
    match plan.step(n).kind {
        Kind::Obtain { item, .. } => format!("no {}: {text}", item_words(data, item)),
        _ => text,
    }
}

/// What the teammates said of the item on the board: nothing in a crew of one; that
/// nobody can supply it only when every teammate said so; else who did, who offered
/// it, and that the others were not asked (the partner does not ask the board itself).
fn crew_clause(h: &Heard) -> Option<String> {
    let names = |v: &[AgentId]| list(&v.iter().map(ToString::to_string).collect::<Vec<_>>());
    if h.teammates.is_empty() {
        return None;
    }
    let refused: Vec<AgentId> = h.refused.iter().copied().filter(|a| !h.offered.contains(a)).collect();
    let quiet: Vec<AgentId> =
        h.teammates.iter().copied().filter(|a| !refused.contains(a) && !h.offered.contains(a)).collect();
    let not_asked = match quiet.as_slice() {
        [one] => format!("I have not asked my teammate {one}"),
        q => format!("I have not asked my {} teammates ({})", q.len(), names(q)),
    };
    Some(match (h.offered.as_slice(), refused.as_slice(), quiet.is_empty()) {
        ([], [], _) => not_asked,
        ([], r, true) => format!("nobody can supply it ({} said so on the board)", names(r)),
        ([], r, false) => format!("{} said on the board they cannot supply it, and {not_asked}", names(r)),
        (o, _, _) => format!("{} offered it on the board, not to me", names(o)),
    })
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
        Leaf::GoTo { to } => format!("I found no way to ({}, {}, {})", to.x, to.y, to.z),
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

#[cfg(test)]
mod tests;
