//! The public board: an append-only log of protocol messages and the coordination
//! windows they open and close (DESIGN section 5.6).
//!
//! The board is a plain state machine. [`Board::post`] validates a message completely
//! before touching any state, so a rejected message changes nothing; [`Board::expire`]
//! closes the windows whose deadline has passed. The caller supplies the tick: the board
//! never reads a clock.

mod window;

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::addressees::RingSize;
use crate::count::Count;
use crate::ids::{AgentId, Tick, WindowId};
use crate::item::{ItemId, ItemRegistry};
use crate::message::{BoardMessage, MessageError, Recipient, WireMessage};

pub use window::{CloseOutcome, Offer, Standing, Window, WindowClosed};

/// Board timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BoardConfig {
    /// A window with no answer (no offer, not every addressee refused) times out after
    /// this many ticks.
    pub window_ticks: u64,
    /// Once an offer is accepted, the transfer must be confirmed within this many ticks:
    /// the giver has to walk over, so the answer deadline alone would be too short.
    pub handover_ticks: u64,
    /// A request names at most this many teammates; when all of them refuse, the next
    /// ring is asked (DESIGN section 5.6). Left out of the config hash at its default so
    /// that configs written before rings keep their hash.
    #[serde(skip_serializing_if = "RingSize::is_default")]
    pub ring: RingSize,
}

impl Default for BoardConfig {
    fn default() -> Self {
        BoardConfig { window_ticks: 40, handover_ticks: 200, ring: RingSize::DEFAULT }
    }
}

/// A message the board accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posted {
    /// Position in the log, from 0.
    pub seq: u32,
    /// When it was posted.
    pub at: Tick,
    /// The window it opened or answered.
    pub window: WindowId,
    /// The message.
    pub msg: BoardMessage,
}

/// What a successful post produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// The log entry.
    pub posted: Posted,
    /// The window this message closed, if it closed one.
    pub closed: Option<WindowClosed>,
}

/// The category of a rejection, as the trace names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectKind {
    /// The wire form did not parse.
    Malformed,
    /// An agent not on the roster.
    UnknownAgent,
    /// `from` is not the caller.
    ForgedSender,
    /// An item id not in the game data.
    UnknownItem,
    /// Sender and addressee are the same agent.
    SelfAddressed,
    /// No such window.
    UnknownWindow,
    /// The window is closed.
    WindowClosed,
    /// The sender has no role in the window that allows this message.
    WrongParty,
    /// The item differs from the window's.
    ItemMismatch,
    /// More than the window asked for or the offer committed.
    CountExceeded,
    /// The sender's own offer already stands in the window.
    AlreadyOffered,
    /// Confirmation without an offer.
    NoOffer,
    /// A second refusal from the same addressee.
    DuplicateRefusal,
    /// A request that nobody could answer (addressed to all in a crew of one).
    NoAddressee,
    /// An exact copy of a message the board already accepted (a message delivered
    /// twice): it changes nothing, and its sender need not hear of it.
    Duplicate,
}

impl RejectKind {
    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            RejectKind::Malformed => "malformed",
            RejectKind::UnknownAgent => "unknown_agent",
            RejectKind::ForgedSender => "forged_sender",
            RejectKind::UnknownItem => "unknown_item",
            RejectKind::SelfAddressed => "self_addressed",
            RejectKind::UnknownWindow => "unknown_window",
            RejectKind::WindowClosed => "window_closed",
            RejectKind::WrongParty => "wrong_party",
            RejectKind::ItemMismatch => "item_mismatch",
            RejectKind::CountExceeded => "count_exceeded",
            RejectKind::AlreadyOffered => "already_offered",
            RejectKind::NoOffer => "no_offer",
            RejectKind::DuplicateRefusal => "duplicate_refusal",
            RejectKind::NoAddressee => "no_addressee",
            RejectKind::Duplicate => "duplicate",
        }
    }
}

impl std::fmt::Display for RejectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Why the board refused a message. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind:?}: {detail}")]
pub struct BoardError {
    kind: RejectKind,
    detail: String,
}

impl BoardError {
    fn new(kind: RejectKind, detail: impl Into<String>) -> Self {
        BoardError { kind, detail: detail.into() }
    }

    /// The category.
    pub fn kind(&self) -> RejectKind {
        self.kind
    }

    /// A sentence for people.
    pub fn detail(&self) -> &str {
        &self.detail
    }
}

impl From<MessageError> for BoardError {
    fn from(e: MessageError) -> Self {
        let kind = match e {
            MessageError::UnknownItem(_) => RejectKind::UnknownItem,
            _ => RejectKind::Malformed,
        };
        BoardError::new(kind, e.to_string())
    }
}

/// The board core. See the module docs.
#[derive(Debug, Clone)]
pub struct Board {
    roster: BTreeSet<AgentId>,
    items: Arc<ItemRegistry>,
    config: BoardConfig,
    log: Vec<Posted>,
    windows: Vec<Window>,
}

