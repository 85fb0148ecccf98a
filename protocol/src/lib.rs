//! The vocabulary every gatecrew crate shares: who (agent, window and issue ids), what
//! (items checked against the game data), where (block positions), the four board
//! messages with the board that validates them, and the trace events every run writes.
//!
//! # Design
//!
//! Bots never share memory. The only thing that passes between them is a
//! [`BoardMessage`] posted on the public [`Board`]. Messages are typed: a value of
//! [`BoardMessage`] holds a known item id and a count in `1..=MAX_COUNT` by
//! construction. Anything that arrives from outside the process (a remote node, a
//! bridge, a fuzzer) comes as a [`WireMessage`] and must be parsed first
//! ([`WireMessage::parse`]); the board then checks what only it can know (the
//! roster, the caller, the windows). A rejected message changes nothing.
//!
//! The [`trace`] module defines the JSON Lines trace of DESIGN section 10, and
//! [`metrics`] computes the coordination metrics from trace events alone, so that a run
//! summary and `gatecrew analyze` can never disagree.
//!
//! This crate has no async code and no I/O beyond the trace reader and writer.

mod addressees;
mod board;
mod count;
mod ids;
mod item;
pub mod limits;
mod message;
pub mod metrics;
mod pos;
pub mod replace;
pub mod text;
pub mod trace;

pub use addressees::{Addressees, AddresseesError, MAX_ADDRESSEES, RingSize};
pub use board::{
    Board, BoardConfig, BoardError, CloseOutcome, Offer, Posted, Receipt, RejectKind, Standing, Window, WindowClosed,
};
pub use count::{Count, CountError, MAX_COUNT};
pub use ids::{AgentId, AgentIdError, IssueId, Tick, WindowId};
pub use item::{ItemId, ItemRegistry, RegistryError, UnknownItem};
pub use message::{
    BoardMessage, Handover, MessageError, MessageKind, Recipient, RefusalReason, RequestReason, WireMessage,
};
pub use pos::Pos;
