#![no_main]
//! `cargo fuzz run crew_config`: see `gatecrew_fuzzing::crew_config`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::crew_config(data));
