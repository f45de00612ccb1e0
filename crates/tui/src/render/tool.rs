//! The tool renderer: a tool call as the transcript shows it — the call line `$ command` (with its
//! cwd when that is not where the UI started), a collapsed preview of the last few visual lines of
//! what the model saw with a hint how to expand (and, for a failed command whose first error line is
//! not among them, that line and how many error lines there are), a warning line when the model's
//! view was truncated (why, and `artifact://<id>`), other notices, and a footer with the exit status,
//! the duration and the timeout. While the command runs the preview follows its live tail.

use std::time::Instant;

use bashrt_core::{format_size, Failure, Outcome, Severity, SignatureSet, ToolResult, TruncatedBy};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::{call_lines, dim, hint_line, preview_rows, running_status, warning, Row, INDENT};
use crate::entry::{Entry, State};
use crate::text::{self, thousands};

/// Visual rows of output in a collapsed tool call.
pub const PREVIEW_ROWS: usize = 5;

/// The transcript lines of a tool-call entry, `width` columns wide.
pub fn tool_lines(entry: &Entry, width: usize, now: Instant) -> Vec<Line<'static>> {
    let mut out = call_lines("$ ", Color::Cyan, &entry.command, entry.cwd.as_deref(), width);
    match &entry.state {
        State::Running { started } => {
            let snap = entry.live.snapshot(PREVIEW_ROWS);
            // Only a line's end can be on screen: a frame never works through a 64 KiB line.
            let tail_bytes = PREVIEW_ROWS * width.max(1) * 4;
            let rows: Vec<Row> = snap
                .lines
                .iter()
                .map(|l| text::cells(&l.bytes[l.bytes.len().saturating_sub(tail_bytes)..], false))
                .collect();
            let (shown, used) = preview_rows(&rows, width, PREVIEW_ROWS);
            let hidden = snap.total_lines.saturating_sub(used as u64);
            if hidden > 0 {
                out.push(dim(format!("{INDENT}… {} earlier lines", thousands(hidden))));
            }
            out.extend(shown);
            let lines = format!("{} lines", thousands(snap.total_lines));
            out.push(running_status(*started, now, &format!("running {{}} · {lines} · esc to cancel")));
        }
        State::Tool(result) => finished(result, width, &mut out),
        State::Bang(_) | State::Failed(_) => {}
    }
    out
}

fn finished(result: &ToolResult, width: usize, out: &mut Vec<Line<'static>>) {
    let text = result.text();
    let (body, notices) = split_notices(&text);
    let refused = result.details.failure == Some(Failure::Refused);
    let style = if refused { Style::default().fg(Color::Red) } else { Style::default() };
    let rows: Vec<Row> = body.lines().map(|l| text::plain(l, style)).collect();
    let (shown, used) = preview_rows(&rows, width, PREVIEW_ROWS);
    let hidden = rows.len() - used;
    let truncation = result.details.meta.as_ref().map(|m| &m.truncation);
    if hidden > 0 || truncation.is_some() {
        let earlier =
            if hidden > 0 { format!("… {} earlier lines · ", thousands(hidden as u64)) } else { String::new() };
        out.push(hint_line(format!("{earlier}ctrl+o to expand")));
    }
    let failed = !matches!(result.details.outcome, Some(Outcome::Exited { code: 0 }));
    if failed {
        if let Some(first) = first_error(body).filter(|first| first.index < hidden) {
            out.extend(first_error_lines(&first, width));
        }
    }
    out.extend(shown);
    if let Some(t) = truncation {
        let reason = match t.truncated_by {
            TruncatedBy::Bytes => format!(" ({} limit)", format_size(t.max_bytes)),
            TruncatedBy::Lines => " (line limit)".to_string(),
        };
        let ranges: Vec<String> =
            t.shown_ranges.iter().map(|r| format!("{}-{}", thousands(r.start), thousands(r.end))).collect();
        let shown = if ranges.is_empty() {
            format!("showing 0 of {} lines", thousands(t.total_lines))
        } else {
            format!("showing lines {} of {}", ranges.join(", "), thousands(t.total_lines))
        };
        let full = match (t.artifact_id, &result.details.artifact_error) {
            (Some(id), _) => format!(" · full output: {}", id.url()),
            (None, Some(e)) => format!(" · full output could not be kept: {e}"),
            (None, None) => " · full output was not kept".to_string(),
        };
        out.extend(warning(&format!("Truncated: {shown}{reason}{full}"), width));
    }
    let note = Style::default().add_modifier(Modifier::DIM);
    for notice in notices.iter().filter(|n| !n.starts_with("[Showing ") && !is_ending(n)) {
        for row in text::wrap_words(&text::plain(notice, note), width.saturating_sub(INDENT.len()).max(1)) {
            out.push(text::line(vec![Span::raw(INDENT)], &row, Style::default()));
        }
    }
    out.push(footer(result));
}

