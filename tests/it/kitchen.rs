//! The CuisineWorld kitchen: every shared level and recipe loads, hostile
//! files are named with their JSON path, the world's orders, tools and timing behave as
//! MindAgent's, CoS is what it says, the policies serve orders, and `gatecrew cos` runs,
//! on the stepper and on actors with the same bytes; the dispatcher can be a real model.

mod actors;
mod bad_trace;
mod cli;
mod common;
mod cos;
mod executor;
mod llm_dispatcher;
mod load;
mod policies;
mod trace;
mod world;
