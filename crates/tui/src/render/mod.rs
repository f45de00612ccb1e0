//! Drawing: the transcript (tool calls by the tool renderer, session commands by the bang component),
//! the input line with its prompt, the status line, and on top of them the PTY console or the pager.
//! Every frame is built from state the UI owns or copies in O(screen) — the live tails, never the
//! whole output — so a flood of output costs a frame no more than a quiet command does.

pub mod bang;
pub mod tool;

use std::time::Instant;

use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthChar;

use crate::app::{App, Overlay};
use crate::entry::{Entry, Kind, State};
use crate::text::{self, Cell};

/// Output lines are indented under their command line.
pub const INDENT: &str = "  ";

/// One logical line of output as cells.
pub type Row = Vec<Cell>;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The lines of one entry.
pub fn entry_lines(entry: &Entry, width: usize, now: Instant) -> Vec<Line<'static>> {
    let mut lines = match entry.kind {
        Kind::Tool => tool::tool_lines(entry, width, now),
        Kind::Bang => bang::bang_lines(entry, width, now),
    };
    if let State::Failed(error) = &entry.state {
        lines.push(Line::styled(format!("{INDENT}✗ internal error: {error}"), Style::default().fg(Color::Red)));
    }
    lines
}

/// The whole screen.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    if let Some(Overlay::Pager(pager)) = &app.overlay {
        pager.draw(frame, area);
        return;
    }
    let input_rows = 1;
    // The jobs that run (the runtime's table, a few of them): a row of their own while there are any.
    let jobs = app.running_jobs();
    let strip_rows = u16::from(!jobs.is_empty());
    let [transcript, strip, input, status] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(strip_rows),
        Constraint::Length(input_rows),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_transcript(frame, app, transcript);
    if !jobs.is_empty() {
        let line = crate::jobs::strip(&jobs, app.selected, strip.width as usize);
        frame.render_widget(Paragraph::new(line), strip);
    }
    draw_input(frame, app, input);
    draw_status(frame, app, status, !jobs.is_empty());
    if let Some(Overlay::Console(console)) = &app.overlay {
        let [console_area, _] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
        console.draw(frame, console_area);
    }
}

fn draw_transcript(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let width = area.width as usize;
    let height = area.height as usize;
    let want = height + app.scroll;
    let now = Instant::now();
    // Newest first, until the screen (and the scrolled-back part) is full.
    let mut blocks: Vec<Vec<Line<'static>>> = Vec::new();
    let mut have = 0;
    for entry in app.entries.iter().rev() {
        let mut lines = entry_lines(entry, width, now);
        lines.push(Line::raw(""));
        have += lines.len();
        blocks.push(lines);
        if have >= want {
            break;
        }
    }
    if have < want {
        let banner = banner(width);
        have += banner.len();
        blocks.push(banner);
    }
    let mut lines: Vec<Line<'static>> = blocks.into_iter().rev().flatten().collect();
    let end = lines.len().saturating_sub(app.scroll.min(have.saturating_sub(height)));
    let start = end.saturating_sub(height);
    lines.truncate(end);
    let visible: Vec<Line<'static>> = lines.drain(start..).collect();
    frame.render_widget(Paragraph::new(visible), area);
}

fn banner(width: usize) -> Vec<Line<'static>> {
    let text = "bashrt — type a command to run it as a model's tool call; !command runs it in your session \
                (cd and variables persist). ctrl+o expands the last output, ctrl+d quits.";
    let rows = text::wrap_words(&text::plain(text, Style::default().add_modifier(Modifier::DIM)), width);
    let mut lines: Vec<Line<'static>> = rows.iter().map(|r| text::line(vec![], r, Style::default())).collect();
    lines.push(Line::raw(""));
    lines
}

fn draw_input(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let prompt = format!("{} $ ", app.prompt_dir());
    let prompt_style = Style::default().fg(Color::Blue).add_modifier(Modifier::BOLD);
    let prompt_width: usize = prompt.chars().map(|c| c.width().unwrap_or(0)).sum();
    let chars: Vec<char> = app.input.text().chars().map(|c| if c == '\n' { '⏎' } else { c }).collect();
    let cursor = app.input.cursor();
    let room = (area.width as usize).saturating_sub(prompt_width + 1).max(1);
    // Scroll the line horizontally so the cursor stays visible.
    let widths: Vec<usize> = chars.iter().map(|c| c.width().unwrap_or(0)).collect();
    let mut start = 0;
    while widths[start..cursor].iter().sum::<usize>() > room {
        start += 1;
    }
    let shown: String = chars[start..].iter().collect();
    let line = Line::from(vec![Span::styled(prompt, prompt_style), Span::raw(shown)]);
    frame.render_widget(Paragraph::new(line), area);
    if app.overlay.is_none() {
        let x = area.x as usize + prompt_width + widths[start..cursor].iter().sum::<usize>();
        frame.set_cursor_position(Position::new(x.min(area.right().saturating_sub(1) as usize) as u16, area.y));
    }
}

