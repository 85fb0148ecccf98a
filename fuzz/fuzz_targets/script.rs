#![no_main]
//! `cargo fuzz run script`: see `gatecrew_fuzzing::script`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::script(data));
