//! `gatecrew analyze`: coordination metrics from traces alone (DESIGN section 8).
//!
//! [`read_traces`] streams JSON Lines traces (files or folders, walked in sorted order)
//! one line at a time: memory grows with the number of episodes, never with the size of
//! a trace. A truncated last line (a crash) is reported and skipped; any other malformed
//! line is an error naming `file:line`; an unknown major version is refused. Each line
//! is read as a brief (`TraceReader::next_brief`: the fields the metrics read, scanned
//! where the line lies when it is in the writer's form), not as a whole event.
//!
//! Files are read on every core and merged in file order (the result does not depend
//! on the number of threads).
//!
//! [`Report::build`] groups episodes by policy and by class (or crew size), computes the
//! metrics the way DESIGN section 8 says (TSR, CS and Msg are means over episodes; the
//! rates pool their counts), and attaches 95% percentile-bootstrap confidence intervals
//! (2,000 resamples of episodes by default, drawn once per group and shared by its
//! metrics, seeded: the same traces give the same intervals on every platform), every
//! group on its own core.
//! [`plot`] draws them with a bundled font, so no system font is needed.
//!
//! Kitchen traces (`gatecrew cos --trace`) in the same files and folders are read by
//! [`kitchen`] and reported as MindAgent's Collaboration Score ([`KitchenReport`]);
//! construction traces are read and reported exactly as without them.

#[cfg(feature = "export")]
pub mod export;
pub mod kitchen;
mod paired;
pub mod plot;
mod read;
mod report;
mod stats;
pub mod table;

pub use kitchen::{KitchenMean, KitchenReport, KitchenRow};
pub use paired::{Paired, PairedError, PairedGroup, format_diff};
pub use read::{AnalyzeError, ReadSummary, read_traces};
pub use report::{By, Cell, DecisionRow, Decisions, Group, Metric, Report};
pub use stats::{Ci, Column, Interval, RESAMPLES, bootstrap, resampled};
