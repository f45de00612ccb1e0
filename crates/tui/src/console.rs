//! The PTY console: the overlay that shows a tool call running in a pseudo-terminal. A headless
//! terminal emulator (vt100) turns the program's raw output into a screen, fed on the command's thread;
//! the UI thread draws that screen (tui-term) and forwards keys, pastes and size changes.
//!
//! Promises: `esc` kills the session (the call ends as cancelled); ctrl+b leaves the console with the
//! program still running (as a job, see [`crate::jobs`]); every other key reaches the
//! program the legacy way ([`crate::keys`]), arrows in application-cursor mode when it asked for it;
//! keys the program does not read yet are kept and sent later, never dropped and never blocking the
//! UI; the program's cursor-position and device-attribute queries are answered, as a terminal would.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bashrt_core::{PtyControl, PtySize};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind};
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear};
use ratatui::Frame;
use tui_term::widget::{Cursor, PseudoTerminal};

use crate::keys;

/// Bytes the emulator takes per hold of the screen.
const SLICE: usize = 4096;

/// The emulated screen, shared by the command's thread (feeding it) and the UI (drawing it).
pub struct Screen {
    parser: Mutex<vt100::Parser>,
    generation: AtomicU64,
    /// The end of the previous chunk, for queries cut in two.
    carry: Mutex<Vec<u8>>,
    /// The program blocked reading the terminal, while it waits for input (from the kernel's state,
    /// told by the core): the console says so, so that the person knows to type.
    awaiting: Mutex<Option<String>>,
}

impl Screen {
    pub fn new(size: PtySize) -> Arc<Self> {
        Arc::new(Self {
            parser: Mutex::new(vt100::Parser::new(size.rows.max(1), size.cols.max(1), 0)),
            generation: AtomicU64::new(0),
            carry: Mutex::new(Vec::new()),
            awaiting: Mutex::new(None),
        })
    }

