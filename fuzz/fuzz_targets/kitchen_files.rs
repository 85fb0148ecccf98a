#![no_main]
//! `cargo fuzz run kitchen_files`: see `gatecrew_fuzzing::kitchen_files`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::kitchen_files(data));
