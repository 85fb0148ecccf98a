//! A human partner in the loop of a gatecrew crew (DESIGN section 11; papers
//! 000 and 003): a person types chat lines while the crew works, and one bot, the
//! partner, turns each line into an intent on its live AND/OR plan.
//!
//! * [`plan`]: the partner's plan, the person's interventions as graph updates (switch,
//!   delete, add, stop), rule-based repair, the one-line preview;
//! * [`recipe`]: the deterministic recipe planner (goal -> sub-graph);
//! * [`chat`]: game chat as players type it (slang, abbreviations, typos) read into
//!   the words the parser and the model see;
//! * [`words`] and [`goal`]: the vocabulary and goals in game terms;
//! * [`session`] and [`driver`]: the partner and the lockstep driver of a scripted or
//!   live session.
//!
//! The library does no I/O of its own beyond reading a script file: the terminal, the
//! websocket, the SQLite task memory, the language-model client and the intent
//! benchmark are the application's (`gatecrew-hitl-app`).

pub mod chat;
pub mod classify;
pub mod driver;
pub mod exec;
pub mod goal;
pub mod intent;
pub mod knowledge;
pub mod llm;
pub mod memory;
pub mod merge;
pub mod parse;
pub mod parts;
pub mod plan;
pub mod recipe;
pub mod resolve;
pub mod script;
pub mod seat;
pub mod session;
pub mod stop;
pub mod validate;
pub mod words;
