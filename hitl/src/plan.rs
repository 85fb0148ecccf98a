//! The partner's plan: an AND/OR DAG the person can see and change (paper 000,
//! sections 3.1-3.3; DESIGN section 11).
//!
//! The root is a list of independent goals (a task AND). A goal is an `obtain` OR
//! ("obtain 1 white bed") whose alternatives are tried in cost order: a recipe (an
//! ALL-OF of obtaining each ingredient, a station, then the craft), collecting, smelting,
//! taking from a container. The crew's construction share is one more goal, a leaf the
//! bot's own agent core works through. Nodes are shared where two parents need the same
//! thing (one "obtain oak planks" for the table and the sticks): it is a DAG, not a tree.
//!
//! The plan also holds the *active path*, root to the node being worked on. The person's
//! interventions ([`ops`]) edit the graph and the path and nothing else: the rest of
//! the plan is never re-planned. [`repair`] checks a plan and fixes what is wrong by
//! rules; [`preview`] says in one line what the bot will do now.

pub mod ops;
pub mod preview;
pub mod regroup;
pub mod repair;
mod step;

use std::collections::{BTreeSet, VecDeque};

use gatecrew_protocol::ItemId;
use petgraph::Direction;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};

/// A node of the plan.
pub type StepId = NodeIndex<u32>;

pub use step::{Group, Kind, Leaf, Link, Origin, State, Step};

/// The plan. See the module docs.
#[derive(Debug, Clone)]
pub struct Plan {
    g: StableDiGraph<Step, Link, u32>,
    root: StepId,
    path: Vec<StepId>,
    idle: bool,
    /// The active path when the person stopped the bot: where "go on" resumes.
    held: Vec<StepId>,
    groups: std::collections::BTreeMap<StepId, Group>,
    seq: u64,
}

impl Plan {
    /// An empty plan: a root of goals with no goal yet.
    pub fn new(root_label: &str) -> Self {
        let mut g = StableDiGraph::default();
        let root = g.add_node(Step {
            kind: Kind::Goals,
            label: root_label.to_owned(),
            state: State::Pending,
            origin: Origin::Planner,
        });
        Plan { g, root, path: Vec::new(), idle: false, held: Vec::new(), groups: Default::default(), seq: 0 }
    }

    /// The root: the task AND of the person's goals.
    pub fn root(&self) -> StepId {
        self.root
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.g.node_count()
    }

    /// Whether the plan has only its root.
    pub fn is_empty(&self) -> bool {
        self.g.node_count() <= 1
    }

    /// Whether a node exists.
    pub fn contains(&self, n: StepId) -> bool {
        self.g.contains_node(n)
    }

    /// The node `n`: its kind, label and state.
    ///
    /// # Panics
    /// When `n` is not in the plan (ids come from the plan itself).
    pub fn step(&self, n: StepId) -> &Step {
        &self.g[n]
    }

    /// A node's label.
    pub fn label(&self, n: StepId) -> &str {
        self.g.node_weight(n).map_or("?", |s| s.label.as_str())
    }

    /// Sets a node's state.
    pub fn set_state(&mut self, n: StepId, s: State) {
        if let Some(step) = self.g.node_weight_mut(n) {
            step.state = s;
        }
    }

    /// Every node id, in index order.
    pub fn ids(&self) -> Vec<StepId> {
        self.g.node_indices().collect()
    }

    /// Children in rank order.
    pub fn children(&self, n: StepId) -> Vec<StepId> {
        let mut c: Vec<(u32, u64, StepId)> = self
            .g
            .edges_directed(n, Direction::Outgoing)
            .map(|e| (e.weight().rank, e.weight().seq, e.target()))
            .collect();
        c.sort();
        c.into_iter().map(|(_, _, n)| n).collect()
    }

    /// Parents, in id order (a shared node has several).
    pub fn parents(&self, n: StepId) -> Vec<StepId> {
        let mut p: Vec<StepId> = self.g.edges_directed(n, Direction::Incoming).map(|e| e.source()).collect();
        p.sort();
        p.dedup();
        p
    }

    /// Every edge: parent, child, link.
    pub fn links(&self) -> Vec<(StepId, StepId, Link)> {
        let mut v: Vec<_> = (&self.g).edge_references().map(|e| (e.source(), e.target(), *e.weight())).collect();
        v.sort_by_key(|(p, c, l)| (*p, l.rank, l.seq, *c));
        v
    }

    /// Adds a node with no parent yet.
    pub fn add_step(&mut self, kind: Kind, label: String, origin: Origin) -> StepId {
        self.g.add_node(Step { kind, label, state: State::Pending, origin })
    }

    /// Makes `child` the last child of `parent`.
    pub fn link(&mut self, parent: StepId, child: StepId) {
        let rank = self.g.edges_directed(parent, Direction::Outgoing).map(|e| e.weight().rank + 1).max().unwrap_or(0);
        self.seq += 1;
        self.g.add_edge(parent, child, Link { rank, seq: self.seq });
    }

