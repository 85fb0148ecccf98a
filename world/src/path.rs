//! A* over standing positions: four horizontal moves, each level, one block up (a
//! jump) or one block down. Deterministic: ties are broken by insertion order, and the
//! neighbour order is fixed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap as HashMap;

use gatecrew_protocol::Pos;

use crate::data::GameData;
use crate::grid::{Bounds, Grid, reach_distance};

/// Movement costs in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveCost {
    /// Per block walked.
    pub per_block: u64,
    /// Extra for each jump up.
    pub climb: u64,
}

/// Where a walk should end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Goal {
    /// The block to get close to.
    pub target: Pos,
    /// Reach distance to the target's surface; `0.0` means standing exactly on `target`.
    pub range: f64,
}

impl Goal {
    fn reached(&self, p: Pos) -> bool {
        if self.range <= 0.0 { p == self.target } else { reach_distance(p, self.target) <= self.range }
    }

    /// The box of feet positions that can be within range (the eyes are 1.62 above the
    /// feet; reach is measured to the block's surface), cut to the world's bounds where
    /// nobody stands: its lowest and highest corners, `None` when nothing is left.
    fn spot_box(&self, bounds: Bounds) -> Option<(Pos, Pos)> {
        let (r, below, above) = if self.range <= 0.0 {
            (0, 0, 0)
        } else {
            let r = self.range.ceil() as i32 + 1;
            (r, r + 1, r)
        };
        let t = self.target;
        let (min, max) = (bounds.min, bounds.max);
        let lo = Pos::new((t.x - r).max(min.x), (t.y - below).max(min.y), (t.z - r).max(min.z));
        let hi = Pos::new((t.x + r).min(max.x), (t.y + above).min(max.y), (t.z + r).min(max.z));
        (lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z).then_some((lo, hi))
    }

    /// How many positions [`Self::spot_box`] holds.
    fn spot_count(&self, bounds: Bounds) -> usize {
        self.spot_box(bounds).map_or(0, |(lo, hi)| {
            let side = |a: i32, b: i32| (b - a + 1) as usize;
            side(lo.x, hi.x) * side(lo.y, hi.y) * side(lo.z, hi.z)
        })
    }

    /// Whether some feet position within range passes `done`, and how many positions
    /// were looked at to know. The box is walked outwards from the position nearest
    /// the target, along each axis only as far as positions are in range (the distance
    /// grows along every axis away from there): what is looked at is the positions in
    /// range and the first one past each end.
    fn any_spot(&self, bounds: Bounds, done: impl Fn(Pos) -> bool) -> (bool, u64) {
        let Some((lo, hi)) = self.spot_box(bounds) else { return (false, 0) };
        let t = self.target;
        if self.range <= 0.0 {
            return (done(t), 1);
        }
        let mut looked = 0u64;
        let mut look = |p: Pos| {
            looked += 1;
            if !self.reached(p) {
                Look::Out
            } else if done(p) {
                Look::Found
            } else {
                Look::In
            }
        };
        // The eyes of feet one below the target are level with it.
        let (cx, cy, cz) = (t.x.clamp(lo.x, hi.x), (t.y - 1).clamp(lo.y, hi.y), t.z.clamp(lo.z, hi.z));
        let found = outward(cy, lo.y, hi.y, &mut |y| {
            outward(cx, lo.x, hi.x, &mut |x| outward(cz, lo.z, hi.z, &mut |z| look(Pos::new(x, y, z))))
        });
        (found == Look::Found, looked)
    }

    fn heuristic(&self, p: Pos, cost: MoveCost) -> u64 {
        let dx = f64::from(p.x - self.target.x);
        let dz = f64::from(p.z - self.target.z);
        let horizontal = (dx * dx + dz * dz).sqrt();
        let blocks = (horizontal - self.range - 1.0).floor().max(0.0);
        blocks as u64 * cost.per_block
    }
}

/// What looking along one axis of a goal's box found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// The first position is out of range, and so is everything beyond it.
    Out,
    /// A spot to end on.
    Found,
    /// Positions in range, none to end on.
    In,
}

/// Looks at `at(i)` from `c` up to `hi`, then from below `c` down to `lo`, each way until
/// a position is out of range.
fn outward(c: i32, lo: i32, hi: i32, at: &mut dyn FnMut(i32) -> Look) -> Look {
    for i in c..=hi {
        match at(i) {
            Look::Out if i == c => return Look::Out,
            Look::Out => break,
            Look::Found => return Look::Found,
            Look::In => {}
        }
    }
    for i in (lo..c).rev() {
        match at(i) {
            Look::Out => break,
            Look::Found => return Look::Found,
            Look::In => {}
        }
    }
    Look::In
}

