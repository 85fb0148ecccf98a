//! The AND/OR task graph (DESIGN section 4, paper 000).
//!
//! One graph describes the crew's whole job: a root AND over one AND per agent, whose
//! children are that agent's `place` nodes in build order. `requires` edges say which
//! node must be done first (a block's support, possibly a teammate's). Material comes
//! from `obtain` OR nodes, one per agent and item, whose alternatives are added in cost
//! order when the local solver first needs them: take it from a container in reach,
//! craft it (an ALL-OF of obtaining the ingredients, then the craft), mine it, smelt
//! it. The local solver's `LOCAL_RECOVER` chain is exactly that ordered list.
//!
//! Every agent holds its own copy; the state of each node (pending, done, failed, set
//! aside) is private. [`TaskGraph::backtrack`] finds the nearest valid branching point
//! above a failed node: an OR with untried alternatives, or a task AND with other
//! pending children.
//!
//! The graph's mechanics (ranked children, prerequisites, backtracking) are
//! [`graph::AndOr`], which the partner's plan (`gatecrew_hitl::plan`) uses too, with
//! nodes of its own.

mod build;
pub mod graph;
pub mod obtain;
mod split;

use gatecrew_protocol::{AgentId, ItemId, Pos};
use gatecrew_world::BlockId;
use gatecrew_world::data::RecipeId;
use petgraph::stable_graph::StableDiGraph;

pub use build::build;
pub use graph::{Backtrack, Edge, NodeId};
pub use split::split_work;

use graph::{AndOr, Branch, Branching};

/// The two kinds of AND.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AndKind {
    /// Independent goals (an agent's share): a failed child can be set aside while the
    /// others go on.
    Tasks,
    /// Every child is needed for the parent's purpose (ingredients, then the craft).
    AllOf,
}

/// A leaf task: one world action, or a short fixed sequence of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Task {
    /// Place a blueprint cell.
    Place {
        /// Blueprint cell index.
        cell: u32,
        /// Where.
        pos: Pos,
        /// The block.
        block: BlockId,
        /// The item that places it.
        item: ItemId,
    },
    /// Take an item from a known container or dropped stack.
    Fetch {
        /// The item.
        item: ItemId,
    },
    /// Craft a recipe.
    Craft {
        /// The recipe.
        recipe: RecipeId,
    },
    /// Mine blocks for their drops.
    Collect {
        /// The item wanted.
        item: ItemId,
        /// The block that drops it.
        block: BlockId,
    },
    /// Smelt in a furnace.
    Smelt {
        /// Input.
        input: ItemId,
        /// Output.
        output: ItemId,
    },
    /// Make sure a crafting station (table or furnace) is in reach: go to a known one
    /// or place one from the inventory.
    Station {
        /// The station's item.
        item: ItemId,
    },
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeKind {
    /// All children.
    And(AndKind),
    /// One of the children, tried in order; `item` is what it obtains.
    Obtain {
        /// The item.
        item: ItemId,
    },
    /// A leaf.
    Task(Task),
}

/// Where a node stands, privately for the agent holding this copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeState {
    /// Not done.
    Pending,
    /// Done (seen or verified).
    Done,
    /// Tried and failed (an alternative that did not work).
    Failed,
    /// Set aside by `LOCAL_SKIP`, to be revisited.
    SetAside,
}

/// A node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Whose it is.
    pub owner: AgentId,
    /// Its state.
    pub state: NodeState,
    /// Whether an `Obtain` node's alternatives were generated.
    pub expanded: bool,
}

impl Branching for Node {
    fn branch(&self) -> Branch {
        match self.kind {
            NodeKind::And(AndKind::Tasks) => Branch::Tasks,
            NodeKind::And(AndKind::AllOf) => Branch::AllOf,
            NodeKind::Obtain { .. } => Branch::Or,
            NodeKind::Task(_) => Branch::Leaf,
        }
    }

    fn pending(&self) -> bool {
        self.state == NodeState::Pending
    }
}

