//! The RPC input decoder: framing of any byte stream delivered in any pieces, then request parsing.
#![no_main]

#[path = "../../crates/rpc/tests/invariants/mod.rs"]
mod invariants;

#[derive(Debug, arbitrary::Arbitrary)]
struct Input<'a> {
    cuts: Vec<u16>,
    max: u8,
    input: &'a [u8],
}

libfuzzer_sys::fuzz_target!(|input: Input<'_>| {
    let cuts: Vec<usize> = input.cuts.iter().take(64).map(|&c| usize::from(c)).collect();
    // Small limits exercise the discarding path; 255 stands for "no practical limit".
    let max = match input.max {
        255 => bashrt_rpc::MAX_LINE_BYTES,
        max => usize::from(max),
    };
    invariants::line_decoder(input.input, &cuts, max);
});
