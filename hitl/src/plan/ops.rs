//! The person's interventions as graph updates without re-planning the rest (paper 000,
//! section 3.3): switch, delete, add, stop. (A new task replaces the whole plan; chat
//! changes nothing.) Each returns an [`Update`] saying what changed, for the trace and
//! the plan preview.

use super::{Kind, Plan, State, StepId};

/// What an update did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Update {
    /// The active node before.
    pub from: Option<StepId>,
    /// The active node after (`None`: idle or not started).
    pub to: Option<StepId>,
    /// Where the path was cut back to: the lowest common ancestor of a switch, the
    /// branching point of a delete.
    pub pivot: Option<StepId>,
    /// Nodes removed from the plan.
    pub removed: usize,
    /// Nodes added.
    pub added: usize,
    /// Whether an add made the new node active (a new alternative of the active OR).
    pub switched: bool,
}

/// An update that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OpError {
    /// The node is not in the plan.
    #[error("no such node in the plan")]
    NoSuchNode,
    /// The root cannot be deleted or attached.
    #[error("the root of the plan cannot be changed that way")]
    Root,
    /// The node is not reachable from the root (it was cut off).
    #[error("the node is not part of the plan any more")]
    Detached,
}

impl Plan {
    /// Makes `target` the active node (paper 000, 3.3.2): the path is cut back to the
    /// lowest common ancestor of the active node and `target` and goes down to `target`
    /// from there. Nothing done is undone: done nodes stay done, held items stay held,
    /// and the abandoned branch stays pending, to be resumed after `target`.
    pub fn switch_to(&mut self, target: StepId) -> Result<Update, OpError> {
        if !self.contains(target) {
            return Err(OpError::NoSuchNode);
        }
        let root = self.root();
        let from = self.active();
        let old = self.path().to_vec();
        let (mut path, pivot) = if old.is_empty() {
            (vec![root], root)
        } else {
            // The deepest node of the active path above (or at) the target.
            let i =
                (0..old.len()).rev().find(|&i| self.path_down(old[i], target).is_some()).ok_or(OpError::Detached)?;
            (old[..=i].to_vec(), old[i])
        };
        let down = self.path_down(pivot, target).ok_or(OpError::Detached)?;
        path.extend(down);
        // The person asked for it: a node given up on is tried again.
        for &n in &path {
            if self.step(n).state == State::Failed {
                self.set_state(n, State::Pending);
            }
        }
        if self.step(target).state == State::Done && !matches!(self.step(target).kind, Kind::Obtain { .. }) {
            self.set_state(target, State::Pending);
        }
        self.set_path(path);
        self.set_idle(false);
        Ok(Update { from, to: Some(target), pivot: Some(pivot), ..Update::default() })
    }

    /// Deletes `node` (paper 000, 3.3.3): every edge from a parent is severed and what
    /// only it reached is dropped. If it was on the active path, the path goes back to
    /// the nearest valid branching point above it: an OR with an alternative not yet
    /// failed, or an AND with other children.
    pub fn delete(&mut self, node: StepId) -> Result<Update, OpError> {
        if !self.contains(node) {
            return Err(OpError::NoSuchNode);
        }
        if node == self.root() {
            return Err(OpError::Root);
        }
        let from = self.active();
        let on_path = self.path().iter().position(|p| *p == node);
        for p in self.parents(node) {
            self.unlink(p, node);
        }
        let mut pivot = None;
        if let Some(i) = on_path {
            let mut path = self.path()[..i].to_vec();
            while let Some(&top) = path.last() {
                if self.valid_branch(top) {
                    break;
                }
                path.pop();
            }
            pivot = path.last().copied();
            self.set_path(path);
        }
        let removed = self.prune();
        Ok(Update { from, to: self.active(), pivot, removed, ..Update::default() })
    }

    /// Whether the executor can go on from `n` after one of its branches went away.
    fn valid_branch(&self, n: StepId) -> bool {
        let kids = self.children(n);
        match self.step(n).kind {
            Kind::Goals => true,
            Kind::Obtain { .. } | Kind::Station { .. } => kids.iter().any(|c| self.step(*c).state != State::Failed),
            Kind::AllOf => !kids.is_empty(),
            Kind::Leaf(_) => false,
        }
    }

    /// Attaches a sub-graph (already in this plan, not yet linked) under `parent`
    /// (paper 000, 3.3.4). Under an ALL-OF it goes before the final craft; under an OR it
    /// is one more alternative, and if that OR is on the active path the bot switches
    /// to it at once; under the root it is one more goal. `first` puts a new
    /// alternative first (a told source beats the planner's guesses).
    pub fn attach(&mut self, parent: StepId, sub: StepId, added: usize, first: bool) -> Result<Update, OpError> {
        if !self.contains(parent) || !self.contains(sub) {
            return Err(OpError::NoSuchNode);
        }
        if sub == self.root() {
            return Err(OpError::Root);
        }
        let from = self.active();
        match self.step(parent).kind {
            Kind::AllOf => {
                let kids = self.children(parent);
                let at = match kids.last() {
                    Some(&last) if self.step(last).kind.is_leaf() => kids.len() - 1,
                    _ => kids.len(),
                };
                self.link_at(parent, sub, at);
            }
            _ if first && self.step(parent).kind.is_or() => self.link_at(parent, sub, 0),
            _ => self.link(parent, sub),
        }
        let mut up = Update { from, to: from, pivot: Some(parent), added, ..Update::default() };
        if self.step(parent).kind.is_or() && self.path().contains(&parent) {
            let sw = self.switch_to(sub)?;
            up.to = sw.to;
            up.switched = true;
        }
        Ok(up)
    }

    /// Stops (paper 000, 3.3): nothing is active, the bot idles; the plan is kept, and
    /// the active path is put aside for [`Plan::resume`]. A second stop keeps the first
    /// one's path.
    pub fn stop(&mut self) -> Update {
        let from = self.active();
        let path = self.path().to_vec();
        let held = if self.idle() { self.held().to_vec() } else { path };
        self.set_path(Vec::new());
        self.set_idle(true);
        self.set_held(held);
        Update { from, to: None, ..Update::default() }
    }

    /// Goes on after a stop, from the path the stop put aside when it is still a path
    /// of the plan (root first, each node a child of the one before, none failed);
    /// else from the root.
    pub fn resume(&mut self) -> Update {
        let held = self.held().to_vec();
        let valid = held.first() == Some(&self.root())
            && held.windows(2).all(|w| self.contains(w[1]) && self.children(w[0]).contains(&w[1]))
            && held.iter().all(|n| self.contains(*n) && self.step(*n).state != State::Failed);
        self.set_idle(false);
        if valid {
            self.set_path(held);
        }
        Update { from: None, to: self.active(), ..Update::default() }
    }
}
