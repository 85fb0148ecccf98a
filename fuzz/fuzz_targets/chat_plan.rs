#![no_main]
//! `cargo fuzz run chat_plan`: see `gatecrew_fuzzing::chat_plan`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::chat_plan(data));
