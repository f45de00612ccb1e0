//! Result shaping: from what the sink kept and how the command ended, to the tool result a
//! model reads — text with notices appended at the END, and details that say exactly what happened.
//!
//! Promises: an error result keeps its truncation metadata and artifact link; every notice names how to
//! get the rest; line ranges are real line numbers of the command's output.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::artifact::ArtifactId;
use crate::excerpt::{self, ErrorLines};
use crate::exec::{OneShotReason, ShellEvent};
use crate::intercept::Block;
pub use crate::lines::LineRange;
use crate::lines::{count_lines, first_lines, last_lines};
use crate::normalize::ExtractedLimit;
use crate::outcome::Outcome;
use crate::sink::{SinkOutput, Spill};
use crate::validate::Timeout;
use crate::view::{
    describe_binary_tail, format_size, looks_binary, model_view, model_view_detailed, View, ViewOptions,
};

/// A tool result in the shape agent clients expect: `{"isError", "content", "details"}`.
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
    /// Arguments the call gave that the tool does not take, ignored (see [`crate::arguments`]).
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

/// The line limits a call asked for (explicit parameters, else the extracted stage).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[doc(hidden)]
pub struct Limits {
    pub head: Option<u64>,
    pub tail: Option<u64>,
}

impl Limits {
    /// Whether applying these limits hides lines of an output of `total_lines` lines.
    pub fn hides_lines(&self, total_lines: u64) -> bool {
        self.head.is_some_and(|h| total_lines > h) || self.tail.is_some_and(|t| total_lines > t)
    }
}

/// Everything shaping needs from a finished run (made by the run stage, [`crate::run`]).
#[doc(hidden)]
pub struct RunReport<'a> {
    pub output: SinkOutput,
    pub limits: Limits,
    pub outcome: Outcome,
    pub duration_ms: u64,
    pub background: u32,
    /// Where the command started.
    pub cwd: &'a Path,
    /// Where it ended, when a long-lived shell could tell.
    pub final_cwd: Option<PathBuf>,
    pub timeout: Timeout,
    pub max_bytes: usize,
    pub view: ViewOptions,
    /// Whether the call had somewhere to keep artifacts at all.
    pub artifacts_available: bool,
    /// Which shell ran it. A replaced shell lost the state earlier calls set (variables, functions),
    /// and the model must know.
    pub shell: ShellEvent,
    /// With an extracted stage whose stdout the executor split off: how the streams went.
    pub split: Option<crate::feed::SplitReport>,
    /// The extracted `| head -n N`, when there was one.
    pub extracted_head: Option<u64>,
    /// The call returned while processes the command left still held its output open.
    pub output_left_open: bool,
    /// Why the shell ran without the user's aliases and functions, when the command was not found
    /// (exit 127) and a snapshot capture had failed.
    pub snapshot_problem: Option<String>,
    /// What the command left running is stopped when the call ends (a single-call runtime).
    pub background_stopped: bool,
}

/// What a run produced, before it becomes a tool result: the model text without status lines, and the
/// truncation metadata. Shared by tool calls and session-level (`!cmd`) runs.
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct ShapedOutput {
    /// The visible output (empty when there was none, or when it was binary).
    pub body: String,
    /// The output was binary: a notice describes it instead of the body.
    pub binary: bool,
    /// Notices about the output (truncation, binary), to be appended after the body.
    pub notices: Vec<String>,
    pub truncation: Option<Truncation>,
    pub artifact_id: Option<ArtifactId>,
    pub artifact_error: Option<String>,
    /// Bytes of the output the artifact does not hold (it passed `artifacts.maxBytes`).
    pub artifact_dropped: u64,
}

