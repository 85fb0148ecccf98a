#![no_main]
//! `cargo fuzz run task_file`: see `gatecrew_fuzzing::task_file`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::task_file(data));
