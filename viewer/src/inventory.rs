//! Exact inventories: what every bot holds, read from the world after a step (never
//! from the trace, which names no items for a `mine`, a `pick_up` or a `smelt`'s
//! output). A live run hands them to the hub beside the events; a replay re-simulates
//! its episode and keeps one snapshot per tick at which an inventory changed.

use std::collections::BTreeMap;
use std::sync::Arc;

use gatecrew_protocol::ItemId;
use gatecrew_world::{GameData, Inventory};
use serde::Serialize;

/// Every bot's inventory at the end of one tick's step, by item name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Inventories {
    /// The tick.
    pub tick: u64,
    /// Per bot, in agent-id order: item name to count (items at zero left out).
    pub bots: Vec<BTreeMap<String, u32>>,
}

/// The bots whose inventory changed in one step, as the world holds them (item ids:
/// names are looked up on the viewer's side, not on the crew's thread).
#[derive(Debug, Clone)]
pub struct WorldChange {
    /// The tick.
    pub tick: u64,
    /// Agent id and its whole inventory now, for each bot whose inventory changed.
    pub bots: Vec<(u32, Inventory)>,
    /// For the item names.
    pub data: Arc<GameData>,
}

/// An inventory by item name (items at zero left out).
pub fn named(data: &GameData, inv: &Inventory) -> BTreeMap<String, u32> {
    named_items(data, inv.iter())
}

/// Counts by item name (items at zero left out).
pub fn named_items(data: &GameData, items: impl Iterator<Item = (ItemId, u32)>) -> BTreeMap<String, u32> {
    items.filter(|&(_, n)| n > 0).map(|(item, n)| (data.item_name(item).to_owned(), n)).collect()
}

/// Where the cards' inventories come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InventorySource {
    /// The world, after each step: exact.
    World,
    /// The start plus the item movements the trace records: `mine`, `pick_up` and
    /// smelting outputs are missing.
    #[default]
    Trace,
}

/// A run's inventory snapshots in tick order, to look up the one in force at a tick.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timeline {
    snapshots: Vec<Inventories>,
}

impl Timeline {
    /// Adds a snapshot; one at the same tick as the last replaces it (a later step of
    /// that tick). Snapshots must come in tick order.
    pub fn push(&mut self, inv: Inventories) {
        match self.snapshots.last_mut() {
            Some(last) if last.tick == inv.tick => *last = inv,
            Some(last) if last.bots == inv.bots => {}
            _ => self.snapshots.push(inv),
        }
    }

    /// The snapshot in force at the end of tick `t`: the last one taken at or before it.
    pub fn at(&self, t: u64) -> Option<&Inventories> {
        let i = self.snapshots.partition_point(|s| s.tick <= t);
        i.checked_sub(1).map(|i| &self.snapshots[i])
    }

    /// Snapshots held.
    pub fn len(&self) -> usize {
        self.snapshots.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.snapshots.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv(tick: u64, n: u32) -> Inventories {
        Inventories { tick, bots: vec![BTreeMap::from([("stone".to_owned(), n)])] }
    }

    #[test]
    fn the_snapshot_in_force_is_the_last_at_or_before_the_tick() {
        let mut tl = Timeline::default();
        tl.push(inv(0, 1));
        tl.push(inv(5, 2));
        tl.push(inv(5, 3)); // a later step at tick 5 replaces the first
        tl.push(inv(9, 3)); // unchanged: not kept
        tl.push(inv(12, 4));
        assert_eq!(tl.len(), 3);
        assert_eq!(tl.at(0), Some(&inv(0, 1)));
        assert_eq!(tl.at(4), Some(&inv(0, 1)));
        assert_eq!(tl.at(5), Some(&inv(5, 3)));
        assert_eq!(tl.at(11), Some(&inv(5, 3)));
        assert_eq!(tl.at(400), Some(&inv(12, 4)));
        let mut late = Timeline::default();
        late.push(inv(3, 1));
        assert_eq!(late.at(2), None);
    }
}
