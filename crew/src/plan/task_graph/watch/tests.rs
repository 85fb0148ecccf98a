//! The kept counts against the walk, on random graphs under random sequences of every
//! change a bot makes to its plan.

use gatecrew_protocol::{AgentId, ItemId, Pos};
use gatecrew_world::BlockId;
use petgraph::stable_graph::StableDiGraph;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::plan::{AndKind, Edge, Node, NodeId, NodeKind, NodeState, Task, TaskGraph};

const STATES: [NodeState; 4] = [NodeState::Pending, NodeState::Done, NodeState::Failed, NodeState::SetAside];

/// A crew's graph as `build()` makes one: a root, a share per agent, place nodes with
/// prerequisites among them (from lower to higher index: a DAG), an `obtain` node per
/// agent and item its places use.
fn random_graph(rng: &mut ChaCha8Rng) -> (TaskGraph, u32, u16) {
    let agents = rng.random_range(1..=4u32);
    let items = rng.random_range(1..=4u16);
    let node = |kind, owner| Node { kind, owner, state: NodeState::Pending, expanded: false };
    let mut g: StableDiGraph<Node, Edge, u32> = StableDiGraph::default();
    let root = g.add_node(node(NodeKind::And(AndKind::Tasks), AgentId(0)));
    let roots: Vec<NodeId> = (0..agents)
        .map(|a| {
            let n = g.add_node(node(NodeKind::And(AndKind::Tasks), AgentId(a)));
            g.add_edge(root, n, Edge::Child(a));
            n
        })
        .collect();
    let mut ranks = vec![0; agents as usize];
    let mut places = Vec::new();
    for cell in 0..rng.random_range(0..40u32) {
        let owner = rng.random_range(0..agents);
        let item = ItemId(rng.random_range(0..items));
        let task = Task::Place { cell, pos: Pos::new(0, 0, 0), block: BlockId::AIR, item };
        let n = g.add_node(node(NodeKind::Task(task), AgentId(owner)));
        g.add_edge(roots[owner as usize], n, Edge::Child(ranks[owner as usize]));
        ranks[owner as usize] += 1;
        for _ in 0..rng.random_range(0..3) {
            if !places.is_empty() {
                let before = places[rng.random_range(0..places.len())];
                g.add_edge(before, n, Edge::Requires);
            }
        }
        places.push(n);
    }
    let mut obtain = std::collections::BTreeMap::new();
    for &p in &places {
        let (owner, NodeKind::Task(Task::Place { item, .. })) = (g[p].owner, g[p].kind) else { unreachable!() };
        let o = *obtain.entry((owner, item)).or_insert_with(|| g.add_node(node(NodeKind::Obtain { item }, owner)));
        g.add_edge(o, p, Edge::Requires);
    }
    let cells = places.iter().map(|p| Some(*p)).collect();
    (TaskGraph::from_parts(g, root, roots, cells, obtain), agents, items)
}

/// Every fact of `gate_view` equals the walk's, and so does every membership and the
/// viewer's place nodes of every item.
fn check(g: &TaskGraph, n: Option<NodeId>, viewer: AgentId, items: u16) {
    let (mut list, mut seen) = (Vec::new(), Vec::new());
    let walked = g.walked_facts(n, viewer, &mut list, &mut seen);
    let bound = g.node_ids().last().map_or(0, |m| m.index() + 1) + 64;
    g.gate_view(n, viewer, |v| {
        assert_eq!(v.facts(), walked, "{n:?} for {viewer:?}");
        for i in 0..bound {
            let m = NodeId::new(i);
            let in_walk = seen.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0);
            assert_eq!(v.contains(m), in_walk, "{m:?} below {n:?}");
        }
        for item in (0..items + 2).map(ItemId) {
            let mut kept = v.places_of(item).to_vec();
            kept.sort();
            let share = g.agent_root(viewer).map(|r| g.children(r)).unwrap_or_default();
            let mut walked: Vec<NodeId> = share
                .into_iter()
                .filter(|m| matches!(g.kind(*m).0, NodeKind::Task(Task::Place { item: i, .. }) if *i == item))
                .collect();
            walked.sort();
            assert_eq!(kept, walked, "{viewer:?}'s places of {item:?}");
        }
    });
}

#[test]
fn kept_counts_equal_the_walk_under_random_changes() {
    for seed in 0..400 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut g, agents, items) = random_graph(&mut rng);
        let pick = |rng: &mut ChaCha8Rng, v: &[NodeId]| (!v.is_empty()).then(|| v[rng.random_range(0..v.len())]);
        // The nodes asked about again and again, so that watches live across changes.
        let mut focus: Vec<NodeId> = Vec::new();
        for _ in 0..80 {
            let ids = g.node_ids();
            // Nodes whose children are all the bot's own: what a fresh expansion clears.
            let clearable: Vec<NodeId> = ids
                .iter()
                .copied()
                .filter(|&m| {
                    matches!(g.kind(m).0, NodeKind::Obtain { .. } | NodeKind::And(AndKind::AllOf))
                        || m.index() >= g.marks.len()
                })
                .collect();
            match rng.random_range(0..100) {
                0..45 => {
                    let m = pick(&mut rng, &ids).expect("the root is always there");
                    g.set_state(m, STATES[rng.random_range(0..4)]);
                }
                45..60 => {
                    let parent = if rng.random_range(0..10) == 0 {
                        g.agent_root(AgentId(rng.random_range(0..agents)))
                    } else {
                        pick(&mut rng, &clearable)
                    };
                    if let Some(parent) = parent {
                        let item = ItemId(rng.random_range(0..items + 2));
                        let kind = match rng.random_range(0..3) {
                            0 => NodeKind::Obtain { item },
                            1 => NodeKind::And(AndKind::AllOf),
                            _ => NodeKind::Task(Task::Fetch { item }),
                        };
                        let c = g.add_child(parent, kind);
                        focus.push(c);
                    }
                }
                60..75 => {
                    let (Some(b), Some(a)) = (pick(&mut rng, &ids), pick(&mut rng, &ids)) else { continue };
                    if a != b {
                        g.add_requires(b, a);
                    }
                }
                75..80 => {
                    let n = g.obtain_node_or_add(
                        AgentId(rng.random_range(0..agents)),
                        ItemId(rng.random_range(0..items + 2)),
                    );
                    focus.push(n);
                }
                80..88 => {
                    if let Some(n) = pick(&mut rng, &clearable) {
                        g.clear_below(n);
                    }
                }
                _ => {
                    let m = pick(&mut rng, &ids);
                    focus.extend(m);
                }
            }
            let ids = g.node_ids();
            focus.retain(|f| ids.contains(f));
            if focus.len() > 6 {
                focus.drain(..focus.len() - 6);
            }
            for viewer in 0..agents {
                for &f in &focus {
                    check(&g, Some(f), AgentId(viewer), items);
                }
                check(&g, None, AgentId(viewer), items);
            }
        }
    }
}
