//! The AND/OR task graph: generation from a blueprint and backtracking to the nearest
//! valid branching point.

use std::path::Path;

use gatecrew_crew::plan::{AndKind, Backtrack, NodeKind, NodeState, Task, build, split_work};
use gatecrew_protocol::AgentId;
use gatecrew_world::Blueprint;

use crate::common::{data, item};

fn small_graph() -> gatecrew_crew::plan::TaskGraph {
    let text = "name = \"wall\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [3, 1, 0]\nblock = \"cobblestone\"\n";
    let bp = Blueprint::parse(text, Path::new("wall.toml"), &data()).unwrap();
    let owners = split_work(&bp, 2);
    build(&bp, &owners, 2, &data())
}

#[test]
fn generation_splits_the_work_and_orders_by_support() {
    let g = small_graph();
    let mut total = 0;
    for a in [AgentId(0), AgentId(1)] {
        let places = g.children(g.agent_root(a).unwrap());
        assert!(!places.is_empty(), "both agents get work");
        total += places.len();
        // Build order: a node's own-agent prerequisites come before it.
        for (i, n) in places.iter().enumerate() {
            for r in g.requires(*n) {
                if let Some(j) = places.iter().position(|m| *m == r) {
                    assert!(j < i, "prerequisite after dependent");
                }
            }
        }
    }
    assert_eq!(total, 8);
    // Upper-row cells depend on the cell below.
    let upper = g.cell_node(1).unwrap();
    assert_eq!(g.reach_of(g.cell_node(0).unwrap()).dependents, 1);
    assert!(g.requires(upper).contains(&g.cell_node(0).unwrap()));
}

#[test]
fn backtracking_finds_the_nearest_valid_branching_point() {
    let mut g = small_graph();
    let a = AgentId(0);
    // obtain X: [fetch X | all-of(obtain Y: [fetch Y | collect Y], craft X) | collect X]
    let top = g.obtain_node_or_add(a, item("oak_planks"));
    let fetch_x = g.add_child(top, NodeKind::Task(Task::Fetch { item: item("oak_planks") }));
    let recipe = g.add_child(top, NodeKind::And(AndKind::AllOf));
    let obtain_y = g.add_child(recipe, NodeKind::Obtain { item: item("oak_log") });
    let fetch_y = g.add_child(obtain_y, NodeKind::Task(Task::Fetch { item: item("oak_log") }));
    let log = data().block("oak_log").unwrap();
    let collect_y = g.add_child(obtain_y, NodeKind::Task(Task::Collect { item: item("oak_log"), block: log }));
    let craft = g.add_child(recipe, NodeKind::Task(Task::Craft { recipe: data().recipes_for(item("oak_planks"))[0] }));
    let collect_x = g.add_child(top, NodeKind::Task(Task::Collect { item: item("oak_planks"), block: log }));

    // The first alternative fails: try the next one of the same OR.
    g.set_state(fetch_x, NodeState::Failed);
    assert_eq!(g.backtrack(fetch_x), Backtrack::Alternative { or: top, next: recipe });
    // Inside the recipe: a failed ingredient source moves to the ingredient's next source.
    g.set_state(fetch_y, NodeState::Failed);
    assert_eq!(g.backtrack(fetch_y), Backtrack::Alternative { or: obtain_y, next: collect_y });
    // The ingredient's last source fails: the ALL-OF fails with it, and the nearest
    // valid point is the top OR's next alternative, not the craft beside it.
    g.set_state(collect_y, NodeState::Failed);
    assert_eq!(g.backtrack(collect_y), Backtrack::Alternative { or: top, next: collect_x });
    // The craft failing does the same.
    assert_eq!(g.backtrack(craft), Backtrack::Alternative { or: top, next: collect_x });
    // Nothing left: exhausted.
    g.set_state(collect_x, NodeState::Failed);
    assert_eq!(g.backtrack(collect_x), Backtrack::Exhausted);
}

#[test]
fn a_failed_place_node_lets_the_agent_go_on_with_other_work() {
    let mut g = small_graph();
    let root = g.agent_root(AgentId(0)).unwrap();
    let places = g.children(root);
    let first = places[0];
    g.set_state(first, NodeState::Failed);
    assert_eq!(g.backtrack(first), Backtrack::Continue { and: root, set_aside: first });
    // With all its other nodes done, the agent's branch is set aside at the crew level.
    for n in &places[1..] {
        g.set_state(*n, NodeState::Done);
    }
    assert_eq!(g.backtrack(first), Backtrack::Continue { and: g.root(), set_aside: root });
}

