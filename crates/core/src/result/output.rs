//! What of the output a result shows: the extracted or explicit head/tail applied to the real lines,
//! else the excerpt (the head, the lines that matched error signatures, the tail) or the tail within
//! the budget; then the model view, and the notice that says what was left out and where it is kept.

use std::path::{Path, PathBuf};

use super::{Direction, TruncatedBy, Truncation};
use crate::artifact::ArtifactId;
use crate::excerpt;
use crate::exec::ShellEvent;
use crate::feed::{SplitReport, SplitTail};
use crate::lines::{count_lines, first_lines, last_lines, LineRange};
use crate::outcome::Outcome;
use crate::sink::{SinkOutput, Spill};
use crate::validate::Timeout;
use crate::view::{
    describe_binary_tail, format_size, looks_binary, model_view, model_view_detailed, View, ViewOptions,
};

/// The line limits a call asked for (explicit parameters, else the extracted stage).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Limits {
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
pub(crate) struct RunReport<'a> {
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
    pub split: Option<SplitReport>,
    /// The extracted `| head -n N`, when there was one.
    pub extracted_head: Option<u64>,
    /// The call returned while processes the command left still held its output open.
    pub output_left_open: bool,
    /// Why the shell ran without the user's aliases and functions, when the command was not found
    /// (exit 127) and a snapshot capture had failed.
    pub snapshot_problem: Option<String>,
    /// What the command left running is stopped when the call ends (a single-call runtime).
    pub background_stopped: bool,
    /// The command read `/dev/null` when it read its stdin: the call gave it no terminal, and it gave
    /// itself no input (`<`, `|`, a here-document).
    pub stdin_null: bool,
    /// The program that was blocked reading the terminal when the command was killed or cancelled.
    pub waiting_for_input: Option<String>,
    /// The job the call became when it yielded, as it was when the command ended (or, for a yielded
    /// result, when the call returned).
    pub job: Option<Box<crate::job::JobInfo>>,
    /// The call could have become a job (its front yields): what it left running could have been one.
    pub jobs_offered: bool,
    /// The job that follows what the command left running (`server &`), and how many processes.
    pub left_job: Option<Box<(crate::job::JobInfo, usize)>>,
    /// What of the session's state a shell of the call's own (stdin a pipe or a terminal) started from.
    pub carried: Option<crate::exec::Carry>,
    /// Jobs run, which follow what earlier calls left running: the background count is theirs, and
    /// the `job` tool lists them, so no notice repeats it.
    pub background_followed: bool,
    /// What confined the command, and what to say of it.
    pub sandbox: super::sandbox::SandboxUse,
}

impl<'a> RunReport<'a> {
    /// A report of output alone, for a view of it while its command still runs (a yielded call, a
    /// job's new output): no outcome yet, no limits, `max_bytes` of view. Set the rest by update.
    /// When the command started, as far as the clock now tells (its duration ago).
    pub(crate) fn started(&self) -> std::time::Instant {
        let now = std::time::Instant::now();
        now.checked_sub(std::time::Duration::from_millis(self.duration_ms + 1)).unwrap_or(now)
    }

    pub(crate) fn of_output(
        output: SinkOutput,
        cwd: &'a Path,
        timeout: Timeout,
        max_bytes: usize,
        view: ViewOptions,
    ) -> Self {
        RunReport {
            output,
            limits: Limits::default(),
            outcome: Outcome::Exited { code: 0 },
            duration_ms: 0,
            background: 0,
            cwd,
            final_cwd: None,
            timeout,
            max_bytes,
            view,
            artifacts_available: false,
            shell: ShellEvent::Reused,
            split: None,
            extracted_head: None,
            output_left_open: false,
            snapshot_problem: None,
            background_stopped: false,
            stdin_null: false,
            waiting_for_input: None,
            job: None,
            jobs_offered: false,
            left_job: None,
            carried: None,
            background_followed: false,
            sandbox: super::sandbox::SandboxUse::Off,
        }
    }
}

/// What a run produced, before it becomes a tool result: the model text without status lines, and the
/// truncation metadata. Shared by tool calls and session-level (`!cmd`) runs.
#[derive(Debug, Clone)]
pub(crate) struct ShapedOutput {
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
pub(crate) fn shape_output(report: &RunReport<'_>) -> ShapedOutput {
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
fn split_tail_view(report: &RunReport<'_>, split: &SplitReport, tail: &SplitTail, where_full: &str) -> ShapedOutput {
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
