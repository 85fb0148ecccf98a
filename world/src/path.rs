//! A* over standing positions: four horizontal moves, each level, one block up (a
//! jump) or one block down. Deterministic: ties are broken by insertion order, and the
//! neighbour order is fixed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap as HashMap;

use gatecrew_protocol::Pos;

use crate::data::GameData;
use crate::grid::{Grid, reach_distance};

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

    /// The half-widths of the box of feet positions that can be within range:
    /// horizontally, below and above the target (the eyes are 1.62 above the feet;
    /// reach is measured to the block's surface).
    fn spot_box(&self) -> (i32, i32, i32) {
        if self.range <= 0.0 {
            return (0, 0, 0);
        }
        let r = self.range.ceil() as i32 + 1;
        (r, r + 1, r)
    }

    /// Every feet position that can be within range.
    fn spots(&self) -> impl Iterator<Item = Pos> + '_ {
        let (r, below, above) = self.spot_box();
        let t = self.target;
        (-below..=above).flat_map(move |dy| (-r..=r).flat_map(move |dx| (-r..=r).map(move |dz| t.offset(dx, dy, dz))))
    }

    /// How many positions [`Self::spots`] yields.
    fn spot_count(&self) -> usize {
        let (r, below, above) = self.spot_box();
        let side = (2 * r + 1) as usize;
        side * side * (below + above + 1) as usize
    }

    /// Whether some spot passes `done`, and how many spots were looked at to know.
    fn any_spot(&self, done: impl Fn(Pos) -> bool) -> (bool, u64) {
        let mut looked = 0u64;
        let found = self.spots().any(|p| {
            looked += 1;
            done(p)
        });
        (found, looked)
    }

    fn heuristic(&self, p: Pos, cost: MoveCost) -> u64 {
        let dx = f64::from(p.x - self.target.x);
        let dz = f64::from(p.z - self.target.z);
        let horizontal = (dx * dx + dz * dz).sqrt();
        let blocks = (horizontal - self.range - 1.0).floor().max(0.0);
        blocks as u64 * cost.per_block
    }
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
    let spot_count = goal.spot_count();
    // The best-known cost to each position found. SipHash was a fifth of a village run's
    // time on actors (perf, issue 20); the map is never iterated, so the order of its
    // entries cannot reach a result.
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
            let (any, looked) = goal.any_spot(done);
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
    use crate::grid::Bounds;

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
    fn the_spot_box_holds_every_position_in_range() {
        for range in [0.0, 1.5, 4.0, 4.5, 5.0] {
            let goal = Goal { target: Pos::new(0, 2, 0), range };
            let spots: Vec<Pos> = goal.spots().collect();
            assert_eq!(spots.len(), goal.spot_count(), "range {range}");
            for dx in -10..=10 {
                for dy in -10..=10 {
                    for dz in -10..=10 {
                        let p = Pos::new(dx, 2 + dy, dz);
                        assert!(!goal.reached(p) || spots.contains(&p), "range {range}: {p:?} in range, not in the box");
                    }
                }
            }
        }
    }

    #[test]
    fn a_goal_with_no_spot_to_stand_on_is_given_up_and_every_spot_looked_at_counts() {
        let (grid, data) = (flat(), data());
        let goal = Goal { target: Pos::new(10, 0, 0), range: 4.0 };
        let (path, work) = counted(&grid, &data, Pos::new(-20, 0, 0), goal, &floor_to_lay, 20_000);
        assert_eq!(path, None);
        let box_spots = goal.spot_count() as u64;
        // The search looked at as many cells as the box holds, then at the whole box.
        assert_eq!(work, 2 * box_spots, "{work} for a box of {box_spots}");
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
        assert!(work < goal.spot_count() as u64, "{work}");
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
            assert!(work > goal.spot_count() as u64, "range {range}: {work}");
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
