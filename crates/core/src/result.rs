//! Result shaping: from what the sink kept and how the command ended, to the tool result a
//! model reads — text with notices appended at the END, and details that say exactly what happened.
//!
//! Promises: an error result keeps its truncation metadata and artifact link; every notice names how to
//! get the rest; line ranges are real line numbers of the command's output.
//!
//! Here: the result's types (what clients read). `output` chooses what of the output is shown (head,
//! tail or excerpt, within the budget) and says what was left out; `notices` appends how the command
//! ended, in the contract's order, and fills in the details.

mod needs_input;
mod notices;
mod output;
mod sandbox;

use serde::Serialize;

use crate::artifact::ArtifactId;
use crate::excerpt::ErrorLines;
use crate::intercept::Block;
pub use crate::lines::LineRange;
use crate::normalize::ExtractedLimit;
use crate::outcome::Outcome;
use crate::validate::Timeout;
pub(crate) use needs_input::gives_itself_input;
pub use notices::{append_notices, refused};
pub(crate) use notices::{prepend_ended, shape_tool_result, shape_yielded, timed_out_notice};
pub(crate) use output::{shape_output, Limits, RunReport};
pub(crate) use sandbox::SandboxUse;
pub use sandbox::{SandboxDetails, SandboxGrant};

/// A tool result in the shape agent clients expect: `{"isError", "content", "details"}`.
///
/// Promises: an error result keeps its truncation metadata and artifact link; every notice names how
/// to get the rest; line ranges are real line numbers of the command's output.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The call failed: refused, a non-zero exit, a signal, a timeout or a cancel.
    pub is_error: bool,
    /// What the model reads: one text block.
    pub content: Vec<TextContent>,
    /// Everything the text says, as data.
    pub details: Details,
}

/// One block of content, as agent protocols carry it (`{"type": "text", "text": …}`).
#[derive(Debug, Clone, Serialize)]
pub struct TextContent {
    /// Always `"text"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The text.
    pub text: String,
}

impl ToolResult {
    /// The text the model reads.
    pub fn text(&self) -> String {
        self.content.iter().map(|c| c.text.as_str()).collect()
    }
}

/// Why a call did not produce a successful result. `Abort` is the caller's own cancel (the reference's
/// `ToolAbortError`); everything else is a tool failure (`ToolError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Failure {
    /// Blocked, bad cwd, bad arguments or a shell that could not start: nothing ran.
    Refused,
    /// The command ran and failed: non-zero exit, signal, timeout.
    Error,
    /// The caller aborted the call.
    Abort,
}

/// The details of a tool result: how the command ended and what the text shows, as data.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Details {
    /// Why the result is an error, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// How the command ended; `None` when it never ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The shell's exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that killed the shell (`SIGKILL`), when one did.
    pub signal: Option<String>,
    /// The deadline passed and the tree was killed.
    pub timed_out: bool,
    /// Timed out or cancelled (the reference's field).
    pub cancelled: bool,
    /// From the start of the call to the end of the command.
    pub duration_ms: u64,
    /// Where the command ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The timeout requested and applied (a clamp is visible here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Timeout>,
    /// Applied timeout in milliseconds (the reference's unit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Processes the command left running.
    pub background_processes: u32,
    /// The call returned while processes the command left still held its output open: what they
    /// printed after that is not in the output.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub output_left_open: bool,
    /// The command failed with the signs of a read that found no input (its stdin is `/dev/null`):
    /// an `EOFError`, no terminal for a password, a prompt left as the last line.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub input_eof: bool,
    /// The program that was blocked reading the terminal when the command was killed at its deadline
    /// or cancelled (a tool call run in a terminal): why it never finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_for_input: Option<String>,
    /// Which shell ran the command: a long-lived one started or reused, a replacement (and why), or a
    /// one-shot shell (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// Set when the output did not fit the view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The rule that blocked the command, and the tool to use instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interception: Option<Block>,
    /// The trailing `| head`/`| tail` stage turned into a limit, when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normalization: Option<Normalization>,
    /// Why the full output could not be kept, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_error: Option<String>,
    /// Bytes of the output the artifact does not hold, when the output passed `artifacts.maxBytes`
    /// (the artifact keeps its first and last bytes around a marker line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_dropped_bytes: Option<u64>,
    /// Arguments the call gave that the tool does not take, ignored (see [`read_arguments`](crate::read_arguments)).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored_arguments: Vec<String>,
    /// How reading the arguments changed them, as the text's notices say it (the data is in
    /// `timeout` and `ignored_arguments`).
    #[serde(skip)]
    #[schemars(skip)]
    pub argument_notices: Vec<String>,
    /// Problems that did not stop the call (e.g. an invalid interceptor rule).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The sandbox's refusals, the variables it left out, or that it could not confine the command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxDetails>,
    /// The job this result is about: the one a yielded call became, or the one a `job` call read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<Box<crate::job::JobInfo>>,
    /// The job that follows what the command left running when it ended (`server &`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_job: Option<Box<crate::job::JobInfo>>,
    /// A `job` list: every job of the session.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<crate::job::JobInfo>,
    /// Jobs that ended since the model last heard of them (their notices come first in the text).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs_ended: Vec<crate::job::JobInfo>,
}

/// A trailing `| head`/`| tail` stage that became a structured limit.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Normalization {
    /// The command actually run (the original minus its extracted head/tail stage).
    pub command: String,
    /// Which stage, and its count.
    pub extracted: ExtractedLimit,
}

/// Metadata beside the text (the reference's `details.meta`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Meta {
    /// What the view left out, and where it is kept.
    pub truncation: Truncation,
}

/// Which end of the output the view keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Direction {
    /// The first lines are shown.
    Head,
    /// The last lines are shown.
    Tail,
    /// The first lines, the lines that matched error signatures, and the last lines.
    Excerpt,
}

/// What limited the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum TruncatedBy {
    /// The byte budget (`bash.maxOutputBytes`).
    Bytes,
    /// A head/tail line limit.
    Lines,
}

/// What a truncated view shows of the output, and where the rest is.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Which end is shown.
    pub direction: Direction,
    /// What limited the view.
    pub truncated_by: TruncatedBy,
    /// Lines the command printed.
    pub total_lines: u64,
    /// Bytes the command printed.
    pub total_bytes: u64,
    /// Lines shown.
    pub output_lines: u64,
    /// Bytes of output shown.
    pub output_bytes: u64,
    /// The one range of a head or tail view; for an excerpt, its last part (the tail). `None` when no
    /// line is shown.
    pub shown_range: Option<LineRange>,
    /// Every range shown, in order.
    pub shown_ranges: Vec<LineRange>,
    /// For an excerpt: lines that matched error signatures, found and shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_lines: Option<ErrorLines>,
    /// The artifact with the full output, when it could be kept.
    pub artifact_id: Option<ArtifactId>,
    /// The byte budget of the view.
    pub max_bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_follow_the_output_after_a_blank_line() {
        let mut t = "out\n".to_string();
        append_notices(&mut t, &["[n]".to_string(), "Command exited with code 2".to_string()]);
        assert_eq!(t, "out\n\n[n]\nCommand exited with code 2");
    }
}
