//! Per-agent history of escalations by issue key: cooldowns after `CANNOT_SUPPLY`,
//! time-outs, repeated zero-yield asks (DESIGN section 5.7). It gives the H feature.

use std::collections::BTreeMap;

use gatecrew_protocol::Tick;

use crate::issue::IssueKey;
use crate::level::Level;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct KeyHistory {
    cooldown_until: Option<Tick>,
    last_timed_out: bool,
    zero_yield: u32,
}

/// History by issue key. Part of an agent's private state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct History {
    keys: BTreeMap<IssueKey, KeyHistory>,
}

impl History {
    /// H for a key at `now`: 3 cooldown active; 2 asked repeatedly (twice or more)
    /// with zero yield; 1 the last request timed out; 0 fresh.
    pub fn level(&self, key: IssueKey, now: Tick) -> Level {
        let Some(h) = self.keys.get(&key) else {
            return Level::L0;
        };
        if h.cooldown_until.is_some_and(|until| now < until) {
            Level::L3
        } else if h.zero_yield >= 2 {
            Level::L2
        } else if h.last_timed_out {
            Level::L1
        } else {
            Level::L0
        }
    }

    /// Whether a cooldown is active.
    pub fn cooling(&self, key: IssueKey, now: Tick) -> bool {
        self.keys.get(&key).and_then(|h| h.cooldown_until).is_some_and(|until| now < until)
    }

    /// A `CANNOT_SUPPLY` closed the window: cooldown for `ticks`.
    pub fn cannot_supply(&mut self, key: IssueKey, now: Tick, ticks: u64) {
        let h = self.keys.entry(key).or_default();
        h.cooldown_until = Some(now + ticks);
        h.last_timed_out = false;
        h.zero_yield += 1;
    }

    /// The window timed out.
    pub fn timed_out(&mut self, key: IssueKey) {
        let h = self.keys.entry(key).or_default();
        h.last_timed_out = true;
        h.zero_yield += 1;
    }

    /// A transfer was confirmed: the key is fresh again.
    pub fn confirmed(&mut self, key: IssueKey) {
        self.keys.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatecrew_protocol::ItemId;

    #[test]
    fn levels_follow_the_design() {
        let k = IssueKey::Material(ItemId(3));
        let mut h = History::default();
        assert_eq!(h.level(k, Tick(0)), Level::L0);
        h.timed_out(k);
        assert_eq!(h.level(k, Tick(1)), Level::L1);
        h.cannot_supply(k, Tick(10), 100);
        assert_eq!(h.level(k, Tick(109)), Level::L3);
        assert_eq!(h.level(k, Tick(110)), Level::L2, "cooldown over; two zero-yield asks remain");
        h.confirmed(k);
        assert_eq!(h.level(k, Tick(111)), Level::L0);
    }
}
