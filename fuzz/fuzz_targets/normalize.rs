//! The normalizer on any text: never panics, only shortens the trimmed command, cuts before `| head`/`| tail`.
#![no_main]

#[path = "../../crates/core/tests/invariants/mod.rs"]
mod invariants;

libfuzzer_sys::fuzz_target!(|command: &str| {
    invariants::let_parser_panics_unwind();
    invariants::normalizer(command);
});
