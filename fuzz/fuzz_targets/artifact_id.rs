//! `artifact://` references: any text, resolved in a directory holding any set of artifact ids.
#![no_main]

#[path = "../../crates/core/tests/invariants/mod.rs"]
mod invariants;

#[derive(Debug, arbitrary::Arbitrary)]
struct Input<'a> {
    present: Vec<u64>,
    reference: &'a str,
}

libfuzzer_sys::fuzz_target!(|input: Input<'_>| {
    let present: Vec<u64> = input.present.iter().take(40).copied().collect();
    invariants::artifact_id(input.reference, &present);
});
