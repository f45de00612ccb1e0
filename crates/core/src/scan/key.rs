//! What tells matched lines apart: the hash of a line's text, and of its text with its numbers left
//! out (a repeated message whose counts, addresses or line numbers differ reads alike).

use std::hash::{BuildHasher, Hasher};

/// The hash of `text` with every number left out (a run of digits, or `0x` and hex digits, that does
/// not continue a word): `worker 12 failed` and `worker 13 failed`, `at 0x1f3a` and `at 0x2b00` read
/// alike; `thing_12` and `thing_13`, `m12.c` and `m13.c` do not.
pub(super) fn normalized_key(text: &str) -> u64 {
    let mut hasher = hash_state().build_hasher();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        let starts_number =
            b.is_ascii_digit() && (at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_'));
        if starts_number {
            let hex = b == b'0' && matches!(bytes.get(at + 1), Some(b'x' | b'X'));
            at += if hex { 2 } else { 1 };
            while at < bytes.len() && (bytes[at].is_ascii_digit() || hex && bytes[at].is_ascii_hexdigit()) {
                at += 1;
            }
            hasher.write_u8(b'#');
        } else {
            hasher.write_u8(b);
            at += 1;
        }
    }
    hasher.finish()
}

pub(super) fn hash_bytes(bytes: &[u8]) -> u64 {
    hash_state().hash_one(bytes)
}

/// One hasher state per process: keys are compared within one output only.
fn hash_state() -> &'static std::collections::hash_map::RandomState {
    static STATE: std::sync::OnceLock<std::collections::hash_map::RandomState> = std::sync::OnceLock::new();
    STATE.get_or_init(Default::default)
}

#[cfg(test)]
mod tests {
    use super::normalized_key as key;

    #[test]
    fn numbers_are_left_out_of_a_key_and_names_with_digits_are_not() {
        assert_eq!(key("worker 12: request failed"), key("worker 13: request failed"));
        assert_eq!(key("==7== at 0x1f3a: f (a.c:3)"), key("==8== at 0x2b00: f (a.c:9)"));
        assert_ne!(key("error: 'thing_12' undeclared"), key("error: 'thing_13' undeclared"));
        assert_ne!(key("src/m12.c: error"), key("src/m13.c: error"));
        assert_ne!(key("worker failed"), key("worker crashed"));
    }
}