/// Static facts about a place node, computed once when the graph is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reach {
    /// Place nodes that depend on it, transitively.
    pub dependents: u32,
    /// Longest chain of dependents.
    pub depth: u32,
    /// Whether a teammate owns one of them.
    pub teammate_dependents: bool,
}

/// The task graph. See the module docs.
#[derive(Debug, Clone)]
pub struct TaskGraph {
    g: AndOr<Node>,
    root: NodeId,
    agent_roots: Vec<NodeId>,
    /// Place node of each blueprint cell (`None` for the upper halves of tall blocks).
    cell_nodes: Vec<Option<NodeId>>,
    reach: Vec<Reach>,
    obtain: std::collections::BTreeMap<(AgentId, ItemId), NodeId>,
    /// Counts kept as node states change, so the gate reads them instead of walking
    /// every node per decision (issue 20).
    tally: Tally,
}

/// What the gate asks of the whole plan, kept by [`TaskGraph::set_state`]: only place
/// nodes count, and place nodes are made once, by [`build()`] (expansions add fetch,
/// craft, collect, smelt and station tasks, never places).
#[derive(Debug, Clone, Default)]
struct Tally {
    /// Place nodes pending or set aside, by item id: what the blueprint still needs of it.
    open: Vec<u32>,
    /// Place nodes not done.
    not_done: u32,
}

impl Tally {
    fn of(g: &AndOr<Node>) -> Self {
        let mut t = Tally::default();
        for n in g.ids() {
            t.add(g.node(n), 1);
        }
        t
    }

    /// Counts `node` in (`sign` 1) or out (-1).
    fn add(&mut self, node: &Node, sign: i32) {
        let NodeKind::Task(Task::Place { item, .. }) = node.kind else { return };
        let shift = |c: &mut u32| *c = c.checked_add_signed(sign).expect("a tally never goes below zero");
        if matches!(node.state, NodeState::Pending | NodeState::SetAside) {
            let i = usize::from(item.0);
            if i >= self.open.len() {
                self.open.resize(i + 1, 0);
            }
            shift(&mut self.open[i]);
        }
        if node.state != NodeState::Done {
            shift(&mut self.not_done);
        }
    }
}

impl TaskGraph {
    pub(crate) fn from_parts(
        g: StableDiGraph<Node, Edge, u32>,
        root: NodeId,
        agent_roots: Vec<NodeId>,
        cell_nodes: Vec<Option<NodeId>>,
        obtain: std::collections::BTreeMap<(AgentId, ItemId), NodeId>,
    ) -> Self {
        let g = AndOr::from_graph(g);
        let tally = Tally::of(&g);
        let mut t = TaskGraph { g, root, agent_roots, cell_nodes, reach: Vec::new(), obtain, tally };
        t.reach = t.compute_reach();
        t
    }

    /// The crew root.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// An agent's share (a task AND).
    pub fn agent_root(&self, a: AgentId) -> Option<NodeId> {
        self.agent_roots.get(a.index()).copied()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.g.len()
    }

