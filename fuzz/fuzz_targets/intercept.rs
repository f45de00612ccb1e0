//! The interceptor on any command, with the built-in rules and with rules of any pattern and flags.
#![no_main]

#[path = "../../crates/core/tests/invariants/mod.rs"]
mod invariants;

#[derive(Debug, arbitrary::Arbitrary)]
struct Input<'a> {
    command: &'a str,
    pattern: &'a str,
    flags: Option<&'a str>,
}

libfuzzer_sys::fuzz_target!(|input: Input<'_>| {
    invariants::let_parser_panics_unwind();
    invariants::interceptor(input.command, input.pattern, input.flags);
});
