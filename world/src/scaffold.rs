//! Pillars: where a bot stands on temporary blocks to reach a cell, or to give a
//! floating part of a blueprint a face to be placed against.
//!
//! A bot pillars up as a player does: it jumps and places a block into its own feet
//! cell ([`crate::Action::Place`] at its feet), landing on it one block higher; it comes
//! down by mining the block under its feet, getting the item back. A pillar stands in a
//! column beside the target; its top block is at the target's height when the target
//! has nothing else to lean on. The planner is pure: it sees the site only through the
//! two questions of [`Site`], so an agent asks it with what it remembers and a test with
//! what it built.

use gatecrew_protocol::Pos;

use crate::grid::reach_distance;
use crate::world::TickCosts;

/// What the planner may ask about the site.
pub struct Site<'a> {
    /// Whether a cell holds a block to stand on or lean against (the ground below
    /// `y = 0` does).
    pub solid: &'a dyn Fn(Pos) -> bool,
    /// Whether a cell may take a scaffold block or a bot's body: air, inside the world,
    /// and no blueprint cell still to be built.
    pub free: &'a dyn Fn(Pos) -> bool,
}

/// A pillar: the bot walks to `base` (feet), then pillars up to `top` (feet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pillar {
    /// Where the bot stands before the first block.
    pub base: Pos,
    /// Where its feet are on the top block.
    pub top: Pos,
}

impl Pillar {
    /// Blocks it takes.
    pub fn height(&self) -> u32 {
        (self.top.y - self.base.y).max(0) as u32
    }
}

/// Ticks to put up and take down a pillar of `height` blocks whose block takes
/// `mine_ticks` to dig: one place and one climb per block up, one dig per block down
/// (falling back onto the block below costs nothing).
pub fn pillar_ticks(height: u32, t: TickCosts, mine_ticks: u64) -> u64 {
    u64::from(height) * (t.place + t.climb + mine_ticks.max(t.min_mine))
}

/// Farthest column (on each horizontal axis) considered around the target: beyond 3
/// a standing bot's reach (4.5 from the eyes) no longer covers the target's cell.
const SPAN: i32 = 3;

/// The cheapest pillar from which a bot reaches `target` within `reach`; with
/// `anchor`, one whose top block is beside the target, at its height, so that the
/// target can be placed against it. Fewest blocks first, then the nearest column, then
/// position order: deterministic.
pub fn plan(target: Pos, reach: f64, anchor: bool, site: &Site<'_>) -> Option<Pillar> {
    let columns: Vec<(i32, i32)> = if anchor {
        vec![(-1, 0), (1, 0), (0, -1), (0, 1)]
    } else {
        let mut v = Vec::new();
        for dx in -SPAN..=SPAN {
            for dz in -SPAN..=SPAN {
                if (dx, dz) != (0, 0) {
                    v.push((dx, dz));
                }
            }
        }
        v
    };
    columns
        .into_iter()
        .filter_map(|(dx, dz)| {
            let p = in_column(target, reach, anchor, (dx, dz), site)?;
            Some(((p.height(), dx * dx + dz * dz), p))
        })
        .min()
        .map(|(_, p)| p)
}

/// The pillar in the column at `(x, z)` (a bot already standing there raises or lowers
/// its own pillar rather than starting another), if that column can serve.
pub fn plan_column(target: Pos, reach: f64, anchor: bool, col: (i32, i32), site: &Site<'_>) -> Option<Pillar> {
    let d = (col.0 - target.x, col.1 - target.z);
    if d == (0, 0) || (anchor && d.0.abs() + d.1.abs() != 1) {
        return None;
    }
    in_column(target, reach, anchor, d, site)
}

fn in_column(target: Pos, reach: f64, anchor: bool, (dx, dz): (i32, i32), site: &Site<'_>) -> Option<Pillar> {
    let col = target.offset(dx, 0, dz);
    let base = floor(col, target.y + 1, site)?;
    let top = if anchor {
        col.up()
    } else {
        (base.y..=target.y + 1).map(|y| Pos::new(col.x, y, col.z)).find(|p| reach_distance(*p, target) <= reach)?
    };
    // The body at the top, and the jump room of every step up, must be free.
    if top.y < base.y || !(base.y..=top.y + 1).all(|y| (site.free)(Pos::new(col.x, y, col.z))) {
        return None;
    }
    Some(Pillar { base, top })
}

