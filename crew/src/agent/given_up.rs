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
//!
//! An item is given up the same way, after repeated requests, and when the teammates
//! that hold it had answered that they could not get here, it is kept here too: their
//! refusal lasts only while neither bot moves, so once this bot stands elsewhere, sees
//! one of them elsewhere, or sees a new teammate offer the item, the item (and every
//! cell waiting on it) is taken up again, with a fresh count of attempts. An item comes
//! back at most `max_returns` times (the agent passes its count of attempts per
//! blocker), so the episode still ends however much the bots move.
//!
//! Kept in ordered maps: nothing here depends on hashing order.

use std::collections::{BTreeMap, BTreeSet};

use gatecrew_protocol::{AgentId, ItemId, Pos};
use gatecrew_world::reach_distance;

use crate::plan::NodeId;

/// How far past the reach a laid block still counts: a block beside a spot within
/// reach is the step up onto it.
const MARGIN: f64 = 1.0;

/// Cells given up, each with whether a blueprint block was laid near it since; items
/// given up while their holders could not get here, and how often each came back.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GivenUp {
    cells: BTreeMap<NodeId, (Pos, bool)>,
    items: BTreeMap<ItemId, Undelivered>,
    returns: BTreeMap<ItemId, u32>,
}

/// What an item's give-up rested on, as the bot saw it then.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Undelivered {
    /// Where this bot stood.
    pub(super) here: Pos,
    /// The teammates holding the item that answered they could not get here, each with
    /// where this bot last saw it (`None`: never).
    pub(super) holders: BTreeMap<AgentId, Option<Pos>>,
    /// The teammates this bot had seen offer the item.
    pub(super) offerers: BTreeSet<AgentId>,
}

/// What the bot knows now, to compare with an item's give-up.
pub(super) struct Now<'a> {
    pub(super) here: Pos,
    pub(super) seen: &'a dyn Fn(AgentId) -> Option<Pos>,
    pub(super) offerers: Option<&'a BTreeSet<AgentId>>,
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

    /// `item` was given up while its holders could not get here (again: the first
    /// record stands until the item comes back).
    pub(super) fn give_up_item(&mut self, item: ItemId, why: Undelivered) {
        self.items.entry(item).or_insert(why);
    }

    /// Whether `item` is taken up again now: something its give-up rested on changed,
    /// and it came back fewer than `max_returns` times.
    pub(super) fn item_back(&mut self, item: ItemId, now: &Now<'_>, max_returns: u32) -> bool {
        let Some(why) = self.items.get(&item) else {
            return false;
        };
        let returns = self.returns.get(&item).copied().unwrap_or(0);
        let moved = now.here != why.here;
        let seen_elsewhere = why.holders.iter().any(|(a, at)| (now.seen)(*a) != *at);
        let new_holder = now.offerers.is_some_and(|o| !o.is_subset(&why.offerers));
        if returns >= max_returns || !(moved || seen_elsewhere || new_holder) {
            return false;
        }
        self.items.remove(&item);
        self.returns.insert(item, returns + 1);
        true
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

    #[test]
    fn an_item_comes_back_when_either_bot_moved_or_a_new_holder_is_known_and_only_so_often() {
        let mut g = GivenUp::default();
        let (item, holder, other) = (ItemId(3), AgentId(4), AgentId(1));
        let at = Pos::new(5, 0, 5);
        let why = || Undelivered {
            here: Pos::new(0, 7, 0),
            holders: BTreeMap::from([(holder, Some(at))]),
            offerers: BTreeSet::from([holder]),
        };
        let still = |a: AgentId| (a == holder).then_some(at);
        let moved = |a: AgentId| (a == holder).then_some(Pos::new(6, 0, 5));
        let same = BTreeSet::from([holder]);
        let more = BTreeSet::from([holder, other]);
        let now = |here, seen, offerers| Now { here, seen, offerers };
        g.give_up_item(item, why());
        assert!(!g.item_back(item, &now(Pos::new(0, 7, 0), &still, Some(&same)), 2), "nothing changed");
        assert!(g.item_back(item, &now(Pos::new(0, 7, 1), &still, Some(&same)), 2), "this bot moved");
        assert!(!g.item_back(item, &now(Pos::new(0, 7, 1), &still, Some(&same)), 2), "taken back once");
        g.give_up_item(item, why());
        assert!(g.item_back(item, &now(Pos::new(0, 7, 0), &moved, Some(&same)), 2), "the holder moved");
        g.give_up_item(item, why());
        assert!(!g.item_back(item, &now(Pos::new(0, 7, 0), &still, Some(&more)), 2), "came back twice: no more");
        let mut g = GivenUp::default();
        g.give_up_item(item, why());
        assert!(g.item_back(item, &now(Pos::new(0, 7, 0), &still, Some(&more)), 2), "a new holder");
    }
}
