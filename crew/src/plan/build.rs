//! Generating the crew's task graph from the blueprint and the split.

use gatecrew_protocol::AgentId;
use gatecrew_world::{Blueprint, GameData, Part};
use petgraph::stable_graph::StableDiGraph;

use super::{AndKind, Edge, Node, NodeKind, NodeState, Task, TaskGraph};

/// Builds the graph: a root AND, one task AND per agent with its place nodes in build
/// order (support level, then height, then position), `requires` edges from each
/// cell's support, and an empty `Obtain` OR per agent and item, required by the place
/// nodes that use the item.
pub fn build(bp: &Blueprint, owners: &[AgentId], agents: usize, data: &GameData) -> TaskGraph {
    let mut g: StableDiGraph<Node, Edge, u32> = StableDiGraph::default();
    let node = |kind, owner| Node { kind, owner, state: NodeState::Pending, expanded: false };
    let root = g.add_node(node(NodeKind::And(AndKind::Tasks), AgentId(0)));
    let agent_roots: Vec<_> = (0..agents)
        .map(|a| {
            let n = g.add_node(node(NodeKind::And(AndKind::Tasks), AgentId(a as u32)));
            g.add_edge(root, n, Edge::Child(a as u32));
            n
        })
        .collect();
    let cells = bp.cells();
    let mut order: Vec<usize> = (0..cells.len()).filter(|&i| cells[i].part != Part::Upper).collect();
    order.sort_by_key(|&i| (cells[i].level, cells[i].pos.y, cells[i].pos));
    let mut cell_nodes = vec![None; cells.len()];
    let mut ranks = vec![0u32; agents];
    for &i in &order {
        let c = &cells[i];
        let owner = owners[i];
        let Some(item) = data.block_info(c.block).item else {
            continue;
        };
        let task = Task::Place { cell: i as u32, pos: c.pos, block: c.block, item };
        let n = g.add_node(node(NodeKind::Task(task), owner));
        let a = owner.index();
        g.add_edge(agent_roots[a], n, Edge::Child(ranks[a]));
        ranks[a] += 1;
        cell_nodes[i] = Some(n);
    }
    // Upper halves share their lower half's node.
    for (i, c) in cells.iter().enumerate() {
        if c.part == Part::Upper {
            cell_nodes[i] = c.support.and_then(|s| cell_nodes[s]);
        }
    }
    for (i, c) in cells.iter().enumerate() {
        let (Some(n), Some(s)) = (cell_nodes[i], c.support) else {
            continue;
        };
        if c.part == Part::Upper {
            continue;
        }
        if let Some(sn) = cell_nodes[s] {
            if sn != n {
                g.add_edge(sn, n, Edge::Requires);
            }
        }
    }
    // One obtain node per (agent, item), required by the place nodes that use it.
    let mut obtain: std::collections::BTreeMap<(AgentId, gatecrew_protocol::ItemId), _> =
        std::collections::BTreeMap::new();
    for &i in &order {
        let Some(n) = cell_nodes[i] else { continue };
        let NodeKind::Task(Task::Place { item, .. }) = g[n].kind else {
            continue;
        };
        let owner = g[n].owner;
        let o = *obtain.entry((owner, item)).or_insert_with(|| g.add_node(node(NodeKind::Obtain { item }, owner)));
        g.add_edge(o, n, Edge::Requires);
    }
    TaskGraph::from_parts(g, root, agent_roots, cell_nodes, obtain)
}
