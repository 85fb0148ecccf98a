//! Ordinal feature levels.

use std::fmt;

/// An ordinal level `0..=3`. Only the constructors below make one, so a `Level` in hand
/// is in range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Level(u8);

impl Level {
    /// 0.
    pub const L0: Level = Level(0);
    /// 1.
    pub const L1: Level = Level(1);
    /// 2.
    pub const L2: Level = Level(2);
    /// 3.
    pub const L3: Level = Level(3);

    /// A level from a number, if in range.
    pub fn new(v: u8) -> Option<Level> {
        (v <= 3).then_some(Level(v))
    }

    /// The number.
    pub fn get(self) -> u8 {
        self.0
    }

    /// The number as a float, for the score.
    pub fn f(self) -> f64 {
        f64::from(self.0)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
