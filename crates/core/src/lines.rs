//! Lines of output bytes: how many there are (each `\n` ends one, and an unterminated last piece is
//! one more, so `a\nb` is two lines as a person counts them), the first or last `n` of them, and the
//! range of line numbers a view shows. Shared by the sink's readers, the excerpt and result shaping.

use serde::Serialize;

/// Lines `start` to `end` of the output, 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LineRange {
    /// The first line.
    pub start: u64,
    /// The last line.
    pub end: u64,
}

/// Lines in `bytes`: each `\n` ends one; an unterminated final piece is one more.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = bytecount::count(bytes, b'\n') as u64;
    newlines + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// The first `n` lines (with their newlines).
pub fn first_lines(bytes: &[u8], n: u64) -> &[u8] {
    if n == 0 {
        return &bytes[..0];
    }
    match memchr::memchr_iter(b'\n', bytes).nth((n - 1) as usize) {
        Some(pos) => &bytes[..=pos],
        None => bytes,
    }
}

/// The last `n` lines (a final newline ends the last line, it does not start another).
pub fn last_lines(bytes: &[u8], n: u64) -> &[u8] {
    if n == 0 {
        return &bytes[bytes.len()..];
    }
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    match memchr::memrchr_iter(b'\n', body).nth((n - 1) as usize) {
        Some(pos) => &bytes[pos + 1..],
        None => bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_helpers_follow_wc_semantics() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a\nb\n"), 2);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(first_lines(b"a\nb\nc\n", 2), b"a\nb\n");
        assert_eq!(first_lines(b"a\nb", 5), b"a\nb");
        assert_eq!(last_lines(b"a\nb\nc\n", 2), b"b\nc\n");
        assert_eq!(last_lines(b"a\nb\nc", 1), b"c");
        assert_eq!(last_lines(b"a\n", 3), b"a\n");
    }
}
