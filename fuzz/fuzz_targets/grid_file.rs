#![no_main]
//! `cargo fuzz run grid_file`: see `gatecrew_fuzzing::grid_file`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::grid_file(data));
