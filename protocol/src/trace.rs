//! The JSON Lines trace of DESIGN section 10: one [`Event`] per line, every line with
//! the schema major version `v`, the episode id `ep`, the tick `t` and a `kind`.
//!
//! [`TraceWriter`] writes events; [`TraceReader`] streams them back in constant memory,
//! refusing an unknown major version, reporting a truncated last line (what a crash
//! leaves) as [`TraceError::Truncated`] so the caller can skip it, and reporting any
//! other malformed line with its line number.

mod brief;
mod event;
mod fallback_reason;
mod hitl;
mod hitl_values;
mod ranges;
mod reader;
mod scan;
mod scores;
mod values;
mod wire;

pub use brief::{Brief, BriefKind, RuleTag};
pub use event::{
    ActionName, CallKind, Decision, Event, EventKind, ExecutorLabel, FeatureVec, GateAction, GateContext, IssueName,
    MessageFault, ResolvedBy, Tier, WindowEvent,
};
pub use fallback_reason::{FallbackReason, UnknownFallback};
pub use hitl::{
    BlockEvidence, Evidence, HumanLine, IntentNote, ItemEvidence, MemoryNote, PlanNote, SayNote, ValidatorNote,
};
pub use hitl_values::{Classifier, IntentType, MemoryOp, PlanOp, Provenance, SayKind};
pub use reader::{TraceError, TraceReader, TraceWriter};
pub use scores::TaskScores;
pub use values::{EndReason, FallbackCause, LineKind, Policy, Split, SuiteClass, UnknownPolicy};

/// Reads one line (without its newline) as [`TraceWriter`] writes it, by the same fast
/// path [`TraceReader`] takes; the version is not checked. For a reader that gets a
/// trace's bytes some other way (the live viewer gets them as the run writes them).
pub fn parse_line(text: &str) -> Result<Event, serde_json::Error> {
    wire::parse(text)
}

/// The schema major version this build writes and reads.
pub const TRACE_VERSION: u32 = 1;
