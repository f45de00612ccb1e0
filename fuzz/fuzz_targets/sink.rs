//! The output sink fed any stream in any chunking: live and final tail, totals, head, artifact
//! byte-exactness, UTF-8 and model-text suffix of the tail.
#![no_main]

#[path = "../../crates/core/tests/invariants/mod.rs"]
mod invariants;

#[derive(Debug, arbitrary::Arbitrary)]
struct Input<'a> {
    cuts: Vec<u16>,
    max_bytes: u16,
    head_lines: Option<u8>,
    spill: bool,
    scan: bool,
    stream: &'a [u8],
}

libfuzzer_sys::fuzz_target!(|input: Input<'_>| {
    let cuts: Vec<usize> = input.cuts.iter().take(64).map(|&c| usize::from(c)).collect();
    let max_bytes = usize::from(input.max_bytes % 1024);
    invariants::sink(input.stream, &cuts, max_bytes, input.head_lines.map(u64::from), input.spill, input.scan);
});
