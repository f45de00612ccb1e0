//! The decoder's promises, asserted on any line: for the fuzz target `mcp_lines` and the unit tests.

use rmcp::model::ErrorCode;

use super::outline::Id;
use super::scan::scan_id;
use super::{decode, too_long, trim, Decoded, MAX_DETAIL_CHARS};

/// The decoder's promises (see the module's documentation), asserted on `line`: for the fuzz target
/// and the tests. Panics when one is broken.
pub(crate) fn check(line: &[u8]) {
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
