//! The coordination policies compared on the same episodes (DESIGN section 6).
//!
//! The first four differ only in the gate procedure their bots run; each policy's
//! coordination style, gate included, is [`crate::style::of`]. The last three are models of other
//! systems' coordination behaviour inside this world, not re-implementations of them:
//! they reproduce how those systems talk (who is interrupted, who waits, what a message
//! costs), never their language models' judgement. See docs/baselines.md.

pub use gatecrew_protocol::trace::{Policy, UnknownPolicy};
