//! Splitting a blueprint among the crew: each agent gets a pie slice around the
//! blueprint's centre, so shares are compact (short walks) and roughly equal in size.
//! Angles are compared exactly on integers, so the split is the same on every machine.

use std::cmp::Ordering;

use gatecrew_protocol::AgentId;
use gatecrew_world::{Blueprint, Part};

/// The half-plane of a vector, so that angles sort from the -z axis clockwise (seen
/// from above): north, east, south, west.
fn half(dx: i64, dz: i64) -> u8 {
    if dx > 0 || (dx == 0 && dz < 0) { 0 } else { 1 }
}

fn cmp_angle(a: (i64, i64), b: (i64, i64)) -> Ordering {
    // The centre itself has no angle: it sorts first.
    let zero = |v: (i64, i64)| v == (0, 0);
    if zero(a) || zero(b) {
        return zero(b).cmp(&zero(a));
    }
    half(a.0, a.1).cmp(&half(b.0, b.1)).then_with(|| {
        // Cross product sign: positive when a comes before b.
        let cross = a.0 * b.1 - a.1 * b.0;
        0.cmp(&cross)
    })
}

/// The owner of every blueprint cell (upper halves go with their lower half).
pub fn split_work(bp: &Blueprint, agents: usize) -> Vec<AgentId> {
    let cells = bp.cells();
    let mut owners = vec![AgentId(0); cells.len()];
    if agents <= 1 || cells.is_empty() {
        return owners;
    }
    let Some((lo, hi)) = bp.extent() else {
        return owners;
    };
    let (cx2, cz2) = (i64::from(lo.x + hi.x), i64::from(lo.z + hi.z));
    let mut order: Vec<usize> = (0..cells.len()).filter(|&i| cells[i].part != Part::Upper).collect();
    let vec_of = |i: usize| (2 * i64::from(cells[i].pos.x) - cx2, 2 * i64::from(cells[i].pos.z) - cz2);
    order.sort_by(|&a, &b| cmp_angle(vec_of(a), vec_of(b)).then_with(|| cells[a].pos.cmp(&cells[b].pos)));
    let n = order.len();
    for (rank, &i) in order.iter().enumerate() {
        owners[i] = AgentId((rank * agents / n) as u32);
    }
    for (i, c) in cells.iter().enumerate() {
        if c.part == Part::Upper {
            if let Some(s) = c.support {
                owners[i] = owners[s];
            }
        }
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_go_round() {
        let dirs = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)];
        for w in dirs.windows(2) {
            assert_eq!(cmp_angle(w[0], w[1]), Ordering::Less, "{:?} before {:?}", w[0], w[1]);
        }
        assert_eq!(cmp_angle((2, 0), (5, 0)), Ordering::Equal);
        assert_eq!(cmp_angle((0, 0), (5, 0)), Ordering::Less);
        assert_eq!(cmp_angle((0, 0), (0, 0)), Ordering::Equal);
    }
}
