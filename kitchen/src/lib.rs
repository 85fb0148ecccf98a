//! A second world for gatecrew: MindAgent's CuisineWorld, the order-flood kitchen, with
//! its central dispatcher, our gated crew and a flat-chat crew, and the Collaboration
//! Score (CoS).
//!
//! # Why the kitchen is shaped this way
//!
//! The construction world asks "who holds the glass?"; the kitchen asks "who gets the
//! next order out before it expires?". Both are about when to coordinate, but the
//! kitchen adds a deadline and a stream: orders arrive every `task_interval` steps and
//! fail after `task_lifetime`, so collaboration is measured by throughput under load, not
//! by a finished blueprint. MindAgent's CoS is the mean completion rate over five
//! interval factors: generous intervals show little, tight ones show who copes.
//!
//! The world ([`world`]) is MindAgent's, read from its code and checked against the
//! paper's appendix H trace: ten location kinds with `inside` contents and an `occupy`
//! counter, five actions of one step each (`goto`, `get`, `put`, `activate`, `noop`),
//! cooking time as tool occupancy (blender and pan 2, pot, steamer and oven 3, chopboard
//! 1, mixer 0; [`ToolSpec`] cites each number), capacities, "no waste" refusals, six
//! pending orders at most, orders drawn from the level's menu with one seeded RNG. It
//! is pure: a state machine that the runner steps, like the construction world.
//!
//! The files ([`load`]) are MindAgent's as they are (`recipe.json`,
//! `tasks_level_final.json`); unknown keys are errors with the file and JSON path. Loading
//! parses rather than validates: a [`RecipeBook`] resolves every item to raw storage
//! ingredients through an acyclic graph, and a [`Level`] whose kitchen lacks a tool
//! lists the dish as [`Level::blocked`] instead of failing later.
//!
//! # What maps to what
//!
//! | construction world | kitchen |
//! |---|---|
//! | inventory (I) | the one item in hand |
//! | active subtask (T) | the agent's own order and the tool it cooks in |
//! | chest, dropped stack | a tool's `inside`; the storage for raw items |
//! | `missing_material` | an ingredient or intermediate it cannot get in time, or one a teammate holds |
//! | `action_failed` | a tool occupied by a teammate's cooking (no message can fix it) |
//! | give / drop at a position | a `put` into the tool the requester cooks in (`Handover::DropAt` at the tool's position) |
//! | deadline (none) | the order's lifetime: doing other work of the same order does not help, so it is not "other work" |
//!
//! The five gate features come from kitchen facts by the same decision tables
//! ([`gatecrew_gating::features`]); [`policy::gated`] documents each mapping. Positions
//! for the coordination advantage are the locations' indices: every location is one
//! `goto` away, so "a teammate in reach" is a teammate at the same location.
//!
//! # Policies
//!
//! * [`PolicyKind::Dispatcher`]: MindAgent's coordination, one central planner that
//!   sees the full state and issues every agent's action each step (a deterministic
//!   planner instead of GPT-4). Its messages are its commands, one per agent per step.
//!   With a real model asked instead ([`dispatch`], [`policy::llm_dispatcher`]: the
//!   prompt, a grammar of the level's commands, the reply parsed, invalid commands fed
//!   back, an unusable reply a counted fallback), it is MindAgent's dispatcher proper.
//! * [`PolicyKind::Gated`]: each agent owns the orders dealt to it (arrival number
//!   modulo crew size), plans them with its own solver and private state, runs the real
//!   [`gatecrew_gating::Gate`] on each kitchen issue, and escalates with the four
//!   protocol messages on a real [`gatecrew_protocol::Board`].
//! * [`PolicyKind::Flatcomm`]: the same agents without a gate: every goal change and
//!   every need is broadcast to all, every teammate reads and answers (and loses its step
//!   doing so), as in free chat.
//!
//! [`cos`] runs episodes and computes CoS both ways: pending orders excluded (the
//! paper's formula) and counted as failed (MindAgent's script).
//!
//! # Executors
//!
//! Every policy runs under the same [`executor`]: `scripted` (its decisions are the
//! actions, free) or `llm` (each decision a language-model-driven agent, or MindAgent's
//! GPT-4 dispatcher, would make is a call with counted tokens, a latency and a seeded
//! chance of a wrong command, from the construction suite's GPT-4o profile unchanged).
//!
//! # Traces
//!
//! [`cos_table_traced`] writes one JSON Lines [`trace`] per episode (`gatecrew cos
//! --trace DIR`); `gatecrew analyze` reads them back and reports CoS from them.

pub mod cos;
pub mod dispatch;
mod error;
pub mod executor;
mod level;
pub mod load;
pub mod policy;
mod recipe;
mod tool;
pub mod trace;
pub mod world;

pub use cos::{
    Built, CosRow, CosTraceError, DEFAULT_HORIZON, EpisodeCore, EpisodeOutcome, EpisodeRunner, FACTORS, Mode, RunSpec,
    TimingMode, Trace, Turn, Turned, cos, cos_gated, cos_row_with, cos_table, cos_table_on, cos_table_traced, decide,
    executor_seed, run_episode, run_with, run_with_exec,
};
pub use error::{Error, ErrorKind};
pub use executor::{EpisodeExec, Executor, ExecutorKind, LlmModel, ModelUse};
pub use level::{Blocked, Level, MenuDish, NotCompletable, Timing};
pub use load::{Cuisine, default_dir};
pub use policy::{ChatLine, Counters, Decider, Desk, Line, LineText, MemberState, Policy, PolicyKind, Split};
pub use recipe::{Recipe, RecipeBook};
pub use tool::{ToolKind, ToolSpec};
pub use world::{Action, Location, LocationId, Order, OrderId, Refusal, StepReport, World};
