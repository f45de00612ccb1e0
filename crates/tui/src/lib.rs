//! bashrt's terminal UI: a person runs commands exactly as a model would (tool calls, drawn by the tool
//! renderer) or for themselves (`!cmd` in a session, drawn by the bang component), and programs that
//! need a terminal in a PTY console. Built on `bashrt-core` like every other mode; the core knows
//! nothing of it.
//!
//! Promises: the UI thread never waits for a command (commands run on their own threads and share
//! bounded live tails); every way out — Ctrl-D, `exit`, an error, a panic, SIGTERM, SIGHUP — restores
//! the terminal and ends every process the UI started.

#![warn(missing_docs)]

mod app;
mod console;
mod entry;
mod grant;
mod input;
mod jobs;
mod keys;
mod live;
mod pager;
mod render;
mod text;
mod worker;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bashrt_core::{PtyControl, Runtime, SessionName};
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, EnableBracketedPaste, Event, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use ratatui::crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::crossterm::{cursor, execute};
use ratatui::Terminal;

use app::{App, Context, Quit};
use worker::Done;

/// Frames while something moves: fast enough to look live, slow enough that a flood of output
/// costs a bounded amount of drawing.
pub(crate) const FRAME: Duration = Duration::from_millis(16);
/// How long the loop sleeps when nothing moves (a spinner still turns at this pace).
const IDLE: Duration = Duration::from_millis(500);
/// Time the processes of the UI get to exit on SIGTERM before SIGKILL, when the UI quits.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(200);

/// Everything the loop reacts to, from the terminal, the commands' threads and signals.
pub(crate) enum AppEvent {
    Term(Event),
    TermError(String),
    PtyStarted {
        id: u64,
        control: PtyControl,
    },
    /// A tool call went on as a job: the result it returned with.
    Yielded {
        id: u64,
        result: Box<bashrt_core::ToolResult>,
    },
    Done {
        id: u64,
        done: Done,
    },
    Signal(i32),
}

/// How the UI starts.
pub struct Options {
    /// The runtime every command of the UI runs on.
    pub runtime: Arc<Runtime>,
    /// The session of `!cmd` commands.
    pub session: SessionName,
    /// Where commands start (and what a tool call's `cwd` is resolved against).
    pub cwd: PathBuf,
    /// The tools a model would have (interception suggests only these).
    pub tool_names: Vec<String>,
}

/// Why the UI could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TuiError {
    /// stdin or stdout is not a terminal.
    #[error("the terminal UI needs a terminal (stdin and stdout must be a tty)")]
    NotATerminal,
    /// Setting up, drawing or reading the terminal failed.
    #[error("terminal: {0}")]
    Terminal(#[from] io::Error),
    /// The UI ended on an error of its own.
    #[error("{0}")]
    Failed(String),
}

