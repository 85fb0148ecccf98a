//! One bot's task graph: the blueprint's graph, shared, under the bot's own layer.
//!
//! What [`build()`](super::build) makes from the blueprint (the root, a share per
//! agent, a place node per cell, the prerequisites, an empty `obtain` node per agent and
//! item) is the same for every bot and never changes shape afterwards: it lives once,
//! behind an `Arc` ([`Base`]). What is private is small: a state per node
//! ([`Mark`]), and the nodes a bot adds itself, which are only ever the alternatives
//! under its own `obtain` nodes and `obtain` nodes for items no place needs
//! ([`Own`]). A copy of the graph per bot would make a crew's memory grow with crew
//! size times blueprint size; this way a crew holds one, and a bot a byte or two per
//! node.
//!
//! Node ids are one space, as if the graph were one: the base's nodes first, then the
//! bot's own at `base.bound() + i` for its layer's index `i`. The own layer is a graph
//! of the same kind that only ever receives the additions and removals the single graph
//! received, so its indices (petgraph reuses a removed node's index for the next node
//! added) are the single graph's less the base: traces, which name nodes, are unchanged.
//! Edges between the layers (an alternative under a base `obtain` node, a prerequisite
//! from an own `obtain` node to a place) are kept in two short lists.

use std::collections::BTreeMap;
use std::sync::Arc;

use gatecrew_protocol::{AgentId, ItemId};
use petgraph::stable_graph::StableDiGraph;

mod watch;
pub use watch::{DescFacts, GateView};

use super::graph::{AndOr, Backtrack, Branch, Branching, Edge, NodeId};
use super::{Node, NodeKind, NodeState, Reach, Task};

/// What the blueprint made: shared by every bot of a crew.
#[derive(Debug)]
struct Base {
    g: AndOr<Node>,
    root: NodeId,
    agent_roots: Vec<NodeId>,
    /// Place node of each blueprint cell (`None` for the upper halves of tall blocks).
    cell_nodes: Vec<Option<NodeId>>,
    reach: Vec<Reach>,
    obtain: BTreeMap<(AgentId, ItemId), NodeId>,
}

/// A base node's private part.
#[derive(Debug, Clone, Copy)]
struct Mark {
    state: NodeState,
    expanded: bool,
}

/// The nodes and edges a bot added itself.
#[derive(Debug, Clone, Default)]
struct Own {
    g: AndOr<Node>,
    /// Child links from a base node to an own node: parent, child, rank.
    under_base: Vec<(NodeId, NodeId, u32)>,
    /// Prerequisite edges with an end in each layer: before, after.
    requires: Vec<(NodeId, NodeId)>,
    /// `obtain` nodes added for items no place node needs.
    obtain: BTreeMap<(AgentId, ItemId), NodeId>,
}

/// The task graph. See the module docs.
#[derive(Debug, Clone)]
pub struct TaskGraph {
    base: Arc<Base>,
    marks: Vec<Mark>,
    own: Own,
    /// Counts kept as node states change, so the gate reads them instead of walking
    /// every node per decision.
    tally: Tally,
    /// What the gate asks of the nodes it was asked about, kept as the graph changes.
    watches: watch::Watches,
}

/// Which layer a node is in, and its index there.
#[derive(Clone, Copy)]
enum At {
    Base(NodeId),
    Own(NodeId),
}

/// What the gate asks of the whole plan, kept by [`TaskGraph::set_state`]: only place
/// nodes count, and place nodes are made once, by [`build()`](super::build)
/// (expansions add fetch, craft, collect, smelt and station tasks, never places).
#[derive(Debug, Clone, Default)]
struct Tally {
    /// Place nodes pending or set aside, by item id: what the blueprint still needs of it.
    open: Vec<u32>,
    /// Place nodes not done.
    not_done: u32,
}

