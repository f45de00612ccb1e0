//! Live progress of `bashrt run` on a terminal: how long the command has run and its last lines,
//! redrawn on stderr in place and cleared before the result is printed, so that a five-minute build
//! is not five silent minutes. Nothing is drawn when stderr is not a terminal (a pipe, a file, an
//! agent reading it) or `TERM` is `dumb`, nor for a command that ends within [`QUIET_START`].

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A command that ends sooner draws nothing (no flicker for quick calls).
const QUIET_START: Duration = Duration::from_millis(500);
/// How often the elapsed time is redrawn while nothing else changes.
const REDRAW: Duration = Duration::from_millis(250);
/// Output lines shown under the status line.
const LINES: usize = 5;

/// The progress display of one call; [`Progress::finish`] clears it.
pub struct Progress {
    shared: Arc<(Mutex<State>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct State {
    /// The last lines of the output so far, as the model would see them.
    last: Vec<String>,
    changed: bool,
    done: bool,
}

impl Progress {
    /// Starts the display for `command`, when stderr is a terminal that can show it.
    pub fn start(command: &str) -> Option<Progress> {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        if !std::io::stderr().is_terminal() || dumb {
            return None;
        }
        let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        let shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let command = one_line(command);
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new().name("progress".into()).spawn(move || draw_loop(&shared, &command, color))
        };
        Some(Progress { shared, thread: thread.ok() })
    }

    /// The output so far (the model's view of it); only its last lines are kept.
    pub fn update(&self, view: &str) {
        let last: Vec<String> =
            view.lines().rev().take(LINES).map(one_line).collect::<Vec<_>>().into_iter().rev().collect();
        let (lock, wake) = &*self.shared;
        let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        state.last = last;
        state.changed = true;
        wake.notify_one();
    }

    /// Clears what was drawn; returns once the terminal shows nothing of it.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        {
            let (lock, wake) = &*self.shared;
            lock.lock().unwrap_or_else(PoisonError::into_inner).done = true;
            wake.notify_one();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

fn draw_loop(shared: &(Mutex<State>, Condvar), command: &str, color: bool) {
    let started = Instant::now();
    let (lock, wake) = shared;
    let mut drawn = 0usize;
    let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if state.done {
            break;
        }
        let elapsed = started.elapsed();
        if elapsed >= QUIET_START {
            state.changed = false;
            let frame = frame(command, &state.last, elapsed, terminal_width(), color);
            drop(state);
            drawn = redraw(drawn, &frame);
            state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        }
        // Before the display starts, output changes nothing: wait for the start whatever arrives.
        let quiet = elapsed < QUIET_START;
        if quiet || !state.changed {
            let wait = if quiet { QUIET_START - elapsed } else { REDRAW };
            state = wake.wait_timeout(state, wait).unwrap_or_else(PoisonError::into_inner).0;
        }
    }
    drop(state);
    if drawn > 0 {
        redraw(drawn, &[]);
    }
}

/// The status line and the output's last lines, each cut to the terminal's width (a wrapped line
/// would break the count of lines to clear).
fn frame(command: &str, last: &[String], elapsed: Duration, width: usize, color: bool) -> Vec<String> {
    let fit = |text: &str| -> String {
        let max = width.saturating_sub(1).max(10);
        if text.chars().count() <= max {
            text.to_string()
        } else {
            let mut cut: String = text.chars().take(max - 1).collect();
            cut.push('…');
            cut
        }
    };
    let (dim, bold, reset) = if color { ("\x1b[2m", "\x1b[1m", "\x1b[0m") } else { ("", "", "") };
    let status = fit(&format!("running {} · {command}", elapsed_text(elapsed)));
    let mut lines = vec![format!("{bold}{status}{reset}")];
    lines.extend(last.iter().map(|line| format!("{dim}{}{reset}", fit(&format!("  {line}")))));
    lines
}

/// Replaces the `drawn` lines on screen by `frame`; returns how many lines are now drawn.
fn redraw(drawn: usize, frame: &[String]) -> usize {
    let mut out = String::from("\r");
    if drawn > 1 {
        out.push_str(&format!("\x1b[{}A", drawn - 1));
    }
    out.push_str("\x1b[J");
    out.push_str(&frame.join("\n"));
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let _ = err.write_all(out.as_bytes()).and_then(|()| err.flush());
    frame.len()
}

/// `1m05s`, `12s`.
fn elapsed_text(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    if secs >= 60 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{secs}s")
    }
}

/// `text` on one line, without control characters that would move the cursor.
fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect::<String>().trim_end().to_string()
}

/// Columns of the terminal on stderr (80 when it cannot be read).
fn terminal_width() -> usize {
    let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ fills the winsize we own; stderr is a terminal (checked at start).
    let ok = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    if ok && size.ws_col > 0 {
        usize::from(size.ws_col)
    } else {
        80
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_fits_the_terminal_and_shows_the_last_lines() {
        let last = vec!["Compiling a".to_string(), "x".repeat(200)];
        let frame = frame("cargo build", &last, Duration::from_secs(65), 40, false);
        assert_eq!(frame[0], "running 1m05s · cargo build");
        assert_eq!(frame[1], "  Compiling a");
        assert_eq!(frame[2].chars().count(), 39);
        assert!(frame[2].ends_with('…'));
    }
}
