//! The bang component: a session command (`!cmd`) as the transcript shows it — its output streamed
//! live with its colours, collapsed to the last [`BANG_LINES`] logical lines, each line clamped at
//! [`MAX_LINE_CHARS`] characters with what was cut; truncation and artifact warnings; and a status
//! line that tells running, exit 0, a non-zero exit, cancelled, timed out and error apart.

use std::time::Instant;

use bashrt_core::{BashResult, Outcome};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::{call_lines, hint_line, running_status, warning, INDENT};
use crate::entry::{Entry, State};
use crate::live::TailLine;
use crate::text::{self, thousands, Cell};

/// Logical lines of output in a collapsed session command.
pub const BANG_LINES: usize = 20;
/// Characters shown of one line; the rest is named, not shown.
pub const MAX_LINE_CHARS: usize = 4000;

/// The transcript lines of a session-command entry, `width` columns wide.
pub fn bang_lines(entry: &Entry, width: usize, now: Instant) -> Vec<Line<'static>> {
    let mut out = call_lines("! ", Color::Magenta, &entry.command, None, width);
    let snap = entry.live.snapshot(BANG_LINES);
    let hidden = snap.total_lines.saturating_sub(snap.lines.len() as u64);
    if hidden > 0 {
        let hint = if entry.is_running() { String::new() } else { " · ctrl+o to expand".to_string() };
        out.push(hint_line(format!("… {} more lines{hint}", thousands(hidden))));
    }
    let inner = width.saturating_sub(INDENT.len()).max(1);
    for line in &snap.lines {
        for row in text::wrap(&clamped(line), inner) {
            out.push(text::line(vec![Span::raw(INDENT)], &row, Style::default()));
        }
    }
    match &entry.state {
        State::Running { started } => out.push(running_status(*started, now, "Running… {} (esc to cancel)")),
        State::Bang(result) => finished(result, width, &mut out),
        State::Tool(_) | State::Failed(_) => {}
    }
    out
}

/// The line's cells, cut at [`MAX_LINE_CHARS`] with ` … [N chars omitted]`. Bytes of a very long line
/// past those looked at count as one character each.
fn clamped(line: &TailLine) -> Vec<Cell> {
    // Enough bytes for the characters shown and their colours; a frame never works through more.
    let looked = line.bytes.len().min(MAX_LINE_CHARS * 4 + 1024);
    let mut cells = text::cells(&line.bytes[..looked], true);
    let unseen = line.len.saturating_sub(looked as u64);
    let over = (cells.len() as u64).saturating_sub(MAX_LINE_CHARS as u64) + unseen;
    if over > 0 {
        cells.truncate(MAX_LINE_CHARS);
        let note = format!(" … [{} chars omitted]", thousands(over));
        cells.extend(text::plain(&note, Style::default().add_modifier(Modifier::DIM)));
    }
    cells
}

fn finished(result: &BashResult, width: usize, out: &mut Vec<Line<'static>>) {
    if let Some(error) = &result.error {
        out.push(status("✗", &format!("Bash command failed: {error}"), Color::Red, None));
        return;
    }
    if result.truncated {
        let full = match (&result.artifact_id, &result.artifact_error) {
            (Some(id), _) => format!("full output: {}", id.url()),
            (None, Some(e)) => format!("full output could not be kept: {e}"),
            (None, None) => "full output was not kept".to_string(),
        };
        let shown =
            format!("{} of {} lines kept for the model", thousands(result.output_lines), thousands(result.total_lines));
        out.extend(warning(&format!("Output truncated: {shown} · {full}"), width));
    } else if let Some(e) = &result.artifact_error {
        out.extend(warning(&format!("Full output could not be kept: {e}"), width));
    }
    let took = Some(text::duration(result.duration_ms));
    let line = match result.outcome {
        Outcome::Exited { code: 0 } => status("✓", "exit 0", Color::Green, took),
        Outcome::Exited { code } => status("✗", &format!("(exit {code})"), Color::Red, took),
        Outcome::Signalled { .. } => {
            status("✗", &format!("(killed by {})", result.signal.clone().unwrap_or_default()), Color::Red, took)
        }
        Outcome::TimedOut => status("⏱", "(timed out)", Color::Red, took),
        Outcome::Cancelled => status("⊘", "(cancelled)", Color::Yellow, took),
        Outcome::Error => status("✗", "(no exit status)", Color::Red, took),
    };
    out.push(line);
}

fn status(mark: &str, what: &str, color: Color, took: Option<String>) -> Line<'static> {
    let mut spans = vec![
        Span::raw(INDENT),
        Span::styled(format!("{mark} {what}"), Style::default().fg(color).add_modifier(Modifier::BOLD)),
    ];
    if let Some(took) = took {
        spans.push(Span::styled(format!(" · {took}"), Style::default().add_modifier(Modifier::DIM)));
    }
    Line::from(spans)
}