fn draw_status(frame: &mut Frame<'_>, app: &App, area: Rect, jobs: bool) {
    let line = match &app.message {
        Some(message) => Line::styled(message.clone(), Style::default().fg(Color::Yellow)),
        None => {
            let keys = if app.selected.is_some() {
                "enter attach · ctrl+x kill · ctrl+t next job · esc deselect"
            } else if app.running().is_some() {
                "esc/ctrl+c cancel · ctrl+b to the background · pgup/pgdn scroll · ctrl+d quit"
            } else if jobs {
                "enter run as a tool call · !cmd in your session · ctrl+t select a job · ctrl+o expand · ctrl+d quit"
            } else {
                "enter run as a tool call · !cmd in your session · ctrl+o expand · pgup/pgdn scroll · ctrl+d quit"
            };
            Line::styled(keys, Style::default().add_modifier(Modifier::DIM))
        }
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// `$ command` (or `! command`), bold, wrapped, with the cwd dimmed after it when given.
pub fn call_lines(prefix: &str, color: Color, command: &str, cwd: Option<&str>, width: usize) -> Vec<Line<'static>> {
    let mut cells = text::plain(&command.replace('\n', " ⏎ "), Style::default().add_modifier(Modifier::BOLD));
    if let Some(cwd) = cwd {
        cells.extend(text::plain(&format!("  (in {cwd})"), Style::default().add_modifier(Modifier::DIM)));
    }
    let lead = prefix.chars().count();
    let prefix_style = Style::default().fg(color).add_modifier(Modifier::BOLD);
    text::wrap(&cells, width.saturating_sub(lead).max(1))
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let head =
                if i == 0 { Span::styled(prefix.to_string(), prefix_style) } else { Span::raw(" ".repeat(lead)) };
            text::line(vec![head], row, Style::default())
        })
        .collect()
}

/// The last `max_rows` visual rows of `rows` (indented), and how many logical lines they come from.
pub fn preview_rows(rows: &[Row], width: usize, max_rows: usize) -> (Vec<Line<'static>>, usize) {
    let inner = width.saturating_sub(INDENT.len()).max(1);
    let mut shown: Vec<Line<'static>> = Vec::new();
    let mut used = 0;
    for row in rows.iter().rev() {
        if shown.len() >= max_rows {
            break;
        }
        used += 1;
        let wrapped = text::wrap(row, inner);
        for visual in wrapped.iter().rev().take(max_rows - shown.len()) {
            shown.push(text::line(vec![Span::raw(INDENT)], visual, Style::default()));
        }
    }
    shown.reverse();
    (shown, used)
}

pub fn dim(text: String) -> Line<'static> {
    Line::styled(text, Style::default().add_modifier(Modifier::DIM))
}

/// `… N earlier lines · ctrl+o to expand`, dimmed.
pub fn hint_line(text: String) -> Line<'static> {
    dim(format!("{INDENT}{text}"))
}

/// A spinner and `template` with `{}` replaced by the time the command has run.
pub fn running_status(started: Instant, now: Instant, template: &str) -> Line<'static> {
    let elapsed = now.saturating_duration_since(started);
    let spin = SPINNER[(elapsed.as_millis() / 100) as usize % SPINNER.len()];
    let text = template.replace("{}", &text::duration(elapsed.as_millis() as u64));
    Line::from(vec![Span::raw(INDENT), Span::styled(format!("{spin} {text}"), Style::default().fg(Color::Yellow))])
}

/// `⚠ text`, yellow, wrapped under the indent.
pub fn warning(text: &str, width: usize) -> Vec<Line<'static>> {
    let style = Style::default().fg(Color::Yellow);
    let cells = text::plain(&format!("⚠ {text}"), style);
    text::wrap_words(&cells, width.saturating_sub(INDENT.len()).max(1))
        .iter()
        .map(|row| text::line(vec![Span::raw(INDENT)], row, Style::default()))
        .collect()
}
