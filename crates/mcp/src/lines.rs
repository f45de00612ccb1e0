//! One line of the client's input, read as JSON-RPC asks: a message for the server, or the error that
//! answers it.
//!
//! rmcp's own stdio decoder drops a line that is not JSON (a number out of range such as `1e999`,
//! nesting deeper than serde_json's 128 levels, invalid UTF-8) without a word, and answers a JSON line
//! that is not a message with an error that has no `id`: either way the client waits for the answer
//! to its request forever. Here every such line is answered, with the request's `id` when it can be
//! read from the line — from the parsed line when it is JSON, else by a scan for its top-level `"id"`
//! members — and `"id": null` otherwise, as JSON-RPC 2.0 asks of a parse error or an invalid request.
//!
//! Promises, for any bytes ([`check`] asserts them; the fuzz target `mcp_lines` and the unit tests run
//! it): [`decode`] never panics; a line is a [`Decoded::Message`] exactly when rmcp parses it as one and no
//! object in it gives a key twice;
//! any other line that is not blank is answered — `-32700` when it is not JSON, `-32600` when it is —
//! except a JSON notification (an object with a `method` and no `id`) or response (an object with a
//! `result` or an `error` and no `method`), which JSON-RPC never answers;
//! the answer carries an `id` only when every top-level `id` member of the line says the same number
//! or string; the answer is one line of JSON, its message at most [`MAX_DETAIL_CHARS`] characters of
//! the decoder's complaint after its prefix.

use std::fmt;

use rmcp::model::{ClientJsonRpcMessage, ErrorCode, ErrorData, RequestId};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Serialize;

/// The longest line (one message) read whole: 16 MiB, as rmcp's own limit. A longer one is answered
/// `-32600` without being kept (only its first 4 KiB are, to look for its `id`).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How much of an over-long line is kept to find its `id` in.
pub const HEAD_BYTES: usize = 4096;

/// The most characters of serde_json's complaint quoted in an answer (it can quote a whole string
/// of the line).
pub const MAX_DETAIL_CHARS: usize = 200;

/// What a line is.
#[derive(Debug)]
pub enum Decoded {
    /// Nothing but JSON whitespace (after a byte order mark and before a carriage return).
    Blank,
    /// A message for the server.
    Message(Box<ClientJsonRpcMessage>),
    /// A JSON notification or response the server cannot read: JSON-RPC answers neither (and an
    /// error with a response's id could pass for the answer to one of the client's own requests), so
    /// it is only logged (with this reason).
    Dropped(String),
    /// Not a message: answered with this error.
    Refused(Refusal),
}

/// The answer to a line that is not a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The request's id, when the line says it unambiguously.
    pub id: Option<RequestId>,
    pub error: ErrorData,
}

impl Refusal {
    /// The answer as it is written: one line of JSON ending in a newline, with `"id": null` when the
    /// id could not be read (rmcp's error type leaves the member out, which JSON-RPC 2.0 does not
    /// allow).
    pub fn to_line(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Answer<'a> {
            jsonrpc: &'static str,
            id: Option<&'a RequestId>,
            error: &'a ErrorData,
        }
        let answer = Answer { jsonrpc: "2.0", id: self.id.as_ref(), error: &self.error };
        let mut line = match serde_json::to_vec(&answer) {
            Ok(line) => line,
            // Serializing an id, a code and a string cannot fail; should it, still answer.
            Err(_) => br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#.to_vec(),
        };
        line.push(b'\n');
        line
    }
}

/// Reads one line (without its newline).
pub fn decode(line: &[u8]) -> Decoded {
    let line = trim(line);
    if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        return Decoded::Blank;
    }
    // A key given twice (`"arguments":{"command":"ls","command":"rm -rf ~"}`) is refused at any depth:
    // serde_json would keep the last member, which a client or a log showing the first never saw.
    let not_a_message = match (serde_json::from_slice::<ClientJsonRpcMessage>(line), bashrt_core::strict_json(line)) {
        (Ok(message), Ok(_)) => return Decoded::Message(Box::new(message)),
        (Ok(_), Err(e)) | (Err(e), _) => e,
    };
    match serde_json::from_slice::<Outline>(line) {
        Ok(outline) if outline.unanswerable() => Decoded::Dropped(detail(&not_a_message)),
        Ok(outline) => Decoded::Refused(Refusal {
            id: outline.ids.id(),
            error: ErrorData::invalid_request(format!("Invalid request: {}", detail(&not_a_message)), None),
        }),
        Err(e) => Decoded::Refused(Refusal {
            id: scan_id(line),
            error: ErrorData::parse_error(format!("Parse error: {}", detail(&e)), None),
        }),
    }
}