impl Board {
    /// An empty board for the given crew.
    pub fn new(roster: impl IntoIterator<Item = AgentId>, items: Arc<ItemRegistry>, config: BoardConfig) -> Self {
        Board { roster: roster.into_iter().collect(), items, config, log: Vec::new(), windows: Vec::new() }
    }

    /// Every accepted message, in order.
    pub fn log(&self) -> &[Posted] {
        &self.log
    }

    /// A window by id.
    pub fn window(&self, id: WindowId) -> Option<&Window> {
        self.windows.get(id.0 as usize)
    }

    /// All windows, in id order.
    pub fn windows(&self) -> &[Window] {
        &self.windows
    }

    /// The earliest deadline among open windows.
    pub fn next_deadline(&self) -> Option<Tick> {
        self.windows.iter().filter(|w| w.is_open()).map(|w| w.deadline).min()
    }

    /// Parses a wire message, then posts it.
    pub fn post_wire(&mut self, caller: AgentId, wire: &WireMessage, now: Tick) -> Result<Receipt, BoardError> {
        let msg = wire.parse(&self.items)?;
        self.post(caller, msg, now)
    }

    /// Validates and appends a message posted by `caller` at `now`.
    pub fn post(&mut self, caller: AgentId, msg: BoardMessage, now: Tick) -> Result<Receipt, BoardError> {
        self.check_common(caller, &msg)?;
        if let Some(seq) = self.duplicate_of(&msg, now) {
            return Err(BoardError::new(RejectKind::Duplicate, format!("a copy of message #{seq}, already accepted")));
        }
        match msg {
            BoardMessage::RequestMaterial { from, to, item, count, .. } => {
                let addressees: Vec<AgentId> = match to {
                    Recipient::Agent(a) => vec![a],
                    Recipient::All => self.roster.iter().copied().filter(|a| *a != from).collect(),
                    Recipient::Agents(ring) => ring.as_slice().to_vec(),
                };
                if addressees.is_empty() {
                    return Err(BoardError::new(RejectKind::NoAddressee, "no teammate to address"));
                }
                let id = WindowId(self.windows.len() as u32);
                self.windows.push(Window {
                    id,
                    requester: from,
                    addressees,
                    item,
                    count,
                    opened: now,
                    deadline: now + self.config.window_ticks,
                    offers: Standing::default(),
                    refused: BTreeSet::new(),
                    closed: None,
                });
                Ok(self.append(id, msg, now, None))
            }
            BoardMessage::OfferTransfer { window, from, to, item, count, .. } => {
                let w = self.open_window(window, item)?;
                Self::require(w.addressees.contains(&from), "the sender was not asked in this window")?;
                Self::require(to == w.requester, "an offer goes to the requester")?;
                if w.offers.by(from).is_some() {
                    return Err(BoardError::new(
                        RejectKind::AlreadyOffered,
                        format!("{from} already holds an offer in {window}"),
                    ));
                }
                if w.refused.contains(&from) {
                    return Err(BoardError::new(RejectKind::WrongParty, "the sender already refused"));
                }
                Self::at_most(count, w.count)?;
                let handover_deadline = now + self.config.handover_ticks;
                let w = &mut self.windows[window.0 as usize];
                // A second offer stands by; a larger one is awaited instead, and the
                // giver it displaced stands by in turn.
                if w.offers.add(Offer { from, count }) {
                    w.deadline = handover_deadline;
                }
                Ok(self.append(window, msg, now, None))
            }
            BoardMessage::ConfirmTransfer { window, from, to, item, count } => {
                let w = self.open_window(window, item)?;
                Self::require(from == w.requester, "only the requester confirms")?;
                if w.offers.is_empty() {
                    return Err(BoardError::new(RejectKind::NoOffer, format!("{window} holds no offer")));
                }
                // Whichever standing offer's items arrived: a giver that stood by may
                // have delivered before it heard the window went to another.
                let offer = w
                    .offers
                    .by(to)
                    .ok_or_else(|| BoardError::new(RejectKind::WrongParty, "a confirmation goes to a giver"))?;
                Self::at_most(count, offer.count)?;
                let closed = self.close(window, now, CloseOutcome::Confirmed);
                self.giver_free(to, now);
                Ok(self.append(window, msg, now, Some(closed)))
            }
            BoardMessage::CannotSupply { window, from, to, item, .. } => {
                let w = self.open_window(window, item)?;
                Self::require(w.addressees.contains(&from), "the sender was not asked in this window")?;
                Self::require(to == w.requester, "a refusal goes to the requester")?;
                if w.refused.contains(&from) {
                    return Err(BoardError::new(RejectKind::DuplicateRefusal, format!("{from} already refused")));
                }
                let answer_deadline = (w.opened + self.config.window_ticks).max(now);
                let handover_deadline = now + self.config.handover_ticks;
                let w = &mut self.windows[window.0 as usize];
                w.refused.insert(from);
                let was_awaited = w.offer().is_some_and(|o| o.from == from);
                // From a giver, the refusal withdraws its offer (it cannot deliver): the
                // next standing offer is awaited from now, or with none left the window
                // is back to waiting for answers.
                if w.offers.withdraw(from) {
                    w.deadline = if w.offers.is_empty() { answer_deadline } else { handover_deadline };
                }
                let closed = (w.all_refused() && w.offers.is_empty())
                    .then(|| self.close(window, now, CloseOutcome::CannotSupply));
                if was_awaited {
                    self.giver_free(from, now);
                }
                Ok(self.append(window, msg, now, closed))
            }
        }
    }

