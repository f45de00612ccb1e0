//! Artifact windows: any request (head, tail, lines, grep, several) on any file, at any cap.
#![no_main]

#[path = "../../crates/core/tests/invariants/mod.rs"]
mod invariants;

#[derive(Debug, arbitrary::Arbitrary)]
struct Input<'a> {
    head: Option<u64>,
    tail: Option<u64>,
    lines: Option<&'a str>,
    grep: Option<&'a str>,
    cap: u16,
    content: &'a [u8],
}

libfuzzer_sys::fuzz_target!(|input: Input<'_>| {
    let request = invariants::Request { head: input.head, tail: input.tail, lines: input.lines, grep: input.grep };
    // 0 stands for the real cap, which no fuzz input reaches.
    let cap = match input.cap {
        0 => bashrt_core::MAX_READ_BYTES,
        cap => usize::from(cap - 1),
    };
    invariants::window(input.content, request, cap);
});