impl Tally {
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
        obtain: BTreeMap<(AgentId, ItemId), NodeId>,
    ) -> Self {
        let g = AndOr::from_graph(g);
        let mut marks = vec![Mark { state: NodeState::Pending, expanded: false }; g.bound()];
        let mut tally = Tally::default();
        for n in g.ids() {
            let node = g.node(n);
            marks[n.index()] = Mark { state: node.state, expanded: node.expanded };
            tally.add(node, 1);
        }
        let mut base = Base { g, root, agent_roots, cell_nodes, reach: Vec::new(), obtain };
        base.reach = compute_reach(&base.g);
        TaskGraph { base: Arc::new(base), marks, own: Own::default(), tally, watches: watch::Watches::default() }
    }

    #[inline]
    fn at(&self, n: NodeId) -> At {
        match n.index().checked_sub(self.marks.len()) {
            None => At::Base(n),
            Some(i) => At::Own(NodeId::new(i)),
        }
    }

    /// The layer's graph holding `n`, `n`'s index there, and what to add to an index
    /// there for the id: one iterator type for both layers.
    #[inline]
    fn layer(&self, n: NodeId) -> (&AndOr<Node>, NodeId, usize) {
        match self.at(n) {
            At::Base(b) => (&self.base.g, b, 0),
            At::Own(o) => (&self.own.g, o, self.marks.len()),
        }
    }

    #[inline]
    fn global(&self, own: NodeId) -> NodeId {
        NodeId::new(self.marks.len() + own.index())
    }

    /// The crew root.
    pub fn root(&self) -> NodeId {
        self.base.root
    }

    /// An agent's share (a task AND).
    pub fn agent_root(&self, a: AgentId) -> Option<NodeId> {
        self.base.agent_roots.get(a.index()).copied()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.base.g.len() + self.own.g.len()
    }

    /// Whether the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A node, as this bot knows it.
    #[inline]
    pub fn node(&self, n: NodeId) -> Node {
        match self.at(n) {
            At::Base(b) => {
                let Mark { state, expanded } = self.marks[b.index()];
                Node { state, expanded, ..*self.base.g.node(b) }
            }
            At::Own(o) => *self.own.g.node(o),
        }
    }

    /// A node's state, as this bot knows it ([`TaskGraph::node`]'s, without the copy).
    #[inline]
    pub fn state(&self, n: NodeId) -> NodeState {
        match self.at(n) {
            At::Base(b) => self.marks[b.index()].state,
            At::Own(o) => self.own.g.node(o).state,
        }
    }

    /// What a node is and whose, which no bot changes ([`TaskGraph::node`]'s, by
    /// reference).
    #[inline]
    pub fn kind(&self, n: NodeId) -> (&NodeKind, AgentId) {
        let node = match self.at(n) {
            At::Base(b) => self.base.g.node(b),
            At::Own(o) => self.own.g.node(o),
        };
        (&node.kind, node.owner)
    }

    /// Sets a node's state.
    pub fn set_state(&mut self, n: NodeId, s: NodeState) {
        let before = self.node(n);
        self.tally.add(&before, -1);
        self.tally.add(&Node { state: s, ..before }, 1);
        match self.at(n) {
            At::Base(b) => self.marks[b.index()].state = s,
            At::Own(o) => self.own.g.node_mut(o).state = s,
        }
        self.watch_state(n, before.state, s);
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
        self.base.cell_nodes.get(cell).copied().flatten()
    }

    /// Static facts of a place node.
    #[inline]
    pub fn reach_of(&self, n: NodeId) -> Reach {
        self.base.reach.get(n.index()).copied().unwrap_or_default()
    }

    /// The facts of any node: precomputed for place nodes, walked for others (an
    /// `obtain` node's dependents are the place nodes needing its item and everything
    /// resting on them).
    pub fn reach(&self, n: NodeId) -> Reach {
        if matches!(self.node(n).kind, NodeKind::Task(Task::Place { .. })) {
            return self.reach_of(n);
        }
        self.reach_given(n, &self.descendants(n))
    }

    /// Children in rank order.
    pub fn children(&self, n: NodeId) -> Vec<NodeId> {
        match self.at(n) {
            At::Own(o) => self.own.g.children(o).into_iter().map(|c| self.global(c)).collect(),
            At::Base(b) if self.own.under_base.iter().all(|(p, ..)| *p != b) => self.base.g.children(b),
            At::Base(b) => {
                // Ranks are unique among siblings here (see `add_child`), so rank then
                // id orders them as the single graph did.
                let mut c: Vec<(u32, NodeId)> =
                    self.base.g.children(b).into_iter().enumerate().map(|(i, c)| (i as u32, c)).collect();
                c.extend(self.own.under_base.iter().filter(|(p, ..)| *p == b).map(|&(_, c, r)| (r, c)));
                c.sort_unstable();
                c.into_iter().map(|(_, c)| c).collect()
            }
        }
    }

    /// Children in no particular order (no allocation), for questions whose answer
    /// does not depend on it.
    #[inline]
    pub fn children_iter(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let (g, local, offset) = self.layer(n);
        let under = self.own.under_base.iter().filter(move |(p, ..)| *p == n).map(|&(_, c, _)| c);
        g.children_iter(local).map(move |c| NodeId::new(c.index() + offset)).chain(under)
    }

    /// The parent (a node has at most one).
    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        match self.at(n) {
            At::Base(b) => self.base.g.parent(b),
            At::Own(o) => self
                .own
                .g
                .parent(o)
                .map(|p| self.global(p))
                .or_else(|| self.own.under_base.iter().find(|(_, c, _)| *c == n).map(|&(p, ..)| p)),
        }
    }

    /// Direct prerequisites, in id order.
    pub fn requires(&self, n: NodeId) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.requires_iter(n).collect();
        v.sort();
        v
    }

    /// Direct dependents, in id order.
    pub fn dependents(&self, n: NodeId) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.dependents_iter(n).collect();
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
    /// `out` has room.
    pub fn descendants_into(&self, n: NodeId, out: &mut Vec<NodeId>) {
        self.descendants_with(n, out, &mut Vec::new());
        out.sort_unstable();
    }

    /// [`TaskGraph::descendants_into`] with the caller's bitset buffer, in the order
    /// found (not sorted): bit `i` of `seen` is set for each descendant of index `i`, so a
    /// caller asks `seen` instead of searching `out`. No allocation once `out` and `seen`
    /// have grown: the gate asks on every decision.
    pub fn descendants_with(&self, n: NodeId, out: &mut Vec<NodeId>, seen: &mut Vec<u64>) {
        if self.own.requires.is_empty() && matches!(self.at(n), At::Base(_)) {
            // No edge leaves the base: its own walk.
            return self.base.g.descendants_with(n, out, seen);
        }
        out.clear();
        seen.clear();
        seen.resize((self.marks.len() + self.own.g.bound()).div_ceil(64), 0);
        let mut next = 0;
        let mut x = n;
        loop {
            for d in self.dependents_iter(x) {
                let (word, bit) = (d.index() / 64, 1u64 << (d.index() % 64));
                if seen[word] & bit == 0 {
                    seen[word] |= bit;
                    out.push(d);
                }
            }
            let Some(&found) = out.get(next) else { break };
            next += 1;
            x = found;
        }
    }

    /// [`TaskGraph::reach`] given the node's descendants (from
    /// [`TaskGraph::descendants`]), so a caller that has them does not walk again.
    pub fn reach_given(&self, n: NodeId, desc: &[NodeId]) -> Reach {
        let owner = self.node(n).owner;
        self.reach_with(n, desc.len(), desc.iter().any(|d| self.node(*d).owner != owner))
    }

    /// [`TaskGraph::reach_given`] from what a caller found walking the descendants
    /// itself: how many, and whether one is not `n`'s owner's.
    pub fn reach_with(&self, n: NodeId, dependents: usize, other_owner: bool) -> Reach {
        if matches!(self.node(n).kind, NodeKind::Task(Task::Place { .. })) {
            return self.reach_of(n);
        }
        let depth = self.dependents_iter(n).map(|d| 1 + self.reach_of(d).depth).max().unwrap_or(0);
        Reach { dependents: dependents as u32, depth, teammate_dependents: other_owner }
    }

    /// Direct prerequisites, in no particular order (no allocation).
    #[inline]
    pub fn requires_iter(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let (g, local, offset) = self.layer(n);
        let across = self.own.requires.iter().filter(move |(_, a)| *a == n).map(|&(b, _)| b);
        g.requires_iter(local).map(move |c| NodeId::new(c.index() + offset)).chain(across)
    }

    /// Direct dependents, in no particular order (no allocation).
    #[inline]
    pub fn dependents_iter(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let (g, local, offset) = self.layer(n);
        let across = self.own.requires.iter().filter(move |(b, _)| *b == n).map(|&(_, a)| a);
        g.dependents_iter(local).map(move |c| NodeId::new(c.index() + offset)).chain(across)
    }

    /// Every node with its id, in index order (no allocation).
    pub fn nodes(&self) -> impl Iterator<Item = (NodeId, Node)> + '_ {
        self.base.g.ids().chain(self.own.g.ids().map(|o| self.global(o))).map(|n| (n, self.node(n)))
    }

    /// Adds a child at the end of `parent`'s list. (Its rank is one past the largest
    /// sibling's: ranks here run 0, 1, 2, ... without gaps, as the blueprint's build and
    /// every expansion after [`TaskGraph::clear_below`] number them.)
    pub fn add_child(&mut self, parent: NodeId, kind: NodeKind) -> NodeId {
        let owner = self.node(parent).owner;
        let o = self.own.g.add(Node { kind, owner, state: NodeState::Pending, expanded: false });
        match self.at(parent) {
            At::Own(p) => self.own.g.link(p, o),
            At::Base(b) => {
                let rank = self.children_iter(parent).count() as u32;
                let n = self.global(o);
                self.own.under_base.push((b, n, rank));
            }
        }
        self.watch_child(parent, self.global(o));
        self.global(o)
    }

    /// Adds a node with no parent (a top-level `obtain` for an item no place node uses).
    pub fn add_detached(&mut self, kind: NodeKind, owner: AgentId) -> NodeId {
        let o = self.own.g.add(Node { kind, owner, state: NodeState::Pending, expanded: false });
        self.global(o)
    }

    /// The top-level `obtain` node of an agent for an item, if the graph has one.
    pub fn obtain_node(&self, owner: AgentId, item: ItemId) -> Option<NodeId> {
        let key = (owner, item);
        self.base.obtain.get(&key).or_else(|| self.own.obtain.get(&key)).copied()
    }

    /// The top-level `obtain` node of an agent for an item, created if missing.
    pub fn obtain_node_or_add(&mut self, owner: AgentId, item: ItemId) -> NodeId {
        if let Some(n) = self.obtain_node(owner, item) {
            return n;
        }
        let n = self.add_detached(NodeKind::Obtain { item }, owner);
        self.own.obtain.insert((owner, item), n);
        n
    }

    /// Removes everything below `n` (its alternatives, before a fresh expansion) and
    /// resets it to pending.
    pub fn clear_below(&mut self, n: NodeId) {
        let mut gone = Vec::new();
        let mut stack = self.children(n);
        while let Some(c) = stack.pop() {
            stack.extend(self.children_iter(c));
            gone.push(c);
        }
        self.watch_removed(&gone);
        let mut stack = self.children(n);
        while let Some(c) = stack.pop() {
            stack.extend(self.children(c));
            let At::Own(o) = self.at(c) else { unreachable!("only a bot's own nodes are ever below another") };
            self.tally.add(&self.node(c), -1);
            self.own.g.remove(o);
            self.own.under_base.retain(|(_, k, _)| *k != c);
            self.own.requires.retain(|(b, a)| *b != c && *a != c);
        }
        match self.at(n) {
            At::Base(b) => self.marks[b.index()].expanded = false,
            At::Own(o) => self.own.g.node_mut(o).expanded = false,
        }
        self.set_state(n, NodeState::Pending);
    }

    /// Adds a prerequisite edge.
    pub fn add_requires(&mut self, before: NodeId, after: NodeId) {
        match (self.at(before), self.at(after)) {
            (At::Own(b), At::Own(a)) => self.own.g.add_requires(b, a),
            _ => self.own.requires.push((before, after)),
        }
        self.watch_edge(before, after);
    }

    /// Marks an `Obtain` node as expanded.
    pub fn mark_expanded(&mut self, n: NodeId) {
        match self.at(n) {
            At::Base(b) => self.marks[b.index()].expanded = true,
            At::Own(o) => self.own.g.node_mut(o).expanded = true,
        }
    }

    /// Every node id, in index order.
    pub fn node_ids(&self) -> Vec<NodeId> {
        self.nodes().map(|(n, _)| n).collect()
    }

    /// The nearest valid branching point above `failed` (DESIGN section 4): walking up,
    /// an `Obtain` OR with a pending alternative after the failed branch, or a task AND
    /// with another pending child. An ALL-OF AND fails with its child. (The rule of
    /// [`AndOr::backtrack`], over both layers.)
    pub fn backtrack(&self, failed: NodeId) -> Backtrack {
        let mut child = failed;
        while let Some(p) = self.parent(child) {
            match self.node(p).branch() {
                Branch::Or => {
                    let alts = self.children(p);
                    let pos = alts.iter().position(|c| *c == child).unwrap_or(0);
                    if let Some(next) = alts[pos + 1..].iter().copied().find(|c| self.node(*c).pending()) {
                        return Backtrack::Alternative { or: p, next };
                    }
                }
                Branch::Tasks => {
                    if self.children_iter(p).any(|c| c != child && self.node(c).pending()) {
                        return Backtrack::Continue { and: p, set_aside: child };
                    }
                }
                Branch::AllOf | Branch::Leaf => {}
            }
            child = p;
        }
        Backtrack::Exhausted
    }
}

