//! Requests: from one input line to a typed [`Request`], or to a [`Rejected`] that still carries the
//! request's `id` and `type` whenever they could be read, so the error response can name them.
//!
//! Promises: parsing never fails silently and never panics; unknown fields of a command are ignored (a
//! newer client may send more), while a missing or mistyped field is an error naming the field; a
//! line JSON cannot hold as one meaning — invalid UTF-8, a number out of range, nesting past the
//! parser's limit, a key given twice in one object — is refused naming the problem, with the `id` a
//! tolerant scan of the line can still read ([`scan_envelope`]), so the client learns which of its
//! requests failed (and with its `type` where the line is otherwise JSON: invalid UTF-8, a key twice).

mod envelope;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::lines::{Frame, MAX_LINE_BYTES};
pub use envelope::scan_envelope;

/// Why a line is not a request the server can act on.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestError {
    /// The line passed [`MAX_LINE_BYTES`].
    #[error("line too long: {bytes} bytes (limit {MAX_LINE_BYTES}); it was discarded")]
    TooLong {
        /// Its length.
        bytes: u64,
    },
    /// The line is not UTF-8.
    #[error("line is not valid UTF-8 (invalid byte at offset {offset})")]
    InvalidUtf8 {
        /// Where the first invalid byte is.
        offset: usize,
    },
    /// The line is not JSON (or gives a key twice); the parser's message.
    #[error("Failed to parse command: {0}")]
    Json(String),
    /// The line is JSON but not an object; what it is.
    #[error("expected a JSON object, got {0}")]
    NotObject(&'static str),
    /// No `type`.
    #[error("missing \"type\" field")]
    MissingType,
    /// A `type` that is not a string.
    #[error("\"type\" must be a string")]
    TypeNotString,
    /// An `id` that is neither a string nor a number.
    #[error("\"id\" must be a string or a number")]
    BadId,
    /// A `type` the server does not know.
    #[error("Unknown command type: {0}")]
    UnknownType(String),
    /// A field of the command is missing or of the wrong type.
    #[error("invalid {command} command: {reason}")]
    Invalid {
        /// The command's `type`.
        command: &'static str,
        /// What is wrong, naming the field.
        reason: String,
    },
    /// A command bash cannot run as sent (one holding a NUL: bash takes its command as a C string and
    /// would run the text before it), said in the core's words. Refused here, before the command
    /// waits its session's turn.
    #[error(transparent)]
    Command(#[from] bashrt_core::CommandError),
}

/// How deep arrays and objects may nest in a request: serde_json's recursion limit (128 levels, the
/// outermost included, fail). Named in the error, which would otherwise say "recursion limit
/// exceeded", a word of the parser's, not of the client's line.
pub const MAX_NESTING: usize = 127;

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
    SetCapabilities(CapabilitiesRequest),
    Approval(ApprovalAnswer),
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
            Request::SetCapabilities(_) => "set_capabilities",
            Request::Approval(_) => "approval",
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

/// `{"type":"set_capabilities","approvals":true}`: what the client can do for the server.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilitiesRequest {
    /// It shows `approval_request` events to its user and answers them with `approval`.
    #[serde(default)]
    pub approvals: bool,
}

/// `{"type":"approval","approvalId","decision":"once"|"session"|"deny","message"?}`
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalAnswer {
    pub approval_id: String,
    pub decision: Decision,
    /// Words for the model (with `deny`).
    #[serde(default)]
    pub message: Option<String>,
}

/// What the user decided.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Once,
    Session,
    Deny,
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
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(e) => return Err(unreadable(&bytes, RequestError::InvalidUtf8 { offset: e.valid_up_to() }, true)),
    };
    let value = match bashrt_core::strict_json(text.as_bytes()) {
        Ok(value) => value,
        // A duplicate key (the only error of the data, not of the syntax) leaves a line that is JSON,
        // whose `type` is still the request's; a line that is not JSON answers as `parse`.
        Err(e) => {
            let typed = e.classify() == serde_json::error::Category::Data;
            return Err(unreadable(&bytes, RequestError::Json(describe(&e)), typed));
        }
    };
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
        "bash" => fields(object, "bash").and_then(bash_command).map(Request::Bash),
        "abort_bash" => fields(object, "abort_bash").map(Request::AbortBash),
        "tool_call" => fields(object, "tool_call").and_then(tool_call).map(Request::ToolCall),
        "abort" => fields(object, "abort").map(Request::Abort),
        "read_artifact" => fields(object, "read_artifact").map(Request::ReadArtifact),
        "get_state" => fields(object, "get_state").map(Request::GetState),
        "get_history" => fields(object, "get_history").map(Request::GetHistory),
        "list_sessions" => Ok(Request::ListSessions),
        "set_capabilities" => fields(object, "set_capabilities").map(Request::SetCapabilities),
        "approval" => fields(object, "approval").map(Request::Approval),
        _ => Err(RequestError::UnknownType(kind.clone())),
    };
    match request {
        Ok(request) => Ok(Envelope { id, request }),
        Err(error) => Err(rejected(id, Some(kind), error)),
    }
}

