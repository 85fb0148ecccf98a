//! The intent benchmark (paper 000, section 4.5): labelled utterances over plans of 12,
//! 120 and 215 nodes, classified by the deterministic parser and, when an endpoint is
//! given, by a language model; accuracy and latency of each, and the latency of the
//! graph update of each intervention type.
//!
//! The three plans come from the recipe planner with nothing known of the world (the
//! knowledge-free estimate orders alternatives): a wooden pickaxe; "battle prep"; the
//! "master plan". An utterance is right when its type is right and its node resolves to
//! the labelled node (switch, delete; an answer picks the labelled option), its goal is
//! the labelled goal (add, new task; with the labelled parent), or it needs none (stop,
//! chat, resume).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use gatecrew_crew::agent::Physics;
use gatecrew_protocol::{Count, ItemId, Pos};
use gatecrew_world::cost::Knowledge as Know;
use gatecrew_world::{BlockId, GameData, Rules, TickCosts};

use gatecrew_hitl::goal::{Goal, read_goal_checked};
use gatecrew_hitl::plan::repair::repair;
use gatecrew_hitl::plan::{Kind, Leaf, Origin, Plan, StepId};
use gatecrew_hitl::recipe::{PlannerConfig, RecipePlanner};
use gatecrew_hitl::resolve::{Resolution, resolve};
use gatecrew_hitl::words::Vocabulary;

/// A benchmark plan: its name, its goals (item, count), the alternatives kept per OR,
/// and whether the goals share one planner (and so their common nodes).
pub type PlanSpec = (&'static str, &'static [(&'static str, u32)], usize, bool);

/// The benchmark plans, 12, 120 and 215 nodes as in paper 000: what a wooden pickaxe
/// needs (a table and sticks, one alternative per OR, shared nodes); "battle prep" (an
/// iron pickaxe, a stone sword, a table, sticks); the "master plan" (a bed, an iron
/// pickaxe, a stone sword, a furnace, ladders, doors), two alternatives per OR.
pub const PLANS: [PlanSpec; 3] = [
    ("pickaxe", &[("crafting_table", 1), ("stick", 4)], 1, true),
    ("battle", &[("iron_pickaxe", 1), ("stone_sword", 1), ("crafting_table", 1), ("stick", 8)], 2, false),
    (
        "master",
        &[("white_bed", 1), ("iron_pickaxe", 1), ("stone_sword", 1), ("furnace", 1), ("ladder", 4), ("oak_door", 2)],
        2,
        false,
    ),
];

/// Knows nothing of a world: the knowledge-free planner.
pub struct Blank<'a> {
    data: &'a GameData,
    physics: Physics,
}

impl<'a> Blank<'a> {
    /// Over `data`, with the default rules.
    pub fn new(data: &'a GameData) -> Self {
        Blank { data, physics: Physics::new(&Rules::default(), data) }
    }
}

impl Know for Blank<'_> {
    fn data(&self) -> &GameData {
        self.data
    }
    fn here(&self) -> Pos {
        Pos::new(0, 0, 0)
    }
    fn held(&self, _: ItemId) -> u32 {
        0
    }
    fn stored(&self, _: ItemId) -> Vec<(Pos, u32)> {
        Vec::new()
    }
    fn nearest_resource(&self, _: BlockId) -> Option<Pos> {
        None
    }
    fn table(&self) -> Option<Pos> {
        None
    }
    fn furnace(&self) -> Option<Pos> {
        None
    }
    fn table_item(&self) -> Option<ItemId> {
        self.physics.table.1
    }
    fn furnace_item(&self) -> Option<ItemId> {
        self.physics.furnace.1
    }
    fn reach(&self) -> f64 {
        self.physics.reach
    }
    fn ticks(&self) -> TickCosts {
        self.physics.ticks
    }
}

/// Builds a benchmark plan from goals; the first leaf is made active.
pub fn build_plan(
    data: &GameData,
    vocab: &Vocabulary,
    goals: &[(&str, u32)],
    alternatives: usize,
    shared: bool,
) -> Plan {
    let k = Blank::new(data);
    let cfg = PlannerConfig { max_alternatives: alternatives, ..PlannerConfig::default() };
    let mut plan = Plan::new("my tasks");
    let root = plan.root();
    let mut one = RecipePlanner::new(data, vocab, &k, cfg.clone(), Origin::Person);
    for (name, count) in goals {
        let (Ok(item), Ok(count)) = (data.item(name), Count::new(i64::from(*count))) else { continue };
        let goal = Goal::Obtain { item, count };
        // Separate planners: goals added one by one do not share nodes.
        let sub = if shared {
            one.plan_goal(&mut plan, &goal)
        } else {
            RecipePlanner::new(data, vocab, &k, cfg.clone(), Origin::Person).plan_goal(&mut plan, &goal)
        };
        plan.link(root, sub);
    }
    repair(&mut plan);
    if let Some(leaf) = plan.next_leaf() {
        let _ = plan.switch_to(leaf);
    }
    plan
}

/// The three benchmark plans, by name.
pub fn plans(data: &GameData, vocab: &Vocabulary) -> BTreeMap<&'static str, Plan> {
    PLANS.iter().map(|(name, goals, k, shared)| (*name, build_plan(data, vocab, goals, *k, *shared))).collect()
}

