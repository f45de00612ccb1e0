//! The `id` and `type` of a line the server cannot take as a request, read by a tolerant scan that
//! builds nothing and stops at the first fault, so that the error response can name the request.

use serde_json::Value;

/// The `id` and `type` of a line that is not JSON the server can take, as far as they can be read:
/// the members of the top-level object are scanned in order, without building anything, up to the
/// first thing that is not JSON (an `id` after the fault is not reached). A value is read only as
/// the scan's token: an `id` of invalid UTF-8, of an out-of-range number or of any other kind than a
/// string or a number counts as unreadable, and so does an `id` (or `type`) given twice with two
/// values — answering with either could name a request the client did not mean. Iterative, so no
/// nesting depth can exhaust the stack.
pub fn scan_envelope(bytes: &[u8]) -> (Option<Value>, Option<String>) {
    let mut scan = Scan { bytes, at: 0 };
    let (mut id, mut kind) = (Member::Absent, Member::Absent);
    scan.blank();
    if scan.eat(b'{') {
        loop {
            scan.blank();
            let Some(key) = scan.string() else { break };
            scan.blank();
            if !scan.eat(b':') {
                break;
            }
            scan.blank();
            let Some(value) = scan.value() else { break };
            if key_is(key, "id") {
                id.see(value);
            } else if key_is(key, "type") {
                kind.see(value);
            }
            scan.blank();
            if !scan.eat(b',') {
                break;
            }
        }
    }
    let id = match id {
        Member::One(id @ (Value::String(_) | Value::Number(_))) => Some(id),
        _ => None,
    };
    let kind = match kind {
        Member::One(Value::String(kind)) => Some(kind),
        _ => None,
    };
    (id, kind)
}

/// What the scan found of one member.
enum Member {
    Absent,
    One(Value),
    Unreadable,
}

impl Member {
    fn see(&mut self, token: &[u8]) {
        let value = serde_json::from_slice::<Value>(token).ok();
        *self = match (std::mem::replace(self, Member::Unreadable), value) {
            (Member::Absent, Some(value)) => Member::One(value),
            (Member::One(first), Some(value)) if first == value => Member::One(first),
            _ => Member::Unreadable,
        };
    }
}

/// Whether the raw string token `key` (quotes included) is `name`, escapes decoded.
fn key_is(key: &[u8], name: &str) -> bool {
    match memchr::memchr(b'\\', key) {
        None => key.len() == name.len() + 2 && &key[1..key.len() - 1] == name.as_bytes(),
        Some(_) => serde_json::from_slice::<String>(key).is_ok_and(|key| key == name),
    }
}

/// A cursor over a line for [`scan_envelope`]: each method returns the raw token it passed over, or
/// `None` where the line ends first.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    fn token(&self, start: usize) -> &'a [u8] {
        &self.bytes[start..self.at.min(self.bytes.len())]
    }

    /// A string, from its opening quote to its closing one.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        if !self.eat(b'"') {
            return None;
        }
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(self.token(start));
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// One value: a string, an array or object to its matching bracket (nesting only counted), or a
    /// number or literal to the next delimiter.
    fn value(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        match self.peek()? {
            b'"' => self.string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return Some(self.token(start));
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                while !matches!(self.peek(), None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')) {
                    self.at += 1;
                }
                Some(self.token(start)).filter(|token| !token.is_empty())
            }
        }
    }
}
