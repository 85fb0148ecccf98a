//! Inventories with Minecraft's slot and stack limits.

use std::collections::BTreeMap;

use gatecrew_protocol::{ItemId, ItemRegistry};

/// Slots in a bot's inventory (the 36 main slots; armour and offhand are not used).
pub const AGENT_SLOTS: u32 = 36;
/// Slots in a single chest.
pub const CHEST_SLOTS: u32 = 27;

/// Items held by a bot, a chest or a dropped stack. Counts are kept per item; slot use
/// is derived from the stack sizes, so a full inventory refuses what would not fit in
/// the game either.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Inventory {
    slots: u32,
    items: BTreeMap<ItemId, u32>,
}

/// The items would not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("needs {needed} slots, {free} free")]
pub struct Full {
    /// Slots the result would need.
    pub needed: u32,
    /// Slots available.
    pub free: u32,
}

/// Fewer items than asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("has {have}, needs {need}")]
pub struct Short {
    /// The item.
    pub item: ItemId,
    /// What is there.
    pub have: u32,
    /// What was asked for.
    pub need: u32,
}

impl Inventory {
    /// An empty inventory with `slots` slots.
    pub fn new(slots: u32) -> Self {
        Inventory { slots, items: BTreeMap::new() }
    }

    /// How many of an item are held.
    pub fn count(&self, item: ItemId) -> u32 {
        self.items.get(&item).copied().unwrap_or(0)
    }

    /// Held items in id order.
    pub fn iter(&self) -> impl Iterator<Item = (ItemId, u32)> + '_ {
        self.items.iter().map(|(i, n)| (*i, *n))
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Total items held.
    pub fn total(&self) -> u64 {
        self.items.values().map(|&n| u64::from(n)).sum()
    }

    /// Slot capacity.
    pub fn capacity(&self) -> u32 {
        self.slots
    }

    fn slots_for(reg: &ItemRegistry, item: ItemId, n: u32) -> u32 {
        n.div_ceil(reg.stack_size(item))
    }

    /// Slots in use.
    pub fn used_slots(&self, reg: &ItemRegistry) -> u32 {
        self.items.iter().map(|(i, n)| Self::slots_for(reg, *i, *n)).sum()
    }

    /// Whether removing `remove` and then adding `add` fits; nothing changes.
    pub fn check_exchange(
        &self,
        reg: &ItemRegistry,
        remove: &[(ItemId, u32)],
        add: &[(ItemId, u32)],
    ) -> Result<(), ExchangeError> {
        let mut after = self.items.clone();
        for &(item, n) in remove {
            let have = after.get(&item).copied().unwrap_or(0);
            if have < n {
                let need = remove.iter().filter(|(i, _)| *i == item).map(|(_, n)| n).sum();
                return Err(ExchangeError::Short(Short { item, have: self.count(item), need }));
            }
            if have == n {
                after.remove(&item);
            } else {
                after.insert(item, have - n);
            }
        }
        for &(item, n) in add {
            *after.entry(item).or_insert(0) += n;
        }
        let needed: u32 = after.iter().map(|(i, n)| Self::slots_for(reg, *i, *n)).sum();
        if needed > self.slots {
            return Err(ExchangeError::Full(Full { needed, free: self.slots.saturating_sub(self.used_slots(reg)) }));
        }
        Ok(())
    }

    /// Removes `remove` and adds `add` atomically: either all of it happens or nothing.
    pub fn exchange(
        &mut self,
        reg: &ItemRegistry,
        remove: &[(ItemId, u32)],
        add: &[(ItemId, u32)],
    ) -> Result<(), ExchangeError> {
        self.check_exchange(reg, remove, add)?;
        for &(item, n) in remove {
            self.take_unchecked(item, n);
        }
        for &(item, n) in add {
            if n > 0 {
                *self.items.entry(item).or_insert(0) += n;
            }
        }
        Ok(())
    }

    /// Adds items if they fit.
    pub fn add(&mut self, reg: &ItemRegistry, item: ItemId, n: u32) -> Result<(), Full> {
        self.exchange(reg, &[], &[(item, n)]).map_err(|e| match e {
            ExchangeError::Full(f) => f,
            ExchangeError::Short(_) => Full { needed: 0, free: 0 },
        })
    }

    /// Removes items if there are enough.
    pub fn remove(&mut self, item: ItemId, n: u32) -> Result<(), Short> {
        let have = self.count(item);
        if have < n {
            return Err(Short { item, have, need: n });
        }
        self.take_unchecked(item, n);
        Ok(())
    }

    /// Adds items whether or not they fit: for setting a scenario up, where the caller
    /// checks slot use afterwards.
    pub fn insert_unchecked(&mut self, item: ItemId, n: u32) {
        if n > 0 {
            *self.items.entry(item).or_insert(0) += n;
        }
    }

    fn take_unchecked(&mut self, item: ItemId, n: u32) {
        if let Some(have) = self.items.get_mut(&item) {
            *have -= n;
            if *have == 0 {
                self.items.remove(&item);
            }
        }
    }
}

/// Why an exchange cannot happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// Not enough of an input.
    #[error("short: {0}")]
    Short(Short),
    /// The result would not fit.
    #[error("full: {0}")]
    Full(Full),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg() -> ItemRegistry {
        ItemRegistry::new([("dirt", 64), ("bucket", 16), ("sword", 1)]).unwrap()
    }
    const DIRT: ItemId = ItemId(0);
    const BUCKET: ItemId = ItemId(1);
    const SWORD: ItemId = ItemId(2);

    #[test]
    fn stack_limits_decide_slot_use() {
        let r = reg();
        let mut inv = Inventory::new(3);
        inv.add(&r, DIRT, 65).unwrap();
        assert_eq!(inv.used_slots(&r), 2);
        assert!(inv.add(&r, BUCKET, 17).is_err(), "17 buckets need two more slots");
        assert_eq!(inv.count(BUCKET), 0, "a refused add changes nothing");
        inv.add(&r, BUCKET, 16).unwrap();
        assert!(inv.add(&r, SWORD, 1).is_err());
        assert!(inv.add(&r, DIRT, 63).is_ok(), "fills the second dirt stack");
    }

    #[test]
    fn exchange_is_atomic() {
        let r = reg();
        let mut inv = Inventory::new(1);
        inv.add(&r, DIRT, 64).unwrap();
        // Removing all the dirt frees the slot the sword needs.
        inv.exchange(&r, &[(DIRT, 64)], &[(SWORD, 1)]).unwrap();
        assert_eq!((inv.count(DIRT), inv.count(SWORD)), (0, 1));
        let before = inv.clone();
        assert!(matches!(inv.exchange(&r, &[(DIRT, 1)], &[(BUCKET, 1)]), Err(ExchangeError::Short(_))));
        assert!(matches!(inv.exchange(&r, &[], &[(BUCKET, 1)]), Err(ExchangeError::Full(_))));
        assert_eq!(inv, before);
    }
}
