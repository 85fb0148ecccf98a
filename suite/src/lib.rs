//! The gatecrew episode suite (DESIGN section 7).
//!
//! 40 blueprint [`template`]s in ten families × 5 seeds = 200 episodes, 120 with two
//! bots and 80 with three, 50 per class:
//!
//! * **A** locally recoverable: a bot lacks an item, its source is close (a chest by its
//!   start, or the raw material in its inventory one craft away);
//! * **B** necessary collaboration: the item exists only in a teammate's inventory and
//!   no local source exists;
//! * **C** gray zone: a teammate holds the item, and a local source exists too, far away;
//! * **D** collaboration failure: like B, but no teammate has any to spare, or the one who
//!   has stops answering.
//!
//! Classes are injected deterministically from the seed and *checked with the world's
//! oracle* when generated ([`inject`]); a test checks them again on every episode. The
//! calibration and test splits are split by template, balanced by class and crew size;
//! a `standard` split adds one abundant, injection-free episode per template. Episodes
//! are written as ordinary crew configs, so `gatecrew run --config` runs any of them.

pub mod generate;
pub mod inject;
pub mod manifest;
pub mod template;

pub use generate::{GenerateError, Version, generate};
pub use manifest::{Entry, Manifest, ManifestError, Shortage};