    /// `giver` is done with the hand-over it was awaited for (delivered, or withdrew):
    /// a giver owing several walks to them in turn, so every other open window awaiting
    /// it gets its handover time counted from now rather than from its offer, which may
    /// have run out while the giver was busy with the first.
    fn giver_free(&mut self, giver: AgentId, now: Tick) {
        let deadline = now + self.config.handover_ticks;
        for w in self.windows.iter_mut().filter(|w| w.is_open()) {
            if w.offer().is_some_and(|o| o.from == giver) {
                w.deadline = w.deadline.max(deadline);
            }
        }
    }

    /// Closes every open window whose deadline is at or before `now`, in id order.
    pub fn expire(&mut self, now: Tick) -> Vec<WindowClosed> {
        let due: Vec<WindowId> =
            self.windows.iter().filter(|w| w.is_open() && w.deadline <= now).map(|w| w.id).collect();
        due.into_iter().map(|id| self.close(id, now, CloseOutcome::Timeout)).collect()
    }

    fn check_common(&self, caller: AgentId, msg: &BoardMessage) -> Result<(), BoardError> {
        if !self.roster.contains(&caller) {
            return Err(BoardError::new(RejectKind::UnknownAgent, format!("caller {caller} is not in the crew")));
        }
        let from = msg.from();
        if from != caller {
            return Err(BoardError::new(RejectKind::ForgedSender, format!("{caller} posted as {from}")));
        }
        let to = msg.to();
        let named: &[AgentId] = match &to {
            Recipient::Agent(one) => std::slice::from_ref(one),
            Recipient::Agents(ring) => ring.as_slice(),
            Recipient::All => &[],
        };
        for &to in named {
            if !self.roster.contains(&to) {
                return Err(BoardError::new(RejectKind::UnknownAgent, format!("addressee {to} is not in the crew")));
            }
            if to == from {
                return Err(BoardError::new(RejectKind::SelfAddressed, format!("{from} addressed itself")));
            }
        }
        if !self.items.contains(msg.item()) {
            return Err(BoardError::new(
                RejectKind::UnknownItem,
                format!("item id {} is not in the game data", msg.item().0),
            ));
        }
        Ok(())
    }

    /// The accepted message `msg` repeats, if any. Offers, confirmations and refusals
    /// name their window, so a copy is the same message in the same window whenever it
    /// arrives (a confirmation's copy typically arrives after the window closed). A
    /// request opens a new window and carries no id, so only a copy posted at the same
    /// tick counts: asking again later is a new request.
    fn duplicate_of(&self, msg: &BoardMessage, now: Tick) -> Option<u32> {
        let same = |p: &&Posted| p.msg == *msg;
        match msg.window() {
            Some(w) => self.log.iter().rev().filter(|p| p.window == w).find(same).map(|p| p.seq),
            None => self.log.iter().rev().take_while(|p| p.at == now).find(same).map(|p| p.seq),
        }
    }

    fn open_window(&self, id: WindowId, item: ItemId) -> Result<&Window, BoardError> {
        let w = self.window(id).ok_or_else(|| BoardError::new(RejectKind::UnknownWindow, format!("no window {id}")))?;
        if let Some((at, outcome)) = w.closed {
            return Err(BoardError::new(
                RejectKind::WindowClosed,
                format!("{id} closed at {at} ({})", outcome.as_str()),
            ));
        }
        if w.item != item {
            return Err(BoardError::new(
                RejectKind::ItemMismatch,
                format!("{id} is about {}, not {}", self.items.display(w.item), self.items.display(item)),
            ));
        }
        Ok(w)
    }

    fn require(ok: bool, why: &str) -> Result<(), BoardError> {
        if ok { Ok(()) } else { Err(BoardError::new(RejectKind::WrongParty, why)) }
    }

    fn at_most(count: Count, limit: Count) -> Result<(), BoardError> {
        if count > limit {
            Err(BoardError::new(RejectKind::CountExceeded, format!("count {count} exceeds {limit}")))
        } else {
            Ok(())
        }
    }

    fn close(&mut self, id: WindowId, now: Tick, outcome: CloseOutcome) -> WindowClosed {
        let w = &mut self.windows[id.0 as usize];
        w.closed = Some((now, outcome));
        WindowClosed { window: id, requester: w.requester, item: w.item, at: now, outcome }
    }

    fn append(&mut self, window: WindowId, msg: BoardMessage, now: Tick, closed: Option<WindowClosed>) -> Receipt {
        let posted = Posted { seq: self.log.len() as u32, at: now, window, msg };
        tracing::debug!(seq = posted.seq, %window, kind = posted.msg.kind().as_str(), "board accepted");
        self.log.push(posted.clone());
        Receipt { posted, closed }
    }
}

#[cfg(test)]
mod tests;
