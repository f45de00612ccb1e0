//! Requests: from one input line to a typed [`Request`], or to a [`Rejected`] that still carries the
//! request's `id` and `type` whenever they could be read, so the error response can name them.
//!
//! Promises: parsing never fails silently and never panics; unknown fields of a command are ignored (a
//! newer client may send more), while a missing or mistyped field is an error naming the field.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::lines::{Frame, MAX_LINE_BYTES};

/// Why a line is not a request the server can act on.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RequestError {
    #[error("line too long: {bytes} bytes (limit {MAX_LINE_BYTES}); it was discarded")]
    TooLong { bytes: u64 },
    #[error("line is not valid UTF-8 (invalid byte at offset {offset})")]
    InvalidUtf8 { offset: usize },
    #[error("Failed to parse command: {0}")]
    Json(String),
    #[error("expected a JSON object, got {0}")]
    NotObject(&'static str),
    #[error("missing \"type\" field")]
    MissingType,
    #[error("\"type\" must be a string")]
    TypeNotString,
    #[error("\"id\" must be a string or a number")]
    BadId,
    #[error("Unknown command type: {0}")]
    UnknownType(String),
    #[error("invalid {command} command: {reason}")]
    Invalid { command: &'static str, reason: String },
}

/// A line that could not be turned into a request; `command` is its `type`, or `"parse"`.
#[derive(Debug)]
pub struct Rejected {
    pub id: Option<Value>,
    pub command: String,
    pub error: RequestError,
}

/// One request with its envelope.
#[derive(Debug)]
pub struct Envelope {
    /// Echoed in the response; a string or a number.
    pub id: Option<Value>,
    pub request: Request,
}

#[derive(Debug)]
pub enum Request {
    Bash(BashRequest),
    AbortBash(SessionOnly),
    ToolCall(ToolCallRequest),
    Abort(AbortRequest),
    ReadArtifact(ReadArtifactRequest),
    GetState(SessionOnly),
    GetHistory(HistoryRequest),
    ListSessions,
}

impl Request {
    /// The `type` it came as, which its response names as `command`.
    pub fn command(&self) -> &'static str {
        match self {
            Request::Bash(_) => "bash",
            Request::AbortBash(_) => "abort_bash",
            Request::ToolCall(_) => "tool_call",
            Request::Abort(_) => "abort",
            Request::ReadArtifact(_) => "read_artifact",
            Request::GetState(_) => "get_state",
            Request::GetHistory(_) => "get_history",
            Request::ListSessions => "list_sessions",
        }
    }
}

/// `{"type":"bash","command":..,"timeout"?,"sessionId"?}`
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BashRequest {
    pub command: String,
    /// Seconds; absent means no deadline.
    #[serde(default)]
    pub timeout: Option<f64>,
    #[serde(default)]
    pub session_id: Option<String>,
}

/// Commands whose only parameter is the session.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionOnly {
    #[serde(default)]
    pub session_id: Option<String>,
}

/// `{"type":"get_history","sessionId"?,"offset"?,"limit"?}`: a page of the session's log.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRequest {
    #[serde(default)]
    pub session_id: Option<String>,
    /// The first entry (0 = the oldest).
    #[serde(default)]
    pub offset: Option<u64>,
    /// At most this many entries (default and maximum [`HISTORY_PAGE_MAX`]).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// The most entries one `get_history` response carries.
pub const HISTORY_PAGE_MAX: u64 = 1000;

/// `{"type":"tool_call","toolCallId","name","arguments","toolNames"?,"sessionId"?}`
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRequest {
    pub tool_call_id: String,
    pub name: String,
    /// Checked against the tool's schema when the call is dispatched.
    pub arguments: Value,
    #[serde(default)]
    pub tool_names: Vec<String>,
    #[serde(default)]
    pub session_id: Option<String>,
}

/// `{"type":"abort","toolCallId"}`
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbortRequest {
    pub tool_call_id: String,
}

/// `{"type":"read_artifact","artifactId","sessionId"?,"head"?|"tail"?|"lines"?|"grep"?}`
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadArtifactRequest {
    /// `7`, `"7"` or `"artifact://7"`, normalized to text.
    #[serde(deserialize_with = "artifact_reference")]
    pub artifact_id: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub head: Option<u64>,
    #[serde(default)]
    pub tail: Option<u64>,
    #[serde(default)]
    pub lines: Option<String>,
    #[serde(default)]
    pub grep: Option<String>,
}

fn artifact_reference<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Number(n) if n.is_u64() => Ok(n.to_string()),
        _ => Err(serde::de::Error::custom("artifactId must be a string or a non-negative integer")),
    }
}

