//! The open evaluation format: labelled lines anyone can write (`gatecrew hitl-eval
//! --utterances FILE`), one JSON object per line:
//!
//! ```json
//! {"text": "leave out the glass", "type": "delete", "node": "the windows", "plan": "house"}
//! {"text": "hold on!", "type": "stop", "plan": {"goal": "make a white bed"}}
//! {"text": "the roof first", "type": "switch", "node": "roof", "plan": {"blueprint": "house.toml"}}
//! ```
//!
//! Keys: `text` (or `say`, `utterance`, `line`) and `type` (or `intent`, `label`: switch,
//! add, delete, stop, new_task, chat, answer; `new task` and `question` are read as
//! new_task and chat) and `plan` are required; `part` may stand for `node`. `plan` is a built-in plan's name (`pickaxe`, `battle`,
//! `master`, `house`), a goal in words (`"a white bed"`), a file (`"house.toml"`: a
//! blueprint or a crew config; other files are task files), or an object with one of
//! `builtin`, `goal`, `blueprint`, `task` (and `id`, a task file's task). Files are
//! relative to the JSONL file. Optional: `node` (the node or part meant, by its label
//! or by words naming it in that plan), `goal` (the goal of an add or a new task:
//! `item xN`, `item @x,y,z`, `build`, or words), `parent` (an add's parent), `options`
//! (an answer's open question), `lang` (the line's language, ISO 639-1; `en` when
//! absent), `id` and `note` (free text). Any other key is an error
//! naming the file, line and key. A line that cannot be scored (its plan does not load,
//! its node names nothing in the plan) is counted and listed, never dropped.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use gatecrew_world::GameData;
use serde::Serialize;

use super::{build_plan, parse_goal, plans, question_text};
use gatecrew_hitl::classify::{Classify, Context};
use gatecrew_hitl::goal::{Goal, read_goal_checked};
use gatecrew_hitl::intent::{Intent, IntentType};
use gatecrew_hitl::plan::{Plan, StepId};
use gatecrew_hitl::resolve::{Resolution, choose, leaves_of, resolve};
use gatecrew_hitl::words::{Vocabulary, coords, words};

mod load;

pub use load::{BUILTIN, Labelled, PlanRef, load};

/// Builds every plan the set refers to, once each: built-in plans, goals, and files
/// (through `load_file`, which turns a blueprint, crew config or task file into a
/// blueprint). A plan that cannot be built is kept as its error.
pub fn prepare(
    set: &[Labelled],
    data: &GameData,
    vocab: &Vocabulary,
    load_file: &dyn Fn(&PlanRef) -> Result<gatecrew_world::Blueprint, String>,
) -> BTreeMap<PlanRef, Result<Plan, String>> {
    let refs: BTreeSet<PlanRef> = set.iter().map(|u| u.plan.clone()).collect();
    let mut builtin: BTreeMap<&'static str, Plan> = plans(data, vocab);
    builtin.insert("house", super::house_plan(data));
    refs.into_iter()
        .map(|r| {
            let p = match &r {
                PlanRef::Builtin(n) => builtin
                    .get(n.as_str())
                    .cloned()
                    .ok_or_else(|| format!("no built-in plan `{n}` (built-in: {})", BUILTIN.join(", "))),
                PlanRef::Goal(g) => match read_goal_checked(g, vocab) {
                    Some(Ok(Goal::Obtain { item, count })) => {
                        let name = data.item_name(item).to_owned();
                        Ok(build_plan(data, vocab, &[(name.as_str(), count.get())], 2, false))
                    }
                    Some(Err(bad)) => Err(format!("`{g}`: {bad}")),
                    _ => Err(format!(
                        "`{g}` is neither a built-in plan ({}) nor a goal naming an item",
                        BUILTIN.join(", ")
                    )),
                },
                PlanRef::Blueprint(_) | PlanRef::Task(..) => load_file(&r).map(|bp| super::blueprint_plan(&bp, data)),
            };
            (r, p)
        })
        .collect()
}

/// How one classification scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Score {
    /// Type and node/goal right.
    Right,
    /// Type right, the node ambiguous: the bot would ask (counted as not right).
    Asked,
    /// Type right, node or goal wrong.
    WrongNode,
    /// Type wrong.
    WrongType,
}

/// What a labelled node stands for in a plan: the nodes with that exact label, else
/// what the words resolve to when that is one node or one part.
fn expected(plan: &Plan, label: &str, vocab: &Vocabulary, data: &GameData) -> Result<Resolution, String> {
    let live = plan.reachable();
    let exact: Vec<StepId> = plan.ids().into_iter().filter(|n| live.contains(n) && plan.label(*n) == label).collect();
    if let [one] = exact.as_slice() {
        return Ok(Resolution::One(*one));
    }
    if exact.len() > 1 {
        return Ok(Resolution::Many(exact));
    }
    match resolve(plan, label, vocab, data) {
        r @ (Resolution::One(_) | Resolution::Part(_)) => Ok(r),
        Resolution::None => Err(format!("the labelled node `{label}` names nothing in the plan")),
        _ => Err(format!("the labelled node `{label}` names several things in the plan")),
    }
}

fn same(plan: &Plan, got: &Resolution, want: &Resolution) -> Score {
    let (g, w) = (leaves_of(plan, got), leaves_of(plan, want));
    let hit = |n: &StepId| match want {
        Resolution::One(m) => n == m,
        Resolution::Many(v) => v.contains(n),
        _ => false,
    };
    match got {
        _ if !w.is_empty() && g == w => Score::Right,
        Resolution::One(n) if hit(n) => Score::Right,
        Resolution::Many(v) if v.iter().any(hit) => Score::Asked,
        Resolution::Parts(v) if v.iter().any(|p| p.leaves.iter().copied().collect::<BTreeSet<_>>() == w) => {
            Score::Asked
        }
        _ => Score::WrongNode,
    }
}