mod open;

pub use open::{Labelled, PlanRef, Row, Score, Unscored, load, prepare, run, score};

/// The house built into the benchmark: the suite's small house (a cobblestone
/// foundation with a door, plank walls with glass, a slab roof), planned as parts.
pub const HOUSE: &str = include_str!("../../configs/suite/blueprints/house-small.toml");

/// A plan of a whole blueprint as the partner plans a build: parts of place leaves
/// under one build goal, the first leaf active.
pub fn blueprint_plan(bp: &gatecrew_world::Blueprint, data: &GameData) -> Plan {
    let facts = gatecrew_hitl::parts::cell_facts(bp, data);
    let all: std::collections::BTreeSet<usize> = facts.keys().copied().collect();
    let mut plan = Plan::new("my tasks");
    let label = format!("build {}", bp.name);
    let b = gatecrew_hitl::parts::plan_build(&mut plan, &facts, &all, label, data, Origin::Person);
    let root = plan.root();
    plan.link(root, b);
    repair(&mut plan);
    if let Some(leaf) = plan.next_leaf() {
        let _ = plan.switch_to(leaf);
    }
    plan
}

/// The built-in house plan.
pub fn house_plan(data: &GameData) -> Plan {
    let bp = gatecrew_world::Blueprint::parse(HOUSE, Path::new("house-small.toml"), data)
        .unwrap_or_else(|e| panic!("the built-in house blueprint does not load: {e}"));
    blueprint_plan(&bp, data)
}

/// The goal a label string names: `oak_log x10`, `white_wool @3,0,5`, `build`; or
/// words ("a white bed", "10 oak logs").
pub fn parse_goal(data: &GameData, s: &str) -> Option<Goal> {
    if s == "build" {
        return Some(Goal::Build);
    }
    let (name, rest) = s.split_once(' ').unwrap_or((s, ""));
    let Ok(item) = data.item(name) else {
        return Vocabulary::new(data).ok().and_then(|v| read_goal_checked(s, &v)).and_then(Result::ok);
    };
    if let Some(n) = rest.strip_prefix('x') {
        return Some(Goal::Obtain { item, count: Count::new(n.parse().ok()?).ok()? });
    }
    if let Some(p) = rest.strip_prefix('@') {
        let v: Vec<i32> = p.split(',').filter_map(|x| x.trim().parse().ok()).collect();
        if let [x, y, z] = v.as_slice() {
            return Some(Goal::Fetch { item, from: Pos::new(*x, *y, *z) });
        }
        return None;
    }
    Count::new(1).ok().map(|count| Goal::Obtain { item, count })
}