/// A found walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// Standing positions after each step (empty if already at the goal).
    pub steps: Vec<Pos>,
    /// Total ticks.
    pub ticks: u64,
}

impl Path {
    /// Where the walk ends.
    pub fn end(&self, start: Pos) -> Pos {
        self.steps.last().copied().unwrap_or(start)
    }
}

/// Finds the cheapest walk from `start` to a standing position that meets `goal` and is
/// not excluded by `avoid` (cells that must be kept clear, such as unbuilt blueprint
/// cells). Explores at most `max_nodes` positions.
pub fn find_path(
    grid: &Grid,
    data: &GameData,
    start: Pos,
    goal: Goal,
    avoid: &dyn Fn(Pos) -> bool,
    cost: MoveCost,
    max_nodes: usize,
) -> Option<Path> {
    let done = |p: Pos| goal.reached(p) && !avoid(p) && grid.standable(data, p);
    if done(start) {
        return Some(Path { steps: Vec::new(), ticks: 0 });
    }
    // With no spot to end on at all (a cell amid a floor still to be laid), the search
    // would look at every standing cell it can get to before it gives up. Whether there
    // is one is asked only once the search has looked at as many cells as the question
    // would: a walk that ends sooner never pays for it. Every spot looked at is work.
    let spot_count = goal.spot_count(grid.bounds());
    // The best-known cost to each position found, under a fast hash: SipHash stood out
    // in profiles of large runs (docs/benchmarks.md). The map is never iterated, so the
    // order of its entries cannot reach a result.
    let mut best: HashMap<Pos, (u64, Option<Pos>)> = HashMap::default();
    let mut open = BinaryHeap::new();
    let mut seq: u64 = 0;
    best.insert(start, (0, None));
    open.push(Reverse((goal.heuristic(start, cost), seq, start)));
    let mut expanded = 0usize;
    while let Some(Reverse((_, _, p))) = open.pop() {
        let g = best[&p].0;
        if p != start && done(p) {
            crate::work::add(expanded as u64);
            return Some(rebuild(&best, p, g));
        }
        expanded += 1;
        if expanded > max_nodes {
            crate::work::add(expanded as u64);
            return None;
        }
        if expanded == spot_count {
            let (any, looked) = goal.any_spot(grid.bounds(), done);
            crate::work::add(looked);
            if !any {
                crate::work::add(expanded as u64);
                return None;
            }
        }
        for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            for dy in [0, 1, -1] {
                let q = p.offset(dx, dy, dz);
                if !grid.standable(data, q) {
                    continue;
                }
                // A jump needs headroom above the current position; a drop needs the
                // cell above the landing spot free to pass through.
                if dy == 1 && grid.blocks_movement(data, p.offset(0, 2, 0)) {
                    continue;
                }
                if dy == -1 && grid.blocks_movement(data, q.offset(0, 2, 0)) {
                    continue;
                }
                let step = cost.per_block + if dy == 1 { cost.climb } else { 0 };
                let ng = g + step;
                let better = match best.entry(q) {
                    Entry::Vacant(v) => {
                        v.insert((ng, Some(p)));
                        true
                    }
                    Entry::Occupied(mut o) if o.get().0 > ng => {
                        o.insert((ng, Some(p)));
                        true
                    }
                    Entry::Occupied(_) => false,
                };
                if better {
                    seq += 1;
                    open.push(Reverse((ng + goal.heuristic(q, cost), seq, q)));
                }
            }
        }
    }
    crate::work::add(expanded as u64);
    None
}

fn rebuild(best: &HashMap<Pos, (u64, Option<Pos>)>, end: Pos, ticks: u64) -> Path {
    let mut steps = vec![end];
    let mut cur = end;
    while let Some((_, Some(prev))) = best.get(&cur) {
        steps.push(*prev);
        cur = *prev;
    }
    steps.pop(); // the start
    steps.reverse();
    Path { steps, ticks }
}

#[cfg(test)]
mod tests {
    use std::path::Path as FsPath;

    use super::*;

    const COST: MoveCost = MoveCost { per_block: 5, climb: 2 };