/// Runs the UI until the user leaves; returns the exit status (0, or 128+N after signal N).
pub fn run(options: Options) -> Result<u8, TuiError> {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    let runtime = Arc::clone(&options.runtime);
    // Whatever happens below (a panic included), every process the UI started ends with it.
    let _shutdown = Shutdown(Arc::clone(&runtime));
    let (events, rx) = mpsc::channel();
    let (session, session_error) = match runtime.session(&options.session, options.cwd.clone()) {
        Ok(s) => (Some(Arc::new(s)), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let ctx = Context {
        tool: Arc::new(runtime.tool()),
        session,
        session_error,
        project_dir: options.cwd.clone(),
        artifacts: runtime.artifacts(&options.session),
        tool_names: options.tool_names,
        events: events.clone(),
    };
    watch_signals(events.clone())?;

    let guard = TerminalGuard::enter()?;
    detach_controlling_terminal();
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    spawn_input(events)?;
    let size = terminal.size()?;
    let mut app = App::new(ctx, (size.width, size.height));
    let quit = event_loop(&mut terminal, &mut app, &rx);
    drop(terminal);
    drop(guard);
    runtime.close(SHUTDOWN_GRACE);
    match quit {
        Ok(Quit::Normal) => Ok(0),
        Ok(Quit::Signal(signal)) => Ok(128u8.saturating_add(signal as u8)),
        Ok(Quit::Error(e)) => Err(TuiError::Failed(e)),
        Err(e) => Err(e.into()),
    }
}

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<io::Stdout>>,
    app: &mut App,
    rx: &mpsc::Receiver<AppEvent>,
) -> io::Result<Quit> {
    terminal.draw(|f| render::draw(f, app))?;
    let mut last_draw = Instant::now();
    let mut drawn_generation = app.live_generation();
    loop {
        let wait = if app.animating() { FRAME.saturating_sub(last_draw.elapsed()) } else { IDLE };
        let mut input = false;
        match rx.recv_timeout(wait) {
            Ok(event) => {
                input |= matches!(
                    event,
                    AppEvent::Term(_) | AppEvent::PtyStarted { .. } | AppEvent::Yielded { .. } | AppEvent::Done { .. }
                );
                app.handle(event);
                // Take what else is queued, without letting a stream of events starve drawing.
                for _ in 0..256 {
                    match rx.try_recv() {
                        Ok(event) => {
                            input |= matches!(
                                event,
                                AppEvent::Term(_)
                                    | AppEvent::PtyStarted { .. }
                                    | AppEvent::Yielded { .. }
                                    | AppEvent::Done { .. }
                            );
                            app.handle(event);
                        }
                        Err(_) => break,
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(Quit::Error("event channel closed".into())),
        }
        if let Some(quit) = app.quit.take() {
            return Ok(quit);
        }
        app.tick();
        let generation = app.live_generation();
        let due = last_draw.elapsed() >= FRAME || last_draw.elapsed() >= IDLE;
        let moved = generation != drawn_generation || app.animating();
        if input || (due && moved) || last_draw.elapsed() >= IDLE {
            terminal.draw(|f| render::draw(f, app))?;
            app.tick();
            last_draw = Instant::now();
            drawn_generation = generation;
        }
    }
}

/// Reads the terminal on its own thread, so that the loop waits on one channel for everything.
fn spawn_input(events: mpsc::Sender<AppEvent>) -> io::Result<()> {
    std::thread::Builder::new().name("bashrt-input".into()).spawn(move || loop {
        let event = match event::read() {
            Ok(event) => AppEvent::Term(event),
            Err(e) => {
                let _ = events.send(AppEvent::TermError(e.to_string()));
                return;
            }
        };
        if events.send(event).is_err() {
            return;
        }
    })?;
    Ok(())
}

/// SIGTERM, SIGHUP and SIGINT end the UI the orderly way: command cancelled, terminal restored,
/// processes ended.
fn watch_signals(events: mpsc::Sender<AppEvent>) -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT])?;
    std::thread::Builder::new().name("bashrt-signals".into()).spawn(move || {
        for signal in signals.forever() {
            if events.send(AppEvent::Signal(signal)).is_err() {
                return;
            }
        }
    })?;
    Ok(())
}

/// Gives up the controlling terminal for this process — and so for every command it starts — while
/// keeping the terminal on stdin and stdout. A command that opens `/dev/tty` (a password prompt, an
/// interactive bash capturing the user's snapshot) then fails at once instead of fighting the UI for
/// the keyboard or stopping on SIGTTIN in the background. Resizes still arrive (SIGWINCH goes to the
/// foreground process group, which this process still is). A session leader keeps its terminal:
/// detaching it would hang up the whole session.
fn detach_controlling_terminal() {
    let pid = nix::unistd::getpid();
    if nix::unistd::getsid(None).is_ok_and(|sid| sid == pid) {
        return;
    }
    // SAFETY: TIOCNOTTY takes no argument; stdin is a terminal (checked at start).
    unsafe {
        libc::ioctl(libc::STDIN_FILENO, libc::TIOCNOTTY);
    }
}

/// Ends the runtime's processes however `run` is left.
struct Shutdown(Arc<Runtime>);

impl Drop for Shutdown {
    fn drop(&mut self) {
        self.0.close(Duration::ZERO);
    }
}

/// Raw mode, the alternate screen, bracketed paste and (where the terminal has it) the Kitty keyboard
/// protocol, undone exactly once: on drop, or by the panic hook before the panic message is printed.
struct TerminalGuard;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static KITTY: AtomicBool = AtomicBool::new(false);

impl TerminalGuard {
    fn enter() -> io::Result<Self> {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = io::stdout();
        execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
        if matches!(terminal::supports_keyboard_enhancement(), Ok(true)) {
            execute!(out, PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES))?;
            KITTY.store(true, Ordering::SeqCst);
        }
        Ok(Self)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back as the shell had it. Errors are ignored: after SIGHUP there is no terminal.
fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if KITTY.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(out, DisableBracketedPaste, LeaveAlternateScreen, cursor::Show);
    let _ = terminal::disable_raw_mode();
    let _ = out.flush();
}

/// What this crate's screen tests draw (`tests/render.rs`) and the pager's measurement opens
/// (`examples/pager_open.rs`), compiled only with the `testing` feature.
/// Not an API: nothing here is promised to stay.
#[cfg(feature = "testing")]
pub mod testing {
    pub use crate::entry::open_pager;
    pub use crate::entry::{Entry, Kind, State};
    pub use crate::pager::doc::{Document, Source};
    pub use crate::pager::Pager;
    pub use crate::render::entry_lines;
}
