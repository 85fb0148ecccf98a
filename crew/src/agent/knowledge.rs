//! What a bot knows of the world and its crew beyond its private state (DESIGN section
//! 4): what it has seen, each fact with the tick it was seen ([`Memory`]), the cells its
//! walks found no way to ([`DeadEnds`]), and what the board told it of its teammates:
//! who offered which item, and who refused it.

use std::collections::{BTreeMap, BTreeSet};

use gatecrew_protocol::{AgentId, ItemId};

use super::Memory;
use super::dead_ends::DeadEnds;

/// What the bot has seen, where its walks found no way, and who offered or refused
/// which item on the board.
#[derive(Debug, Clone, Default)]
pub(super) struct Knowledge {
    pub(super) mem: Memory,
    pub(super) dead_ends: DeadEnds,
    pub(super) offered: BTreeMap<ItemId, BTreeSet<AgentId>>,
    pub(super) refused: BTreeMap<ItemId, BTreeSet<AgentId>>,
    /// Teammates whose last answer to this bot's request for the item was that they
    /// could not get here: they hold it.
    pub(super) out_of_reach: BTreeMap<ItemId, BTreeSet<AgentId>>,
}

impl Knowledge {
    /// `from` offered `item`: it may have more, and it no longer counts as refusing.
    pub(super) fn offer(&mut self, item: ItemId, from: AgentId) {
        self.offered.entry(item).or_default().insert(from);
        self.refused.remove(&item);
    }

    /// `from` said it cannot supply `item`.
    pub(super) fn refusal(&mut self, item: ItemId, from: AgentId) {
        self.refused.entry(item).or_default().insert(from);
    }

    /// `from` answered this bot's request for `item`: that it cannot get here
    /// (`unreachable`), or any other refusal, which says nothing of a way here.
    pub(super) fn answered_me(&mut self, item: ItemId, from: AgentId, unreachable: bool) {
        if unreachable {
            self.out_of_reach.entry(item).or_default().insert(from);
        } else if let Some(s) = self.out_of_reach.get_mut(&item) {
            s.remove(&from);
        }
    }

    /// Whether some teammate may still help: the crew is known from the start, so a
    /// teammate out of sight counts (a giver finds its way to the requester's share of
    /// the blueprint, which every bot knows from the split).
    pub(super) fn may_help(&self, mut teammates: impl Iterator<Item = AgentId>) -> bool {
        teammates.next().is_some()
    }

    /// Whether every teammate of a crew of `crew` bots refused `item`. The length
    /// first: a crew of thousands is not walked while teammates are still to answer.
    pub(super) fn all_refused(&self, item: ItemId, crew: usize, mut teammates: impl Iterator<Item = AgentId>) -> bool {
        self.refused.get(&item).is_some_and(|r| r.len() + 1 >= crew && teammates.all(|a| r.contains(&a)))
    }
}