/// Applies head/tail (head first) or the excerpt view, the model view, and the truncation notice.
#[doc(hidden)]
pub fn shape_output(report: &RunReport<'_>) -> ShapedOutput {
    let out = &report.output;
    let (artifact_id, artifact_error, dropped) = match out.spill() {
        Spill::Written { id, dropped, .. } => (Some(*id), None, *dropped),
        Spill::Failed { reason, .. } => (None, Some(reason.clone()), 0),
        Spill::None => (None, None, 0),
    };
    let where_full = || where_full(artifact_id, dropped, artifact_error.as_deref(), report.artifacts_available);
    if let Some((split, tail)) = report.split.as_ref().and_then(|s| Some((s, s.tail.as_ref()?))) {
        let mut shaped = split_tail_view(report, split, tail, &where_full());
        shaped.artifact_id = artifact_id;
        shaped.artifact_error = artifact_error;
        shaped.artifact_dropped = dropped;
        if let Some(truncation) = shaped.truncation.as_mut() {
            truncation.artifact_id = artifact_id;
        }
        return shaped;
    }
    if let Some(found) = out.excerpt() {
        // A tail inside one long line is shown as that line's end, with the true count of what
        // it lacks (the plain view below).
        if report.limits == Limits::default()
            && out.total_bytes() > report.max_bytes as u64
            && out.first_line_cut() == 0
            && !looks_binary(out.tail())
        {
            let view =
                excerpt::build(found, out.tail(), out.total_lines(), out.total_bytes(), report.max_bytes, &report.view);
            let notice = format!(
                "[Showing {} of {} ({} limit). {}]",
                view.describe_ranges(),
                out.total_lines(),
                format_size(report.max_bytes as u64),
                where_full()
            );
            let truncation = Truncation {
                direction: Direction::Excerpt,
                truncated_by: TruncatedBy::Bytes,
                total_lines: out.total_lines(),
                total_bytes: out.total_bytes(),
                output_lines: view.shown_lines,
                output_bytes: view.shown_bytes,
                shown_range: view.tail,
                shown_ranges: view.ranges,
                error_lines: Some(view.error_lines),
                artifact_id,
                max_bytes: report.max_bytes as u64,
            };
            return ShapedOutput {
                artifact_dropped: dropped,
                body: view.text,
                binary: false,
                notices: vec![notice],
                truncation: Some(truncation),
                artifact_id,
                artifact_error,
            };
        }
    }

    // The region we select from, and the line number its first line has in the whole output.
    let (mut shown, mut first_line, mut direction) = match (report.limits.head, out.head()) {
        (Some(h), Some(head)) => {
            let mut shown = first_lines(head.bytes(), h);
            if head.capped() && count_lines(shown) == count_lines(head.bytes()) {
                // The kept head ends where its byte cap fell, inside a line: show whole lines only.
                shown = whole_lines(shown);
            }
            if shown.len() > report.max_bytes {
                // Within the budget of this result (an error's may be smaller than the sink's).
                shown = whole_lines(&shown[..report.max_bytes]);
            }
            (shown, 1, Direction::Head)
        }
        _ => {
            // The kept tail, within the budget of this result (smaller than the sink's for an
            // error, with `bash.maxErrorOutputBytes`).
            let tail = tail_within(out.tail(), report.max_bytes);
            let first = out.total_lines().saturating_sub(count_lines(tail)) + 1;
            (tail, first, Direction::Tail)
        }
    };
    if let Some(t) = report.limits.tail {
        let before = count_lines(shown);
        shown = last_lines(shown, t);
        first_line += before - count_lines(shown);
        direction = Direction::Tail;
    }
    let shown_lines = count_lines(shown);
    let truncated = shown_lines < out.total_lines() || (shown.len() as u64) < out.total_bytes();
    let head_capped = report.limits.head.is_some() && out.head().is_some_and(|h| h.capped());
    let by_lines = report.limits.hides_lines(out.total_lines()) && !head_capped;
    let truncated_by = if by_lines && shown.len() < report.max_bytes { TruncatedBy::Lines } else { TruncatedBy::Bytes };

    let mut notices = Vec::new();
    let cut = if shown.as_ptr() == out.tail().as_ptr() { out.first_line_cut() } else { 0 };
    let (view, clamped) = model_view_detailed(shown, &report.view, cut);
    let (body, binary) = match view {
        View::Text(text) => (text, false),
        View::Binary { bytes } => {
            notices.push(binary_notice(shown, out.total_bytes().max(bytes), &where_full()));
            (String::new(), true)
        }
    };

    let truncation = truncated.then(|| {
        let range = (shown_lines > 0).then(|| LineRange { start: first_line, end: first_line + shown_lines - 1 });
        if !binary {
            let mut notice = match range {
                Some(r) => format!("[Showing lines {}-{} of {}", r.start, r.end, out.total_lines()),
                None => format!("[Showing 0 of {} lines", out.total_lines()),
            };
            if truncated_by == TruncatedBy::Bytes {
                notice.push_str(&format!(" ({} limit)", format_size(report.max_bytes as u64)));
            }
            notice.push_str(&format!(". {}]", where_full()));
            notices.push(notice);
        }
        truncation_of(report, direction, truncated_by, (shown, shown_lines), range, artifact_id)
    });

    if clamped > 0 && truncation.is_none() {
        let s = if clamped == 1 { "" } else { "s" };
        notices.push(format!(
            "[{clamped} long line{s} cut to {} chars (bash.maxLineChars). {}]",
            report.view.max_line_chars,
            where_full()
        ));
    }
    if let (Some(n), Some(split)) = (report.extracted_head, &report.split) {
        // A truncation notice already says which lines are shown.
        if split.stopped && truncation.is_none() {
            notices.push(match split.stderr_lines {
                0 => format!("[Showing lines 1-{n}; head -n {n} stopped the command there]"),
                k => format!(
                    "[Showing the first {n} lines of stdout and all {k} line{} of stderr; head -n {n} stopped the command there]",
                    if k == 1 { "" } else { "s" }
                ),
            });
        }
    }

    ShapedOutput { body, binary, notices, truncation, artifact_id, artifact_error, artifact_dropped: dropped }
}

