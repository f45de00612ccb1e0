//! The id of a line that is not JSON: a scan of its top-level members that builds nothing and stops
//! where it can no longer follow the line.

use rmcp::model::RequestId;

use super::outline::{Id, Ids};

/// The id of a line that is not JSON, read as a person would: the values of the top-level `"id"`
/// members of a line that starts as an object, up to the first place the scan cannot follow (the
/// line may be broken anywhere: a bad number, invalid UTF-8 or deep nesting further on do not hide an
/// id before them). `None` unless every one of them is the same number or string.
pub fn scan_id(line: &[u8]) -> Option<RequestId> {
    let mut at = skip_blanks(line, 0);
    if line.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    let mut ids = Ids::None;
    loop {
        at = skip_blanks(line, at);
        if line.get(at) != Some(&b'"') {
            break;
        }
        let Some(key_end) = string_end(line, at) else { break };
        let id_key = is_id_key(&line[at..key_end]);
        at = skip_blanks(line, key_end);
        if line.get(at) != Some(&b':') {
            break;
        }
        at = skip_blanks(line, at + 1);
        let Some(value_end) = value_end(line, at) else {
            if id_key {
                ids.add(None);
            }
            break;
        };
        if id_key {
            ids.add(serde_json::from_slice::<Id>(&line[at..value_end]).ok().and_then(|id| id.0));
        }
        at = skip_blanks(line, value_end);
        if line.get(at) != Some(&b',') {
            break;
        }
        at += 1;
    }
    ids.id()
}

fn skip_blanks(line: &[u8], mut at: usize) -> usize {
    while matches!(line.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// `"id"`, also spelled with escapes.
fn is_id_key(key: &[u8]) -> bool {
    key == b"\"id\"" || (key.contains(&b'\\') && serde_json::from_slice::<String>(key).is_ok_and(|k| k == "id"))
}

/// Just past the string that starts at `at` (a `"`), if it ends on the line.
fn string_end(line: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        match line.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// Just past the value that starts at `at`, as far as its shape goes (its content is checked only
/// when it is an id).
fn value_end(line: &[u8], at: usize) -> Option<usize> {
    let token_end = |accept: fn(u8) -> bool| at + line[at..].iter().take_while(|&&b| accept(b)).count();
    match line.get(at)? {
        b'"' => string_end(line, at),
        b'{' | b'[' => nested_end(line, at),
        b'-' | b'0'..=b'9' => Some(token_end(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))),
        b't' | b'f' | b'n' => Some(token_end(|b| b.is_ascii_alphabetic())),
        _ => None,
    }
}

/// Just past the object or array that starts at `at`, counting brackets outside strings (without a
/// stack: any depth).
fn nested_end(line: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    loop {
        match line.get(i)? {
            b'"' => {
                i = string_end(line, i)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
}
