#![no_main]
//! `cargo fuzz run bridge_line`: see `gatecrew_fuzzing::bridge_line`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::bridge_line(data));
