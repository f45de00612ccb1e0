//! The expanded view of one command: a scrollable, searchable pager over its FULL output — the
//! artifact when the output spilled, else the output the UI kept — with its colours, and, one key
//! away, exactly what the model saw. Documents are read lazily ([`doc`]), so a 1 GB artifact opens
//! at once and a screen anywhere in it costs one short read; searching runs in a thread and can be
//! cancelled, so the UI stays live.

pub mod doc;

use std::cell::Cell as StdCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use regex::{Regex, RegexBuilder};

use crate::text::{self, thousands, Cell};
use doc::{Document, Source};

/// Which text the pager shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The command's full raw output, with its colours.
    Full,
    /// The text the model read (a tool call), or the session command's result.
    Model,
}

/// What a key did to the pager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagerAction {
    Stay,
    Close,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Searching,
    /// A match the view has not jumped to yet.
    At(u64),
    /// The view jumped to the match; it stays highlighted.
    Shown,
    Nothing,
}

struct Search {
    regex: Regex,
    state: Arc<Mutex<Found>>,
    cancel: Arc<AtomicBool>,
}

struct View {
    doc: Document,
    label: String,
    top: u64,
    /// Keep the last row at the bottom while the index grows (after End).
    follow_end: bool,
    colours: bool,
}

/// The pager's state. Drawing only reads it (the height it was drawn with is remembered for paging).
pub struct Pager {
    title: String,
    full: Option<View>,
    model: View,
    mode: Mode,
    note: Option<String>,
    search: Option<Search>,
    prompt: Option<String>,
    message: Option<String>,
    height: StdCell<usize>,
    width: StdCell<usize>,
}

impl Pager {
    /// `full`: the full output and its label (`None` when it was not kept); `model`: what the model saw.
    pub fn new(
        title: String,
        full: Option<(Source, String)>,
        model: String,
        note: Option<String>,
    ) -> std::io::Result<Self> {
        let full = match full {
            Some((source, label)) => {
                Some(View { doc: Document::open(source)?, label, top: 0, follow_end: false, colours: true })
            }
            None => None,
        };
        let model = View {
            doc: Document::open(Source::Memory(model.into_bytes().into()))?,
            label: "what the model saw".into(),
            top: 0,
            follow_end: false,
            colours: false,
        };
        let mode = if full.is_some() { Mode::Full } else { Mode::Model };
        Ok(Self {
            title,
            full,
            model,
            mode,
            note,
            search: None,
            prompt: None,
            message: None,
            height: StdCell::new(20),
            width: StdCell::new(80),
        })
    }

    /// A search pattern is being typed (keys go to it).
    pub fn is_prompting(&self) -> bool {
        self.prompt.is_some()
    }

    fn view(&self) -> &View {
        match (&self.full, self.mode) {
            (Some(full), Mode::Full) => full,
            _ => &self.model,
        }
    }

    fn view_mut(&mut self) -> &mut View {
        match (&mut self.full, self.mode) {
            (Some(full), Mode::Full) => full,
            _ => &mut self.model,
        }
    }

    /// Whether something changes without a key (indexing, searching): the UI keeps drawing frames.
    pub fn busy(&self) -> bool {
        let view = self.view();
        !view.doc.progress().done
            || view.follow_end
            || self.search.as_ref().is_some_and(|s| *lock(&s.state) == Found::Searching)
    }

    /// What `key` does: scrolls, searches, or asks to close the pager.
    pub fn handle(&mut self, key: &KeyEvent) -> PagerAction {
        if let Some(prompt) = &mut self.prompt {
            match key.code {
                KeyCode::Esc => self.prompt = None,
                KeyCode::Enter => {
                    let pattern = std::mem::take(prompt);
                    self.prompt = None;
                    self.start_search(&pattern);
                }
                KeyCode::Backspace => {
                    prompt.pop();
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => prompt.push(c),
                _ => {}
            }
            return PagerAction::Stay;
        }
        self.message = None;
        let page = self.height.get().saturating_sub(1).max(1) as u64;
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => {
                if let Some(search) = self.search.as_ref().filter(|s| *lock(&s.state) == Found::Searching) {
                    search.cancel.store(true, Ordering::Relaxed);
                    self.search = None;
                    self.message = Some("search cancelled".into());
                } else {
                    return PagerAction::Close;
                }
            }
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => return PagerAction::Close,
            KeyCode::Tab => {
                if self.full.is_some() {
                    self.mode = if self.mode == Mode::Full { Mode::Model } else { Mode::Full };
                } else {
                    self.message = Some(self.note.clone().unwrap_or_else(|| "the full output was not kept".into()));
                }
            }
            KeyCode::Up | KeyCode::Char('k') => self.scroll(-1),
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Enter => self.scroll(1),
            KeyCode::PageUp | KeyCode::Char('b') => self.scroll(-(page as i64)),
            KeyCode::PageDown | KeyCode::Char(' ') | KeyCode::Char('f') => self.scroll(page as i64),
            KeyCode::Home | KeyCode::Char('g') => {
                let view = self.view_mut();
                view.top = 0;
                view.follow_end = false;
            }
            KeyCode::End | KeyCode::Char('G') => self.view_mut().follow_end = true,
            KeyCode::Char('/') => self.prompt = Some(String::new()),
            KeyCode::Char('n') => self.next_match(true),
            KeyCode::Char('N') => self.next_match(false),
            _ => {}
        }
        PagerAction::Stay
    }

