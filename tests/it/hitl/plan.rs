//! The plan operations on their own: switch backtracks to the lowest common ancestor,
//! delete to the nearest valid branching point, add of a new alternative of the active
//! OR switches to it; rule-based repair; the recipe planner's DAG; node resolution.

use gatecrew_hitl::goal::Goal;
use gatecrew_hitl::plan::repair::{repair, validate};
use gatecrew_hitl::plan::{Kind, Leaf, Origin, Plan, State};
use gatecrew_hitl::recipe::{PlannerConfig, RecipePlanner};
use gatecrew_hitl::resolve::{Resolution, choose, resolve};
use gatecrew_hitl::words::Vocabulary;
use gatecrew_hitl_app::eval::{Blank, build_plan};

use crate::common::{data, item};

fn label(p: &Plan, l: &str) -> gatecrew_hitl::plan::StepId {
    p.ids().into_iter().find(|n| p.label(*n) == l).unwrap_or_else(|| panic!("no node {l}"))
}

fn pickaxe() -> (Plan, Vocabulary) {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let p = build_plan(&d, &v, &[("crafting_table", 1), ("stick", 4)], 1, true);
    (p, v)
}

#[test]
fn the_small_plan_is_a_dag_of_twelve_nodes_with_shared_planks() {
    let (p, _) = pickaxe();
    assert_eq!(p.len(), 12);
    let planks = label(&p, "obtain 4 oak planks");
    assert_eq!(p.parents(planks).len(), 2, "shared by the table and the sticks");
    assert!(validate(&p).is_empty(), "{:?}", validate(&p));
    let active: Vec<&str> = p.path().iter().map(|n| p.label(*n)).collect();
    assert_eq!(active.last(), Some(&"collect 1 oak log"));
}

#[test]
fn switch_goes_through_the_lowest_common_ancestor_and_keeps_done_work() {
    let (mut p, _) = pickaxe();
    let log = label(&p, "collect 1 oak log");
    p.set_state(log, State::Done);
    let sticks = label(&p, "craft 4 stick");
    let up = p.switch_to(sticks).unwrap();
    assert_eq!(up.pivot, Some(p.root()), "the LCA of the table's branch and the sticks is the root");
    let path: Vec<&str> = p.path().iter().map(|n| p.label(*n)).collect();
    assert_eq!(path, ["my tasks", "obtain 4 stick", "craft stick from oak planks", "craft 4 stick"]);
    assert_eq!(p.step(log).state, State::Done, "nothing done is undone");
    // Within one branch the LCA is deeper.
    let planks_leaf = label(&p, "craft 4 oak planks");
    let up = p.switch_to(planks_leaf).unwrap();
    assert_eq!(p.label(up.pivot.unwrap()), "craft stick from oak planks");
}

#[test]
fn delete_backtracks_to_the_nearest_valid_branching_point() {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    // Two alternatives per OR: deleting the active alternative leaves its OR, which has
    // another, as the branching point.
    let mut p = build_plan(&d, &v, &[("crafting_table", 1)], 2, false);
    let oak = label(&p, "craft crafting table from oak planks");
    assert!(p.path().contains(&oak));
    let before = p.len();
    let up = p.delete(oak).unwrap();
    assert_eq!(p.label(up.pivot.unwrap()), "obtain 1 crafting table");
    assert!(up.removed >= 5 && p.len() == before - up.removed, "{up:?}");
    assert_eq!(p.next_leaf().map(|n| p.label(n).to_owned()).as_deref(), Some("collect 1 birch log"));
    // Deleting the goal itself leaves the root.
    let goal = label(&p, "obtain 1 crafting table");
    let up = p.delete(goal).unwrap();
    assert_eq!(up.pivot, Some(p.root()));
    assert_eq!(p.len(), 1);
    assert!(p.delete(p.root()).is_err());
}

