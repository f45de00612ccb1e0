//! The output sink fed any stream in any chunking: live and final tail, totals, head, artifact
//! byte-exactness (head, marker and rolling tail past its cap), UTF-8 and model-text suffix of the tail.
#![no_main]

#[path = "../../crates/core/tests/invariants/mod.rs"]
mod invariants;

#[derive(Debug, arbitrary::Arbitrary)]
struct Input<'a> {
    cuts: Vec<u16>,
    max_bytes: u16,
    head_lines: Option<u8>,
    spill: bool,
    artifact_cap: Option<u8>,
    scan: bool,
    stream: &'a [u8],
}

libfuzzer_sys::fuzz_target!(|input: Input<'_>| {
    let cuts: Vec<usize> = input.cuts.iter().take(64).map(|&c| usize::from(c)).collect();
    let max_bytes = usize::from(input.max_bytes % 1024);
    let case = invariants::SinkCase {
        max_bytes,
        head_lines: input.head_lines.map(u64::from),
        spill: input.spill,
        // Caps of 1 KiB and a little more (smaller ones are raised to 1 KiB), so that streams of a few
        // KiB pass them and wrap the ring.
        artifact_cap: input.artifact_cap.map(|cap| 1000 + u64::from(cap)),
        scan: input.scan,
    };
    invariants::sink(input.stream, &cuts, case);
});
