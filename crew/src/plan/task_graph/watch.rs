//! What the gate asks of a node's descendants, kept as the graph changes.
//!
//! A gate decision on node `n` for agent `viewer` reads: how many nodes rest on `n`
//! (transitively, through `requires` edges), whether one is not `n`'s owner's, how many
//! of them are teammates' place nodes not done, whether every node of the viewer's
//! share still open rests on `n`, the viewer's place nodes not done, and the longest
//! chain below `n`. Walking `n`'s descendants for each decision made graph walks most of
//! the decision's cost. Here the answer is found by one walk the first time `n` is
//! asked about and then kept: a state change adjusts the counts of every watched node it
//! lies under (a bit test each), a new prerequisite edge extends the watched sets it
//! reaches into, and removing nodes (a fresh expansion) drops the watches whose sets
//! held one, to be walked again when next asked.
//!
//! The watches sit behind a mutex because the gate asks through `&self` while the graph
//! is shared between threads (a crew's factory holds one); each graph is one bot's, so
//! the lock is never contended. A clone starts with none: what it caches is a pure
//! function of the graph, and the supervisor's snapshots need not carry it.

use std::sync::{Mutex, PoisonError};

use gatecrew_protocol::{AgentId, ItemId};

use super::TaskGraph;
use crate::plan::{NodeId, NodeKind, NodeState, Reach, Task};

/// At most this many nodes are watched at once per graph; the oldest gives way. A bot
/// asks the gate about one node per open issue, rarely more than a few at a time.
const MAX_WATCHES: usize = 4;

/// The facts of a node's descendants the gate reads (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DescFacts {
    /// Nodes resting on the node, transitively.
    pub descendants: u32,
    /// Whether one of them is not the node's owner's.
    pub other_owner: bool,
    /// Those of them that are place nodes of another agent than the viewer, not done.
    pub mates_waiting: u32,
    /// The viewer's place nodes not done.
    pub own_left: u32,
    /// Whether every node of the viewer's share besides the node itself, neither done
    /// nor failed, rests on it.
    pub all_behind: bool,
    /// The longest chain of dependents below the node: one more than the deepest of its
    /// direct dependents' [`Reach::depth`].
    pub depth: u32,
}

/// A set of node indices: bits over the words from the lowest to the highest index
/// held (a node's descendants are mostly place nodes, numbered together).
#[derive(Debug, Clone, Default)]
struct Bits {
    start: usize,
    words: Vec<u64>,
}

impl Bits {
    fn contains(&self, n: NodeId) -> bool {
        let i = n.index();
        (i / 64).checked_sub(self.start).and_then(|w| self.words.get(w)).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Adds `n`; whether it was new.
    fn insert(&mut self, n: NodeId) -> bool {
        let (w, bit) = (n.index() / 64, 1u64 << (n.index() % 64));
        if self.words.is_empty() {
            self.start = w;
        } else if w < self.start {
            self.words.splice(0..0, std::iter::repeat_n(0, self.start - w));
            self.start = w;
        }
        let at = w - self.start;
        if at >= self.words.len() {
            self.words.resize(at + 1, 0);
        }
        let new = self.words[at] & bit == 0;
        self.words[at] |= bit;
        new
    }

    /// The set of `list`, sized once.
    fn of(list: &[NodeId]) -> Self {
        let mut b = Bits::default();
        if let (Some(lo), Some(hi)) = (list.iter().min(), list.iter().max()) {
            b.start = lo.index() / 64;
            b.words = vec![0; hi.index() / 64 - b.start + 1];
        }
        for &n in list {
            b.insert(n);
        }
        b
    }
}

/// The viewer's share: the children of its agent root.
#[derive(Debug, Clone)]
struct Share {
    viewer: AgentId,
    root: Option<NodeId>,
    bits: Bits,
    /// Its place nodes by item, in item order (the gate's "other work" asks of the
    /// items the viewer holds, a few, not of every node of its share).
    by_item: Vec<(ItemId, Vec<NodeId>)>,
    /// Children neither done nor failed.
    live: u32,
    /// Place children not done.
    left: u32,
}

/// One watched node, for one viewer.
#[derive(Debug, Clone)]
struct Watch {
    node: NodeId,
    owner: AgentId,
    viewer: AgentId,
    desc: Bits,
    facts: DescFacts,
    /// Nodes of the viewer's share in `desc`, neither done nor failed, besides `node`.
    share_live: u32,
    /// Descendants not `owner`'s (`facts.other_owner` is whether this is above zero).
    other_owner: u32,
}

#[derive(Debug, Default)]
struct Inner {
    shares: Vec<Share>,
    watches: Vec<Watch>,
}

/// The watches of one graph. See the module docs.
#[derive(Default)]
pub(super) struct Watches(Mutex<Inner>);

/// A memo of what the gate asked, not state: a clone or a graph rebuilt from a journal
/// starts with none and answers the same, so the graph's `Debug` (which journal tests
/// compare) leaves it out.
impl std::fmt::Debug for Watches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watches").finish_non_exhaustive()
    }
}

