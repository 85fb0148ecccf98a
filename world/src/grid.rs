//! The block grid: a dense box of block ids over the world's bounds. The ground is an
//! implicit solid plane just below `y = 0`; everything at `y >= 0` is stored. Block
//! states (facing, door halves...) are rare, so they live in a sparse map beside it.

use std::collections::BTreeMap;

use gatecrew_protocol::Pos;
use serde::{Deserialize, Serialize};

use crate::data::{BlockId, GameData};
use crate::state::BlockState;

/// The world's extent: `min` and `max` are inclusive corners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    /// Lowest corner (its `y` must be 0).
    pub min: Pos,
    /// Highest corner.
    pub max: Pos,
}

impl Bounds {
    /// Whether a position is inside.
    pub fn contains(&self, p: Pos) -> bool {
        (self.min.x..=self.max.x).contains(&p.x)
            && (self.min.y..=self.max.y).contains(&p.y)
            && (self.min.z..=self.max.z).contains(&p.z)
    }

    /// Side lengths, computed in `i64`: `max - min + 1` of the full `i32` range
    /// overflowed `i32`.
    fn dims(&self) -> (usize, usize, usize) {
        let d = |a: i32, b: i32| usize::try_from((i64::from(b) - i64::from(a) + 1).max(0)).unwrap_or(usize::MAX);
        (d(self.min.x, self.max.x), d(self.min.y, self.max.y), d(self.min.z, self.max.z))
    }

    /// Number of cells, or `None` when it does not fit a `usize` (bounds of large
    /// numbers: `w * h * d` wrapped past the volume check in release builds and the
    /// grid then indexed out of bounds).
    pub fn checked_volume(&self) -> Option<usize> {
        let (w, h, d) = self.dims();
        w.checked_mul(h)?.checked_mul(d)
    }

    /// Number of cells, saturating at `usize::MAX`.
    pub fn volume(&self) -> usize {
        self.checked_volume().unwrap_or(usize::MAX)
    }
}

/// Dense block storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    bounds: Bounds,
    dims: (usize, usize, usize),
    cells: Vec<BlockId>,
    states: BTreeMap<Pos, BlockState>,
    /// Columns whose top ground block (at `y = -1`) was dug out (see `World` mining).
    dug: std::collections::BTreeSet<(i32, i32)>,
}

impl Grid {
    /// An all-air grid. The caller keeps the volume small (a world spec allows at most
    /// 4,000,000 cells); bounds whose volume overflows panic here rather than wrap.
    pub fn new(bounds: Bounds) -> Self {
        let dims = bounds.dims();
        Grid {
            bounds,
            dims,
            cells: vec![BlockId::AIR; bounds.volume()],
            states: BTreeMap::new(),
            dug: Default::default(),
        }
    }

    /// The extent.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    fn index(&self, p: Pos) -> Option<usize> {
        if !self.bounds.contains(p) {
            return None;
        }
        let (w, h, _) = self.dims;
        // Inside the bounds, so each offset is in 0..side and the index below the volume,
        // which `new` allocated.
        let off = |c: i32, lo: i32| (i64::from(c) - i64::from(lo)) as usize;
        let (x, y, z) = (off(p.x, self.bounds.min.x), off(p.y, self.bounds.min.y), off(p.z, self.bounds.min.z));
        Some((z * h + y) * w + x)
    }

    /// The block at `p` (air outside the bounds, above the ground).
    pub fn get(&self, p: Pos) -> BlockId {
        self.index(p).map_or(BlockId::AIR, |i| self.cells[i])
    }

    /// Sets a block without a state (any previous state goes); `false` outside the
    /// bounds.
    pub fn set(&mut self, p: Pos, b: BlockId) -> bool {
        self.set_with_state(p, b, BlockState::default())
    }

    /// Sets a block with its state; `false` outside the bounds.
    pub fn set_with_state(&mut self, p: Pos, b: BlockId, state: BlockState) -> bool {
        match self.index(p) {
            Some(i) => {
                self.cells[i] = b;
                if state.is_empty() || b == BlockId::AIR {
                    self.states.remove(&p);
                } else {
                    self.states.insert(p, state);
                }
                true
            }
            None => false,
        }
    }

    /// The state of the block at `p` (empty when none was given).
    pub fn state(&self, p: Pos) -> BlockState {
        self.states.get(&p).copied().unwrap_or_default()
    }

    /// Whether `p` blocks movement: the ground below `y = 0`, or a solid block that is
    /// not passable.
    pub fn blocks_movement(&self, data: &GameData, p: Pos) -> bool {
        if p.y < 0 {
            return !self.ground_dug(p);
        }
        let b = self.get(p);
        b != BlockId::AIR && !data.block_info(b).passable
    }

    /// Whether a bot can stand with its feet at `p`: two free cells and something solid
    /// below.
    pub fn standable(&self, data: &GameData, p: Pos) -> bool {
        self.bounds.contains(p)
            && !self.blocks_movement(data, p)
            && !self.blocks_movement(data, p.up())
            && self.blocks_movement(data, p.down())
    }

    /// Whether `p` can support a block placed next to it (the ground, or any block).
    pub fn supports(&self, p: Pos) -> bool {
        if p.y < 0 {
            return !self.ground_dug(p);
        }
        self.get(p) != BlockId::AIR
    }

    /// Whether `p` is a top ground cell (`y = -1`) that was dug out.
    pub fn ground_dug(&self, p: Pos) -> bool {
        p.y == -1 && self.dug.contains(&(p.x, p.z))
    }

    /// Digs the top ground cell of a column out.
    pub fn dig_ground(&mut self, x: i32, z: i32) {
        self.dug.insert((x, z));
    }

    /// Non-air blocks in the box `[lo, hi]`, in (z, y, x) order.
    pub fn blocks_in(&self, lo: Pos, hi: Pos) -> Vec<(Pos, BlockId)> {
        let lo = Pos::new(lo.x.max(self.bounds.min.x), lo.y.max(self.bounds.min.y), lo.z.max(self.bounds.min.z));
        let hi = Pos::new(hi.x.min(self.bounds.max.x), hi.y.min(self.bounds.max.y), hi.z.min(self.bounds.max.z));
        let mut out = Vec::new();
        for z in lo.z..=hi.z {
            for y in lo.y..=hi.y {
                for x in lo.x..=hi.x {
                    let p = Pos::new(x, y, z);
                    let b = self.get(p);
                    if b != BlockId::AIR {
                        out.push((p, b));
                    }
                }
            }
        }
        out
    }
}

