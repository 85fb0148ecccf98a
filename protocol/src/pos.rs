//! Integer block positions.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A block position (x east, y up, z south), written `[x, y, z]` in every file format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(from = "[i32; 3]", into = "[i32; 3]")]
pub struct Pos {
    /// East.
    pub x: i32,
    /// Up.
    pub y: i32,
    /// South.
    pub z: i32,
}

impl Pos {
    /// A position from its coordinates.
    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        Pos { x, y, z }
    }

    /// This position moved by the given deltas.
    ///
    /// Saturates at the ends of `i32` (a position a server reports may lie there): the
    /// worlds and blueprints gatecrew builds lie within ±30,000,000, far inside.
    pub const fn offset(self, dx: i32, dy: i32, dz: i32) -> Self {
        Pos::new(self.x.saturating_add(dx), self.y.saturating_add(dy), self.z.saturating_add(dz))
    }

    /// The block above.
    pub const fn up(self) -> Self {
        self.offset(0, 1, 0)
    }

    /// The block below.
    pub const fn down(self) -> Self {
        self.offset(0, -1, 0)
    }

    /// The six face neighbours, in a fixed order (below first, then above, then the
    /// four sides) so that every walk over them is deterministic.
    pub fn neighbours(self) -> [Pos; 6] {
        [
            self.down(),
            self.up(),
            self.offset(-1, 0, 0),
            self.offset(1, 0, 0),
            self.offset(0, 0, -1),
            self.offset(0, 0, 1),
        ]
    }

    /// Squared Euclidean distance between block corners.
    pub fn dist_sq(self, other: Pos) -> i64 {
        // In i64 and saturating: positions a server reports may lie anywhere in i32,
        // and their differences overflowed.
        let d = |a: i32, b: i32| (i64::from(a) - i64::from(b)).saturating_mul(i64::from(a) - i64::from(b));
        d(self.x, other.x).saturating_add(d(self.y, other.y)).saturating_add(d(self.z, other.z))
    }

    /// Euclidean distance between block corners.
    pub fn dist(self, other: Pos) -> f64 {
        (self.dist_sq(other) as f64).sqrt()
    }

    /// Horizontal (x, z) Manhattan distance.
    pub fn manhattan_xz(self, other: Pos) -> u32 {
        self.x.abs_diff(other.x).saturating_add(self.z.abs_diff(other.z))
    }
}

impl From<[i32; 3]> for Pos {
    fn from([x, y, z]: [i32; 3]) -> Self {
        Pos::new(x, y, z)
    }
}

impl From<Pos> for [i32; 3] {
    fn from(p: Pos) -> Self {
        [p.x, p.y, p.z]
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}, {}]", self.x, self.y, self.z)
    }
}
