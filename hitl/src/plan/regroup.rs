//! Parts of a build as plan nodes: a part a person names that is not yet a node of its
//! own (a material, a layer, a side) is gathered into one before a switch or a delete
//! acts on it; "X can wait" moves a node after its siblings.

use super::ops::{OpError, Update};
use super::{Group, Kind, Leaf, Plan, StepId};

impl Plan {
    /// The part node holding exactly `leaves`: an existing part whose `place` children
    /// are those leaves, else a new part labelled `label` under the build, at the place
    /// of the first part it takes leaves from, the leaves moved into it in their order
    /// after the obtaining of their blocks where a part they leave had it (shared).
    /// Parts left with no cell are removed. `None` when the leaves are in no build.
    pub fn gather(&mut self, label: &str, leaves: &[StepId]) -> Option<StepId> {
        let want: std::collections::BTreeSet<StepId> = leaves.iter().copied().collect();
        let parts: Vec<StepId> = self.ids().into_iter().filter(|n| self.group(*n) == Some(Group::Part)).collect();
        if let Some(p) = parts.iter().copied().find(|p| self.cells_of(*p) == want) {
            return Some(p);
        }
        let first = *leaves.first()?;
        let old = self.parents(first).into_iter().find(|p| self.group(*p) == Some(Group::Part))?;
        let build = self.parents(old).into_iter().find(|b| self.group(*b) == Some(Group::Build))?;
        let siblings = self.children(build);
        // The earliest part any of the leaves comes from.
        let at =
            siblings.iter().position(|s| self.children(*s).iter().any(|c| want.contains(c))).unwrap_or(siblings.len());
        let origin = self.step(first).origin;
        let part = self.add_step(Kind::AllOf, label.to_owned(), origin);
        self.set_group(part, Group::Part);
        self.link_at(build, part, at);
        // The blocks the moved cells need, where their old parts obtained them.
        let items: std::collections::BTreeSet<_> = leaves
            .iter()
            .filter_map(|l| match self.step(*l).kind {
                Kind::Leaf(Leaf::Place(f)) => Some(f.item),
                _ => None,
            })
            .collect();
        let mut obtains: Vec<StepId> = Vec::new();
        for &leaf in leaves {
            for p in self.parents(leaf).into_iter().filter(|p| self.group(*p) == Some(Group::Part)) {
                for c in self.children(p) {
                    let serves = matches!(self.step(c).kind, Kind::Obtain { item, .. } if items.contains(&item));
                    if serves && !obtains.contains(&c) {
                        obtains.push(c);
                    }
                }
            }
        }
        for o in obtains {
            self.link(part, o);
        }
        for &leaf in leaves {
            for p in self.parents(leaf) {
                if self.group(p) == Some(Group::Part) {
                    self.unlink(p, leaf);
                }
            }
            self.link(part, leaf);
        }
        for p in parts {
            if self.contains(p) && self.cells_of(p).is_empty() {
                self.remove(p);
            }
        }
        self.cut_broken_path();
        Some(part)
    }

    /// A part's cells: its `place` children.
    fn cells_of(&self, part: StepId) -> std::collections::BTreeSet<StepId> {
        self.children(part).into_iter().filter(|c| matches!(self.step(*c).kind, Kind::Leaf(Leaf::Place(_)))).collect()
    }

    /// The active path up to its first step that is no longer a child of the one
    /// before (a regrouping moved it).
    fn cut_broken_path(&mut self) {
        let path = self.path().to_vec();
        let ok = (1..path.len())
            .find(|&i| !self.contains(path[i]) || !self.children(path[i - 1]).contains(&path[i]))
            .unwrap_or(path.len());
        if ok < path.len() {
            self.set_path(path[..ok].to_vec());
        }
    }

    /// "X can wait": `n` goes after its siblings under every parent; if it was being
    /// worked on, the path goes back to its parent, which picks the next sibling.
    pub fn postpone(&mut self, n: StepId) -> Result<Update, OpError> {
        if !self.contains(n) {
            return Err(OpError::NoSuchNode);
        }
        if n == self.root() {
            return Err(OpError::Root);
        }
        let from = self.active();
        let parents = self.parents(n);
        for p in &parents {
            self.unlink(*p, n);
            self.link(*p, n);
        }
        let mut pivot = None;
        if let Some(i) = self.path().iter().position(|p| *p == n) {
            let path = self.path()[..i].to_vec();
            pivot = path.last().copied();
            self.set_path(path);
        }
        Ok(Update { from, to: self.active(), pivot, ..Update::default() })
    }
}