impl Clone for Watches {
    fn clone(&self) -> Self {
        Watches::default()
    }
}

impl Watches {
    fn get_mut(&mut self) -> &mut Inner {
        self.0.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

fn live(s: NodeState) -> bool {
    !matches!(s, NodeState::Done | NodeState::Failed)
}

fn is_place(kind: &NodeKind) -> bool {
    matches!(kind, NodeKind::Task(Task::Place { .. }))
}

/// What the gate reads of one node for one viewer, lent by [`TaskGraph::gate_view`].
pub struct GateView<'a> {
    desc: Option<&'a Bits>,
    share: &'a Share,
    facts: DescFacts,
}

impl GateView<'_> {
    /// The counts.
    pub fn facts(&self) -> DescFacts {
        self.facts
    }

    /// Whether `m` rests on the node (transitively).
    pub fn contains(&self, m: NodeId) -> bool {
        self.desc.is_some_and(|b| b.contains(m))
    }

    /// The viewer's place nodes of `item`, in no particular order.
    pub fn places_of(&self, item: ItemId) -> &[NodeId] {
        let by = &self.share.by_item;
        by.binary_search_by_key(&item, |(i, _)| *i).map_or(&[], |k| &by[k].1)
    }
}

/// The item a place node places.
fn place_item(kind: &NodeKind) -> Option<ItemId> {
    match kind {
        NodeKind::Task(Task::Place { item, .. }) => Some(*item),
        _ => None,
    }
}

impl Share {
    /// Files `m`, a child of the root, under its item if it is a place node.
    fn file(&mut self, m: NodeId, kind: &NodeKind) {
        let Some(item) = place_item(kind) else { return };
        match self.by_item.binary_search_by_key(&item, |(i, _)| *i) {
            Ok(k) => self.by_item[k].1.push(m),
            Err(k) => self.by_item.insert(k, (item, vec![m])),
        }
    }
}