/// The notice that stands for binary output: its size, where the whole of it is, and what its last
/// lines look like as text.
fn binary_notice(shown: &[u8], total_bytes: u64, where_full: &str) -> String {
    let mut notice = format!("[Binary output ({}) not shown. {where_full}]", format_size(total_bytes));
    let last = describe_binary_tail(shown);
    if !last.is_empty() {
        let s = if last.len() == 1 { "" } else { "s" };
        notice.push_str(&format!("\n[Its last line{s}, as text: "));
        notice.push_str(&last.iter().map(|l| format!("{l:?}")).collect::<Vec<_>>().join(", "));
        notice.push(']');
    }
    notice
}

/// `bytes` up to its last newline (all of it when it has none: one long line is still shown).
fn whole_lines(bytes: &[u8]) -> &[u8] {
    match memchr::memrchr(b'\n', bytes) {
        Some(pos) => &bytes[..=pos],
        None => bytes,
    }
}

/// The last `max` bytes of `bytes` or less, starting on a line boundary (one line longer than `max`
/// is cut, the view's clamp then says so).
fn tail_within(bytes: &[u8], max: usize) -> &[u8] {
    if bytes.len() <= max {
        return bytes;
    }
    let start = bytes.len() - max;
    if bytes[start - 1] == b'\n' {
        return &bytes[start..];
    }
    match memchr::memchr(b'\n', &bytes[start..]) {
        Some(pos) if start + pos + 1 < bytes.len() => &bytes[start + pos + 1..],
        _ => &bytes[start..],
    }
}

