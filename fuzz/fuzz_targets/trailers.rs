#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| agent_council_fuzz::trailers(data));