    /// Makes `child` a child of `parent` at position `at` (0 = first), shifting the
    /// later siblings.
    pub fn link_at(&mut self, parent: StepId, child: StepId, at: usize) {
        let kids = self.children(parent);
        let edges: Vec<_> = self.g.edges_directed(parent, Direction::Outgoing).map(|e| e.id()).collect();
        for e in edges {
            let target = self.g.edge_endpoints(e).map(|(_, t)| t);
            let pos = target.and_then(|t| kids.iter().position(|k| *k == t)).unwrap_or(0);
            if let Some(w) = self.g.edge_weight_mut(e) {
                w.rank = if pos < at { pos as u32 } else { pos as u32 + 1 };
            }
        }
        self.seq += 1;
        self.g.add_edge(parent, child, Link { rank: at.min(kids.len()) as u32, seq: self.seq });
    }

    /// Removes every edge from `parent` to `child`; whether there was one.
    pub fn unlink(&mut self, parent: StepId, child: StepId) -> bool {
        let mut any = false;
        while let Some(e) = self.g.find_edge(parent, child) {
            self.g.remove_edge(e);
            any = true;
        }
        any
    }

    /// Removes one edge, identified by its creation order.
    pub(crate) fn unlink_seq(&mut self, seq: u64) -> bool {
        let e = (&self.g).edge_references().find(|e| e.weight().seq == seq).map(|e| e.id());
        e.map(|e| self.g.remove_edge(e)).is_some()
    }

    /// Removes a node and its edges.
    pub(crate) fn remove(&mut self, n: StepId) {
        if n != self.root {
            self.g.remove_node(n);
            self.path.retain(|p| *p != n);
            self.groups.remove(&n);
        }
    }

    /// What an ALL-OF stands for in a build, if anything.
    pub fn group(&self, n: StepId) -> Option<Group> {
        self.groups.get(&n).copied()
    }

    /// Marks a node as a build or a part.
    pub fn set_group(&mut self, n: StepId, g: Group) {
        self.groups.insert(n, g);
    }

    /// The active path, root first (empty: nothing started, or idle).
    pub fn path(&self) -> &[StepId] {
        &self.path
    }

    /// The node being worked on.
    pub fn active(&self) -> Option<StepId> {
        self.path.last().copied()
    }

    /// Whether the person stopped the bot.
    pub fn idle(&self) -> bool {
        self.idle
    }

    /// Replaces the active path (the executor descends and climbs through it).
    pub fn set_path(&mut self, path: Vec<StepId>) {
        self.path = path;
    }

    /// Marks the bot idle or busy.
    pub fn set_idle(&mut self, idle: bool) {
        self.idle = idle;
        if !idle {
            self.held.clear();
        }
    }

    /// The path a stop put aside (empty when not stopped).
    pub fn held(&self) -> &[StepId] {
        &self.held
    }

    pub(crate) fn set_held(&mut self, held: Vec<StepId>) {
        self.held = held;
    }

    /// The path from `from` down to `to` (excluding `from`, including `to`), breadth
    /// first in rank order: the shortest, and among those the one through the
    /// lowest-ranked children. `None` when `to` is not below `from`.
    pub fn path_down(&self, from: StepId, to: StepId) -> Option<Vec<StepId>> {
        if from == to {
            return Some(Vec::new());
        }
        let mut prev: std::collections::BTreeMap<StepId, StepId> = Default::default();
        let mut queue = VecDeque::from([from]);
        let mut seen = BTreeSet::from([from]);
        while let Some(x) = queue.pop_front() {
            for c in self.children(x) {
                if !seen.insert(c) {
                    continue;
                }
                prev.insert(c, x);
                if c == to {
                    let mut out = vec![to];
                    let mut cur = to;
                    while let Some(&p) = prev.get(&cur) {
                        if p == from {
                            break;
                        }
                        out.push(p);
                        cur = p;
                    }
                    out.reverse();
                    return Some(out);
                }
                queue.push_back(c);
            }
        }
        None
    }

    /// Every node reachable from the root.
    pub fn reachable(&self) -> BTreeSet<StepId> {
        let mut seen = BTreeSet::from([self.root]);
        let mut stack = vec![self.root];
        while let Some(x) = stack.pop() {
            for c in self.children(x) {
                if seen.insert(c) {
                    stack.push(c);
                }
            }
        }
        seen
    }

    /// Removes every node the root no longer reaches; returns how many.
    pub fn prune(&mut self) -> usize {
        let keep = self.reachable();
        let gone: Vec<StepId> = self.g.node_indices().filter(|n| !keep.contains(n)).collect();
        for n in &gone {
            self.remove(*n);
        }
        gone.len()
    }

    /// Nodes below `n` (itself included), in id order.
    pub fn below(&self, n: StepId) -> BTreeSet<StepId> {
        let mut seen = BTreeSet::from([n]);
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            for c in self.children(x) {
                if seen.insert(c) {
                    stack.push(c);
                }
            }
        }
        seen
    }

    /// The `obtain` nodes of an item, in id order.
    pub fn obtain_nodes(&self, item: ItemId) -> Vec<StepId> {
        self.g.node_indices().filter(|n| matches!(self.g[*n].kind, Kind::Obtain { item: i, .. } if i == item)).collect()
    }

    /// Nodes by state, for summaries.
    pub fn count_state(&self, s: State) -> usize {
        self.g.node_weights().filter(|w| w.state == s).count()
    }
}