/// Every place node's [`Reach`], from the blueprint's graph alone (before any bot adds
/// to it).
fn compute_reach(g: &AndOr<Node>) -> Vec<Reach> {
    let bound = g.bound();
    let mut out = vec![Reach::default(); bound];
    // Depth by memoised DFS over `requires` edges (the place graph is a DAG: it follows
    // the blueprint's support forest).
    let mut depth: Vec<Option<u32>> = vec![None; bound];
    fn depth_of(g: &AndOr<Node>, n: NodeId, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(d) = memo[n.index()] {
            return d;
        }
        let deps: Vec<NodeId> = g.dependents_iter(n).collect();
        let d = deps.into_iter().map(|c| 1 + depth_of(g, c, memo)).max().unwrap_or(0);
        memo[n.index()] = Some(d);
        d
    }
    let mut desc = Vec::new();
    for n in g.ids() {
        if !matches!(g.node(n).kind, NodeKind::Task(Task::Place { .. })) {
            continue;
        }
        g.descendants_into(n, &mut desc);
        let owner = g.node(n).owner;
        out[n.index()] = Reach {
            dependents: desc.len() as u32,
            depth: depth_of(g, n, &mut depth),
            teammate_dependents: desc.iter().any(|d| g.node(*d).owner != owner),
        };
    }
    out
}