/// Why a line cannot be scored, if it cannot (checked before classifying).
fn unscorable(plan: &Plan, u: &Labelled, vocab: &Vocabulary, data: &GameData) -> Option<String> {
    for l in u.node.iter().chain(&u.parent) {
        if let Err(e) = expected(plan, l, vocab, data) {
            return Some(e);
        }
    }
    if let Some(g) = &u.goal {
        if parse_goal(data, g).is_none() {
            return Some(format!("the labelled goal `{g}` names no item"));
        }
    }
    if u.kind == IntentType::Answer && u.options.is_empty() {
        return Some("an answer needs the question's `options`".into());
    }
    None
}

/// Scores one prediction.
pub fn score(plan: &Plan, u: &Labelled, got: &Intent, vocab: &Vocabulary, data: &GameData) -> Score {
    if got.kind != u.kind {
        return Score::WrongType;
    }
    let node_ok = |words_: Option<&str>, label: &str| -> Score {
        let Ok(want) = expected(plan, label, vocab, data) else { return Score::WrongNode };
        match words_ {
            Some(w) => same(plan, &resolve(plan, w, vocab, data), &want),
            None => Score::WrongNode,
        }
    };
    match u.kind {
        IntentType::Stop | IntentType::Chat => Score::Right,
        IntentType::Answer => {
            let opts: Vec<StepId> = u
                .options
                .iter()
                .filter_map(|l| expected(plan, l, vocab, data).ok())
                .filter_map(|r| match r {
                    Resolution::One(n) => Some(n),
                    _ => None,
                })
                .collect();
            let want = u.node.as_deref().and_then(|l| expected(plan, l, vocab, data).ok());
            match (choose(plan, &u.text, &opts), want) {
                (Some(n), Some(w)) => same(plan, &Resolution::One(n), &w),
                _ => Score::WrongNode,
            }
        }
        IntentType::Switch | IntentType::Delete => match &u.node {
            None if got.node.is_none() || u.kind == IntentType::Delete => Score::Right,
            None => Score::WrongNode,
            Some(label) => node_ok(got.node.as_deref(), label),
        },
        IntentType::Add | IntentType::NewTask => {
            if let Some(g) = &u.goal {
                let want = parse_goal(data, g);
                let words_ = got.node.clone().unwrap_or_else(|| u.text.clone());
                let mut goal = read_goal_checked(&words_, vocab).and_then(Result::ok);
                if let (Some(Goal::Obtain { item, .. }), Some((from, _))) = (goal, coords(&words(&u.text))) {
                    goal = Some(Goal::Fetch { item, from });
                }
                if goal.is_none() || goal != want {
                    return Score::WrongNode;
                }
            } else if let Some(label) = &u.node {
                let s = node_ok(got.node.as_deref(), label);
                if s != Score::Right {
                    return s;
                }
            }
            match &u.parent {
                Some(label) => node_ok(got.parent.as_deref(), label),
                None => Score::Right,
            }
        }
    }
}

/// One classified line.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Line in the file.
    pub line: usize,
    /// The plan's short name.
    pub plan: String,
    /// Plan size.
    pub nodes: usize,
    /// Expected type.
    pub expected: IntentType,
    /// Predicted type.
    pub got: IntentType,
    /// Whether a node, part or goal was labelled (node accuracy counts these).
    pub has_node: bool,
    /// Right, or which way it is wrong.
    pub score: Score,
    /// Wall-clock ms of the classification.
    pub ms: f64,
    /// Whether the model fell back to the parser.
    pub fell_back: bool,
    /// The chat line as labelled.
    pub text: String,
    /// Its language tag (`en` when untagged).
    pub lang: String,
}

/// A line that could not be scored, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Unscored {
    /// Line in the file.
    pub line: usize,
    /// The chat line as labelled.
    pub text: String,
    /// What keeps it from being scored (a label that names no node, say).
    pub why: String,
}

/// Classifies every scorable line with `c`; the others are returned with the reason.
pub fn run(
    set: &[Labelled],
    plans: &BTreeMap<PlanRef, Result<Plan, String>>,
    c: &mut dyn Classify,
    vocab: &Vocabulary,
    data: &GameData,
) -> (Vec<Row>, Vec<Unscored>) {
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for u in set {
        let plan = match plans.get(&u.plan) {
            Some(Ok(p)) => p,
            Some(Err(e)) => {
                skipped.push(Unscored { line: u.line, text: u.text.clone(), why: format!("plan: {e}") });
                continue;
            }
            None => {
                skipped.push(Unscored { line: u.line, text: u.text.clone(), why: "plan not prepared".into() });
                continue;
            }
        };
        if let Some(why) = unscorable(plan, u, vocab, data) {
            skipped.push(Unscored { line: u.line, text: u.text.clone(), why });
            continue;
        }
        let q = (!u.options.is_empty()).then(|| question_text(&u.options));
        let ctx = Context { plan, question: q.as_deref(), vocab, data };
        let start = Instant::now();
        let got = c.classify(&u.text, &ctx);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let s = score(plan, u, &got.intent, vocab, data);
        rows.push(Row {
            line: u.line,
            plan: u.plan.key(),
            nodes: plan.len(),
            expected: u.kind,
            got: got.intent.kind,
            has_node: u.node.is_some() || u.goal.is_some() || u.kind == IntentType::Answer,
            score: s,
            ms,
            fell_back: got.by == gatecrew_hitl::intent::Classifier::Fallback,
            text: u.text.clone(),
            lang: u.lang.clone().unwrap_or_else(|| "en".into()),
        });
    }
    (rows, skipped)
}
