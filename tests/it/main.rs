//! Integration tests of gatecrew, one binary: each module covers one area.

mod actions;
mod cli;
mod common;
mod config;
mod conservation;
mod episode;
mod plan;
mod supervision;
