//! Which cell stands at a position: the lookup every placement check, observation and
//! path search around the site makes.
//!
//! A dense array over the blueprint's bounding box when that takes no more memory
//! than a hash map of the same cells would (a solid or mostly filled site: one array
//! read), else a hash map (a sparse site, where the box is mostly air). The choice is
//! made once, when the blueprint is assembled, from the box's volume, so a sprawling
//! blueprint never allocates its box.

use std::mem::size_of;

use gatecrew_protocol::Pos;
use rustc_hash::FxHashMap;

/// No cell at this slot of the dense array.
const EMPTY: u32 = u32::MAX;

/// See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CellIndex {
    /// Slot `(x - lo.x) + dx * ((z - lo.z) + dz * (y - lo.y))` holds the cell index, or
    /// [`EMPTY`].
    Dense { lo: Pos, dims: [i64; 3], slots: Box<[u32]> },
    /// Position to cell index.
    Hashed(FxHashMap<Pos, u32>),
}

/// The dense array's slot of `p` in the box from `lo` of sides `dims`, if `p` is inside.
#[inline]
fn slot_in(lo: Pos, dims: [i64; 3], p: Pos) -> Option<usize> {
    let d = [i64::from(p.x) - i64::from(lo.x), i64::from(p.y) - i64::from(lo.y), i64::from(p.z) - i64::from(lo.z)];
    if d.iter().zip(dims).any(|(d, n)| !(0..n).contains(d)) {
        return None;
    }
    usize::try_from(d[0] + dims[0] * (d[2] + dims[2] * d[1])).ok()
}

/// The bytes a hash map of `n` entries of `entry` bytes takes: hashbrown (the standard
/// map's table) keeps at most 7/8 of its buckets full and rounds their number up to a
/// power of two, each bucket an entry and a control byte, plus one group of 16 control
/// bytes.
fn hashed_bytes(n: usize, entry: usize) -> u64 {
    let buckets = if n < 8 { n.next_power_of_two().max(4) } else { (n * 8 / 7).next_power_of_two() };
    (buckets as u64) * (entry as u64 + 1) + 16
}

impl CellIndex {
    /// The index of `positions` (cell `i` at `positions[i]`, every position distinct).
    pub(super) fn new(positions: &[Pos]) -> Self {
        let id = |i: usize| u32::try_from(i).expect("a blueprint's cells are counted in u32");
        let Some(&first) = positions.first() else { return CellIndex::Hashed(FxHashMap::default()) };
        let (lo, hi) = positions.iter().fold((first, first), |(lo, hi), p| {
            (
                Pos::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z)),
                Pos::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z)),
            )
        });
        let side = |a: i32, b: i32| i64::from(b) - i64::from(a) + 1;
        let dims = [side(lo.x, hi.x), side(lo.y, hi.y), side(lo.z, hi.z)];
        let volume = dims.iter().try_fold(1u64, |v, d| v.checked_mul(u64::try_from(*d).ok()?));
        let dense_bytes = volume.and_then(|v| v.checked_mul(size_of::<u32>() as u64));
        if dense_bytes.is_none_or(|b| b > hashed_bytes(positions.len(), size_of::<(Pos, u32)>())) {
            return CellIndex::Hashed(positions.iter().enumerate().map(|(i, p)| (*p, id(i))).collect());
        }
        let len = usize::try_from(volume.expect("checked above")).expect("no larger than the hash map it replaces");
        let mut slots = vec![EMPTY; len].into_boxed_slice();
        for (i, p) in positions.iter().enumerate() {
            slots[slot_in(lo, dims, *p).expect("inside the box")] = id(i);
        }
        CellIndex::Dense { lo, dims, slots }
    }

    /// The index of the cell at `p`.
    #[inline]
    pub(super) fn get(&self, p: Pos) -> Option<usize> {
        let i = match self {
            CellIndex::Dense { lo, dims, slots } => slots[slot_in(*lo, *dims, p)?],
            CellIndex::Hashed(m) => *m.get(&p)?,
        };
        (i != EMPTY).then_some(i as usize)
    }

    /// Whether a cell stands at `p`.
    #[inline]
    pub(super) fn contains(&self, p: Pos) -> bool {
        self.get(p).is_some()
    }

    /// Whether the index is the dense array.
    #[cfg(test)]
    pub(super) fn is_dense(&self) -> bool {
        matches!(self, CellIndex::Dense { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position in and around the box answers as a map of the same cells does.
    fn agrees(positions: &[Pos]) -> CellIndex {
        let index = CellIndex::new(positions);
        let map: std::collections::BTreeMap<Pos, usize> = positions.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let (lo, hi) = (map.keys().next().copied().unwrap_or_default(), map.keys().last().copied().unwrap_or_default());
        let span = |a: i32, b: i32| (a.min(b) - 2)..=(a.max(b) + 2);
        for x in span(lo.x, hi.x) {
            for y in -2..=positions.iter().map(|p| p.y).max().unwrap_or(0) + 2 {
                for z in -3..=positions.iter().map(|p| p.z).max().unwrap_or(0) + 2 {
                    let p = Pos::new(x, y, z);
                    assert_eq!(index.get(p), map.get(&p).copied(), "{p}");
                }
            }
        }
        index
    }

    #[test]
    fn a_solid_box_is_dense_and_a_sparse_one_hashed() {
        let solid: Vec<Pos> =
            (0..4).flat_map(|x| (0..3).flat_map(move |y| (0..5).map(move |z| Pos::new(x, y, z)))).collect();
        assert!(agrees(&solid).is_dense());
        // Two blocks far apart: the box would be almost all air.
        let sparse = [Pos::new(0, 0, 0), Pos::new(40, 9, 40)];
        assert!(!agrees(&sparse).is_dense());
        assert!(!agrees(&[]).is_dense());
    }

    #[test]
    fn the_far_corners_of_the_world_are_no_cells() {
        let m = crate::blueprint::MAX_COORD;
        let index = CellIndex::new(&[Pos::new(m, 0, m), Pos::new(m - 1, 0, m)]);
        assert!(index.is_dense());
        assert_eq!(index.get(Pos::new(m - 1, 0, m)), Some(1));
        for p in [Pos::new(i32::MIN, 0, m), Pos::new(i32::MAX, 0, m), Pos::new(m, i32::MIN, m), Pos::new(-m, 0, -m)] {
            assert_eq!(index.get(p), None);
        }
        let wide = CellIndex::new(&[Pos::new(-m, 0, -m), Pos::new(m, 0, m)]);
        assert!(!wide.is_dense());
        assert_eq!(wide.get(Pos::new(m, 0, m)), Some(1));
    }
}
