//! One leaf of the plan into one world action: collect, craft, smelt, fetch, a station,
//! a blueprint cell (stepping out of it, walking into reach, its support chain first).

use gatecrew_protocol::Pos;
use gatecrew_world::{Action, reach_distance};

use super::{Body, Executor, MAX_LEAF_ACTIONS, MAX_LEAF_FAILURES, Step};
use crate::plan::{Leaf, StepId};

impl Executor {
    pub(super) fn leaf(&mut self, n: StepId, leaf: Leaf, b: &Body<'_>) -> Step {
        let Some(f) = self.frames.get(&n).cloned() else { return Step::Fail };
        if f.actions > MAX_LEAF_ACTIONS || f.failures > MAX_LEAF_FAILURES {
            return Step::Fail;
        }
        let reach = b.know.physics().reach;
        let approach = |p: Pos| Step::Act(Action::MoveTo { target: p, range: reach - 0.5 });
        let in_reach = |p: Pos| reach_distance(b.pos, p) <= reach;
        match leaf {
            Leaf::Share => Step::Delegate,
            Leaf::GoTo { to } => {
                let near = crate::plan::NEAR_PLACE;
                if b.pos.dist_sq(to) <= near * near {
                    Step::Done
                } else {
                    Step::Act(Action::MoveTo { target: to, range: (near - 1) as f64 })
                }
            }
            Leaf::Place(c) => place(b, &c, reach),
            Leaf::Collect { item, block } => {
                if b.inv.count(item) >= f.need {
                    return Step::Done;
                }
                let spot = b
                    .know
                    .memory()
                    .resources()
                    .iter()
                    .filter(|(p, k)| **k == block && b.blueprint.index_of(**p).is_none())
                    .map(|(p, _)| *p)
                    .min_by_key(|p| (p.dist_sq(b.pos), *p));
                match spot {
                    None => Step::Fail,
                    Some(p) if in_reach(p) => Step::Act(Action::Mine { pos: p }),
                    Some(p) => approach(p),
                }
            }
            Leaf::Craft { recipe } => {
                if f.actions > 0 {
                    return Step::Done;
                }
                let r = b.data.recipe(recipe);
                if r.ingredients.iter().any(|(i, per)| b.inv.count(*i) < per * f.times) {
                    return Step::Fail;
                }
                Step::Act(Action::Craft { recipe, times: f.times })
            }
            Leaf::Smelt { input, .. } => {
                if f.actions > 0 {
                    return Step::Done;
                }
                let Some(furnace) = b.know.physics().furnace.1 else { return Step::Fail };
                let Some((at, true)) = b.know.station(furnace, b.pos) else { return Step::Fail };
                let count = b.inv.count(input).min(f.times);
                let fuel = b.data.fuels().into_iter().find(|(i, _)| *i != input && b.inv.count(*i) > 0).map(|(i, _)| i);
                match (count, fuel) {
                    (0, _) | (_, None) => Step::Fail,
                    (count, Some(fuel)) => Step::Act(Action::Smelt { furnace: at, input, count, fuel }),
                }
            }
            Leaf::Fetch { item, from } => {
                let have = b.inv.count(item);
                if have >= f.need {
                    return Step::Done;
                }
                let from = from.or_else(|| {
                    let v = b.know.view(b.inv, b.pos);
                    let mut s = gatecrew_world::cost::Knowledge::stored(&v, item);
                    s.sort_by_key(|(p, _)| (p.dist_sq(b.pos), *p));
                    s.first().map(|(p, _)| *p)
                });
                let Some(at) = from else { return Step::Fail };
                if !in_reach(at) {
                    return approach(at);
                }
                if b.know.memory().dropped().get(&at).is_some_and(|v| v.iter().any(|(i, _)| *i == item)) {
                    return Step::Act(Action::PickUp { pos: at });
                }
                match b.know.contents(at, item) {
                    Some(c) if c > 0 => Step::Act(Action::Withdraw { chest: at, item, count: c.min(f.need - have) }),
                    // Looked inside and none (left): what was taken is all there is.
                    _ if have > f.before.count(item) => Step::Done,
                    _ => Step::Fail,
                }
            }
            Leaf::UseStation { item } => match b.know.station(item, b.pos) {
                Some((_, true)) => Step::Done,
                Some((p, false)) => approach(p),
                None => Step::Fail,
            },
            Leaf::PlaceStation { item } => {
                if b.know.station(item, b.pos).is_some_and(|(_, r)| r) {
                    return Step::Done;
                }
                if b.inv.count(item) == 0 || f.actions > 0 && f.failures > 1 {
                    return Step::Fail;
                }
                match free_spot(b) {
                    Some(spot) => Step::Act(Action::place(spot, item)),
                    None => Step::Fail,
                }
            }
        }
    }
}

/// Whether a cell has something to be placed against (the ground or a known block).
fn supported(b: &Body<'_>, p: Pos) -> bool {
    p.neighbours().iter().any(|n| n.y < 0 || b.know.memory().block(*n).is_some())
}

/// One step of placing a blueprint cell: done when the block is seen there; otherwise
/// step out of the cell, walk into reach, place what holds it up first (its support
/// chain in the blueprint), then the block itself.
fn place(b: &Body<'_>, c: &crate::parts::CellFacts, reach: f64) -> Step {
    let cells = b.blueprint.cells();
    let Some(cell) = cells.get(c.cell as usize) else { return Step::Fail };
    let mem = b.know.memory();
    if mem.block(c.pos) == Some(cell.block) {
        return Step::Done;
    }
    // The lowest cell of the support chain not yet in place whose own place is held up.
    let mut target = (c.cell as usize, *cell);
    let mut cur = cell.support;
    while !supported(b, target.1.pos) {
        let Some(s) = cur else { break };
        let sc = cells[s];
        if mem.block(sc.pos) != Some(sc.block) {
            target = (s, sc);
        }
        cur = sc.support;
    }
    let (_, t) = target;
    let item = if t.pos == c.pos { Some(c.item) } else { crate::parts::item_of_block(b.data, t.block) };
    let Some(item) = item.filter(|i| b.inv.count(*i) > 0) else { return Step::Fail };
    if b.pos == t.pos || b.pos.up() == t.pos {
        // Standing in the cell: step aside to a free spot nearby.
        let aside = [(2, 0), (-2, 0), (0, 2), (0, -2), (2, 2), (-2, -2)]
            .into_iter()
            .map(|(dx, dz)| Pos::new(t.pos.x + dx, b.pos.y, t.pos.z + dz))
            .find(|p| b.blueprint.index_of(*p).is_none() && mem.block(*p).is_none());
        return match aside {
            Some(p) => Step::Act(Action::MoveTo { target: p, range: 0.0 }),
            None => Step::Fail,
        };
    }
    if reach_distance(b.pos, t.pos) > reach {
        return Step::Act(Action::MoveTo { target: t.pos, range: reach - 0.5 });
    }
    Step::Act(Action::Place { pos: t.pos, item, state: t.state })
}

/// A free cell next to the bot for a station: air with air above, on the ground or on
/// a block, not a blueprint cell.
fn free_spot(b: &Body<'_>) -> Option<Pos> {
    let mem = b.know.memory();
    [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]
        .into_iter()
        .map(|(dx, dz)| b.pos.offset(dx, 0, dz))
        .find(|p| {
            mem.block(*p).is_none()
                && mem.block(p.up()).is_none()
                && (p.y == 0 || mem.block(p.down()).is_some())
                && b.blueprint.index_of(*p).is_none()
        })
}
