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
    /// The first (and only accepted) offer.
    pub offer: Option<Offer>,
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
