#![no_main]
//! `cargo fuzz run trace_line`: see `gatecrew_fuzzing::trace_line`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::trace_line(data));