    /// The program waits for input (`Some` of the reader's name), or no longer.
    pub fn set_awaiting(&self, reader: Option<&str>) {
        *self.awaiting.lock().unwrap_or_else(PoisonError::into_inner) = reader.map(str::to_string);
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn awaiting(&self) -> Option<String> {
        self.awaiting.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn parser(&self) -> MutexGuard<'_, vt100::Parser> {
        self.parser.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Feeds the program's output; answers its terminal queries through `control`. The emulator takes
    /// it in slices, releasing the screen between them, so that a frame never waits for a whole chunk.
    pub fn process(&self, raw: &[u8], control: Option<&PtyControl>) {
        let (body, last) = raw.split_at(raw.len() - raw.len().min(SLICE));
        for slice in body.chunks(SLICE) {
            self.parser().process(slice);
        }
        let answers = {
            let mut parser = self.parser();
            parser.process(last);
            let mut carry = self.carry.lock().unwrap_or_else(PoisonError::into_inner);
            let fresh = carry.len();
            carry.extend_from_slice(raw);
            let answers = answers(&carry, fresh, parser.screen().cursor_position());
            let keep = carry.len().saturating_sub(3);
            carry.drain(..keep);
            answers
        };
        if let (Some(control), false) = (control, answers.is_empty()) {
            let _ = control.write(&answers);
        }
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    pub fn resize(&self, size: PtySize) {
        self.parser().screen_mut().set_size(size.rows.max(1), size.cols.max(1));
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn application_cursor(&self) -> bool {
        self.parser().screen().application_cursor()
    }
}

/// Replies to the queries in `bytes` that end at or after `fresh` (the bytes before it were seen with
/// the previous chunk): cursor position (`CSI 6 n`), status (`CSI 5 n`) and primary device
/// attributes (`CSI c`).
fn answers(bytes: &[u8], fresh: usize, (row, col): (u16, u16)) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = memchr::memmem::find(&bytes[i..], b"\x1b[") {
        let start = i + at + 2;
        let rest = &bytes[start..];
        let reply: Option<(usize, Vec<u8>)> = if rest.starts_with(b"6n") {
            Some((2, format!("\x1b[{};{}R", row + 1, col + 1).into_bytes()))
        } else if rest.starts_with(b"5n") {
            Some((2, b"\x1b[0n".to_vec()))
        } else if rest.starts_with(b"0c") {
            Some((2, b"\x1b[?1;2c".to_vec()))
        } else if rest.starts_with(b"c") {
            Some((1, b"\x1b[?1;2c".to_vec()))
        } else {
            None
        };
        if let Some((len, reply)) = reply {
            if start + len > fresh {
                out.extend_from_slice(&reply);
            }
        }
        i = start;
    }
    out
}

/// What a key in the console asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsoleAction {
    /// Keep going (the key went to the program).
    Forwarded,
    /// `esc`: kill the session.
    Kill,
    /// ctrl+b: leave the console; the command goes on (as a job).
    Detach,
}

/// The overlay of one running PTY session.
pub struct Console {
    title: String,
    screen: Arc<Screen>,
    control: PtyControl,
    /// Input the program has not taken yet.
    pending: Vec<u8>,
}

impl Console {
    pub fn new(title: String, screen: Arc<Screen>, control: PtyControl) -> Self {
        Self { title, screen, control, pending: Vec::new() }
    }

    pub fn key(&mut self, key: &KeyEvent) -> ConsoleAction {
        if key.code == KeyCode::Esc && key.kind != KeyEventKind::Release {
            return ConsoleAction::Kill;
        }
        let ctrl = key.modifiers.contains(ratatui::crossterm::event::KeyModifiers::CONTROL);
        if key.code == KeyCode::Char('b') && ctrl && key.kind != KeyEventKind::Release {
            return ConsoleAction::Detach;
        }
        if let Some(bytes) = keys::encode(key, self.screen.application_cursor()) {
            self.send(&bytes);
        }
        ConsoleAction::Forwarded
    }

    /// Pasted text goes as typed (bracketed when the program asked for it is not emulated: as is).
    pub fn paste(&mut self, text: &str) {
        self.send(text.replace("\r\n", "\r").replace('\n', "\r").as_bytes());
    }

    fn send(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        self.flush();
    }

    /// Sends what the program can take now; the rest waits for the next call (every frame).
    pub fn flush(&mut self) {
        while !self.pending.is_empty() {
            match self.control.write(&self.pending) {
                Ok(0) => return,
                Ok(n) => {
                    self.pending.drain(..n);
                }
                Err(_) => {
                    self.pending.clear();
                    return;
                }
            }
        }
    }

    /// The terminal was resized to `cols` × `rows` (the whole UI).
    pub fn resize(&mut self, cols: u16, rows: u16) {
        let size = console_size(cols, rows);
        self.screen.resize(size);
        let _ = self.control.resize(size);
    }

    pub fn draw(&self, frame: &mut Frame<'_>, area: Rect) {
        let keys = " esc force-kill · ctrl+b to the background · input forwarded to PTY ";
        let bottom = match self.screen.awaiting() {
            Some(reader) => Line::styled(
                format!(" ⌨ waiting for input: {reader} reads the terminal ·{keys}"),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            None => Line::styled(keys, Style::default().add_modifier(Modifier::DIM)),
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .title(Line::styled(format!(" $ {} ", self.title), Style::default().add_modifier(Modifier::BOLD)))
            .title_bottom(bottom);
        let inner = block.inner(area);
        frame.render_widget(Clear, area);
        let parser = self.screen.parser();
        let screen = parser.screen();
        let mut cursor = Cursor::default();
        cursor.hide();
        frame.render_widget(PseudoTerminal::new(screen).block(block).cursor(cursor), area);
        if !screen.hide_cursor() {
            let (row, col) = screen.cursor_position();
            if row < inner.height && col < inner.width {
                frame.set_cursor_position(Position::new(inner.x + col, inner.y + row));
            }
        }
    }
}

/// The program's terminal for a UI of `cols` × `rows`: all of it but the status line and the border.
pub fn console_size(cols: u16, rows: u16) -> PtySize {
    PtySize::new(cols.saturating_sub(2), rows.saturating_sub(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_queries_are_answered() {
        assert_eq!(answers(b"x\x1b[6n", 0, (4, 9)), b"\x1b[5;10R");
        assert_eq!(answers(b"\x1b[c\x1b[5n", 0, (0, 0)), b"\x1b[?1;2c\x1b[0n");
        assert!(answers(b"\x1b[31m", 0, (0, 0)).is_empty());
        // A query cut in two is answered once, with its second half; one seen before is not again.
        assert_eq!(answers(b"\x1b[6n", 3, (0, 0)), b"\x1b[1;1R");
        assert!(answers(b"\x1b[c", 3, (0, 0)).is_empty());
    }
}