    fn scroll(&mut self, by: i64) {
        let view = self.view_mut();
        view.follow_end = false;
        let rows = view.doc.progress().rows;
        let top = view.top.saturating_add_signed(by);
        view.top = top.min(rows.saturating_sub(1));
    }

    fn start_search(&mut self, pattern: &str) {
        if pattern.is_empty() {
            return;
        }
        let smart_case = !pattern.chars().any(char::is_uppercase);
        match RegexBuilder::new(pattern).case_insensitive(smart_case).build() {
            Ok(regex) => {
                self.search = Some(Search {
                    regex,
                    state: Arc::new(Mutex::new(Found::Nothing)),
                    cancel: Arc::new(AtomicBool::new(false)),
                });
                self.next_match(true);
            }
            Err(e) => self.message = Some(format!("invalid pattern: {e}")),
        }
    }

    /// Searches forwards from the row after the top (or backwards from the top) in a thread.
    fn next_match(&mut self, forward: bool) {
        let Some(search) = &mut self.search else {
            self.message = Some("no search yet: / to search".into());
            return;
        };
        search.cancel.store(true, Ordering::Relaxed);
        search.cancel = Arc::new(AtomicBool::new(false));
        search.state = Arc::new(Mutex::new(Found::Searching));
        let (state, cancel, regex) = (Arc::clone(&search.state), Arc::clone(&search.cancel), search.regex.clone());
        let view = self.view();
        let reader = (*view.doc).clone();
        let top = view.top;
        let spawned = std::thread::Builder::new().name("bashrt-pager-search".into()).spawn(move || {
            let matches = |line: &doc::DocLine| {
                let cells = text::cells(&line.bytes, false);
                regex.is_match(&cells.iter().map(|c| c.0).collect::<String>())
            };
            let found = if forward {
                reader.scan_from(top + 1, &cancel, |_, line| matches(line))
            } else {
                let mut last = None;
                let stopped = reader.scan_from(0, &cancel, |row, line| {
                    if row >= top {
                        return true;
                    }
                    if matches(line) {
                        last = Some(row);
                    }
                    false
                });
                stopped.map(|_| last)
            };
            if !cancel.load(Ordering::Relaxed) {
                *lock(&state) = match found {
                    Ok(Some(row)) => Found::At(row),
                    _ => Found::Nothing,
                };
            }
        });
        if spawned.is_err() {
            self.message = Some("cannot start a search thread".into());
        }
    }

    /// Applies a finished search and an End that waits for the index.
    fn settle(&self) -> (u64, Option<String>) {
        let view = self.view();
        let mut top = view.top;
        let mut message = None;
        if let Some(search) = &self.search {
            match *lock(&search.state) {
                Found::Searching => message = Some("searching…".to_string()),
                Found::Nothing => message = Some(format!("pattern not found: {}", search.regex.as_str())),
                Found::At(row) => top = row,
                Found::Shown => {}
            }
        }
        (top, message)
    }