#[test]
fn add_of_a_new_alternative_of_the_active_or_switches_to_it() {
    let (mut p, _) = pickaxe();
    let logs = label(&p, "obtain 1 oak log");
    let fetch = p.add_step(
        Kind::Leaf(Leaf::Fetch { item: item("oak_log"), from: Some(gatecrew_protocol::Pos::new(6, 0, -6)) }),
        "take oak log from the chest".into(),
        Origin::Person,
    );
    let up = p.attach(logs, fetch, 1, true).unwrap();
    assert!(up.switched);
    assert_eq!(p.active(), Some(fetch));
    assert_eq!(p.children(logs)[0], fetch, "a told source goes first");
    // Under the root it is one more goal, and nothing switches.
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let k = Blank::new(&d);
    let mut planner = RecipePlanner::new(&d, &v, &k, PlannerConfig::default(), Origin::Person);
    let sub = planner
        .plan_goal(&mut p, &Goal::Obtain { item: item("torch"), count: gatecrew_protocol::Count::new(4).unwrap() });
    let root = p.root();
    let up = p.attach(root, sub, planner.added(), false).unwrap();
    assert!(!up.switched);
    assert_eq!(p.active(), Some(fetch));
    assert!(p.preview().contains("; then obtain 4 stick (+1 more)"), "{}", p.preview());
    assert_eq!(p.open_goals().last(), Some(&sub));
}

#[test]
fn repair_removes_the_newest_edge_of_a_cycle_and_reconnects_orphans() {
    let (mut p, _) = pickaxe();
    // An add that attaches an existing node under its own descendant closes a cycle.
    let planks = label(&p, "obtain 4 oak planks");
    let log = label(&p, "obtain 1 oak log");
    p.link(log, planks);
    let flaws = validate(&p);
    assert!(flaws.iter().any(|f| f.rule() == "remove_newest_cycle_edge"), "{flaws:?}");
    let fixes = repair(&mut p);
    assert_eq!(fixes[0].rule, "remove_newest_cycle_edge");
    assert!(!p.children(log).contains(&planks), "the new edge went");
    assert!(validate(&p).is_empty());
    // A leaf with children, an orphan, an empty OR, an empty AND, a duplicate edge.
    let leaf = label(&p, "craft 4 stick");
    let stray = p.add_step(Kind::AllOf, "stray".into(), Origin::Planner);
    p.link(leaf, stray);
    let orphan = p.add_step(Kind::Obtain { item: item("torch"), count: 1 }, "obtain 1 torch".into(), Origin::Planner);
    let root = p.root();
    p.link(root, log);
    p.link(root, log);
    let fixes = repair(&mut p);
    let rules: Vec<&str> = fixes.iter().map(|f| f.rule).collect();
    for r in [
        "reconnect_children_of_leaf",
        "reconnect_orphan_to_root",
        "fail_empty_or",
        "remove_empty_and",
        "remove_duplicate_edge",
    ] {
        assert!(rules.contains(&r), "{r} missing from {rules:?}");
    }
    assert!(validate(&p).is_empty(), "{:?}", validate(&p));
    assert_eq!(p.step(orphan).state, State::Failed);
    assert!(p.parents(orphan).contains(&p.root()));
}

#[test]
fn names_resolve_exactly_by_item_and_fuzzily_and_ambiguity_is_reported() {
    let d = data();
    let v = Vocabulary::new(&d).unwrap();
    let mut p = build_plan(&d, &v, &[("crafting_table", 1), ("stick", 4)], 1, false);
    let one = |s: &str| match resolve(&p, s, &v, &d) {
        Resolution::One(n) => p.label(n).to_owned(),
        other => panic!("{s}: {other:?}"),
    };
    assert_eq!(one("craft 4 stick"), "craft 4 stick");
    assert_eq!(one("the table"), "obtain 1 crafting table");
    assert_eq!(one("crafting sticks"), "craft stick from oak planks");
    // Two goals each have their own planks: the one on the active path wins...
    assert!(matches!(resolve(&p, "wood planks", &v, &d), Resolution::One(n) if p.path().contains(&n)));
    // ... and with nothing active, which?
    p.stop();
    match resolve(&p, "wood planks", &v, &d) {
        Resolution::Many(opts) => {
            assert_eq!(opts.len(), 2);
            assert_eq!(choose(&p, "the second one", &opts), Some(opts[1]));
            assert_eq!(choose(&p, "2", &opts), Some(opts[1]));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(resolve(&p, "a diamond sword", &v, &d), Resolution::None);
}