/// The options' question text, as the bot asks it.
pub fn question_text(options: &[String]) -> String {
    let list: Vec<String> = options.iter().enumerate().map(|(i, l)| format!("{}) {l}", i + 1)).collect();
    format!("Which one do you mean: {}?", list.join(", "))
}

/// Median and 95th percentile of a list of milliseconds.
pub fn percentiles(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let at = |q: f64| s[((q * (s.len() - 1) as f64).round() as usize).min(s.len() - 1)];
    (at(0.5), at(0.95))
}

/// Graph-update latency per intervention type on `plan`, `reps` times each, in µs
/// (median): the update the session makes, resolution and repair included.
pub fn update_latency(plan: &Plan, vocab: &Vocabulary, data: &GameData, reps: usize) -> Vec<(&'static str, f64)> {
    let k = Blank::new(data);
    let leaves: Vec<StepId> = plan.ids().into_iter().filter(|n| plan.step(*n).kind.is_leaf()).collect();
    let target = leaves.get(leaves.len() / 2).copied().unwrap_or(plan.root());
    let target_label = plan.label(target).to_owned();
    let goal = plan.children(plan.root()).last().copied().unwrap_or(plan.root());
    let or = plan.ids().into_iter().find(|n| matches!(plan.step(*n).kind, Kind::Obtain { .. }) && *n != goal);
    let stick = data.item("stick").ok();
    let mut out = Vec::new();
    let mut time = |name: &'static str, f: &mut dyn FnMut(&mut Plan)| {
        let mut v = Vec::with_capacity(reps);
        for _ in 0..reps {
            let mut p = plan.clone();
            let s = Instant::now();
            f(&mut p);
            v.push(s.elapsed().as_secs_f64() * 1e6);
        }
        out.push((name, percentiles(&v).0));
    };
    time("switch", &mut |p| {
        if let Resolution::One(n) = resolve(p, &target_label, vocab, data) {
            let _ = p.switch_to(n);
        }
        repair(p);
        let _ = p.preview();
    });
    time("delete", &mut |p| {
        let _ = p.delete(goal);
        repair(p);
        let _ = p.preview();
    });
    time("add", &mut |p| {
        if let (Some(stick), Some(or), Ok(count)) = (stick, or, Count::new(4)) {
            let mut pl = RecipePlanner::new(data, vocab, &k, PlannerConfig::default(), Origin::Person);
            let sub = pl.plan_goal(p, &Goal::Obtain { item: stick, count });
            let added = pl.added();
            let _ = p.attach(or, sub, added, false);
        }
        repair(p);
        let _ = p.preview();
    });
    time("add_fetch", &mut |p| {
        if let Some(or) = or {
            let item = match p.step(or).kind {
                Kind::Obtain { item, .. } => item,
                _ => return,
            };
            let sub = p.add_step(
                Kind::Leaf(Leaf::Fetch { item, from: Some(Pos::new(3, 0, 5)) }),
                "take".into(),
                Origin::Person,
            );
            let _ = p.attach(or, sub, 1, true);
        }
        repair(p);
        let _ = p.preview();
    });
    time("stop", &mut |p| {
        let _ = p.stop();
        let _ = p.preview();
    });
    time("new_task", &mut |p| {
        let mut fresh = Plan::new("my tasks");
        if let (Some(stick), Ok(count)) = (stick, Count::new(4)) {
            let mut pl = RecipePlanner::new(data, vocab, &k, PlannerConfig::default(), Origin::Person);
            let sub = pl.plan_goal(&mut fresh, &Goal::Obtain { item: stick, count });
            let root = fresh.root();
            let _ = fresh.attach(root, sub, 0, false);
        }
        repair(&mut fresh);
        let _ = fresh.preview();
        *p = fresh;
    });
    out
}
