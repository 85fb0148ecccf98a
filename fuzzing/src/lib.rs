//! The fuzz harnesses of gatecrew, one function per `cargo fuzz` target, each taking
//! the raw input bytes:
//!
//! * [`trace_line`]: JSON Lines traces through [`TraceReader`](gatecrew_protocol::trace::TraceReader),
//!   the metrics fold and the adjudication replay;
//! * [`blueprint`]: blueprint TOML and block-state specs;
//! * [`task_file`]: MineCollab and VillagerBench task files, imported and set up;
//! * [`board_message`]: wire messages and sequences of posts on the board;
//! * [`llm_reply`]: chat-completions bodies and the model's answer;
//! * [`crew_config`], [`script`], [`chat_plan`], [`line_split`], [`bridge_line`]: what
//!   reaches a run from outside: crew configs, scripted sessions, a chat
//!   line through intent reading into the recipe planner, the capped line splitter of
//!   the websocket and the bridge with the origin check, and the bridge's lines;
//! * [`replay_serve`], [`grid_file`], [`kitchen_files`]: files read whole, each under a
//!   bound (docs/faults.md, "Limits"): the
//!   replay server's trace and page requests, the calibration grid, and the kitchen's
//!   recipe and level files.
//!
//! A harness returns normally on any input the code under test handles as it should,
//! an error included, and panics when it finds a bug: a panic in the library, or a
//! broken invariant or round trip that the harness checks. The fuzz targets in `fuzz/`
//! are one-line wrappers, and the integration test `fuzz_corpus` replays every
//! committed corpus file and crash reproducer through the same functions on stable.

// Harnesses report a bug by panicking, like a test.
#![allow(clippy::unwrap_used, clippy::panic)]

mod board;
mod data;
mod hostile;
mod llm;
mod plan;
mod served;
mod task;
mod trace;

pub use board::board_message;
pub use hostile::{bridge_line, chat_plan, crew_config, line_split, script};
pub use llm::llm_reply;
pub use plan::blueprint;
pub use served::{grid_file, kitchen_files, replay_serve};
pub use task::task_file;
pub use trace::trace_line;

/// A harness: returns on inputs handled as they should be, panics on a bug.
pub type Harness = fn(&[u8]);

/// The fuzz targets by name, as `fuzz/fuzz_targets/<name>.rs` and the corpus folders
/// `fuzz/corpus/<name>/` and `fuzz/regressions/<name>/` name them.
pub const TARGETS: [(&str, Harness); 13] = [
    ("trace_line", trace_line),
    ("blueprint", blueprint),
    ("task_file", task_file),
    ("board_message", board_message),
    ("llm_reply", llm_reply),
    ("crew_config", crew_config),
    ("script", script),
    ("chat_plan", chat_plan),
    ("line_split", line_split),
    ("bridge_line", bridge_line),
    ("replay_serve", replay_serve),
    ("grid_file", grid_file),
    ("kitchen_files", kitchen_files),
];
