//! The application side of the human partner ([`gatecrew_hitl`] is the partner's core:
//! intents, parsing, resolution, the plan and its operations, validators, the session,
//! the lockstep driver). Here is what talks to the outside world:
//!
//! * [`live`] and [`ws`]: a live session paced by the wall clock, chat lines from the
//!   terminal and from websocket clients on 127.0.0.1;
//! * [`memory`]: the task memory in an SQLite file;
//! * [`llm`]: the language-model classifier over HTTP;
//! * [`eval`]: the intent benchmark (accuracy and wall-clock latency).

pub mod eval;
pub mod live;
pub mod llm;
pub mod memory;
pub mod ws;