/// The longest `toolCallId`: ids are echoed in every event of the call and in `get_state`, so one
/// of megabytes would be copied into each.
pub const MAX_TOOL_CALL_ID_BYTES: usize = 1024;

/// A `tool_call` whose id is of a size to echo (see [`MAX_TOOL_CALL_ID_BYTES`]).
fn tool_call(request: ToolCallRequest) -> Result<ToolCallRequest, RequestError> {
    if request.tool_call_id.len() > MAX_TOOL_CALL_ID_BYTES {
        let reason = format!("toolCallId is {} bytes, more than {MAX_TOOL_CALL_ID_BYTES}", request.tool_call_id.len());
        return Err(RequestError::Invalid { command: "tool_call", reason });
    }
    Ok(request)
}

/// A `bash` command bash can run as sent: without a NUL (see [`RequestError::Command`]).
fn bash_command(request: BashRequest) -> Result<BashRequest, RequestError> {
    match memchr::memchr(0, request.command.as_bytes()) {
        Some(at) => Err(bashrt_core::CommandError::Nul(at).into()),
        None => Ok(request),
    }
}

/// A line refused before it was read as JSON: named by the `id` a tolerant scan can still read of it,
/// and by its `type` when `typed` (a line that is not JSON has no type: its command is `parse`).
fn unreadable(bytes: &[u8], error: RequestError, typed: bool) -> Rejected {
    let (id, command) = scan_envelope(bytes);
    rejected(id, command.filter(|_| typed), error)
}