/// The view of an extracted `| tail -n N` whose producer's stdout was read apart: what that stage
/// would have let through (stderr whole, then the last `N` lines of stdout), within the byte budget.
fn split_tail_view(
    report: &RunReport<'_>,
    split: &crate::feed::SplitReport,
    tail: &crate::feed::SplitTail,
    where_full: &str,
) -> ShapedOutput {
    let out = &report.output;
    let shown = tail_within(&tail.text, report.max_bytes);
    let cut_bytes = shown.len() < tail.text.len();
    let stdout_shown = tail.shown_stdout_lines.min(count_lines(shown));
    let hidden_stdout = split.stdout_lines > stdout_shown;
    let mut notices = Vec::new();
    let (body, binary) = match model_view(shown, &report.view) {
        View::Text(text) => (text, false),
        View::Binary { bytes } => {
            notices.push(binary_notice(shown, out.total_bytes().max(bytes), where_full));
            (String::new(), true)
        }
    };
    let shown_lines = count_lines(shown);
    let truncation = (hidden_stdout || cut_bytes).then(|| {
        let by = if cut_bytes { TruncatedBy::Bytes } else { TruncatedBy::Lines };
        let limit = match by {
            TruncatedBy::Bytes => format!(" ({} limit)", format_size(report.max_bytes as u64)),
            TruncatedBy::Lines => String::new(),
        };
        // Without stderr the stdout lines are the output's lines, and the range is exact.
        let range = (split.stderr_lines == 0 && stdout_shown > 0)
            .then(|| LineRange { start: split.stdout_lines.saturating_sub(stdout_shown) + 1, end: split.stdout_lines });
        if !binary {
            notices.push(match range {
                Some(r) => {
                    format!("[Showing lines {}-{} of {}{limit}. {where_full}]", r.start, r.end, split.stdout_lines)
                }
                None => format!(
                    "[Showing the last {stdout_shown} of {} lines of stdout and {} of stderr{limit}. {where_full}]",
                    split.stdout_lines,
                    if cut_bytes {
                        "the end".to_string()
                    } else {
                        format!("all {} line{}", split.stderr_lines, if split.stderr_lines == 1 { "" } else { "s" })
                    },
                ),
            });
        }
        truncation_of(report, Direction::Tail, by, (shown, shown_lines), range, None)
    });
    ShapedOutput { body, binary, notices, truncation, artifact_id: None, artifact_error: None, artifact_dropped: 0 }
}

/// The record of a truncated view that shows `shown` (`shown_lines` lines; `range` when they are one
/// known run of the output's lines) of the report's output.
fn truncation_of(
    report: &RunReport<'_>,
    direction: Direction,
    truncated_by: TruncatedBy,
    (shown, shown_lines): (&[u8], u64),
    range: Option<LineRange>,
    artifact_id: Option<ArtifactId>,
) -> Truncation {
    Truncation {
        direction,
        truncated_by,
        total_lines: report.output.total_lines(),
        total_bytes: report.output.total_bytes(),
        output_lines: shown_lines,
        output_bytes: shown.len() as u64,
        shown_range: range,
        shown_ranges: range.into_iter().collect(),
        error_lines: None,
        artifact_id,
        max_bytes: report.max_bytes as u64,
    }
}

/// Where the whole output is, for a notice.
fn where_full(
    artifact_id: Option<ArtifactId>,
    dropped: u64,
    artifact_error: Option<&str>,
    artifacts_available: bool,
) -> String {
    match (artifact_id, artifact_error) {
        (Some(id), _) if dropped > 0 => {
            format!("Head and tail: {} ({} in between dropped: artifacts.maxBytes)", id.url(), format_size(dropped))
        }
        (Some(id), _) => format!("Full: {}", id.url()),
        (None, Some(reason)) => format!("Full output could not be kept: {reason}"),
        (None, None) if !artifacts_available => "Full output was not kept: no artifact directory".to_string(),
        (None, None) => "Full output was not kept".to_string(),
    }
}

/// The last notice of a command that timed out: `[Command timed out after 1 second]`, `… 2 seconds]`.
#[doc(hidden)]
pub fn timed_out_notice(secs: f64) -> String {
    let unit = if secs == 1.0 { "second" } else { "seconds" };
    format!("[Command timed out after {secs} {unit}]")
}

