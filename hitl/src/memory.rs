//! Task-centric memory (paper 000, section 3.4; paper 003's provenance): when a plan
//! completes, fails or is interrupted, its log is summarised deterministically into one
//! record (goal, outcome, items gained, the person's feedback), and the facts worth
//! keeping (where things are) are stored with their provenance: `seen` by the bot,
//! `told` by the person, `inferred` by the bot from what happened. Later runs in the
//! same world read the facts back (a told chest location becomes a fetch alternative).
//!
//! This module holds what is remembered and how a plan is summarised; where it is kept
//! is the application's ([`TaskMemory`]; the command line's is an SQLite file, in
//! `gatecrew-hitl-app`). A store that fails is logged and the session goes on without
//! it: memory never changes what the bot does in this run.

mod summary;

use serde::{Deserialize, Serialize};

pub use summary::{Origin, PlanLog, summarise};

/// Why a store could not read or write (the application's own error, boxed: the
/// session only logs it).
pub type StoreFault = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Where records and facts are kept between runs.
pub trait TaskMemory: Send {
    /// Stores a record; returns its id.
    fn add_record(&self, r: &Record) -> Result<i64, StoreFault>;
    /// Stores a fact, replacing an older one about the same thing.
    fn add_fact(&self, f: &Fact) -> Result<(), StoreFault>;
    /// Every record, oldest first; only one world's when `world` is given.
    fn records(&self, world: Option<&str>) -> Result<Vec<Record>, StoreFault>;
    /// Every fact, in a fixed order; only one world's when `world` is given.
    fn facts(&self, world: Option<&str>) -> Result<Vec<Fact>, StoreFault>;
}

// Written to the trace with each memory read and write: it lives with the trace's
// other values.
pub use gatecrew_protocol::trace::Provenance;

/// One summarised plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Row id (0 before it is stored).
    pub id: i64,
    /// The world (episode name) it happened in.
    pub world: String,
    /// The run (episode and seed).
    pub run: String,
    /// The tick the plan ended at.
    pub tick: u64,
    /// The goals, as labelled in the plan.
    pub goal: String,
    /// `completed`, `failed` or `interrupted`.
    pub outcome: String,
    /// Items gained (negative: spent), by name, from the verified inventory: seen.
    pub items: Vec<(String, i64)>,
    /// What the person said about it, in order: told.
    pub feedback: Vec<String>,
    /// What the bot concluded (why a goal failed): inferred.
    pub lessons: Vec<String>,
}

/// A fact about the world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    /// The world it holds in (the episode name).
    pub world: String,
    /// `store` (the item is kept at the position) or `no_source` (no way was found).
    pub kind: String,
    /// The item's game name.
    pub item: String,
    /// Where, for a store.
    pub pos: Option<(i32, i32, i32)>,
    /// How many, if known.
    pub count: Option<u32>,
    /// Seen, told or inferred.
    pub provenance: Provenance,
    /// The run that learned it.
    pub run: String,
    /// The tick it was learned at.
    pub tick: u64,
}
