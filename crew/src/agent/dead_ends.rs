//! Cells a walk found no way to: no standing spot within range of them (a cell amid a
//! floor still to be laid), or none the walk could get to. The world's search for such
//! a walk looks at every cell in range before it gives up, so walking there again while
//! nothing changed near the cell repeats the cost and the answer. A cell is forgotten
//! once a block near it is laid or removed, as far as the bot knows: it made the change,
//! or saw it. Part of what the bot knows of the world (DESIGN section 4), kept in
//! ordered maps: nothing here depends on hashing order.

use std::collections::BTreeMap;

use gatecrew_protocol::Pos;
use gatecrew_world::reach_distance;

/// How far past a walk's range a change still counts: a block beside the spots in
/// range changes the way into them.
const MARGIN: f64 = 1.0;

/// Targets of walks that found no way, each with the widest range that failed.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct DeadEnds {
    cells: BTreeMap<Pos, f64>,
}

impl DeadEnds {
    /// A walk to within `range` of `target` found no way.
    pub(super) fn remember(&mut self, target: Pos, range: f64) {
        let r = self.cells.entry(target).or_insert(range);
        *r = r.max(range);
    }

    /// Whether a walk to within `range` of `target` is known to find no way: one as
    /// wide or wider did, and nothing changed near the target since.
    pub(super) fn holds(&self, target: Pos, range: f64) -> bool {
        self.cells.get(&target).is_some_and(|r| *r >= range)
    }

    /// Whether nothing is remembered (then no change need be looked for).
    pub(super) fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The block at `at` was laid or removed: every target it may have opened a way to
    /// is forgotten. Laid, it is something to stand on (feet above it); removed, its
    /// cell is room for feet, or for the head of feet below it.
    pub(super) fn changed(&mut self, at: Pos) {
        if self.cells.is_empty() {
            return;
        }
        self.cells.retain(|t, r| {
            let far = f64::from((at.x - t.x).abs().max((at.z - t.z).abs())) > *r + MARGIN + 1.0;
            far || ![at.down(), at, at.up()].into_iter().any(|s| reach_distance(s, *t) <= *r + MARGIN)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wider_walk_that_failed_says_a_narrower_one_fails() {
        let mut d = DeadEnds::default();
        let t = Pos::new(10, 0, 10);
        d.remember(t, 4.0);
        assert!(d.holds(t, 4.0) && d.holds(t, 3.0));
        assert!(!d.holds(t, 5.0), "a wider walk may still find a spot");
        d.remember(t, 5.0);
        d.remember(t, 4.0);
        assert!(d.holds(t, 5.0), "the widest failure is kept");
        assert!(!d.holds(Pos::new(11, 0, 10), 1.0));
    }

    #[test]
    fn a_block_laid_or_dug_near_a_target_forgets_it_and_one_far_away_does_not() {
        let mut d = DeadEnds::default();
        let (a, b) = (Pos::new(0, 0, 0), Pos::new(30, 0, 0));
        d.remember(a, 4.0);
        d.remember(b, 4.0);
        d.changed(Pos::new(15, 0, 0));
        assert!(d.holds(a, 4.0) && d.holds(b, 4.0), "nothing changed near either");
        // A floor cell laid 4 columns away: its top is a spot within reach of `a`.
        d.changed(Pos::new(4, 0, 0));
        assert!(!d.holds(a, 4.0), "forgotten");
        assert!(d.holds(b, 4.0), "still remembered");
        // A block dug high above `b`: no feet there reach it.
        d.changed(Pos::new(30, 12, 0));
        assert!(d.holds(b, 4.0));
        d.changed(Pos::new(27, 1, 0));
        assert!(d.is_empty());
    }
}
