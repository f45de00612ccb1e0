//! The end of a tool result: after the output, one notice per line in the contract's order (a replaced
//! shell, the arguments' notices, a timeout clamp, output left open, a missing snapshot, background
//! processes, and last how the command ended), and the details that say the same as data.

use super::output::{shape_output, RunReport};
use super::{Details, Failure, Meta, TextContent, ToolResult};
use crate::exec::{OneShotReason, ShellEvent};
use crate::job::JobInfo;
use crate::outcome::Outcome;

/// The last notice of a command that timed out: `[Command timed out after 1 second]`, `… 2 seconds]`.
pub(crate) fn timed_out_notice(secs: f64) -> String {
    let unit = if secs == 1.0 { "second" } else { "seconds" };
    format!("[Command timed out after {secs} {unit}]")
}

/// Appends notices after one blank line; the output's own final newline is not doubled.
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
pub(crate) fn shape_tool_result(report: RunReport<'_>, mut details: Details) -> ToolResult {
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
        ShellEvent::Handed { carried } => notices.extend(carried.notice_handed()),
        ShellEvent::OneShot { .. } if report.carried.is_some() => {
            notices.extend(report.carried.as_ref().and_then(crate::exec::Carry::notice_own_shell))
        }
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
    if let Some(left) = &report.left_job {
        notices.push(crate::job::left_notice(&left.0, left.1));
    } else if report.background > 0 && !report.background_followed {
        let n = report.background;
        let s = if n == 1 { "" } else { "es" };
        notices.push(if report.background_stopped {
            format!("[Stopped {n} background process{s} the command left running: nothing outlives this call]")
        } else {
            match report.jobs_offered {
                // Where a job could have been had: say how, so that the next server has a handle.
                true => format!(
                    "[{n} background process{s} still running; to follow a process you start, run it with \
`background: true` instead of `&`: the job tool then reads its output and stops it]"
                ),
                false => format!("[{n} background process{s} still running]"),
            }
        });
    }
    let input_eof = report.stdin_null
        && matches!(report.outcome, Outcome::Exited { code } if code != 0)
        && super::needs_input::wanted_input(report.output.tail());
    if input_eof {
        let notice = if report.jobs_offered { super::needs_input::NOTICE_JOBS } else { super::needs_input::NOTICE };
        notices.push(notice.to_string());
    }
    if let Some(reader) = &report.waiting_for_input {
        notices.push(format!("[It was waiting for input: {reader} was reading the terminal]"));
    }
    let (sandbox_notices, sandbox) = super::sandbox::report(
        &report.sandbox,
        &text,
        report.final_cwd.as_deref().unwrap_or(report.cwd),
        report.started(),
    );
    notices.extend(sandbox_notices);
    details.sandbox = sandbox;
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
    details.input_eof = input_eof;
    details.waiting_for_input = report.waiting_for_input.clone();
    details.meta = shaped.truncation.map(|truncation| Meta { truncation });
    details.job = report.job.clone();
    details.left_job = report.left_job.as_ref().map(|left| Box::new(left.0.clone()));
    details.artifact_error = shaped.artifact_error;
    details.artifact_dropped_bytes = (shaped.artifact_dropped > 0).then_some(shaped.artifact_dropped);
    ToolResult { is_error: failure.is_some(), content: vec![TextContent { kind: "text", text }], details }
}

/// The result of a call that yielded: the output so far, shaped as the call's result would be, and
/// where its job is; jobs that ended unseen are told first.
pub(crate) fn shape_yielded(report: RunReport<'_>, mut details: Details, ended: Vec<JobInfo>) -> ToolResult {
    let shaped = shape_output(&report);
    let mut text = shaped.body;
    if text.is_empty() && !shaped.binary {
        text = "(no output yet)".to_string();
    }
    let mut notices = shaped.notices;
    notices.extend(report.carried.as_ref().and_then(crate::exec::Carry::notice_own_shell));
    notices.extend(details.argument_notices.iter().cloned());
    if let Some(job) = &report.job {
        notices.push(crate::job::yield_notice(job));
    }
    append_notices(&mut text, &notices);
    details.duration_ms = report.duration_ms;
    details.cwd = Some(report.cwd.display().to_string());
    details.timeout = Some(report.timeout);
    details.timeout_ms = Some(report.timeout.applied_ms());
    details.meta = shaped.truncation.map(|truncation| Meta { truncation });
    details.job = report.job;
    let mut result = ToolResult { is_error: false, content: vec![TextContent { kind: "text", text }], details };
    prepend_ended(&mut result, ended);
    result
}

/// Puts the notices of jobs that ended unseen at the start of `result`'s text.
pub(crate) fn prepend_ended(result: &mut ToolResult, ended: Vec<JobInfo>) {
    let Some(notice) = crate::job::ended_notice(&ended) else { return };
    if let Some(first) = result.content.first_mut() {
        first.text = format!("{notice}\n{}", first.text);
    }
    result.details.jobs_ended = ended;
}

/// A call that never ran (blocked, bad cwd, bad arguments, shell missing): an error result with `text`.
pub fn refused(text: String, mut details: Details) -> ToolResult {
    details.failure = Some(Failure::Refused);
    ToolResult { is_error: true, content: vec![TextContent { kind: "text", text }], details }
}
