//! The mechanics of an AND/OR graph, shared by the crew's task graph
//! ([`super::TaskGraph`]) and the human partner's plan (`gatecrew_hitl::plan`): nodes
//! with a payload, parent-to-child edges that order siblings by rank, prerequisite
//! edges, and backtracking to the nearest valid branching point.
//!
//! The graph is generic over the node payload `N`, not a wider `NodeKind`: the
//! partner's nodes carry a label for the person and an origin, and a string in every
//! crew node would make the gate's walks (which read nodes thousands of times per
//! episode) touch more memory for nothing. Each user's code is monomorphised, so the
//! crew's graph pays nothing for the partner's payload. The child edge is generic
//! too (`L`): the crew's is its rank (ranks are unique among siblings there), the
//! partner's also carries when it was made, which orders a re-linked child and tells
//! the repair rules which edge of a cycle is the newest.

use petgraph::Direction;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences, NodeIndexable};

/// A node of an AND/OR graph.
pub type NodeId = NodeIndex<u32>;

/// What a parent-to-child edge says about the child's place among its siblings.
pub trait ChildLink: Copy {
    /// The link of a child at `rank`, the `seq`-th link made in its graph.
    fn new(rank: u32, seq: u64) -> Self;
    /// The child's rank among its siblings (lower first).
    fn rank(&self) -> u32;
    /// Moves the child to `rank`.
    fn set_rank(&mut self, rank: u32);
    /// When the link was made (0 for a graph that does not keep it).
    fn seq(&self) -> u64;
}

/// The crew's child edge: its rank alone.
impl ChildLink for u32 {
    fn new(rank: u32, _seq: u64) -> Self {
        rank
    }
    fn rank(&self) -> u32 {
        *self
    }
    fn set_rank(&mut self, rank: u32) {
        *self = rank;
    }
    fn seq(&self) -> u64 {
        0
    }
}

/// Edge kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge<L = u32> {
    /// Parent to child, with the child's place among its siblings.
    Child(L),
    /// Prerequisite to dependent.
    Requires,
}

/// How a node branches, for backtracking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Branch {
    /// Independent goals: a failed child is set aside while the others go on.
    Tasks,
    /// Every child is needed: it fails with any child.
    AllOf,
    /// One of the children, tried in order.
    Or,
    /// World work, no children.
    Leaf,
}

/// What backtracking needs to know of a node.
pub trait Branching {
    /// How the node branches.
    fn branch(&self) -> Branch;
    /// Whether the node is still to be done (an alternative not yet tried).
    fn pending(&self) -> bool;
}

/// Where backtracking lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backtrack {
    /// An OR with untried alternatives: try this one next.
    Alternative {
        /// The OR.
        or: NodeId,
        /// Its next alternative.
        next: NodeId,
    },
    /// A task AND with other pending children: set the failed branch aside, go on.
    Continue {
        /// The AND.
        and: NodeId,
        /// The child under it whose branch failed.
        set_aside: NodeId,
    },
    /// Nothing above can recover.
    Exhausted,
}

/// An AND/OR graph. See the module docs.
#[derive(Debug, Clone)]
pub struct AndOr<N, L = u32> {
    g: StableDiGraph<N, Edge<L>, u32>,
    seq: u64,
}

impl<N, L: ChildLink> Default for AndOr<N, L> {
    fn default() -> Self {
        AndOr { g: StableDiGraph::default(), seq: 0 }
    }
}

impl<N, L: ChildLink> AndOr<N, L> {
    /// A graph built edge by edge elsewhere (the crew's, from the blueprint).
    pub fn from_graph(g: StableDiGraph<N, Edge<L>, u32>) -> Self {
        AndOr { g, seq: 0 }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.g.node_count()
    }

    /// Whether there is no node.
    pub fn is_empty(&self) -> bool {
        self.g.node_count() == 0
    }

    /// Whether a node exists.
    pub fn contains(&self, n: NodeId) -> bool {
        self.g.contains_node(n)
    }

    /// A node's payload.
    ///
    /// # Panics
    /// When `n` is not in the graph (ids come from the graph itself).
    pub fn node(&self, n: NodeId) -> &N {
        &self.g[n]
    }