    fn data() -> GameData {
        GameData::load(FsPath::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/data/minecraft-1.20.4.json")))
            .expect("game data")
    }

    /// Flat ground, 61 x 61 cells around the origin, nothing built.
    fn flat() -> Grid {
        Grid::new(Bounds { min: Pos::new(-30, 0, -30), max: Pos::new(30, 6, 30) })
    }

    /// A search's answer and the work it counted.
    fn counted(
        grid: &Grid,
        data: &GameData,
        from: Pos,
        goal: Goal,
        avoid: &dyn Fn(Pos) -> bool,
        budget: usize,
    ) -> (Option<Path>, u64) {
        let before = crate::work::searched();
        let path = find_path(grid, data, from, goal, avoid, COST, budget);
        (path, crate::work::searched() - before)
    }

    /// Cells that must stay clear: a square floor still to be laid, 15 x 15 around
    /// `(10, 0, 0)`.
    fn floor_to_lay(p: Pos) -> bool {
        (p.x - 10).abs() <= 7 && p.z.abs() <= 7
    }

    #[test]
    fn the_spot_check_looks_at_every_position_in_range_and_few_others() {
        let bounds = flat().bounds();
        // Targets in the open, at the ground, high up, and at the world's edges.
        let targets = [Pos::new(0, 2, 0), Pos::new(0, 0, 0), Pos::new(5, 6, -3), Pos::new(30, 0, -30)];
        for range in [0.0, 1.5, 4.0, 4.5, 5.0] {
            for target in targets {
                let goal = Goal { target, range };
                let asked = std::cell::RefCell::new(Vec::new());
                let (found, looked) = goal.any_spot(bounds, |p| {
                    asked.borrow_mut().push(p);
                    false
                });
                assert!(!found);
                let asked = asked.into_inner();
                let mut in_range = 0u64;
                for dx in -10..=10 {
                    for dy in -10..=10 {
                        for dz in -10..=10 {
                            let p = target.offset(dx, dy, dz);
                            if goal.reached(p) && bounds.contains(p) {
                                in_range += 1;
                                assert!(asked.contains(&p), "{goal:?}: {p:?} in range, not looked at");
                            }
                        }
                    }
                }
                assert_eq!(asked.len() as u64, in_range, "{goal:?}: only positions in range are asked about");
                assert!(
                    looked >= in_range && looked <= in_range + 200,
                    "{goal:?}: {looked} looked at, {in_range} in range"
                );
                let (lo, hi) = goal.spot_box(bounds).expect("in the world");
                assert!(in_range as usize <= goal.spot_count(bounds) && bounds.contains(lo) && bounds.contains(hi));
            }
        }
    }

    #[test]
    fn a_goal_with_no_spot_to_stand_on_is_given_up_and_every_spot_looked_at_counts() {
        let (grid, data) = (flat(), data());
        let goal = Goal { target: Pos::new(10, 0, 0), range: 4.0 };
        let (path, work) = counted(&grid, &data, Pos::new(-20, 0, 0), goal, &floor_to_lay, 20_000);
        assert_eq!(path, None);
        let box_spots = goal.spot_count(grid.bounds()) as u64;
        // The search looked at as many cells as the box holds, then at the spots in range.
        let (_, looked) = goal.any_spot(grid.bounds(), |_| false);
        assert_eq!(work, box_spots + looked, "{work} for a box of {box_spots}");
        assert!(looked < box_spots, "{looked}");
        // Without the check it would have looked at every cell it can get to.
        assert!(work < 61 * 61, "{work}");
    }

    #[test]
    fn a_short_walk_never_pays_for_the_spot_check() {
        let (grid, data) = (flat(), data());
        let goal = Goal { target: Pos::new(3, 0, 0), range: 4.0 };
        let from = Pos::new(-6, 0, 0);
        let (path, work) = counted(&grid, &data, from, goal, &|_| false, 20_000);
        assert!(reach_distance(path.expect("a walk").end(from), goal.target) <= goal.range);
        assert!(work < goal.spot_count(grid.bounds()) as u64, "{work}");
    }

    #[test]
    fn a_long_walk_checks_the_box_once_and_gets_there() {
        let (mut grid, data) = (flat(), data());
        // A wall two blocks high across the site but for its last row: the way is long.
        let stone = data.block("stone").expect("stone");
        for z in -29..=30 {
            for y in 0..2 {
                grid.set(Pos::new(0, y, z), stone);
            }
        }
        let from = Pos::new(-10, 0, 20);
        for range in [0.0, 4.0] {
            let goal = Goal { target: Pos::new(10, 0, 20), range };
            let (path, work) = counted(&grid, &data, from, goal, &|_| false, 20_000);
            let path = path.expect("around the wall");
            assert!(goal.reached(path.end(from)), "range {range}");
            assert!(path.steps.iter().any(|p| p.z == -30), "range {range}: through the gap");
            assert!(work > goal.spot_count(grid.bounds()) as u64, "range {range}: {work}");
        }
    }

    #[test]
    fn a_search_out_of_budget_before_the_check_gives_the_same_answer() {
        let (grid, data) = (flat(), data());
        let goal = Goal { target: Pos::new(10, 0, 0), range: 4.0 };
        let (path, work) = counted(&grid, &data, Pos::new(-20, 0, 0), goal, &floor_to_lay, 100);
        assert_eq!(path, None);
        assert_eq!(work, 101, "the budget, and the one cell past it");
    }
}