    /// Whether the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.g.is_empty()
    }

    /// A node.
    pub fn node(&self, n: NodeId) -> &Node {
        self.g.node(n)
    }

    /// Sets a node's state.
    pub fn set_state(&mut self, n: NodeId, s: NodeState) {
        let node = self.g.node_mut(n);
        self.tally.add(node, -1);
        node.state = s;
        self.tally.add(node, 1);
    }

    /// Place nodes of `item` still pending or set aside (no walk: kept as states change).
    pub fn open_places(&self, item: ItemId) -> u32 {
        self.tally.open.get(usize::from(item.0)).copied().unwrap_or(0)
    }

    /// Every item some place node still needs, with [`TaskGraph::open_places`], in item
    /// order.
    pub fn open_places_by_item(&self) -> impl Iterator<Item = (ItemId, u32)> + '_ {
        let id = |i: usize| ItemId(u16::try_from(i).expect("the tally is indexed by item id"));
        self.tally.open.iter().enumerate().filter(|(_, c)| **c > 0).map(move |(i, c)| (id(i), *c))
    }

    /// Place nodes not done, the crew's and this agent's alike.
    pub fn places_not_done(&self) -> u32 {
        self.tally.not_done
    }

    /// The place node of a blueprint cell.
    pub fn cell_node(&self, cell: usize) -> Option<NodeId> {
        self.cell_nodes.get(cell).copied().flatten()
    }

    /// Static facts of a place node.
    pub fn reach_of(&self, n: NodeId) -> Reach {
        self.reach.get(n.index()).copied().unwrap_or_default()
    }

    /// The facts of any node: precomputed for place nodes, walked for others (an
    /// `obtain` node's dependents are the place nodes needing its item and everything
    /// resting on them).
    pub fn reach(&self, n: NodeId) -> Reach {
        if matches!(self.g.node(n).kind, NodeKind::Task(Task::Place { .. })) {
            return self.reach_of(n);
        }
        self.reach_given(n, &self.descendants(n))
    }

    /// Children in rank order.
    pub fn children(&self, n: NodeId) -> Vec<NodeId> {
        self.g.children(n)
    }

    /// Children in no particular order (no allocation), for questions whose answer
    /// does not depend on it.
    pub fn children_iter(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.g.children_iter(n)
    }

    /// The parent (a node has at most one).
    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        self.g.parent(n)
    }

    /// Direct prerequisites, in id order.
    pub fn requires(&self, n: NodeId) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.g.requires_iter(n).collect();
        v.sort();
        v
    }

    /// Direct dependents, in id order.
    pub fn dependents(&self, n: NodeId) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.g.dependents_iter(n).collect();
        v.sort();
        v
    }

    /// All transitive dependents, in id order.
    pub fn descendants(&self, n: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        self.descendants_into(n, &mut out);
        out
    }

    /// [`TaskGraph::descendants`] into `out` (cleared first), without allocating when
    /// `out` has room ([`AndOr::descendants_into`]).
    pub fn descendants_into(&self, n: NodeId, out: &mut Vec<NodeId>) {
        self.g.descendants_into(n, out);
    }

    /// [`TaskGraph::descendants_into`] with the caller's bitset buffer, in the order
    /// found (not sorted): bit `i` of `seen` is set for each descendant of index `i`, so a
    /// caller asks `seen` instead of searching `out`. No allocation once `out` and `seen`
    /// have grown (the gate, issue 20).
    pub fn descendants_with(&self, n: NodeId, out: &mut Vec<NodeId>, seen: &mut Vec<u64>) {
        self.g.descendants_with(n, out, seen);
    }

    /// [`TaskGraph::reach`] given the node's descendants (from
    /// [`TaskGraph::descendants`]), so a caller that has them does not walk again.
    pub fn reach_given(&self, n: NodeId, desc: &[NodeId]) -> Reach {
        if matches!(self.g.node(n).kind, NodeKind::Task(Task::Place { .. })) {
            return self.reach_of(n);
        }
        let owner = self.g.node(n).owner;
        let depth = self.g.dependents_iter(n).map(|d| 1 + self.reach_of(d).depth).max().unwrap_or(0);
        Reach {
            dependents: desc.len() as u32,
            depth,
            teammate_dependents: desc.iter().any(|d| self.g.node(*d).owner != owner),
        }
    }

    /// [`TaskGraph::reach_given`] from what a caller found walking the descendants
    /// itself: how many, and whether one is not `n`'s owner's.
    pub fn reach_with(&self, n: NodeId, dependents: usize, other_owner: bool) -> Reach {
        if matches!(self.g.node(n).kind, NodeKind::Task(Task::Place { .. })) {
            return self.reach_of(n);
        }
        let depth = self.g.dependents_iter(n).map(|d| 1 + self.reach_of(d).depth).max().unwrap_or(0);
        Reach { dependents: dependents as u32, depth, teammate_dependents: other_owner }
    }

    /// Direct prerequisites, in no particular order (no allocation).
    pub fn requires_iter(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.g.requires_iter(n)
    }

    /// Every node with its id, in index order (no allocation).
    pub fn nodes(&self) -> impl Iterator<Item = (NodeId, &Node)> + '_ {
        self.g.ids().map(|n| (n, self.g.node(n)))
    }

    /// Adds a child at the end of `parent`'s list. (Its rank is one past the largest
    /// sibling's: ranks here run 0, 1, 2, ... without gaps, as the blueprint's build and
    /// every expansion after [`TaskGraph::clear_below`] number them.)
    pub fn add_child(&mut self, parent: NodeId, kind: NodeKind) -> NodeId {
        let owner = self.g.node(parent).owner;
        let n = self.g.add(Node { kind, owner, state: NodeState::Pending, expanded: false });
        self.g.link(parent, n);
        n
    }

    /// Adds a node with no parent (a top-level `obtain` for an item no place node uses).
    pub fn add_detached(&mut self, kind: NodeKind, owner: AgentId) -> NodeId {
        self.g.add(Node { kind, owner, state: NodeState::Pending, expanded: false })
    }

    /// The top-level `obtain` node of an agent for an item, if the graph has one.
    pub fn obtain_node(&self, owner: AgentId, item: ItemId) -> Option<NodeId> {
        self.obtain.get(&(owner, item)).copied()
    }

    /// The top-level `obtain` node of an agent for an item, created if missing.
    pub fn obtain_node_or_add(&mut self, owner: AgentId, item: ItemId) -> NodeId {
        if let Some(n) = self.obtain_node(owner, item) {
            return n;
        }
        let n = self.add_detached(NodeKind::Obtain { item }, owner);
        self.obtain.insert((owner, item), n);
        n
    }

    /// Removes everything below `n` (its alternatives, before a fresh expansion) and
    /// resets it to pending.
    pub fn clear_below(&mut self, n: NodeId) {
        let mut stack = self.children(n);
        while let Some(c) = stack.pop() {
            stack.extend(self.children(c));
            self.tally.add(self.g.node(c), -1);
            self.g.remove(c);
        }
        self.g.node_mut(n).expanded = false;
        self.set_state(n, NodeState::Pending);
    }

    /// Adds a prerequisite edge.
    pub fn add_requires(&mut self, before: NodeId, after: NodeId) {
        self.g.add_requires(before, after);
    }

    /// Marks an `Obtain` node as expanded.
    pub fn mark_expanded(&mut self, n: NodeId) {
        self.g.node_mut(n).expanded = true;
    }

    /// Every node id, in index order.
    pub fn node_ids(&self) -> Vec<NodeId> {
        self.g.ids().collect()
    }

    /// The nearest valid branching point above `failed` (DESIGN section 4): walking up,
    /// an `Obtain` OR with a pending alternative after the failed branch, or a task AND
    /// with another pending child. An ALL-OF AND fails with its child.
    pub fn backtrack(&self, failed: NodeId) -> Backtrack {
        self.g.backtrack(failed)
    }

    fn compute_reach(&self) -> Vec<Reach> {
        let bound = self.g.ids().map(|n| n.index() + 1).max().unwrap_or(0);
        let mut out = vec![Reach::default(); bound];
        // Depth by memoised DFS over `requires` edges (the place graph is a DAG: it
        // follows the blueprint's support forest).
        let mut depth: Vec<Option<u32>> = vec![None; bound];
        fn depth_of(t: &TaskGraph, n: NodeId, memo: &mut Vec<Option<u32>>) -> u32 {
            if let Some(d) = memo[n.index()] {
                return d;
            }
            let d = t.dependents(n).into_iter().map(|c| 1 + depth_of(t, c, memo)).max().unwrap_or(0);
            memo[n.index()] = Some(d);
            d
        }
        for n in self.g.ids() {
            if !matches!(self.g.node(n).kind, NodeKind::Task(Task::Place { .. })) {
                continue;
            }
            let desc = self.descendants(n);
            let owner = self.g.node(n).owner;
            out[n.index()] = Reach {
                dependents: desc.len() as u32,
                depth: depth_of(self, n, &mut depth),
                teammate_dependents: desc.iter().any(|d| self.g.node(*d).owner != owner),
            };
        }
        out
    }
}