/// The answer to a line longer than [`MAX_LINE_BYTES`], of which `head` is the start.
pub fn too_long(head: &[u8]) -> Refusal {
    Refusal {
        id: scan_id(trim(head)),
        error: ErrorData::invalid_request(
            format!("Invalid request: longer than {MAX_LINE_BYTES} bytes, the most one message may be"),
            None,
        ),
    }
}

/// The line without a trailing carriage return and a leading byte order mark (RFC 8259 lets a
/// parser ignore it), as rmcp reads it.
fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

/// serde_json's complaint, cut to [`MAX_DETAIL_CHARS`] characters.
fn detail(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.char_indices().nth(MAX_DETAIL_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The top-level `id` members seen so far.
#[derive(Debug, Default)]
enum Ids {
    #[default]
    None,
    /// Every one of them says this.
    One(RequestId),
    /// One is not a number or string that makes an id, or two disagree.
    Unclear,
}

impl Ids {
    fn add(&mut self, id: Option<RequestId>) {
        *self = match (std::mem::take(self), id) {
            (Ids::None, Some(id)) => Ids::One(id),
            (Ids::One(seen), Some(id)) if seen == id => Ids::One(seen),
            _ => Ids::Unclear,
        };
    }

    fn id(self) -> Option<RequestId> {
        match self {
            Ids::One(id) => Some(id),
            Ids::None | Ids::Unclear => None,
        }
    }
}

/// What a JSON line that is not a message says about itself. Deserializing it checks the whole line
/// as serde_json checks any JSON (nesting, the range of numbers, UTF-8) without building a tree.
#[derive(Default)]
struct Outline {
    object: bool,
    method: bool,
    /// A `result` or an `error` member.
    outcome: bool,
    ids: Ids,
}

impl Outline {
    /// A notification or a response, which JSON-RPC never answers.
    fn unanswerable(&self) -> bool {
        self.object && ((self.method && matches!(self.ids, Ids::None)) || (!self.method && self.outcome))
    }
}

impl<'de> Deserialize<'de> for Outline {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OutlineVisitor)
    }
}

struct OutlineVisitor;

impl<'de> Visitor<'de> for OutlineVisitor {
    type Value = Outline;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outline, A::Error> {
        let mut outline = Outline { object: true, ..Outline::default() };
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id => outline.ids.add(map.next_value::<Id>()?.0),
                Key::Method => {
                    outline.method = true;
                    map.next_value::<Valid>()?;
                }
                Key::Outcome => {
                    outline.outcome = true;
                    map.next_value::<Valid>()?;
                }
                Key::Other => {
                    map.next_value::<Valid>()?;
                }
            }
        }
        Ok(outline)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Outline, A::Error> {
        ValidVisitor.visit_seq(seq)?;
        Ok(Outline::default())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_str<E>(self, _: &str) -> Result<Outline, E> {
        Ok(Outline::default())
    }

    fn visit_unit<E>(self) -> Result<Outline, E> {
        Ok(Outline::default())
    }
}

/// An object key, as far as the outline cares.
enum Key {
    Id,
    Method,
    Outcome,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }

            fn visit_str<E>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "id" => Key::Id,
                    "method" => Key::Method,
                    "result" | "error" => Key::Outcome,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// An `id` value read as rmcp reads one: an integer (also written as a float, exactly), or a string;
