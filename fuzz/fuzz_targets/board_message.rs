#![no_main]
//! `cargo fuzz run board_message`: see `gatecrew_fuzzing::board_message`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| gatecrew_fuzzing::board_message(data));
