#![no_main]
//! `cargo fuzz run line_split`: see `gatecrew_fuzzing::line_split`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::line_split(data));
