//! The pure cores of a gatecrew crew: the AND/OR task graph ([`plan`]), the agent core
//! with its private state, gate and local solver ([`agent`]), the episode core and
//! its synchronous stepper ([`episode`]), and config loading ([`setup`]).
//!
//! Nothing here is async. The actor runtime (`gatecrew-actors`) drives the very same
//! cores; the stepper drives them in a plain loop. Both must produce byte-identical
//! traces for the same episode, which is what makes the stepper a reference and a
//! fast path for suites and calibration.

pub mod agent;
pub mod bots;
pub mod episode;
pub mod executor;
pub mod invariants;
mod news;
pub mod plan;
pub mod policy;
pub mod setup;
pub mod style;

pub use episode::consult::{ByAdjudicator, ConsultRequest, ResolveError, Resolver};
pub use episode::replay::{Replay, ReplayError};
pub use episode::stepper::{Observer, run, run_to_end, run_watched, run_with};
pub use episode::{Answer, EndReason, Episode, Finished, Need, Progress, STEP_BATCH, Sight, Stepped, WorldProbe};
pub use executor::{Executor, ExecutorKind, ExecutorSpec};
pub use policy::Policy;
pub use setup::{FaultSpec, Overrides, Setup, SetupError};
