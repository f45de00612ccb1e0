//! The output side of the protocol: every line the server writes, in the shapes clients know, through
//! one writer.
//!
//! Promises: each message is one JSON object on one line, written whole (serialized first, then written
//! and flushed under a lock, so lines of different threads never mix); a message is on the wire when
//! its method returns; once the output fails (the client went away), later messages are dropped
//! quietly after one warning on stderr — the server never blocks or dies on a closed stdout.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use bashrt_core::ToolResult;
use serde::Serialize;
use serde_json::Value;

/// Where protocol lines go (stdout, in the binary).
pub struct Output {
    writer: Mutex<Box<dyn Write + Send>>,
    broken: AtomicBool,
}

/// `{"id"?, "type":"response", "command", "success", "data"?, "error"?}`
#[derive(Serialize)]
struct Response<'a, D: Serialize> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a Value>,
    #[serde(rename = "type")]
    kind: &'static str,
    command: &'a str,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<D>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BashUpdate<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a Value>,
    session_id: &'a str,
    chunk: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    skipped_bytes: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolStart<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    tool_call_id: &'a str,
    tool_name: &'a str,
    args: &'a Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolUpdate<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    tool_call_id: &'a str,
    tool_name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<&'a Value>,
    partial_result: PartialResult<'a>,
}

#[derive(Serialize)]
struct PartialResult<'a> {
    content: [TextPart<'a>; 1],
    details: Empty,
}

#[derive(Serialize)]
struct TextPart<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// Serializes as `{}`.
#[derive(Serialize)]
struct Empty {}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolEnd<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    tool_call_id: &'a str,
    tool_name: &'a str,
    result: &'a ToolResult,
    is_error: bool,
}

/// A running job's new state.
#[derive(Serialize)]
struct JobStateEvent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    job: &'a bashrt_core::JobInfo,
}

/// A job's end: the result its call would have had, for a client that shows it (the model hears of
/// it through the `job` tool, or first thing in its next result).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JobEnd<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    job_id: u64,
    tool_call_id: &'a str,
    result: &'a ToolResult,
    is_error: bool,
}

/// The tool that runs commands.
pub const TOOL_NAME: &str = "bash";

/// The tool that follows, reads and kills the jobs calls of [`TOOL_NAME`] became.
pub const JOB_TOOL_NAME: &str = "job";

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Output {
    pub fn new(writer: impl Write + Send + 'static) -> Self {
        Self { writer: Mutex::new(Box::new(writer)), broken: AtomicBool::new(false) }
    }

    /// `{"success":true}` without data.
    pub fn ok(&self, id: Option<&Value>, command: &str) {
        self.send(&Response::<()> { id, kind: "response", command, success: true, data: None, error: None });
    }

    /// `{"success":true,"data":..}`
    pub fn ok_with(&self, id: Option<&Value>, command: &str, data: &impl Serialize) {
        self.send(&Response { id, kind: "response", command, success: true, data: Some(data), error: None });
    }

    /// `{"success":false,"error":..}`
    pub fn fail(&self, id: Option<&Value>, command: &str, error: &str) {
        self.send(&Response::<()> { id, kind: "response", command, success: false, data: None, error: Some(error) });
    }

    /// `{"success":false,"error":..,"data":..}`: a failure with details (a `bash` that could not run).
    pub fn fail_with(&self, id: Option<&Value>, command: &str, error: &str, data: &impl Serialize) {
        self.send(&Response { id, kind: "response", command, success: false, data: Some(data), error: Some(error) });
    }

    /// Live output of a session-level `bash` command.
    pub fn bash_update(&self, id: Option<&Value>, session_id: &str, chunk: &str, skipped_bytes: u64) {
        self.send(&BashUpdate { kind: "bash_update", id, session_id, chunk, skipped_bytes });
    }

    pub fn tool_update(&self, tool_call_id: &str, args: Option<&Value>, text: &str) {
        self.send(&ToolUpdate {
            kind: "tool_execution_update",
            tool_call_id,
            tool_name: TOOL_NAME,
            args,
            partial_result: PartialResult { content: [TextPart { kind: "text", text }], details: Empty {} },
        });
    }

    pub fn tool_end(&self, tool_call_id: &str, result: &ToolResult) {
        self.tool_end_of(TOOL_NAME, tool_call_id, result);
    }

    /// The end of a call of `tool_name`.
    pub fn tool_end_of(&self, tool_name: &str, tool_call_id: &str, result: &ToolResult) {
        self.send(&ToolEnd { kind: "tool_execution_end", tool_call_id, tool_name, result, is_error: result.is_error });
    }

    /// `job_state`: a running job started or stopped listening or waiting for input.
    pub fn job_state(&self, job: &bashrt_core::JobInfo) {
        self.send(&JobStateEvent { kind: "job_state", job });
    }

    /// `job_end`: the command of a call that yielded ended.
    pub fn job_end(&self, job_id: u64, tool_call_id: &str, result: &ToolResult) {
        self.send(&JobEnd { kind: "job_end", job_id, tool_call_id, result, is_error: result.is_error });
    }

    /// The accepted response of a `tool_call` and its `tool_execution_start`, in one write (they always
    /// come together, and a write per line is a large part of a quick call's cost).
    pub fn tool_accepted(&self, id: Option<&Value>, tool_name: &str, tool_call_id: &str, args: &Value) {
        let mut lines = Vec::new();
        let accepted =
            Response::<()> { id, kind: "response", command: "tool_call", success: true, data: None, error: None };
        let start = ToolStart { kind: "tool_execution_start", tool_call_id, tool_name, args };
        if append_line(&mut lines, &accepted) && append_line(&mut lines, &start) {
            self.write(&lines);
        }
    }

    /// An event line of its own (`approval_request`).
    pub fn event(&self, message: &impl Serialize) {
        self.send(message);
    }

    fn send(&self, message: &impl Serialize) {
        let mut line = Vec::new();
        if append_line(&mut line, message) {
            self.write(&line);
        }
    }

    /// Writes whole lines and flushes, under the lock.
    fn write(&self, lines: &[u8]) {
        if self.broken.load(Ordering::Relaxed) {
            return;
        }
        let mut writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        if self.broken.load(Ordering::Relaxed) {
            return;
        }
        if let Err(e) = writer.write_all(lines).and_then(|()| writer.flush()) {
            self.broken.store(true, Ordering::Relaxed);
            tracing::warn!("cannot write to the protocol output ({e}); further messages are dropped");
        }
    }
}

/// Appends `message` as one JSON line; false (after logging) if it cannot be serialized.
fn append_line(buf: &mut Vec<u8>, message: &impl Serialize) -> bool {
    if let Err(e) = serde_json::to_writer(&mut *buf, message) {
        tracing::error!("cannot serialize a protocol message: {e}");
        return false;
    }
    buf.push(b'\n');
    true
}
