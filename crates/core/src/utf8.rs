//! UTF-8 at the edges of a byte window: output is cut at byte counts (a tail, a cap, a chunk), and a
//! cut may fall inside a character. These say where the last whole character ends, so that a cut
//! never hands half a character on.

/// Whether `byte` continues a UTF-8 sequence (`10xxxxxx`) rather than starting one.
pub(crate) fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The length of `bytes` without a UTF-8 sequence cut short at its end: `bytes[..n]` ends where a
/// character (or an invalid byte, which is left as it is) ends. At most 3 bytes shorter.
pub fn complete_utf8_len(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let byte = bytes[len - back];
        if !is_continuation(byte) {
            let needed = match byte {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if needed > back { len - back } else { len };
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_cut_short_at_the_end_is_left_out() {
        assert_eq!(complete_utf8_len(b""), 0);
        assert_eq!(complete_utf8_len(b"abc"), 3);
        let e = "é".as_bytes();
        assert_eq!(complete_utf8_len(&e[..1]), 0);
        assert_eq!(complete_utf8_len(e), 2);
        let euro = "a€".as_bytes();
        assert_eq!(complete_utf8_len(&euro[..3]), 1);
        assert_eq!(complete_utf8_len(euro), 4);
        // Invalid bytes are not characters cut short: they stay.
        assert_eq!(complete_utf8_len(b"a\xff"), 2);
        assert_eq!(complete_utf8_len(b"\x80\x80"), 2);
    }
}