/// The first line of the output the model saw that is an error (by the error signatures and shapes),
/// and how many are.
struct FirstError<'a> {
    /// Its index among the output's lines.
    index: usize,
    /// Its text, without the excerpt's `N:` prefix.
    text: &'a str,
    /// Its line number in the whole output, when the excerpt numbered it.
    line: Option<u64>,
    count: usize,
}

fn first_error(body: &str) -> Option<FirstError<'_>> {
    let signatures = SignatureSet::defaults();
    let mut first = None;
    let mut count = 0;
    for (index, line) in body.lines().enumerate() {
        // An excerpt's matched line is `N:text`, its context `N-text`.
        let (number, text) = match line.split_once(':') {
            Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => (n.parse().ok(), rest),
            _ => (None, line),
        };
        if signatures.classify(text).is_some_and(|m| m.severity == Severity::Error) {
            count += 1;
            first.get_or_insert(FirstError { index, text, line: number, count: 0 });
        }
    }
    first.map(|first| FirstError { count, ..first })
}

/// `✗ first of 3 error lines (line 1,204): error[E0308]: mismatched types`, in red, wrapped.
fn first_error_lines(first: &FirstError<'_>, width: usize) -> Vec<Line<'static>> {
    let of = if first.count == 1 {
        "the error line".to_string()
    } else {
        format!("first of {} error lines", thousands(first.count as u64))
    };
    let at = first.line.map(|n| format!(" (line {})", thousands(n))).unwrap_or_default();
    let style = Style::default().fg(Color::Red);
    let row = text::plain(&format!("✗ {of}{at}: {}", first.text.trim_start()), style);
    text::wrap_words(&row, width.saturating_sub(INDENT.len()).max(1))
        .into_iter()
        .take(2)
        .map(|row| text::line(vec![Span::raw(INDENT)], &row, Style::default()))
        .collect()
}

/// `✓ exit 0 · 0.12s · timeout 300s`, coloured by how the command ended.
fn footer(result: &ToolResult) -> Line<'static> {
    let d = &result.details;
    let (mark, status, color) = match d.outcome {
        Some(Outcome::Exited { code: 0 }) => ("✓", "exit 0".to_string(), Color::Green),
        Some(Outcome::Exited { code }) => ("✗", format!("exit {code}"), Color::Red),
        Some(Outcome::Signalled { .. }) => {
            ("✗", format!("killed by {}", d.signal.clone().unwrap_or_default()), Color::Red)
        }
        Some(Outcome::TimedOut) => {
            let secs = d.timeout.map_or(0.0, |t| t.applied_secs);
            ("⏱", format!("timed out after {secs}s"), Color::Red)
        }
        Some(Outcome::Cancelled) => ("⊘", "cancelled".to_string(), Color::Yellow),
        Some(Outcome::Error) => ("✗", "no exit status".to_string(), Color::Red),
        None => ("✗", "refused".to_string(), Color::Red),
    };
    let mut meta = Vec::new();
    if d.outcome.is_some() {
        meta.push(text::duration(d.duration_ms));
    }
    if let Some(t) = d.timeout {
        meta.push(format!("timeout {}s", t.applied_secs));
    }
    let mut spans = vec![
        Span::raw(INDENT),
        Span::styled(format!("{mark} {status}"), Style::default().fg(color).add_modifier(Modifier::BOLD)),
    ];
    if !meta.is_empty() {
        spans.push(Span::styled(format!(" · {}", meta.join(" · ")), Style::default().add_modifier(Modifier::DIM)));
    }
    Line::from(spans)
}

/// A notice that says how the command ended: the footer says it instead.
fn is_ending(notice: &str) -> bool {
    notice.starts_with("Command exited with code ")
        || notice.starts_with("Command failed: ")
        || notice.starts_with("[Command timed out after ")
        || notice == "[Command cancelled]"
}

/// Splits the model's text into the output and the notices appended after it: the last paragraph
/// (after a blank line) when every line of it is a notice (`[…]` or how the command ended).
pub fn split_notices(text: &str) -> (&str, Vec<&str>) {
    let Some(at) = text.rfind("\n\n") else {
        return (text, Vec::new());
    };
    let tail = &text[at + 2..];
    if !tail.is_empty() && tail.lines().all(is_notice) {
        (&text[..at + 1], tail.lines().collect())
    } else {
        (text, Vec::new())
    }
}

fn is_notice(line: &str) -> bool {
    (line.starts_with('[') && line.ends_with(']')) || is_ending(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_are_split_from_the_output() {
        assert_eq!(split_notices("a\nb\n"), ("a\nb\n", vec![]));
        assert_eq!(
            split_notices("a\n\n[Showing lines 1-2 of 9. Full: artifact://1]\nCommand exited with code 2"),
            ("a\n", vec!["[Showing lines 1-2 of 9. Full: artifact://1]", "Command exited with code 2"])
        );
        assert_eq!(split_notices("a\n\nb\n"), ("a\n\nb\n", vec![]));
        assert_eq!(split_notices("(no output)\n\n[Command cancelled]"), ("(no output)\n", vec!["[Command cancelled]"]));
    }
}
