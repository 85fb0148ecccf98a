//! Own cells given up after repeated attempts to get at them (no walk, no pillar, no
//! face to lean on). Which of a bot's cells it tries first decides which it cannot get
//! at yet: an upper storey's cell has nowhere to stand within reach until the storey
//! below it is built. So a cell given up is kept here until a block of the blueprint is
//! laid near it, as far as the bot knows (it laid it, or saw it built); then the cell
//! is taken up again, with a fresh count of attempts.
//!
//! Only blueprint blocks count, and each is laid once: a cell comes back at most as
//! often as blueprint blocks are laid near it, so the episode still ends, and a bot
//! that puts up and takes down a pillar beside the cell does not bring it back by that.
//! Kept in an ordered map: nothing here depends on hashing order.

use std::collections::BTreeMap;

use gatecrew_protocol::Pos;
use gatecrew_world::reach_distance;

use crate::plan::NodeId;

/// How far past the reach a laid block still counts: a block beside a spot within
/// reach is the step up onto it.
const MARGIN: f64 = 1.0;

/// Cells given up, each with whether a blueprint block was laid near it since.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GivenUp {
    cells: BTreeMap<NodeId, (Pos, bool)>,
}

impl GivenUp {
    /// Node `n`, placing at `pos`, was given up (again: what was laid since stays).
    pub(super) fn give_up(&mut self, n: NodeId, pos: Pos) {
        self.cells.entry(n).or_insert((pos, false));
    }

    /// A blueprint block was laid at `at`: every cell given up within `reach` (plus a
    /// block) of it may be within reach of somewhere to stand now.
    pub(super) fn laid(&mut self, at: Pos, reach: f64) {
        for (pos, near) in self.cells.values_mut() {
            if !*near && reach_distance(at, *pos) <= reach + MARGIN {
                *near = true;
            }
        }
    }

    /// Whether node `n` is taken up again now (and is no longer kept here).
    pub(super) fn take_back(&mut self, n: NodeId) -> bool {
        if self.cells.get(&n).is_some_and(|(_, near)| *near) {
            self.cells.remove(&n);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_comes_back_once_a_block_is_laid_near_it_and_not_before() {
        let mut g = GivenUp::default();
        let (upper, other) = (NodeId::new(1), NodeId::new(2));
        g.give_up(upper, Pos::new(0, 7, 0));
        g.give_up(other, Pos::new(40, 7, 0));
        assert!(!g.take_back(upper), "nothing laid yet");
        g.laid(Pos::new(20, 5, 0), 4.5);
        assert!(!g.take_back(upper) && !g.take_back(other), "laid far from both");
        // The storey below: a block laid two below the cell.
        g.laid(Pos::new(0, 5, 1), 4.5);
        g.give_up(upper, Pos::new(0, 7, 0));
        assert!(g.take_back(upper), "what was laid near it is kept when it is given up again");
        assert!(!g.take_back(upper), "taken back once");
        assert!(!g.take_back(other));
    }
}