    /// A node's payload, to change it.
    ///
    /// # Panics
    /// When `n` is not in the graph.
    pub fn node_mut(&mut self, n: NodeId) -> &mut N {
        &mut self.g[n]
    }

    /// A node's payload, if the node exists.
    pub fn get(&self, n: NodeId) -> Option<&N> {
        self.g.node_weight(n)
    }

    /// A node's payload to change, if the node exists.
    pub fn get_mut(&mut self, n: NodeId) -> Option<&mut N> {
        self.g.node_weight_mut(n)
    }

    /// One more than the largest node index (a bound for per-node tables).
    pub fn bound(&self) -> usize {
        self.g.node_bound()
    }

    /// Every node id, in index order (no allocation).
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.g.node_indices()
    }

    /// Every payload, in index order.
    pub fn payloads(&self) -> impl Iterator<Item = &N> + '_ {
        self.g.node_weights()
    }

    /// Adds a node with no edge yet.
    pub fn add(&mut self, n: N) -> NodeId {
        self.g.add_node(n)
    }

    /// Removes a node and its edges.
    pub fn remove(&mut self, n: NodeId) {
        self.g.remove_node(n);
    }

    /// Makes `child` the last child of `parent`.
    pub fn link(&mut self, parent: NodeId, child: NodeId) {
        let rank = self.child_links(parent).map(|(_, l)| l.rank() + 1).max().unwrap_or(0);
        self.seq += 1;
        self.g.add_edge(parent, child, Edge::Child(L::new(rank, self.seq)));
    }

    /// Makes `child` a child of `parent` at position `at` (0 = first), shifting the
    /// later siblings.
    pub fn link_at(&mut self, parent: NodeId, child: NodeId, at: usize) {
        let kids = self.children(parent);
        let edges: Vec<_> = self.g.edges_directed(parent, Direction::Outgoing).map(|e| e.id()).collect();
        for e in edges {
            let target = self.g.edge_endpoints(e).map(|(_, t)| t);
            let pos = target.and_then(|t| kids.iter().position(|k| *k == t)).unwrap_or(0);
            if let Some(Edge::Child(l)) = self.g.edge_weight_mut(e) {
                l.set_rank(if pos < at { pos as u32 } else { pos as u32 + 1 });
            }
        }
        self.seq += 1;
        self.g.add_edge(parent, child, Edge::Child(L::new(at.min(kids.len()) as u32, self.seq)));
    }

    /// Removes every child edge from `parent` to `child`; whether there was one.
    pub fn unlink(&mut self, parent: NodeId, child: NodeId) -> bool {
        let mut any = false;
        while let Some(e) = self.g.edges_connecting(parent, child).find(|e| matches!(e.weight(), Edge::Child(_))) {
            let id = e.id();
            self.g.remove_edge(id);
            any = true;
        }
        any
    }

    /// Removes the child edge made `seq`-th; whether there was one.
    pub fn unlink_seq(&mut self, seq: u64) -> bool {
        let e = (&self.g)
            .edge_references()
            .find(|e| matches!(e.weight(), Edge::Child(l) if l.seq() == seq))
            .map(|e| e.id());
        e.map(|e| self.g.remove_edge(e)).is_some()
    }

    fn child_links(&self, n: NodeId) -> impl Iterator<Item = (NodeId, L)> + '_ {
        self.g.edges_directed(n, Direction::Outgoing).filter_map(|e| match e.weight() {
            Edge::Child(l) => Some((e.target(), *l)),
            Edge::Requires => None,
        })
    }

    /// Children in order: by rank, then by when they were linked, then by id.
    pub fn children(&self, n: NodeId) -> Vec<NodeId> {
        let mut c: Vec<(u32, u64, NodeId)> = self.child_links(n).map(|(t, l)| (l.rank(), l.seq(), t)).collect();
        c.sort_unstable();
        c.into_iter().map(|(.., n)| n).collect()
    }

    /// Children in no particular order (no allocation), for questions whose answer
    /// does not depend on it.
    pub fn children_iter(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.child_links(n).map(|(t, _)| t)
    }

    /// A parent: the only one in a tree, the most recently linked in a DAG.
    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        self.g.edges_directed(n, Direction::Incoming).find(|e| matches!(e.weight(), Edge::Child(_))).map(|e| e.source())
    }

    /// Every parent, in id order (a shared node has several).
    pub fn parents(&self, n: NodeId) -> Vec<NodeId> {
        let mut p: Vec<NodeId> = self
            .g
            .edges_directed(n, Direction::Incoming)
            .filter(|e| matches!(e.weight(), Edge::Child(_)))
            .map(|e| e.source())
            .collect();
        p.sort();
        p.dedup();
        p
    }

    /// Every child edge: parent, child, link; ordered by parent, then as
    /// [`AndOr::children`] orders them.
    pub fn links(&self) -> Vec<(NodeId, NodeId, L)> {
        let mut v: Vec<(NodeId, NodeId, L)> = (&self.g)
            .edge_references()
            .filter_map(|e| match e.weight() {
                Edge::Child(l) => Some((e.source(), e.target(), *l)),
                Edge::Requires => None,
            })
            .collect();
        v.sort_by_key(|(p, c, l)| (*p, l.rank(), l.seq(), *c));
        v
    }

    /// Adds a prerequisite edge.
    pub fn add_requires(&mut self, before: NodeId, after: NodeId) {
        self.g.add_edge(before, after, Edge::Requires);
    }

    /// Direct prerequisites, in no particular order (no allocation).
    pub fn requires_iter(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.g
            .edges_directed(n, Direction::Incoming)
            .filter(|e| matches!(e.weight(), Edge::Requires))
            .map(|e| e.source())
    }

    /// Direct dependents, in no particular order (no allocation).
    pub fn dependents_iter(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.g
            .edges_directed(n, Direction::Outgoing)
            .filter(|e| matches!(e.weight(), Edge::Requires))
            .map(|e| e.target())
    }

    /// All transitive dependents into `out` (cleared first), in id order. A bit per
    /// node marks what was found and `out` doubles as the walk's stack: the gate walks
    /// several times per decision, and a set built per walk would allocate every time.
    pub fn descendants_into(&self, n: NodeId, out: &mut Vec<NodeId>) {
        self.descendants_with(n, out, &mut Vec::new());
        out.sort_unstable();
    }

    /// [`AndOr::descendants_into`] with the caller's bitset buffer, in the order found
    /// (not sorted): bit `i` of `seen` is set for each descendant of index `i`. No
    /// allocation once `out` and `seen` have grown.
    pub fn descendants_with(&self, n: NodeId, out: &mut Vec<NodeId>, seen: &mut Vec<u64>) {
        out.clear();
        seen.clear();
        seen.resize(self.g.node_bound().div_ceil(64), 0);
        let mut next = 0;
        let mut x = n;
        loop {
            for e in self.g.edges_directed(x, Direction::Outgoing) {
                let d = e.target();
                let (word, bit) = (d.index() / 64, 1u64 << (d.index() % 64));
                if matches!(e.weight(), Edge::Requires) && seen[word] & bit == 0 {
                    seen[word] |= bit;
                    out.push(d);
                }
            }
            let Some(&found) = out.get(next) else { break };
            next += 1;
            x = found;
        }
    }
}

impl<N: Branching, L: ChildLink> AndOr<N, L> {
    /// The nearest valid branching point above `failed` (DESIGN section 4): walking up
    /// through [`AndOr::parent`], an OR with a pending alternative after the failed
    /// branch, or a task AND with another pending child. An ALL-OF fails with its child.
    pub fn backtrack(&self, failed: NodeId) -> Backtrack {
        let mut child = failed;
        while let Some(p) = self.parent(child) {
            match self.g[p].branch() {
                Branch::Or => {
                    let alts = self.children(p);
                    let pos = alts.iter().position(|c| *c == child).unwrap_or(0);
                    if let Some(next) = alts[pos + 1..].iter().copied().find(|c| self.g[*c].pending()) {
                        return Backtrack::Alternative { or: p, next };
                    }
                }
                Branch::Tasks => {
                    if self.children_iter(p).any(|c| c != child && self.g[c].pending()) {
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

#[cfg(test)]
mod tests;
