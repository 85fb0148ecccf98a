//! Quantities: how many of an item a node needs, decided when the node is entered from
//! its parent's need and the verified inventory, and what the ALL-OFs on the path
//! hold reserved for their crafts.

use gatecrew_protocol::ItemId;
use gatecrew_world::GameData;

use super::{Body, Executor, Frame};
use crate::plan::{Group, Kind, Leaf, Plan, State, StepId};
use crate::validate::{Snapshot, items_of};

impl Executor {
    pub(super) fn reserved(&self, plan: &Plan, item: ItemId) -> u32 {
        plan.path()
            .iter()
            .filter_map(|n| self.frames.get(n))
            .flat_map(|f| &f.reserved)
            .filter(|(i, _)| *i == item)
            .map(|(_, n)| *n)
            .sum()
    }

    pub(super) fn sync(&mut self, plan: &Plan, b: &Body<'_>) {
        let path = plan.path().to_vec();
        self.frames.retain(|k, _| path.contains(k));
        for i in 0..path.len() {
            if !self.frames.contains_key(&path[i]) {
                let f = self.init(plan, &path, i, b);
                self.frames.insert(path[i], f);
            }
        }
    }

    fn init(&mut self, plan: &Plan, path: &[StepId], i: usize, b: &Body<'_>) -> Frame {
        let n = path[i];
        let parent = i.checked_sub(1).map(|j| path[j]);
        let pf = parent.and_then(|p| self.frames.get(&p)).cloned().unwrap_or_default();
        let pkind = parent.map(|p| plan.step(p).kind);
        let mut f = Frame { before: Snapshot::take(b.inv, &items_of(plan, b.data, n), b.pos), ..Frame::default() };
        match plan.step(n).kind {
            Kind::Obtain { item, count } => {
                f.need = match pkind {
                    Some(Kind::Goals) => *self.bases.entry(n).or_insert(b.inv.count(item)) + count,
                    // A part's blocks: what its cells still to be placed need, now.
                    Some(Kind::AllOf) if parent.is_some_and(|p| plan.group(p) == Some(Group::Part)) => {
                        parent.map_or(count, |p| part_need(plan, p, item))
                    }
                    Some(Kind::AllOf) => parent.map_or(count, |p| ingredient_need(plan, b.data, p, item, pf.times)),
                    _ => count,
                };
            }
            Kind::AllOf => {
                f.times = 1;
                if let Some(Kind::Obtain { item, .. }) = pkind {
                    let deficit = (pf.need + self.reserved(plan, item)).saturating_sub(b.inv.count(item)).max(1);
                    f.need = deficit;
                    f.times = match last_leaf(plan, n) {
                        Some(Leaf::Craft { recipe }) => deficit.div_ceil(b.data.recipe(recipe).count.max(1)),
                        Some(Leaf::Smelt { .. }) => deficit,
                        _ => 1,
                    };
                }
            }
            Kind::Leaf(Leaf::Craft { recipe }) => {
                f.times = if pkind == Some(Kind::AllOf) { pf.times.max(1) } else { 1 };
                f.need = b.data.recipe(recipe).count * f.times;
            }
            Kind::Leaf(Leaf::Smelt { .. }) => {
                f.times = if pkind == Some(Kind::AllOf) { pf.times.max(1) } else { 1 };
                f.need = f.times;
            }
            Kind::Leaf(Leaf::Collect { item, .. } | Leaf::Fetch { item, .. }) => {
                // Enough for the nearest obtain above on the path.
                let above = path[..i]
                    .iter()
                    .rev()
                    .find(|p| matches!(plan.step(**p).kind, Kind::Obtain { item: it, .. } if it == item));
                f.need = match above.and_then(|p| self.frames.get(p)) {
                    Some(of) => of.need + self.reserved(plan, item),
                    None => b.inv.count(item) + 1,
                };
            }
            _ => {}
        }
        f
    }
}

/// How many of `item` the cells of a part not yet placed need.
fn part_need(plan: &Plan, part: StepId, item: ItemId) -> u32 {
    plan.children(part)
        .into_iter()
        .filter(|c| plan.step(*c).state != State::Done)
        .filter(|c| matches!(plan.step(*c).kind, Kind::Leaf(Leaf::Place(f)) if f.item == item))
        .count() as u32
}

/// The last leaf of an ALL-OF: what it makes.
fn last_leaf(plan: &Plan, and: StepId) -> Option<Leaf> {
    plan.children(and).into_iter().rev().find_map(|c| match plan.step(c).kind {
        Kind::Leaf(l) => Some(l),
        _ => None,
    })
}

/// How many of `item` an ALL-OF needs for `times` repetitions.
fn ingredient_need(plan: &Plan, data: &GameData, and: StepId, item: ItemId, times: u32) -> u32 {
    let times = times.max(1);
    match last_leaf(plan, and) {
        Some(Leaf::Craft { recipe }) => {
            data.recipe(recipe).ingredients.iter().find(|(i, _)| *i == item).map_or(1, |(_, per)| per * times)
        }
        Some(Leaf::Smelt { input, output }) if item != input => {
            let ticks = data.smelts_for(output).find(|s| s.input == input).map_or(200, |s| s.ticks);
            let burn = data.fuel_ticks(item).unwrap_or(ticks).max(1);
            (ticks * times).div_ceil(burn)
        }
        Some(Leaf::Smelt { .. }) => times,
        _ => 1,
    }
}
