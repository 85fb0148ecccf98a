//! Integration tests of the kitchen crate, one binary.

mod common;
mod cos;
mod load;
mod policies;
mod world;
