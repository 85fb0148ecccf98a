#![no_main]
//! `cargo fuzz run blueprint`: see `gatecrew_fuzzing::blueprint`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::blueprint(data));
