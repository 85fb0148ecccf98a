#![no_main]
//! `cargo fuzz run llm_reply`: see `gatecrew_fuzzing::llm_reply`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::llm_reply(data));
