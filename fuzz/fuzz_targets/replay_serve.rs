#![no_main]
//! `cargo fuzz run replay_serve`: see `gatecrew_fuzzing::replay_serve`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::replay_serve(data));