    /// Draws the pager over `area`.
    pub fn draw(&self, frame: &mut Frame<'_>, area: Rect) {
        let [header, body, footer] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(1), Constraint::Length(1)]).areas(area);
        self.height.set(body.height as usize);
        self.width.set(body.width as usize);
        let view = self.view();
        let progress = view.doc.progress();
        let (mut top, search_message) = self.settle();
        if view.follow_end {
            top = end_top(view, progress.rows, body.width as usize, body.height as usize);
        }

        let gutter = gutter(&progress);
        let width = (body.width as usize).saturating_sub(gutter + 1).max(1);
        let rows = view.doc.rows(top, body.height as usize).unwrap_or_default();
        let regex = self.search.as_ref().map(|s| &s.regex);
        let mut lines = Vec::new();
        for row in &rows {
            let mut cells = text::cells(&row.bytes, view.colours);
            if let Some(regex) = regex {
                highlight(&mut cells, regex);
            }
            let number = if row.continuation { "↪".to_string() } else { thousands(row.number) };
            for (i, visual) in text::wrap(&cells, width).iter().enumerate() {
                let label = if i == 0 { format!("{number:>w$} ", w = gutter) } else { " ".repeat(gutter + 1) };
                let prefix = vec![Span::styled(label, Style::default().add_modifier(Modifier::DIM))];
                lines.push(text::line(prefix, visual, Style::default()));
            }
            if lines.len() >= body.height as usize {
                break;
            }
        }
        frame.render_widget(Paragraph::new(lines), body);

        let title = format!(" {} — {} ", self.title, view.label);
        let header_line =
            Line::from(vec![Span::styled(title, Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD))]);
        frame.render_widget(Paragraph::new(header_line), header);

        let footer_line = match (&self.prompt, &self.message, search_message) {
            (Some(prompt), _, _) => Line::from(format!("/{prompt}")),
            (None, Some(message), _) => Line::styled(message.clone(), Style::default().fg(Color::Yellow)),
            (None, None, Some(message)) => Line::styled(message, Style::default().fg(Color::Yellow)),
            _ => {
                let first = rows.first().map_or(0, |r| r.number);
                let of = if progress.done {
                    thousands(progress.lines)
                } else {
                    let pct = progress.scanned * 100 / progress.len.max(1);
                    format!("≥{} (indexing {pct}%)", thousands(progress.lines))
                };
                let toggle = if self.full.is_some() {
                    if self.mode == Mode::Full {
                        "tab: what the model saw"
                    } else {
                        "tab: full output"
                    }
                } else {
                    "full output not kept"
                };
                Line::styled(
                    format!(
                        "line {} of {of} · {toggle} · / search · n/N next/prev · g/G top/end · q close",
                        thousands(first)
                    ),
                    Style::default().add_modifier(Modifier::DIM),
                )
            }
        };
        frame.render_widget(Paragraph::new(footer_line), footer);
    }

    /// Commits what drawing computed (a found match, the end position) so that scrolling starts
    /// from what the user sees.
    pub fn after_draw(&mut self) {
        let (width, height) = (self.width.get(), self.height.get());
        let found = self.search.as_ref().map(|s| *lock(&s.state));
        if let Some(Found::At(row)) = found {
            if let Some(search) = &self.search {
                *lock(&search.state) = Found::Shown;
            }
            let view = self.view_mut();
            view.top = row;
            view.follow_end = false;
        }
        let view = self.view_mut();
        let progress = view.doc.progress();
        if view.follow_end {
            view.top = end_top(view, progress.rows, width, height);
            if progress.done {
                view.follow_end = false;
            }
        }
    }
}

/// Width of the line-number column: the largest number it can show (while indexing, the byte count
/// bounds the line count), so the text does not shift as the index grows.
fn gutter(progress: &doc::Progress) -> usize {
    let most = if progress.done { progress.lines } else { progress.len.max(progress.lines) };
    thousands(most.max(1)).len() + 1
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The top row that puts the document's last row at the bottom of `height` visual rows.
fn end_top(view: &View, rows: u64, width: usize, height: usize) -> u64 {
    let start = rows.saturating_sub(height as u64);
    let tail = view.doc.rows(start, height).unwrap_or_default();
    let inner = width.saturating_sub(gutter(&view.doc.progress()) + 1).max(1);
    let mut used = 0;
    let mut top = start + tail.len() as u64;
    for row in tail.iter().rev() {
        let h = text::wrap(&text::cells(&row.bytes, false), inner).len();
        if used + h > height && used > 0 {
            break;
        }
        used += h;
        top = top.saturating_sub(1);
    }
    top
}

/// Marks the cells that `regex` matches (on the line's text).
fn highlight(cells: &mut [Cell], regex: &Regex) {
    let text: String = cells.iter().map(|c| c.0).collect();
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    for m in regex.find_iter(&text) {
        let first = starts.partition_point(|&b| b < m.start());
        let last = starts.partition_point(|&b| b < m.end());
        for cell in &mut cells[first..last] {
            cell.1 = cell.1.bg(Color::Yellow).fg(Color::Black);
        }
    }
}
