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
//! Promises, for any bytes (`check` asserts them; the fuzz target `mcp_lines` and the unit tests run
//! it): [`decode`] never panics; a line is a [`Decoded::Message`] exactly when rmcp parses it as one and no
//! object in it gives a key twice;
//! any other line that is not blank is answered — `-32700` when it is not JSON, `-32600` when it is —
//! except a JSON notification (an object with a `method` and no `id`) or response (an object with a
//! `result` or an `error` and no `method`), which JSON-RPC never answers;
//! the answer carries an `id` only when every top-level `id` member of the line says the same number
//! or string; the answer is one line of JSON, its message at most [`MAX_DETAIL_CHARS`] characters of
//! the decoder's complaint after its prefix.

#[cfg(any(test, feature = "testing"))]
mod check;
mod outline;
mod scan;

use rmcp::model::{ClientJsonRpcMessage, ErrorData, RequestId};
use serde::Serialize;

#[cfg(any(test, feature = "testing"))]
pub(crate) use check::check;
use outline::Outline;
use scan::scan_id;

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