/// The parser's message, with its word for too deep a nesting replaced by the client's.
fn describe(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.strip_prefix("recursion limit exceeded") {
        Some(position) => format!("nested deeper than {MAX_NESTING} arrays and objects{position}"),
        None => text,
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

    /// The error of a line that is refused, with the id and command it is answered with.
    fn refusal(text: &str) -> (Option<Value>, String, String) {
        let e = line(text).unwrap_err();
        (e.id, e.command, e.error.to_string())
    }

    #[test]
    fn a_number_out_of_range_is_refused_with_the_requests_id() {
        let text = r#"{"id":"t","type":"tool_call","toolCallId":"c","name":"bash","arguments":{"command":"ls","timeout":1e309}}"#;
        assert_eq!(
            refusal(text),
            (
                Some(Value::from("t")),
                "parse".to_string(),
                "Failed to parse command: number out of range at line 1 column 103".to_string()
            )
        );
    }

    #[test]
    fn nesting_past_the_limit_is_refused_naming_the_limit_and_the_id() {
        // The object itself is the first level.
        let nested = |levels: usize| {
            format!(
                r#"{{"id":9,"type":"bash","command":"ls","x":{}{}}}"#,
                "[".repeat(levels - 1),
                "]".repeat(levels - 1)
            )
        };
        assert!(line(&nested(MAX_NESTING)).is_ok());
        let (id, command, error) = refusal(&nested(MAX_NESTING + 1));
        assert_eq!((id, command.as_str()), (Some(Value::from(9)), "parse"));
        assert_eq!(error, "Failed to parse command: nested deeper than 127 arrays and objects at line 1 column 168");
        // A million levels: neither the parser nor the scan recurses that deep.
        let (id, _, _) = refusal(&nested(1_000_000));
        assert_eq!(id, Some(Value::from(9)));
    }

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth() {
        assert_eq!(
            refusal(r#"{"id":"d","type":"bash","command":"ls","command":"rm -rf ~"}"#),
            (
                Some(Value::from("d")),
                "bash".to_string(),
                r#"Failed to parse command: duplicate key "command" at line 1 column 48"#.to_string()
            )
        );
        let text = r#"{"id":"n","type":"tool_call","toolCallId":"c","name":"bash","arguments":{"command":"ls","command":"rm"}}"#;
        let (id, command, error) = refusal(text);
        assert_eq!((id, command.as_str()), (Some(Value::from("n")), "tool_call"));
        assert_eq!(error, r#"Failed to parse command: duplicate key "command" at line 1 column 97"#);
        // Two ids that differ name no request; the same id twice still names it.
        assert_eq!(refusal(r#"{"id":"a","id":"b","type":"get_state"}"#).0, None);
        assert_eq!(refusal(r#"{"id":"a","type":"get_state","id":"a"}"#).0, Some(Value::from("a")));
        // A lone surrogate is no character (serde_json words it as an escape cut short).
        let (id, _, error) = refusal(r#"{"id":"s","type":"bash","command":"\ud800"}"#);
        assert_eq!(id, Some(Value::from("s")));
        assert_eq!(error, "Failed to parse command: unexpected end of hex escape at line 1 column 42");
        // A huge key is quoted cut.
        let key = "k".repeat(100_000);
        let (_, _, error) = refusal(&format!(r#"{{"type":"get_state","{key}":1,"{key}":2}}"#));
        assert_eq!(
            error,
            format!(r#"Failed to parse command: duplicate key "{}…" at line 1 column 200027"#, "k".repeat(64))
        );
    }

    #[test]
    fn the_scan_reads_the_envelope_up_to_the_fault() {
        let scan = |text: &str| scan_envelope(text.as_bytes());
        assert_eq!(scan(r#"{"id":"a","type":"bash","command":"cut"#), (Some(Value::from("a")), Some("bash".into())));
        assert_eq!(scan(r#" { "type" : "abort" , "id" : 12.5 , "#), (Some(Value::from(12.5)), Some("abort".into())));
        // Nested values, strings holding brackets and quotes, and escaped keys are passed over right.
        let text =
            r#"{"arguments":{"command":"echo \"}]\" {","x":[[{"id":"inner"}]]},"\u0069d":"outer","type":"tool_call"}"#;
        assert_eq!(scan(text), (Some(Value::from("outer")), Some("tool_call".into())));
        // An id after the fault is not reached; ids that are not strings or numbers are not ids.
        assert_eq!(scan(r#"{"type":"bash" "id":"late"}"#), (None, Some("bash".into())));
        assert_eq!(scan(r#"{"id":{"a":1},"type":7}"#), (None, None));
        assert_eq!(scan(r#"{"id":1e309}"#), (None, None));
        assert_eq!(scan("[1]"), (None, None));
        assert_eq!(scan(""), (None, None));
        let mut bytes = br#"{"id":"u"#.to_vec();
        bytes.extend_from_slice(b"\xff\",\"type\":\"bash\"}");
        assert_eq!(scan_envelope(&bytes), (None, Some("bash".into())));
    }

    #[test]
    fn a_tool_call_id_too_long_to_echo_is_refused() {
        let id = "x".repeat(MAX_TOOL_CALL_ID_BYTES + 1);
        let text = format!(
            r#"{{"id":"t","type":"tool_call","toolCallId":"{id}","name":"bash","arguments":{{"command":"ls"}}}}"#
        );
        let (_, command, error) = refusal(&text);
        assert_eq!(
            (command.as_str(), error.as_str()),
            ("tool_call", "invalid tool_call command: toolCallId is 1025 bytes, more than 1024")
        );
        let id = "x".repeat(MAX_TOOL_CALL_ID_BYTES);
        let text =
            format!(r#"{{"type":"tool_call","toolCallId":"{id}","name":"bash","arguments":{{"command":"ls"}}}}"#);
        assert!(line(&text).is_ok());
    }

    #[test]
    fn a_bash_command_holding_a_nul_is_refused() {
        assert_eq!(
            refusal(r#"{"id":"z","type":"bash","command":"echo a\u0000; rm -rf ~"}"#),
            (
                Some(Value::from("z")),
                "bash".to_string(),
                "Not run: the command holds a NUL byte (at byte 6), which bash cannot run: it would run only the text \
                 before it"
                    .to_string()
            )
        );
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