/// The fewest temporary blocks that give a face to a cell with nothing to lean on: a
/// chain of free cells from one touching a block (or the ground) to one of `anchors`
/// (free cells the target may be placed against), each placed against the one before.
/// At most `max` blocks; `None` if no such chain is that short.
pub fn support_chain(anchors: &[Pos], site: &Site<'_>, max: usize) -> Option<Vec<Pos>> {
    use std::collections::{BTreeMap, VecDeque};
    let mut came: BTreeMap<Pos, Option<Pos>> = BTreeMap::new();
    let mut queue = VecDeque::new();
    for &a in anchors.iter().filter(|a| (site.free)(**a)) {
        if came.insert(a, None).is_none() {
            queue.push_back((a, 1usize));
        }
    }
    while let Some((c, len)) = queue.pop_front() {
        if c.neighbours().iter().any(|n| (site.solid)(*n)) {
            // `came` leads from here back to the anchor: that is the placing order.
            let mut chain = vec![c];
            let mut cur = c;
            while let Some(Some(next)) = came.get(&cur) {
                chain.push(*next);
                cur = *next;
            }
            return Some(chain);
        }
        if len >= max {
            continue;
        }
        for n in c.neighbours() {
            if (site.free)(n) && !came.contains_key(&n) {
                came.insert(n, Some(c));
                queue.push_back((n, len + 1));
            }
        }
    }
    None
}

/// Whether a body can stand with its feet at `p`: both cells free, a block below.
fn standable(p: Pos, site: &Site<'_>) -> bool {
    (site.free)(p) && (site.free)(p.up()) && (site.solid)(p.down())
}

/// The standing cells a bot walks to from `from` (each start that is standable, then
/// breadth-first), as the world walks: one block across, up or down per step, a jump
/// with headroom above the start, a drop with room above the landing. Only cells with
/// feet at `min_y` or higher, at most `limit` of them. Steps are symmetric, so a cell
/// in the list can walk back to where it started. Blueprint cells still to build are
/// not free: the walk never passes a cell the bot itself may fill on the way.
pub fn walks(from: &[Pos], site: &Site<'_>, min_y: i32, limit: usize) -> Vec<Pos> {
    let mut order = Vec::new();
    walk(from, site, min_y, limit, &mut |p| {
        order.push(p);
        false
    });
    order
}

/// The first standing cell, in the order of [`walks`], that meets `goal`.
pub fn walk_to(from: &[Pos], site: &Site<'_>, min_y: i32, limit: usize, goal: &dyn Fn(Pos) -> bool) -> Option<Pos> {
    let mut found = None;
    walk(from, site, min_y, limit, &mut |p| {
        found = goal(p).then_some(p);
        found.is_some()
    });
    found
}

/// Visits the cells of [`walks`] in order until `stop` says so.
fn walk(from: &[Pos], site: &Site<'_>, min_y: i32, limit: usize, stop: &mut dyn FnMut(Pos) -> bool) {
    use std::collections::{BTreeSet, VecDeque};
    let mut seen: BTreeSet<Pos> = BTreeSet::new();
    let mut visited = 0usize;
    let mut queue = VecDeque::new();
    for &f in from {
        if f.y >= min_y && standable(f, site) && seen.insert(f) {
            queue.push_back(f);
        }
    }
    while let Some(p) = queue.pop_front() {
        visited += 1;
        if stop(p) || visited >= limit {
            break;
        }
        for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            for dy in [0, 1, -1] {
                let q = p.offset(dx, dy, dz);
                if q.y < min_y || seen.contains(&q) || !standable(q, site) {
                    continue;
                }
                if (dy == 1 && !(site.free)(p.offset(0, 2, 0))) || (dy == -1 && !(site.free)(q.offset(0, 2, 0))) {
                    continue;
                }
                seen.insert(q);
                queue.push_back(q);
            }
        }
    }
    crate::work::add(visited as u64);
}

