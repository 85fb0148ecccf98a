//! Integration tests of gatecrew, one binary: each module covers one area.

// Test helpers fail loudly on purpose.
#![allow(clippy::unwrap_used)]

mod actions;
mod analyze;
mod bad_input;
mod baselines;
mod browser;
mod building;
mod calibrate;
mod cli;
mod common;
mod config;
mod conservation;
mod conventions;
mod crews;
mod episode;
mod executor;
mod explore;
mod export;
mod external;
mod faults;
mod fit_errors;
mod floors;
mod fuzz_corpus;
mod gated_baselines;
mod given_up;
mod handovers;
mod hitl;
mod hostile;
mod issues;
mod kitchen;
mod llm;
mod metrics;
mod minecraft;
mod model_bots;
mod model_concurrency;
mod model_views;
mod oracle;
mod out_of_sight;
mod partial_tasks;
mod plan;
mod reproduce;
mod rooms;
mod scores;
mod soak;
mod suite;
mod suite_model;
mod suite_v2;
mod supervision;
mod task_cli;
mod task_files;
mod tasks;
mod test_command;
mod viewer;
