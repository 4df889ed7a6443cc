#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| agent_council_fuzz::assistant_context(data));