/// Eye height of a standing bot above its feet.
pub const EYE_HEIGHT: f64 = 1.62;

/// Distance from the eyes of a bot standing at `feet` to the nearest point of block
/// `target`: Minecraft's reach is measured to the block's surface, not its centre.
pub fn reach_distance(feet: Pos, target: Pos) -> f64 {
    let eye = (f64::from(feet.x) + 0.5, f64::from(feet.y) + EYE_HEIGHT, f64::from(feet.z) + 0.5);
    let axis = |e: f64, lo: i32| {
        let lo = f64::from(lo);
        let hi = lo + 1.0;
        if e < lo {
            lo - e
        } else if e > hi {
            e - hi
        } else {
            0.0
        }
    };
    let (dx, dy, dz) = (axis(eye.0, target.x), axis(eye.1, target.y), axis(eye.2, target.z));
    (dx * dx + dy * dy + dz * dz).sqrt()
}

/// Distance between two bots' feet positions.
pub fn body_distance(a: Pos, b: Pos) -> f64 {
    a.dist(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_is_measured_to_the_block_surface() {
        let feet = Pos::new(0, 0, 0);
        assert_eq!(reach_distance(feet, Pos::new(0, 1, 0)), 0.0, "the eyes are inside that block");
        let d = reach_distance(feet, Pos::new(3, 3, 0));
        assert!((d - (2.5f64.powi(2) + 1.38f64.powi(2)).sqrt()).abs() < 1e-9, "{d}");
    }

    #[test]
    fn huge_bounds_do_not_wrap_their_volume() {
        let b = Bounds { min: Pos::new(i32::MIN, 0, i32::MIN), max: Pos::new(i32::MAX, 3, i32::MAX) };
        assert_eq!(b.checked_volume(), None);
        assert_eq!(b.volume(), usize::MAX);
        let b = Bounds { min: Pos::new(0, 0, 0), max: Pos::new(1 << 20, 1 << 20, 1 << 20) };
        assert!(b.volume() > 4_000_000, "{}", b.volume());
    }

    #[test]
    fn grid_indexing_round_trips() {
        let b = Bounds { min: Pos::new(-2, 0, -3), max: Pos::new(4, 5, 1) };
        let mut g = Grid::new(b);
        assert!(g.set(Pos::new(-2, 0, -3), BlockId(5)));
        assert!(g.set(Pos::new(4, 5, 1), BlockId(6)));
        assert!(!g.set(Pos::new(5, 0, 0), BlockId(1)));
        assert_eq!(g.get(Pos::new(-2, 0, -3)), BlockId(5));
        assert_eq!(g.get(Pos::new(4, 5, 1)), BlockId(6));
        assert_eq!(g.blocks_in(Pos::new(-9, -9, -9), Pos::new(9, 9, 9)).len(), 2);
    }
}