/// Parses one framed input line.
pub fn parse(frame: Frame) -> Result<Envelope, Rejected> {
    let bytes = match frame {
        Frame::TooLong { bytes } => return Err(rejected(None, None, RequestError::TooLong { bytes })),
        Frame::Line(bytes) => bytes,
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            // Name the request if its envelope survives a lossy decoding.
            let offset = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes());
            let (id, command) = match serde_json::from_str::<Value>(&lossy) {
                Ok(Value::Object(map)) => {
                    (read_id(&map).ok().flatten(), map.get("type").and_then(Value::as_str).map(String::from))
                }
                _ => (None, None),
            };
            return Err(rejected(id, command, RequestError::InvalidUtf8 { offset }));
        }
    };
    let value: Value =
        serde_json::from_str(&text).map_err(|e| rejected(None, None, RequestError::Json(e.to_string())))?;
    let map = match value {
        Value::Object(map) => map,
        other => return Err(rejected(None, None, RequestError::NotObject(json_kind(&other)))),
    };
    let id = read_id(&map).map_err(|e| rejected(None, map.get("type").and_then(Value::as_str).map(String::from), e))?;
    let kind = match map.get("type") {
        None => return Err(rejected(id, None, RequestError::MissingType)),
        Some(Value::String(kind)) => kind.clone(),
        Some(_) => return Err(rejected(id, None, RequestError::TypeNotString)),
    };
    let object = Value::Object(map);
    let request = match kind.as_str() {
        "bash" => fields(object, "bash").map(Request::Bash),
        "abort_bash" => fields(object, "abort_bash").map(Request::AbortBash),
        "tool_call" => fields(object, "tool_call").map(Request::ToolCall),
        "abort" => fields(object, "abort").map(Request::Abort),
        "read_artifact" => fields(object, "read_artifact").map(Request::ReadArtifact),
        "get_state" => fields(object, "get_state").map(Request::GetState),
        "get_history" => fields(object, "get_history").map(Request::GetHistory),
        "list_sessions" => Ok(Request::ListSessions),
        _ => Err(RequestError::UnknownType(kind.clone())),
    };
    match request {
        Ok(request) => Ok(Envelope { id, request }),
        Err(error) => Err(rejected(id, Some(kind), error)),
    }
}

fn fields<T: DeserializeOwned>(object: Value, command: &'static str) -> Result<T, RequestError> {
    serde_json::from_value(object).map_err(|e| RequestError::Invalid { command, reason: e.to_string() })
}

fn read_id(map: &Map<String, Value>) -> Result<Option<Value>, RequestError> {
    match map.get("id") {
        None | Some(Value::Null) => Ok(None),
        Some(id @ (Value::String(_) | Value::Number(_))) => Ok(Some(id.clone())),
        Some(_) => Err(RequestError::BadId),
    }
}

fn rejected(id: Option<Value>, command: Option<String>, error: RequestError) -> Rejected {
    Rejected { id, command: command.unwrap_or_else(|| "parse".to_string()), error }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Result<Envelope, Rejected> {
        parse(Frame::Line(text.as_bytes().to_vec()))
    }

    #[test]
    fn a_bash_request_keeps_its_id_and_fields() {
        let envelope = line(r#"{"id":"r1","type":"bash","command":"ls","timeout":5,"extra":1}"#).unwrap();
        assert_eq!(envelope.id, Some(Value::from("r1")));
        let Request::Bash(bash) = envelope.request else { panic!("not bash") };
        assert_eq!((bash.command.as_str(), bash.timeout, bash.session_id), ("ls", Some(5.0), None));
    }

    #[test]
    fn errors_name_the_request_when_they_can() {
        let e = line(r#"{"id":7,"type":"bash"}"#).unwrap_err();
        assert_eq!((e.id, e.command.as_str()), (Some(Value::from(7)), "bash"));
        assert_eq!(e.error.to_string(), "invalid bash command: missing field `command`");

        let e = line(r#"{"id":"x","type":"dance"}"#).unwrap_err();
        assert_eq!((e.command.as_str(), e.error), ("dance", RequestError::UnknownType("dance".into())));

        let e = line("[1]").unwrap_err();
        assert_eq!((e.id, e.command.as_str(), e.error), (None, "parse", RequestError::NotObject("an array")));

        let e = line("{nope").unwrap_err();
        assert!(matches!(e.error, RequestError::Json(_)), "{:?}", e.error);

        let e = line(r#"{"id":{},"type":"bash"}"#).unwrap_err();
        assert_eq!(e.error, RequestError::BadId);
    }

    #[test]
    fn invalid_utf8_is_refused_with_the_id_if_readable() {
        let mut bytes = br#"{"id":"u1","type":"bash","command":"echo "#.to_vec();
        bytes.push(0xff);
        bytes.extend_from_slice(br#""}"#);
        let e = parse(Frame::Line(bytes)).unwrap_err();
        assert_eq!(e.id, Some(Value::from("u1")));
        assert_eq!(e.command, "bash");
        assert_eq!(e.error, RequestError::InvalidUtf8 { offset: 41 });
    }

    #[test]
    fn artifact_ids_may_be_numbers_or_text() {
        for (text, want) in [(r#"7"#, "7"), (r#""7""#, "7"), (r#""artifact://7""#, "artifact://7")] {
            let envelope = line(&format!(r#"{{"type":"read_artifact","artifactId":{text}}}"#)).unwrap();
            let Request::ReadArtifact(read) = envelope.request else { panic!("not read_artifact") };
            assert_eq!(read.artifact_id, want);
        }
        assert!(line(r#"{"type":"read_artifact","artifactId":-1}"#).is_err());
    }
}