/// The counts the gate reads instead of walking the plan must equal a walk
/// after any sequence of state changes and expansions cleared again.
#[test]
fn the_plan_keeps_its_place_counts_as_states_change() {
    let text = "name = \"mix\"\n[[fill]]\nfrom = [0, 0, 0]\nto = [3, 2, 0]\nblock = \"cobblestone\"\n\
                [[fill]]\nfrom = [0, 0, 1]\nto = [3, 0, 1]\nblock = \"oak_planks\"\n";
    let bp = Blueprint::parse(text, Path::new("mix.toml"), &data()).unwrap();
    let owners = split_work(&bp, 3);
    let mut g = build(&bp, &owners, 3, &data());
    let walk = |g: &gatecrew_crew::plan::TaskGraph| {
        let mut open = std::collections::BTreeMap::new();
        let mut not_done = 0;
        for (_, node) in g.nodes() {
            let NodeKind::Task(Task::Place { item, .. }) = node.kind else { continue };
            if matches!(node.state, NodeState::Pending | NodeState::SetAside) {
                *open.entry(item).or_insert(0u32) += 1;
            }
            not_done += u32::from(node.state != NodeState::Done);
        }
        (open, not_done)
    };
    let check = |g: &gatecrew_crew::plan::TaskGraph| {
        let (open, not_done) = walk(g);
        assert_eq!(g.open_places_by_item().collect::<std::collections::BTreeMap<_, _>>(), open);
        assert_eq!(g.places_not_done(), not_done);
        for (i, n) in &open {
            assert_eq!(g.open_places(*i), *n);
        }
    };
    check(&g);
    assert_eq!(g.places_not_done(), 16);
    let places: Vec<_> = (0..bp.len()).filter_map(|c| g.cell_node(c)).collect();
    let states = [NodeState::Done, NodeState::SetAside, NodeState::Failed, NodeState::Pending, NodeState::Done];
    // A fixed walk through every transition, including a state set twice in a row.
    for (k, n) in places.iter().enumerate() {
        for s in states.iter().cycle().skip(k % states.len()).take(1 + k % 3) {
            g.set_state(*n, *s);
            check(&g);
        }
    }
    // Expansions are not places; clearing them leaves the counts alone.
    let top = g.obtain_node_or_add(AgentId(1), item("oak_planks"));
    let fetch = g.add_child(top, NodeKind::Task(Task::Fetch { item: item("oak_planks") }));
    g.set_state(fetch, NodeState::Failed);
    g.set_state(top, NodeState::Failed);
    g.clear_below(top);
    check(&g);
    assert!(g.places_not_done() < 16, "some places were marked done");
}

/// A bot's own nodes sit on the shared blueprint graph: alternatives under a
/// blueprint `obtain` node, cleared and made again, take the ids one graph would have
/// given them (petgraph reuses a removed node's index), backtracking crosses from the
/// bot's layer into the blueprint's, and a prerequisite across the layers is walked.
#[test]
fn a_bots_own_nodes_continue_the_shared_graph() {
    use petgraph::stable_graph::StableDiGraph;
    let mut g = small_graph();
    let a = AgentId(0);
    let stone = item("cobblestone");
    let top = g.obtain_node(a, stone).expect("the blueprint made an obtain node for cobblestone");
    // The reference: one plain graph given the same additions and removals.
    let mut one: StableDiGraph<(), ()> = StableDiGraph::default();
    for _ in 0..g.len() {
        one.add_node(());
    }
    let log = data().block("cobblestone").unwrap();
    let mut made = Vec::new();
    for round in 0..3 {
        let fetch = g.add_child(top, NodeKind::Task(Task::Fetch { item: stone }));
        let collect = g.add_child(top, NodeKind::Task(Task::Collect { item: stone, block: log }));
        for n in [fetch, collect] {
            assert_eq!(n, one.add_node(()), "round {round}: the id one graph would give");
        }
        assert_eq!(g.children(top), vec![fetch, collect]);
        assert_eq!(g.parent(fetch), Some(top));
        g.set_state(fetch, NodeState::Failed);
        assert_eq!(g.backtrack(fetch), Backtrack::Alternative { or: top, next: collect });
        made = vec![fetch, collect];
        g.clear_below(top);
        // clear_below pops the last child first.
        one.remove_node(collect);
        one.remove_node(fetch);
        assert!(g.children(top).is_empty());
    }
    assert_eq!(made.len(), 2);
    // A prerequisite from an own obtain node to a blueprint place node is walked.
    let glass = g.obtain_node_or_add(a, item("glass"));
    let place = g.children(g.agent_root(a).unwrap())[0];
    g.add_requires(glass, place);
    assert!(g.requires(place).contains(&glass));
    let desc = g.descendants(glass);
    assert!(desc.contains(&place) && desc.len() as u32 == 1 + g.reach_of(place).dependents);
    // Another bot's copy of the same blueprint graph sees none of it.
    let other = small_graph();
    assert_eq!(other.obtain_node(a, item("glass")), None);
}