/// A pillar that gives access to `region` (standing cells a bot walks between, nearest
/// first, as [`walks`] lists them): its top is beside one of them at the same height,
/// so the bot steps off the pillar onto the structure and back. At least one block
/// tall (a cell a bot reaches without one needs no pillar); fewest blocks first, then
/// the earliest region cell.
pub fn access(region: &[Pos], site: &Site<'_>) -> Option<Pillar> {
    let mut best: Option<((u32, usize), Pillar)> = None;
    for (k, c) in region.iter().enumerate() {
        for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let top = c.offset(dx, 0, dz);
            let Some(base) = floor(top, top.y, site) else { continue };
            let p = Pillar { base, top };
            if p.height() == 0 || !(base.y..=top.y + 1).all(|y| (site.free)(Pos::new(top.x, y, top.z))) {
                continue;
            }
            if best.is_none_or(|(b, _)| (p.height(), k) < b) {
                best = Some(((p.height(), k), p));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// The standing cell of a column at or below `from`: the first cell going down whose
/// cell below holds a block, every cell on the way free. `None` if something not free
/// (a blueprint cell still to build) is in the way.
fn floor(col: Pos, from: i32, site: &Site<'_>) -> Option<Pos> {
    let mut p = Pos::new(col.x, from, col.z);
    loop {
        if !(site.free)(p) {
            return None;
        }
        if (site.solid)(p.down()) {
            return Some(p);
        }
        if p.y <= 0 {
            return None;
        }
        p = p.down();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_high_cell_gets_the_lowest_pillar_that_reaches_it() {
        let solid = |p: Pos| p.y < 0;
        let free = |p: Pos| p.y >= 0 && p != Pos::new(0, 0, 0);
        let site = Site { solid: &solid, free: &free };
        let target = Pos::new(0, 12, 0);
        let p = plan(target, 4.5, false, &site).unwrap();
        assert_eq!(p.base.y, 0);
        assert!(reach_distance(p.top, target) <= 4.5);
        assert!(reach_distance(p.top.down(), target) > 4.5 || p.top.x.abs() + p.top.z.abs() > 1);
        assert_eq!(p.top.x.abs() + p.top.z.abs(), 1, "the nearest column: {p:?}");
    }

    #[test]
    fn an_anchor_pillar_tops_out_beside_the_target() {
        let solid = |p: Pos| p.y < 0;
        let free = |p: Pos| p.y >= 0;
        let site = Site { solid: &solid, free: &free };
        let p = plan(Pos::new(5, 6, 5), 4.5, true, &site).unwrap();
        assert_eq!(p.height(), 7, "the top block sits at y = 6, beside the target");
        assert_eq!((p.top.x - 5).abs() + (p.top.z - 5).abs(), 1);
        // Nothing free: no pillar.
        let none = |_: Pos| false;
        assert!(plan(Pos::new(5, 6, 5), 4.5, true, &Site { solid: &solid, free: &none }).is_none());
    }

    #[test]
    fn a_roof_out_of_reach_of_any_column_is_reached_by_stepping_off_a_pillar() {
        // A roof 9 x 9 at y = 4 over a footprint nobody enters, its middle still to
        // build: more than 3 columns from any edge.
        let middle = Pos::new(4, 4, 4);
        let under = |p: Pos| (0..9).contains(&p.x) && (0..9).contains(&p.z);
        let roof = |p: Pos| under(p) && p.y == 4 && p != middle;
        let solid = |p: Pos| p.y < 0 || roof(p);
        let walk_free = |p: Pos| p.y >= 0 && !roof(p) && p != middle && !(under(p) && p.y < 4);
        let walk_site = Site { solid: &solid, free: &walk_free };
        // A pillar may not stand on the roof (no walk from off it leads there).
        let base_free = |p: Pos| walk_free(p) && !(under(p) && p.y == 5);
        let base_site = Site { solid: &solid, free: &base_free };
        assert!(plan(middle, 4.5, false, &base_site).is_none(), "no column within reach stands free");
        let spots = walks(&[Pos::new(4, 5, 3)], &walk_site, 1, 4096);
        assert_eq!(spots.len(), 80, "every cell on top of the roof but over the middle");
        let p = access(&spots, &base_site).expect("a pillar beside the roof's edge");
        assert_eq!((p.base.y, p.top.y), (0, 5));
        assert!(spots.iter().any(|s| s.manhattan_xz(p.top) == 1 && s.y == p.top.y));
        // With the pillar up, a walk from its top gets within reach of the middle, and back.
        let pillar = |q: Pos| (q.x, q.z) == (p.top.x, p.top.z) && (p.base.y..p.top.y).contains(&q.y);
        let up_solid = |q: Pos| solid(q) || pillar(q);
        let up_free = |q: Pos| walk_free(q) && !pillar(q);
        let up = Site { solid: &up_solid, free: &up_free };
        let near = |c: Pos| reach_distance(c, middle) <= 4.0;
        let spot = walk_to(&[p.top], &up, 1, 4096, &near).expect("a spot within reach");
        assert!(walks(&[spot], &up, 1, 4096).contains(&p.top));
    }
}