/// anything else (checked as JSON all the same) makes no id.
struct Id(Option<RequestId>);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl<'de> Visitor<'de> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an id")
    }

    fn visit_i64<E>(self, n: i64) -> Result<Id, E> {
        Ok(Id(Some(RequestId::Number(n))))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Id, E> {
        Ok(Id(i64::try_from(n).ok().map(RequestId::Number)))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Id, E> {
        // `1.0` and `1e2` are integers in float form; past 2^53 a float no longer says which one.
        const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
        Ok(Id((n.fract() == 0.0 && n.abs() < MAX_EXACT).then_some(RequestId::Number(n as i64))))
    }

    fn visit_str<E>(self, s: &str) -> Result<Id, E> {
        Ok(Id(Some(RequestId::String(s.into()))))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Id, E> {
        Ok(Id(None))
    }

    fn visit_unit<E>(self) -> Result<Id, E> {
        Ok(Id(None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Id, A::Error> {
        ValidVisitor.visit_seq(seq)?;
        Ok(Id(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Id, A::Error> {
        ValidVisitor.visit_map(map)?;
        Ok(Id(None))
    }
}

/// Any JSON value, checked (through `deserialize_any`, so with serde_json's nesting limit and number
/// range) and thrown away.
struct Valid;

impl<'de> Deserialize<'de> for Valid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValidVisitor)
    }
}

struct ValidVisitor;

impl<'de> Visitor<'de> for ValidVisitor {
    type Value = Valid;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_str<E>(self, _: &str) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_unit<E>(self) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Valid, A::Error> {
        while seq.next_element::<Valid>()?.is_some() {}
        Ok(Valid)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Valid, A::Error> {
        while map.next_key::<Valid>()?.is_some() {
            map.next_value::<Valid>()?;
        }
        Ok(Valid)
    }
}

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

/// The decoder's promises (see the module's documentation), asserted on `line`: for the fuzz target
/// and the tests. Panics when one is broken.
pub fn check(line: &[u8]) {
    use serde_json::Value;
    let trimmed = trim(line);
    let json = serde_json::from_slice::<Value>(trimmed).ok();
    let object = json.as_ref().and_then(Value::as_object);
    // An id read back from the parsed line as rmcp reads one (`2.0` is 2).
    let parsed_id = object.and_then(|o| o.get("id")).and_then(|id| serde_json::from_value::<Id>(id.clone()).ok()?.0);
    // The scan runs on anything, whatever decode makes of the line.
    let scanned = scan_id(trimmed);
    match decode(line) {
        Decoded::Blank => assert!(trimmed.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))),
        Decoded::Message(message) => {
            assert!(json.is_some(), "a message that serde_json does not read as JSON");
            assert!(bashrt_core::strict_json(trimmed).is_ok(), "a message with a key given twice");
            assert!(serde_json::to_vec(&message).is_ok(), "a message that does not serialize");
        }
        Decoded::Dropped(_) => {
            let notification = |o: &serde_json::Map<String, Value>| o.contains_key("method") && !o.contains_key("id");
            let response = |o: &serde_json::Map<String, Value>| {
                !o.contains_key("method") && (o.contains_key("result") || o.contains_key("error"))
            };
            assert!(object.is_some_and(|o| notification(o) || response(o)), "dropped: {json:?}");
        }
        Decoded::Refused(refusal) => {
            let code = match (&json, object) {
                (None, _) => ErrorCode::PARSE_ERROR,
                (Some(_), Some(o)) => {
                    assert!(o.contains_key("id") || !o.contains_key("method"), "a notification was answered");
                    assert!(
                        o.contains_key("method") || !(o.contains_key("result") || o.contains_key("error")),
                        "a response was answered"
                    );
                    ErrorCode::INVALID_REQUEST
                }
                (Some(_), None) => ErrorCode::INVALID_REQUEST,
            };
            assert_eq!(refusal.error.code, code);
            match (&json, &refusal.id) {
                // Not JSON: the scanned id.
                (None, id) => assert_eq!(id, &scanned, "the answer's id is not the scanned one"),
                // JSON: the parsed line's own id (the last of duplicate members, which all agree).
                (Some(_), Some(id)) => assert_eq!(Some(id), parsed_id.as_ref(), "the answer's id is not the line's"),
                // None although the line has a readable id: only when another `id` member disagrees.
                (Some(_), None) => assert!(
                    parsed_id.is_none()
                        || line.windows(4).filter(|w| w == b"\"id\"").count() > 1
                        || line.contains(&b'\\'),
                    "the line's id was not read: {json:?}"
                ),
            }
            let answer = refusal.to_line();
            assert_eq!(answer.iter().filter(|&&b| b == b'\n').count(), 1, "the answer is not one line");
            assert_eq!(answer.last(), Some(&b'\n'), "the answer does not end its line");
            let answer =
                serde_json::from_slice::<Value>(&answer).unwrap_or_else(|e| panic!("the answer is not JSON: {e}"));
            assert_eq!(answer["jsonrpc"], "2.0");
            assert_eq!(answer["id"], refusal.id.clone().map_or(Value::Null, |id| id.into_json_value()));
            assert_eq!(answer["error"]["code"], refusal.error.code.0);
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(message.chars().count() <= "Invalid request: ".len() + MAX_DETAIL_CHARS + 1, "{message}");
        }
    }
    let long = too_long(line).to_line();
    assert!(serde_json::from_slice::<Value>(&long).is_ok(), "the answer to an over-long line is not JSON");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn refused(line: &[u8]) -> (Value, i32, String) {
        check(line);
        match decode(line) {
            Decoded::Refused(r) => (
                r.id.clone().map_or(Value::Null, |id| id.into_json_value()),
                r.error.code.0,
                r.error.message.to_string(),
            ),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_number_out_of_range_is_a_parse_error_with_the_id() {
        let line = br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"bash","arguments":{"command":"true","timeout":1e309}}}"#;
        assert_eq!(refused(line), (json!(6), -32700, "Parse error: number out of range at line 1 column 115".into()));
        let line = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"x":1e999},"id":"r-1"}"#;
        assert_eq!(refused(line).0, json!("r-1"));
    }

    #[test]
    fn nesting_past_the_limit_is_a_parse_error_with_the_id() {
        let mut line = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"a":"#.to_vec();
        line.extend(b"[".repeat(200));
        line.extend(b"]".repeat(200));
        line.extend(b"}}");
        let (id, code, message) = refused(&line);
        assert_eq!((id, code), (json!(2), -32700));
        assert_eq!(message, "Parse error: recursion limit exceeded at line 1 column 186");
    }

    #[test]
    fn duplicate_keys_are_an_invalid_request_with_the_id_when_they_agree() {
        let (id, code, message) = refused(br#"{"jsonrpc":"2.0","id":3,"id":3,"method":"tools/list"}"#);
        assert_eq!((id, code), (json!(3), -32600));
        assert!(message.starts_with("Invalid request: "), "{message}");
        assert_eq!(refused(br#"{"jsonrpc":"2.0","id":3,"id":4,"method":"tools/list"}"#).0, Value::Null);
        let (id, code, _) = refused(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","method":"tools/list"}"#);
        assert_eq!((id, code), (json!(7), -32600));
        // At any depth: the arguments of a call, its params.
        let call = br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"bash","arguments":{"command":"ls","command":"rm -rf ~"}}}"#;
        assert_eq!(
            refused(call),
            (json!(8), -32600, r#"Invalid request: duplicate key "command" at line 1 column 107"#.to_string())
        );
        let params =
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"bash","name":"bash","arguments":{}}}"#;
        assert_eq!(refused(params).0, json!(9));
        // A notification with a key given twice is not answered (JSON-RPC answers none).
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"a":1,"a":2}}"#;
        assert!(matches!(decode(note), Decoded::Dropped(_)));
    }

    #[test]
    fn invalid_utf8_is_a_parse_error_with_the_id() {
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\"}}";
        let (id, code, message) = refused(line);
        assert_eq!((id, code), (json!(5), -32700));
        assert_eq!(message, "Parse error: invalid unicode code point at line 1 column 62");
    }

    #[test]
    fn what_is_not_json_at_all_gets_a_null_id() {
        assert_eq!(refused(b"garbage"), (Value::Null, -32700, "Parse error: expected value at line 1 column 1".into()));
        assert_eq!(refused(b"[1,2]").1, -32600);
        assert_eq!(refused(br#"{"id":{"a":1},"method":"x"}"#).0, Value::Null);
        assert_eq!(refused(br#"{"id":"a","x":tru"#).0, json!("a"));
        assert_eq!(refused(br#"{"\u0069d":9,"method":"x",}"#).0, json!(9));
        assert_eq!(refused(br#"  {"a":{"id":1},"b":"}\"","id":2.0,"c":"#).0, json!(2));
    }

    #[test]
    fn messages_pass_and_bad_notifications_are_dropped() {
        let request = b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r";
        assert!(matches!(decode(request), Decoded::Message(_)));
        let custom = br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"a":1}}"#;
        assert!(matches!(decode(custom), Decoded::Message(_)));
        let bad = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#;
        assert!(matches!(decode(bad), Decoded::Dropped(_)), "{:?}", decode(bad));
        let response = br#"{"jsonrpc":"2.0","id":1,"result":{},"x":1e999,"error":{}}"#;
        assert!(matches!(decode(response), Decoded::Refused(_)), "not JSON: answered");
        let response = br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#;
        assert!(matches!(decode(response), Decoded::Dropped(_)), "{:?}", decode(response));
        assert!(matches!(decode(b" \t\r"), Decoded::Blank));
        for line in [&request[..], custom, bad, b"", b"  "] {
            check(line);
        }
        // Keys are checked as strings at every depth, as serde_json checks them when it builds a tree.
        for line in [&b"{\"id\":1,\"a\":{\"\xff\":1}}"[..], b"{\"id\":1,\"a\":[{\"\\ud800\":1}]}"] {
            check(line);
        }
    }

    #[test]
    fn an_over_long_line_is_answered_with_the_id_from_its_head() {
        let refusal = too_long(br#"{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"bash","argu"#);
        assert_eq!(refusal.id, Some(RequestId::Number(44)));
        assert_eq!(
            String::from_utf8(refusal.to_line()).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":44,\"error\":{\"code\":-32600,\"message\":\"Invalid request: longer than \
             16777216 bytes, the most one message may be\"}}\n"
        );
    }

    #[test]
    fn the_complaint_is_cut() {
        let long = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"{}"}}"#, "x".repeat(5000));
        let (_, code, message) = refused(long.as_bytes());
        assert_eq!(code, -32600);
        assert!(message.chars().count() <= "Invalid request: ".len() + MAX_DETAIL_CHARS + 1, "{message}");
    }

    /// A deterministic stream of numbers (xorshift), so that the generated lines are the same each run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// The fuzz target's check over lines made from real requests by the mutations a hostile client
    /// makes: bytes replaced, cut, duplicated, spliced in (deep nesting, huge numbers, bad UTF-8,
    /// escapes, extra ids), and raw bytes.
    #[test]
    fn any_line_is_passed_answered_or_dropped() {
        let seeds: [&[u8]; 6] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"ls","timeout":5}}}"#,
            br#"{"jsonrpc":"2.0","id":"a","method":"resources/read","params":{"uri":"artifact://1"}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            br#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
            br#"[{"id":1}]"#,
        ];
        let splices: [&[u8]; 14] = [
            b"1e999", b"-1e309", b"\xff", b"\xe2\x82", b"\\u0000", b"\\ud800", b"\"id\":7,", b"\"id\":\"x\",",
            b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
            b"}", b"\"", b"\\", b"\xEF\xBB\xBF", b"\r\n",
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..4000 {
            let mut line = seeds[rng.below(seeds.len())].to_vec();
            for _ in 0..=rng.below(4) {
                let at = rng.below(line.len() + 1);
                match rng.below(5) {
                    0 => {
                        let splice = splices[rng.below(splices.len())];
                        line.splice(at..at, splice.iter().copied());
                    }
                    1 if at < line.len() => line[at] = rng.next() as u8,
                    2 => line.truncate(at),
                    3 => {
                        let end = (at + rng.below(20)).min(line.len());
                        let copy = line[at..end].to_vec();
                        line.splice(at..at, copy);
                    }
                    _ => line = (0..rng.below(64)).map(|_| rng.next() as u8).collect(),
                }
            }
            check(&line);
        }
    }
}
