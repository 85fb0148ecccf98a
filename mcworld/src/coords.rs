//! Where the scenario sits in the Minecraft world: world position `(x, y, z)` is
//! Minecraft block `origin + (x, y, z)`. The scenario's ground is just below `y = 0`,
//! so `origin.y` is the first air layer above a flat ground: 5 on the local
//! flying-squid superflat, -60 on a vanilla 1.18+ superflat world.

use std::fmt;
use std::str::FromStr;

use gatecrew_protocol::Pos;

use crate::error::McError;

/// Minecraft's world border: no block lies farther from 0 on x or z (y is far smaller).
pub const WORLD_BORDER: u32 = 30_000_000;

/// The Minecraft block of world position (0, 0, 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// x.
    pub x: i32,
    /// y: the first air layer above the ground.
    pub y: i32,
    /// z.
    pub z: i32,
}

impl Origin {
    /// A vanilla 1.18+ superflat world: grass at y = -61.
    pub const VANILLA_SUPERFLAT: Origin = Origin { x: 0, y: -60, z: 0 };

    /// The Minecraft block of a world position. Saturates: a sum past `i32` is far
    /// outside Minecraft's world border (±30,000,000), which the server refuses, rather
    /// than a wrapped block on the other side of the world.
    pub fn to_mc(self, p: Pos) -> [i32; 3] {
        [self.x.saturating_add(p.x), self.y.saturating_add(p.y), self.z.saturating_add(p.z)]
    }

    /// The world position of a Minecraft block (a server's report, so any `i32`):
    /// saturates, as [`Origin::to_mc`]; the result is then outside the world's bounds.
    pub fn from_mc(self, b: [i32; 3]) -> Pos {
        Pos::new(b[0].saturating_sub(self.x), b[1].saturating_sub(self.y), b[2].saturating_sub(self.z))
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.x, self.y, self.z)
    }
}

impl FromStr for Origin {
    type Err = McError;

    /// `X,Y,Z`.
    fn from_str(s: &str) -> Result<Self, McError> {
        let bad = || McError::BadOption(format!("origin {s:?}: expected X,Y,Z (three integers)"));
        let parts: Vec<i32> =
            s.split(',').map(|p| p.trim().parse::<i32>()).collect::<Result<_, _>>().map_err(|_| bad())?;
        match parts[..] {
            [x, y, z] if [x, y, z].iter().all(|c| c.unsigned_abs() <= WORLD_BORDER) => Ok(Origin { x, y, z }),
            [..] if parts.len() == 3 => Err(McError::BadOption(format!(
                "origin {s:?}: every coordinate must be within ±{WORLD_BORDER} (Minecraft's world border)"
            ))),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn round_trip_and_parse() {
        let o: Origin = "10, 5,-3".parse().unwrap();
        assert_eq!(o, Origin { x: 10, y: 5, z: -3 });
        let p = Pos::new(2, 0, 7);
        assert_eq!(o.to_mc(p), [12, 5, 4]);
        assert_eq!(o.from_mc(o.to_mc(p)), p);
        assert!("1,2".parse::<Origin>().is_err());
        assert!("a,b,c".parse::<Origin>().is_err());
    }

    /// An origin past the world border is refused; coordinates a server reports, however
    /// large, convert without overflow.
    #[test]
    fn huge_origins_and_server_coordinates_do_not_overflow() {
        let e = "2147483647,0,0".parse::<Origin>().unwrap_err().to_string();
        assert!(e.contains("world border"), "{e}");
        let o: Origin = "30000000,-60,-30000000".parse().unwrap();
        assert_eq!(o.to_mc(Pos::new(i32::MAX, 0, i32::MIN)), [i32::MAX, -60, i32::MIN]);
        assert_eq!(o.from_mc([i32::MIN, i32::MAX, i32::MAX]), Pos::new(i32::MIN, i32::MAX, i32::MAX));
    }
}
