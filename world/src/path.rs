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

    /// Every feet position that can be within range: a box around the target (the
    /// eyes are 1.62 above the feet; reach is measured to the block's surface).
    fn spots(&self) -> impl Iterator<Item = Pos> + '_ {
        let r = if self.range <= 0.0 { 0 } else { self.range.ceil() as i32 + 1 };
        let (below, above) = if self.range <= 0.0 { (0, 0) } else { (r + 1, r) };
        let t = self.target;
        (-below..=above).flat_map(move |dy| (-r..=r).flat_map(move |dx| (-r..=r).map(move |dz| t.offset(dx, dy, dz))))
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
    // would look at every standing cell it can get to before it gives up.
    if !goal.spots().any(done) {
        return None;
    }
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
