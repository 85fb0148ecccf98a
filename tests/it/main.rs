//! Integration tests of gatecrew, one binary: each module covers one area.

// Test helpers fail loudly on purpose.
#![allow(clippy::unwrap_used)]

mod actions;
mod analyze;
mod bad_input;
mod building;
mod calibrate;
mod cli;
mod common;
mod config;
mod conservation;
mod episode;
mod external;
mod faults;
mod fuzz_corpus;
mod hitl;
mod llm;
mod minecraft;
mod plan;
mod scores;
mod soak;
mod suite;
mod supervision;
mod task_cli;
mod tasks;
