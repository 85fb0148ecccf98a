//! One coordination window: a request, the answers it collected, and how it ended.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::count::Count;
use crate::ids::{AgentId, Tick, WindowId};
use crate::item::ItemId;

/// How a window ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseOutcome {
    /// The requester confirmed a verified transfer.
    Confirmed,
    /// Every addressee said `CANNOT_SUPPLY`.
    CannotSupply,
    /// The deadline passed first.
    Timeout,
}

impl CloseOutcome {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            CloseOutcome::Confirmed => "confirmed",
            CloseOutcome::CannotSupply => "cannot_supply",
            CloseOutcome::Timeout => "timeout",
        }
    }
}

impl std::fmt::Display for CloseOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so that widths in format strings apply.
        f.pad(self.as_str())
    }
}

/// A committed offer inside a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    /// The giver.
    pub from: AgentId,
    /// How many it committed.
    pub count: Count,
}

/// The offers standing in one window, in the order they were posted. The one the
/// requester awaits (and whose giver walks over) is the largest, the earliest among
/// equals; the others stand by. A giver that cannot deliver withdraws its offer with
/// `CANNOT_SUPPLY`, and the window goes to the next. Agents keep the same record from
/// the board's news, so giver, requester and board agree on whose turn it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Standing(Vec<Offer>);

impl Standing {
    /// The offer awaited: the largest, the earliest among equals.
    pub fn current(&self) -> Option<Offer> {
        // `max_by_key` keeps the last of equals; the earliest is wanted.
        self.0.iter().copied().rev().max_by_key(|o| o.count)
    }

    /// `from`'s standing offer.
    pub fn by(&self, from: AgentId) -> Option<Offer> {
        self.0.iter().copied().find(|o| o.from == from)
    }

    /// Whether no offer stands.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every standing offer, in posting order.
    pub fn all(&self) -> &[Offer] {
        &self.0
    }

    /// Records an offer (a giver's second offer replaces its first). Returns whether the
    /// awaited offer changed.
    pub fn add(&mut self, offer: Offer) -> bool {
        let before = self.current();
        self.0.retain(|o| o.from != offer.from);
        self.0.push(offer);
        self.current() != before
    }

    /// Withdraws `from`'s offer. Returns whether the awaited offer changed.
    pub fn withdraw(&mut self, from: AgentId) -> bool {
        let before = self.current();
        self.0.retain(|o| o.from != from);
        self.current() != before
    }
}

/// The board's record of a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Its id.
    pub id: WindowId,
    /// Who opened it.
    pub requester: AgentId,
    /// Who was asked, in id order.
    pub addressees: Vec<AgentId>,
    /// The item asked for.
    pub item: ItemId,
    /// How many.
    pub count: Count,
    /// When it opened.
    pub opened: Tick,
    /// When it times out unless something closes it first.
    pub deadline: Tick,
    /// The offers standing (see [`Standing`]).
    pub offers: Standing,
    /// Addressees that said `CANNOT_SUPPLY`.
    pub refused: BTreeSet<AgentId>,
    /// `None` while open.
    pub closed: Option<(Tick, CloseOutcome)>,
}

impl Window {
    /// Whether messages may still be posted in it.
    pub fn is_open(&self) -> bool {
        self.closed.is_none()
    }

    /// The offer awaited, if any stands.
    pub fn offer(&self) -> Option<Offer> {
        self.offers.current()
    }

    /// Whether every addressee refused.
    pub(crate) fn all_refused(&self) -> bool {
        self.addressees.iter().all(|a| self.refused.contains(a))
    }
}

/// A window that closed, for the trace and for the agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowClosed {
    /// The window.
    pub window: WindowId,
    /// Who opened it.
    pub requester: AgentId,
    /// The item it was about.
    pub item: ItemId,
    /// When.
    pub at: Tick,
    /// How.
    pub outcome: CloseOutcome,
}
