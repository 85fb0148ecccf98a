//! `gatecrew`: run crews of Minecraft construction bots that coordinate through a gated
//! public board; calibrate the gate; analyse protocol traces.

use std::process::ExitCode;

// mimalloc, not glibc's malloc: a 1,000-bot episode on actors spent a fifth of its CPU
// time in the allocator with glibc's, and runs 1.39x the stepper with mimalloc against
// 1.77x (docs/benchmarks.md, "The allocator").
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    gatecrew_cli::binary::main()
}