/// Appends notices after one blank line; the output's own final newline is not doubled.
#[doc(hidden)]
pub fn append_notices(text: &mut String, notices: &[String]) {
    if notices.is_empty() {
        return;
    }
    while text.ends_with('\n') {
        text.pop();
    }
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(&notices.join("\n"));
}

/// The full tool result of a command that ran.
#[doc(hidden)]
pub fn shape_tool_result(report: RunReport<'_>, mut details: Details) -> ToolResult {
    let shaped = shape_output(&report);
    let mut text = shaped.body;
    if text.is_empty() && !shaped.binary {
        text = "(no output)".to_string();
    }
    let mut notices = shaped.notices;
    match &report.shell {
        ShellEvent::Replaced { .. } => notices.push(format!("[Shell restarted: {}]", report.shell)),
        ShellEvent::Lost { .. } => notices.push(format!("[Shell lost: {}]", report.shell)),
        ShellEvent::OneShot { reason: OneShotReason::ShellBusy { carried } } => notices.extend(carried.notice()),
        _ => {}
    }
    notices.extend(details.argument_notices.iter().cloned());
    if report.timeout.clamped {
        notices.push(format!(
            "[Timeout clamped to {}s (requested {}s)]",
            report.timeout.applied_secs, report.timeout.requested_secs
        ));
    }
    if report.output_left_open {
        notices.push(
            "[Background processes still held the output when the call returned: what they print later is not shown]"
                .to_string(),
        );
    }
    if let Some(problem) = &report.snapshot_problem {
        notices.push(format!("[This shell has none of the user's aliases and functions: {problem}]"));
    }
    if report.background > 0 {
        let n = report.background;
        let s = if n == 1 { "" } else { "es" };
        notices.push(if report.background_stopped {
            format!("[Stopped {n} background process{s} the command left running: nothing outlives this call]")
        } else {
            format!("[{n} background process{s} still running]")
        });
    }
    let failure = match report.outcome {
        Outcome::Exited { code: 0 } => None,
        Outcome::Exited { code } => {
            notices.push(format!("Command exited with code {code}"));
            Some(Failure::Error)
        }
        Outcome::Signalled { signal } => {
            notices.push(format!(
                "Command failed: missing exit status (killed by {})",
                crate::outcome::signal_name(signal)
            ));
            Some(Failure::Error)
        }
        Outcome::TimedOut => {
            notices.push(timed_out_notice(report.timeout.applied_secs));
            Some(Failure::Error)
        }
        Outcome::Cancelled => {
            notices.push("[Command cancelled]".to_string());
            Some(Failure::Abort)
        }
        Outcome::Error => {
            notices.push("Command failed: missing exit status".to_string());
            Some(Failure::Error)
        }
    };
    append_notices(&mut text, &notices);

    details.failure = failure;
    details.outcome = Some(report.outcome);
    details.exit_code = report.outcome.exit_code();
    details.signal = report.outcome.signal_name();
    details.timed_out = report.outcome == Outcome::TimedOut;
    details.cancelled = matches!(report.outcome, Outcome::TimedOut | Outcome::Cancelled);
    details.duration_ms = report.duration_ms;
    details.cwd = Some(report.cwd.display().to_string());
    details.timeout = Some(report.timeout);
    details.timeout_ms = Some(report.timeout.applied_ms());
    details.background_processes = report.background;
    details.output_left_open = report.output_left_open;
    details.meta = shaped.truncation.map(|truncation| Meta { truncation });
    details.artifact_error = shaped.artifact_error;
    details.artifact_dropped_bytes = (shaped.artifact_dropped > 0).then_some(shaped.artifact_dropped);
    ToolResult { is_error: failure.is_some(), content: vec![TextContent { kind: "text", text }], details }
}

/// A call that never ran (blocked, bad cwd, bad arguments, shell missing): an error result with `text`.
pub fn refused(text: String, mut details: Details) -> ToolResult {
    details.failure = Some(Failure::Refused);
    ToolResult { is_error: true, content: vec![TextContent { kind: "text", text }], details }
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
