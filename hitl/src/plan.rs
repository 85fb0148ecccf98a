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
//!
//! The graph itself is the crew's ([`gatecrew_crew::plan::graph::AndOr`], the mechanics
//! of its task graph) with the partner's nodes ([`Step`]: a label for the person, an
//! origin) and links that remember when they were made ([`Link`]). What is the
//! partner's alone lives here: the active path, the stop's held path, the build groups.

pub mod ops;
pub mod preview;
pub mod regroup;
pub mod repair;
mod step;

use std::collections::{BTreeSet, VecDeque};

use gatecrew_crew::plan::graph::AndOr;
use gatecrew_protocol::ItemId;

/// A node of the plan (a node of the crew's AND/OR graph).
pub type StepId = gatecrew_crew::plan::NodeId;

pub use step::{Group, Kind, Leaf, Link, NEAR_PLACE, Origin, State, Step};

/// The plan. See the module docs.
#[derive(Debug, Clone)]
pub struct Plan {
    g: AndOr<Step, Link>,
    root: StepId,
    path: Vec<StepId>,
    idle: bool,
    /// The active path when the person stopped the bot: where "go on" resumes.
    held: Vec<StepId>,
    groups: std::collections::BTreeMap<StepId, Group>,
    /// Nodes removed since the executor last looked: what it still keys by id
    /// (frames, the children it has tried) must go, and the graph may give a removed
    /// node's index to the next node added.
    removed: Vec<StepId>,
}

/// What [`Plan::step`] answers for a node that is no longer in the plan: a failed
/// step nothing works on (only ever reached through a stale id, a bug that debug
/// builds stop at).
static GONE: Step = Step { kind: Kind::Goals, label: String::new(), state: State::Failed, origin: Origin::Planner };

impl Plan {
    /// An empty plan: a root of goals with no goal yet.
    pub fn new(root_label: &str) -> Self {
        let mut g = AndOr::default();
        let root = g.add(Step {
            kind: Kind::Goals,
            label: root_label.to_owned(),
            state: State::Pending,
            origin: Origin::Planner,
        });
        Plan {
            g,
            root,
            path: Vec::new(),
            idle: false,
            held: Vec::new(),
            groups: Default::default(),
            removed: Vec::new(),
        }
    }

    /// The root: the task AND of the person's goals.
    pub fn root(&self) -> StepId {
        self.root
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.g.len()
    }

    /// Whether the plan has only its root.
    pub fn is_empty(&self) -> bool {
        self.g.len() <= 1
    }

    /// Whether a node exists.
    pub fn contains(&self, n: StepId) -> bool {
        self.g.contains(n)
    }

    /// The node `n`: its kind, label and state. A node no longer in the plan reads as
    /// a failed step (debug builds assert that no caller keeps such an id).
    pub fn step(&self, n: StepId) -> &Step {
        match self.g.get(n) {
            Some(s) => s,
            None => {
                debug_assert!(false, "plan node {} was removed but is still used", n.index());
                tracing::error!(node = n.index(), "a removed plan node is still used");
                &GONE
            }
        }
    }

    /// A node's label.
    pub fn label(&self, n: StepId) -> &str {
        self.g.get(n).map_or("?", |s| s.label.as_str())
    }

    /// Sets a node's state.
    pub fn set_state(&mut self, n: StepId, s: State) {
        if let Some(step) = self.g.get_mut(n) {
            step.state = s;
        }
    }

    /// Every node id, in index order.
    pub fn ids(&self) -> Vec<StepId> {
        self.g.ids().collect()
    }

    /// Children in rank order (then in the order they were linked).
    pub fn children(&self, n: StepId) -> Vec<StepId> {
        self.g.children(n)
    }

    /// Parents, in id order (a shared node has several).
    pub fn parents(&self, n: StepId) -> Vec<StepId> {
        self.g.parents(n)
    }

    /// Every edge: parent, child, link.
    pub fn links(&self) -> Vec<(StepId, StepId, Link)> {
        self.g.links()
    }

    /// Adds a node with no parent yet.
    pub fn add_step(&mut self, kind: Kind, label: String, origin: Origin) -> StepId {
        self.g.add(Step { kind, label, state: State::Pending, origin })
    }

    /// Makes `child` the last child of `parent`.
    pub fn link(&mut self, parent: StepId, child: StepId) {
        self.g.link(parent, child);
    }

    /// Makes `child` a child of `parent` at position `at` (0 = first), shifting the
    /// later siblings.
    pub fn link_at(&mut self, parent: StepId, child: StepId, at: usize) {
        self.g.link_at(parent, child, at);
    }

    /// Removes every edge from `parent` to `child`; whether there was one.
    pub fn unlink(&mut self, parent: StepId, child: StepId) -> bool {
        self.g.unlink(parent, child)
    }

    /// Removes one edge, identified by its creation order.
    pub(crate) fn unlink_seq(&mut self, seq: u64) -> bool {
        self.g.unlink_seq(seq)
    }

    /// Removes a node and its edges.
    pub(crate) fn remove(&mut self, n: StepId) {
        if n != self.root {
            self.g.remove(n);
            self.path.retain(|p| *p != n);
            self.held.retain(|p| *p != n);
            self.groups.remove(&n);
            self.removed.push(n);
        }
    }

    /// Nodes removed since the last call (the executor forgets what it kept of them).
    pub(crate) fn take_removed(&mut self) -> Vec<StepId> {
        std::mem::take(&mut self.removed)
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
        let gone: Vec<StepId> = self.g.ids().filter(|n| !keep.contains(n)).collect();
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
        self.g.ids().filter(|n| matches!(self.g.node(*n).kind, Kind::Obtain { item: i, .. } if i == item)).collect()
    }

    /// Nodes by state, for summaries.
    pub fn count_state(&self, s: State) -> usize {
        self.g.payloads().filter(|w| w.state == s).count()
    }
}