impl TaskGraph {
    /// Calls `f` with what the gate reads of `n`'s descendants for agent `viewer` (no
    /// node: none rest on it). Walks them only if `n` is not watched yet; no allocation
    /// once it is.
    pub fn gate_view<R>(&self, n: Option<NodeId>, viewer: AgentId, f: impl FnOnce(&GateView<'_>) -> R) -> R {
        let mut guard = self.watches.0.lock().unwrap_or_else(PoisonError::into_inner);
        let inner = &mut *guard;
        let s = match inner.shares.iter().position(|s| s.viewer == viewer) {
            Some(s) => s,
            None => {
                inner.shares.push(self.share_of(viewer));
                inner.shares.len() - 1
            }
        };
        let share = &inner.shares[s];
        let Some(n) = n else {
            let facts = DescFacts { own_left: share.left, all_behind: share.live == 0, ..DescFacts::default() };
            return f(&GateView { desc: None, share, facts });
        };
        let w = match inner.watches.iter().position(|w| w.node == n && w.viewer == viewer) {
            Some(w) => w,
            None => {
                if inner.watches.len() == MAX_WATCHES {
                    inner.watches.remove(0);
                }
                inner.watches.push(self.watch_of(n, share));
                inner.watches.len() - 1
            }
        };
        let w = &inner.watches[w];
        let n_open = share.bits.contains(n) && live(self.state(n));
        let facts =
            DescFacts { own_left: share.left, all_behind: share.live - u32::from(n_open) == w.share_live, ..w.facts };
        f(&GateView { desc: Some(&w.desc), share, facts })
    }

    /// [`TaskGraph::gate_view`]'s facts found by walking, into the caller's buffers
    /// (as [`TaskGraph::descendants_with`]): what the kept counts must equal.
    pub fn walked_facts(
        &self,
        n: Option<NodeId>,
        viewer: AgentId,
        list: &mut Vec<NodeId>,
        seen: &mut Vec<u64>,
    ) -> DescFacts {
        list.clear();
        seen.clear();
        if let Some(n) = n {
            self.descendants_with(n, list, seen);
        }
        let has = |m: NodeId| seen.get(m.index() / 64).is_some_and(|w| w & (1 << (m.index() % 64)) != 0);
        let owner = n.map(|n| self.kind(n).1);
        let mut f = DescFacts { descendants: list.len() as u32, all_behind: true, ..DescFacts::default() };
        for &m in list.iter() {
            let (kind, by) = self.kind(m);
            f.other_owner |= Some(by) != owner;
            if by != viewer && is_place(kind) && self.state(m) != NodeState::Done {
                f.mates_waiting += 1;
            }
        }
        for m in self.agent_root(viewer).into_iter().flat_map(|r| self.children_iter(r)) {
            let state = self.state(m);
            if state != NodeState::Done && is_place(self.kind(m).0) {
                f.own_left += 1;
            }
            if Some(m) != n && live(state) && !has(m) {
                f.all_behind = false;
            }
        }
        f.depth = n.map_or(0, |n| self.depth_below(n));
        f
    }

    /// [`TaskGraph::reach`] of `n` from its [`DescFacts`]: precomputed for place nodes.
    pub fn reach_from(&self, n: NodeId, facts: &DescFacts) -> Reach {
        if is_place(self.kind(n).0) {
            return self.reach_of(n);
        }
        Reach { dependents: facts.descendants, depth: facts.depth, teammate_dependents: facts.other_owner }
    }

    fn depth_below(&self, n: NodeId) -> u32 {
        self.dependents_iter(n).map(|d| 1 + self.reach_of(d).depth).max().unwrap_or(0)
    }

    fn share_of(&self, viewer: AgentId) -> Share {
        let root = self.agent_root(viewer);
        let kids: Vec<NodeId> = root.into_iter().flat_map(|r| self.children_iter(r)).collect();
        let mut share = Share { viewer, root, bits: Bits::of(&kids), by_item: Vec::new(), live: 0, left: 0 };
        for &m in &kids {
            share.file(m, self.kind(m).0);
            let state = self.state(m);
            share.live += u32::from(live(state));
            share.left += u32::from(state != NodeState::Done && is_place(self.kind(m).0));
        }
        share
    }

    fn watch_of(&self, n: NodeId, share: &Share) -> Watch {
        let mut list = Vec::new();
        self.descendants_with(n, &mut list, &mut Vec::new());
        let mut w = Watch {
            node: n,
            owner: self.kind(n).1,
            viewer: share.viewer,
            desc: Bits::of(&list),
            facts: DescFacts { depth: self.depth_below(n), ..DescFacts::default() },
            share_live: 0,
            other_owner: 0,
        };
        for m in list {
            self.count_in(&mut w, share, m);
        }
        w
    }

    /// Counts `m`, just found among `w`'s descendants.
    fn count_in(&self, w: &mut Watch, share: &Share, m: NodeId) {
        let (kind, by) = self.kind(m);
        let state = self.state(m);
        w.facts.descendants += 1;
        w.other_owner += u32::from(by != w.owner);
        w.facts.other_owner = w.other_owner > 0;
        w.facts.mates_waiting += u32::from(by != w.viewer && is_place(kind) && state != NodeState::Done);
        w.share_live += u32::from(m != w.node && share.bits.contains(m) && live(state));
    }

    /// Keeps the counts as `n` goes from `before` to `after` ([`TaskGraph::set_state`]).
    pub(super) fn watch_state(&mut self, n: NodeId, before: NodeState, after: NodeState) {
        if before == after {
            return;
        }
        let (kind, by) = self.kind(n);
        let place = is_place(kind);
        let inner = self.watches.get_mut();
        let shift = |c: &mut u32, was: bool, is: bool| *c = *c + u32::from(is) - u32::from(was);
        for s in &mut inner.shares {
            if s.bits.contains(n) {
                shift(&mut s.live, live(before), live(after));
                shift(&mut s.left, place && before != NodeState::Done, place && after != NodeState::Done);
            }
        }
        for w in &mut inner.watches {
            if !w.desc.contains(n) {
                continue;
            }
            if by != w.viewer && place {
                shift(&mut w.facts.mates_waiting, before != NodeState::Done, after != NodeState::Done);
            }
            let in_share = n != w.node && inner.shares.iter().any(|s| s.viewer == w.viewer && s.bits.contains(n));
            if in_share {
                shift(&mut w.share_live, live(before), live(after));
            }
        }
    }

    /// A child `c` was added under `parent` ([`TaskGraph::add_child`]): a share whose
    /// root that is gains it. It has no prerequisite edge yet, so it rests on nothing.
    pub(super) fn watch_child(&mut self, parent: NodeId, c: NodeId) {
        let kind = *self.kind(c).0;
        let (place, state) = (is_place(&kind), self.state(c));
        for s in &mut self.watches.get_mut().shares {
            if s.root == Some(parent) && s.bits.insert(c) {
                s.file(c, &kind);
                s.live += u32::from(live(state));
                s.left += u32::from(place && state != NodeState::Done);
            }
        }
    }

    /// The edge `before -> after` was added ([`TaskGraph::add_requires`]): every watched
    /// node with `before` at or below it gains what rests on `after` (and `after`).
    pub(super) fn watch_edge(&mut self, before: NodeId, after: NodeId) {
        let mut inner = std::mem::take(self.watches.get_mut());
        for w in &mut inner.watches {
            if w.node == before {
                w.facts.depth = w.facts.depth.max(1 + self.reach_of(after).depth);
            }
            if w.node != before && !w.desc.contains(before) {
                continue;
            }
            let share = inner.shares.iter().find(|s| s.viewer == w.viewer).expect("a watch's viewer has its share");
            let mut stack = vec![after];
            while let Some(m) = stack.pop() {
                if w.desc.insert(m) {
                    self.count_in(w, share, m);
                    stack.extend(self.dependents_iter(m));
                }
            }
        }
        *self.watches.get_mut() = inner;
    }

    /// `gone` are about to be removed ([`TaskGraph::clear_below`]): what held one is
    /// dropped, to be found again by a walk when next asked.
    pub(super) fn watch_removed(&mut self, gone: &[NodeId]) {
        let inner = self.watches.get_mut();
        inner.shares.retain(|s| !gone.iter().any(|g| s.bits.contains(*g)));
        let shares = &inner.shares;
        inner.watches.retain(|w| {
            shares.iter().any(|s| s.viewer == w.viewer) && !gone.iter().any(|g| *g == w.node || w.desc.contains(*g))
        });
    }
}

#[cfg(test)]
mod tests;
