//! The interactive path: a tool call run in a pseudo-terminal that a UI shows as a console, for
//! programs that need a terminal (a REPL, a full-screen tool, a password-less `ssh` menu).
//!
//! Promises: the same shell, prefix, snapshot and environment as the pipe path (the run stage builds
//! one request for both); the program's output is sanitized (CRLF/CR to LF, colours kept,
//! other escapes dropped) into the same sink, with the same artifact spill; the UI gets the raw bytes
//! for its terminal emulator; a start or runtime error writes `PTY error: <message>` and the command
//! ends with no exit status ([`Outcome::Error`]); the deadline and a cancel kill the whole tree as on
//! the pipe path; and the call returns once the shell has exited and the terminal has drained, even
//! when a background process still holds the terminal open.
//!
//! Where it is used: by [`BashTool::execute_with_ui`](crate::tool::BashTool::execute_with_ui), when
//! [`selected`] says so, and for a `stdin: "pty"` call of a front that returns running commands as
//! jobs (RPC, MCP), whose terminal no UI shows: the job types into it. The output consumer hears of
//! the terminal, of a program blocked reading it, and gets its ticks, as on the pipe path, so such a
//! call yields like any other. The terminal emulator that draws the screen belongs to the UI, so this
//! crate stays free of UI code.

mod sanitize;
mod session;

use std::io;
use std::os::fd::BorrowedFd;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout};

use super::{ExecRequest, Execution, OneShotReason, OutputConsumer, ShellEvent};
use crate::cancel::CancelToken;
use crate::outcome::Outcome;
use crate::process::waiting::{Probe, Prober, Reader};
use crate::settings::{Settings, VirtualTerminal};
use sanitize::Sanitizer;
pub use session::{PtyControl, PtyError, PtySize, TermMode};
use session::{PtySession, ReadResult};

/// Setting this environment variable to `1` turns the PTY path off whatever the settings say.
pub const NO_PTY_ENV: &str = "PI_NO_PTY";

/// After the shell exits, output still in flight is read until the terminal has been quiet this long…
const DRAIN_QUIET: Duration = Duration::from_millis(50);
/// …or this long in all: a background process that keeps the terminal open and busy cannot hold the call.
const DRAIN_MAX: Duration = Duration::from_millis(500);

const READ_CHUNK: usize = 64 * 1024;

/// Once the terminal has been quiet this long, the program is looked at: is it waiting for input?
const INPUT_QUIET: Duration = Duration::from_millis(200);
/// …and again this often while it stays quiet (two agreeing looks confirm it)…
const INPUT_LOOK_EVERY: Duration = Duration::from_millis(100);
/// …the interval doubling, up to this, while looks keep finding the same: a program that stays quiet
/// for an hour is looked at every few seconds, not ten times a second.
const INPUT_LOOK_MAX: Duration = Duration::from_millis(3200);

/// Whether a tool call shown by a UI runs in a pseudo-terminal: `bash.virtualTerminal` is `"on"` and
/// `PI_NO_PTY` is not `1`. (Without a UI there is no console to show it in: pipes.)
pub fn selected(settings: &Settings) -> bool {
    selected_by(settings, std::env::var_os(NO_PTY_ENV).as_deref())
}

/// `selected` with the value of `PI_NO_PTY` given rather than read from the environment.
pub fn selected_by(settings: &Settings, no_pty: Option<&std::ffi::OsStr>) -> bool {
    settings.virtual_terminal == VirtualTerminal::On && no_pty.is_none_or(|v| v != "1")
}

/// A UI that shows a tool call while it runs, and hosts its console when it runs in a terminal.
///
/// Called from the thread that runs the call, never after the call returned.
pub trait ToolUi {
    /// Output as the sink receives it: the command's raw bytes on the pipe path, the sanitized
    /// terminal stream on the PTY path.
    fn output(&mut self, chunk: &[u8]);
    /// The console's size, asked once when a terminal opens.
    fn pty_size(&mut self) -> PtySize;
    /// The terminal is open and the program starts: keys and size changes go through `control`.
    /// Killing it is the call's cancel token (esc in the console).
    fn pty_started(&mut self, control: PtyControl);
    /// The raw bytes the program wrote to its terminal, for a terminal emulator.
    fn pty_output(&mut self, raw: &[u8]);
    /// The program waits for input: `Some(name)` of the process blocked reading the terminal (a
    /// prompt, a password, a pager), told once the terminal has been quiet ~300 ms; `None` once it
    /// printed again or a look no longer finds it waiting (an answer typed without an echo, a stopped
    /// program). A UI shows it, so that the person at the console knows to type.
    fn awaiting_input(&mut self, reader: Option<&str>) {
        let _ = reader;
    }
}

/// Runs `req` in a pseudo-terminal hosted by `ui`. Never fails: a terminal that cannot be opened or
/// read is a `PTY error:` line and [`Outcome::Error`].
pub(crate) fn execute(
    req: &ExecRequest,
    out: &mut dyn OutputConsumer,
    cancel: &CancelToken,
    ui: &mut dyn ToolUi,
) -> Execution {
    let started = Instant::now();
    let finished = |outcome, background, waiting_for_input| Execution {
        outcome,
        duration: started.elapsed(),
        background,
        final_cwd: None,
        shell: ShellEvent::OneShot { reason: OneShotReason::Terminal },
        waiting_for_input,
    };
    if cancel.is_cancelled() {
        return finished(Outcome::Cancelled, 0, None);
    }
    let deadline = started.checked_add(req.timeout);
    let mut stream = Stream { out, ui, sanitizer: Sanitizer::default(), clean: Vec::new() };
    // The snapshot and a carried state come through `BASH_ENV`, as on the pipe path.
    let bash_env = match super::script::bash_env_file(req) {
        Ok(file) => file,
        Err(e) => {
            stream.error(&PtyError::Spawn(e));
            return finished(Outcome::Error, 0, None);
        }
    };
    let script = match &bash_env {
        Some(_) => std::borrow::Cow::Borrowed(req.script.as_str()),
        None => super::script::sourcing_snapshot(req.snapshot.as_deref(), &req.script),
    };
    let size = stream.ui.pty_size();
    let mut session = match PtySession::spawn(req, &script, size, bash_env.as_ref().map(|f| f.path())) {
        Ok(session) => session,
        Err(e) => {
            stream.error(&e);
            return finished(Outcome::Error, 0, None);
        }
    };
    stream.ui.pty_started(session.control());
    stream.out.started(session.pid());
    stream.out.terminal_opened(session.control());
    let mut buf = vec![0u8; READ_CHUNK];
    let mut input = InputWatch::new(Instant::now());
    let ending = watch(&session, &mut stream, &mut buf, cancel, deadline, &mut input);
    let grace = req.kill_grace;
    let outcome = match ending {
        Ok(Watched::Exited) => {
            drain(&session, &mut stream, &mut buf, DRAIN_MAX);
            // Its answer may have come with its last output and its exit in one wake: nothing waits
            // for input any more, and the console must hear so.
            input.set(None, &mut stream, None);
            session.reap()
        }
        Ok(killed @ (Watched::Cancelled | Watched::DeadlineReached)) => {
            drain(&session, &mut stream, &mut buf, Duration::ZERO);
            input.recheck(&session, &mut stream);
            let reaped = session.kill(grace);
            drain(&session, &mut stream, &mut buf, DRAIN_QUIET);
            let timed_out = killed == Watched::DeadlineReached && !cancel.is_cancelled();
            reaped.map(|_| if timed_out { Outcome::TimedOut } else { Outcome::Cancelled })
        }
        Err(e) => {
            stream.error(&e);
            session.kill(Duration::ZERO).map(|_| Outcome::Error)
        }
    };
    let outcome = outcome.unwrap_or_else(|e| {
        stream.error(&PtyError::Read(e));
        Outcome::Error
    });
    stream.finish();
    session.close_control();
    let background = session.survivors();
    // Said of a command that was killed or cancelled while it waited: why it never finished.
    let waiting = input.reader.filter(|_| matches!(outcome, Outcome::TimedOut | Outcome::Cancelled));
    finished(outcome, background, waiting.map(|reader| reader.comm))
}

/// Whether the program on the terminal waits for input, looked at while the terminal is quiet.
struct InputWatch {
    next_look: Instant,
    interval: Duration,
    prober: Prober,
    /// The reader of the last confirmed look, while looks keep finding it.
    reader: Option<Reader>,
    last: Option<Probe>,
}

impl InputWatch {
    fn new(now: Instant) -> Self {
        Self {
            next_look: now + INPUT_QUIET,
            interval: INPUT_LOOK_EVERY,
            prober: Prober::default(),
            reader: None,
            last: None,
        }
    }

    /// The program printed: it is not waiting (or no longer).
    fn output(&mut self, now: Instant, stream: &mut Stream<'_>) {
        self.next_look = now + INPUT_QUIET;
        self.interval = INPUT_LOOK_EVERY;
        self.prober = Prober::default();
        self.last = None;
        self.set(None, stream, None);
    }

    /// Looks when a look is due: a confirmed reader is told; any other finding (the input was typed
    /// without an echo, the program was stopped) takes it back.
    fn look(&mut self, now: Instant, session: &PtySession, stream: &mut Stream<'_>) {
        if session.terminal().is_none() || now < self.next_look {
            return;
        }
        let probe = self.probe(session);
        // While a reader is shown, looks stay frequent: an answer typed without an echo must take the
        // note back soon.
        let most = if self.reader.is_some() { INPUT_LOOK_EVERY * 2 } else { INPUT_LOOK_MAX };
        self.interval =
            if self.last.as_ref() == Some(&probe) { (self.interval * 2).min(most) } else { INPUT_LOOK_EVERY };
        self.next_look = now + self.interval;
        match &probe {
            Probe::Waiting(reader) => self.set(Some(reader.clone()), stream, Some(session.mode())),
            Probe::Seen(reader) if self.reader.as_ref() == Some(reader) => {}
            Probe::Seen(_) | Probe::NotWaiting => self.set(None, stream, None),
        }
        self.last = Some(probe);
    }

    /// Looks once more before the command is killed: what the result says of it is what holds now.
    fn recheck(&mut self, session: &PtySession, stream: &mut Stream<'_>) {
        if self.reader.is_some() && !matches!(self.probe(session), Probe::Waiting(_) | Probe::Seen(_)) {
            self.set(None, stream, None);
        }
    }

    fn probe(&mut self, session: &PtySession) -> Probe {
        match session.terminal() {
            Some(terminal) => self.prober.probe(&session.processes(), terminal),
            None => Probe::NotWaiting,
        }
    }

    /// Tells the UI and the output consumer of a change; `mode`: the terminal's, with a reader.
    fn set(&mut self, reader: Option<Reader>, stream: &mut Stream<'_>, mode: Option<TermMode>) {
        if self.reader != reader {
            let name = reader.as_ref().map(|r| r.comm.as_str());
            stream.ui.awaiting_input(name);
            stream.out.terminal_reader(name.zip(mode));
            self.reader = reader;
        }
    }
}

/// Moves terminal output to the UI (raw) and to the sink (sanitized).
struct Stream<'a> {
    out: &'a mut dyn OutputConsumer,
    ui: &'a mut dyn ToolUi,
    sanitizer: Sanitizer,
    clean: Vec<u8>,
}

impl Stream<'_> {
    fn push(&mut self, raw: &[u8]) {
        self.ui.pty_output(raw);
        self.clean.clear();
        self.sanitizer.push(raw, &mut self.clean);
        self.deliver();
    }

    fn finish(&mut self) {
        self.clean.clear();
        self.sanitizer.finish(&mut self.clean);
        self.deliver();
    }

    /// `PTY error: <message>` on a line of its own.
    fn error(&mut self, error: &dyn std::fmt::Display) {
        self.finish();
        let line = format!("PTY error: {error}\n");
        self.ui.pty_output(line.replace('\n', "\r\n").as_bytes());
        self.clean.clear();
        self.clean.extend_from_slice(line.as_bytes());
        self.deliver();
    }

    fn deliver(&mut self) {
        if !self.clean.is_empty() {
            // A PTY run has no extracted `head` (the command runs as typed), so the consumer never
            // asks to stop; if it did, there would be nothing to close but the terminal itself.
            let _ = self.out.consume(&self.clean);
            self.ui.output(&self.clean);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watched {
    Exited,
    Cancelled,
    DeadlineReached,
}

/// Reads the terminal until the shell exits, the deadline passes or the caller cancels; while it is
/// quiet, looks whether the program waits for input.
fn watch(
    session: &PtySession,
    stream: &mut Stream<'_>,
    buf: &mut [u8],
    cancel: &CancelToken,
    deadline: Option<Instant>,
    input: &mut InputWatch,
) -> Result<Watched, PtyError> {
    // Once every process closed the terminal there is nothing to read: wait for the exit alone.
    let mut open = true;
    let given = deadline;
    loop {
        // A job given more time: its new deadline, read at each wake.
        let deadline = stream.out.moved_deadline().or(given);
        let (cancelled, exited, readable) = {
            let mut fds = [pollin(cancel.fd()), pollin(session.exit_fd()), pollin(session.master())];
            let watched = if open { 3 } else { 2 };
            let look = session.terminal().map(|_| input.next_look);
            let wake = [deadline, look, stream.out.next_tick()].into_iter().flatten().min();
            match nix::poll::poll(&mut fds[..watched], time_left(wake)) {
                Ok(_) | Err(Errno::EINTR) => {}
                Err(e) => return Err(PtyError::Read(e.into())),
            }
            (ready(&fds[0]), ready(&fds[1]), open && ready(&fds[2]))
        };
        if cancel.is_cancelled() || (cancelled && cancel.woken()) {
            return Ok(Watched::Cancelled);
        }
        if exited {
            return Ok(Watched::Exited);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Watched::DeadlineReached);
        }
        if readable {
            match session.read(buf).map_err(PtyError::Read)? {
                ReadResult::Data(n) => {
                    stream.push(&buf[..n]);
                    input.output(Instant::now(), stream);
                }
                ReadResult::Empty => {}
                ReadResult::Closed => open = false,
            }
        }
        let now = Instant::now();
        input.look(now, session, stream);
        if stream.out.next_tick().is_some_and(|tick| tick <= now) {
            stream.out.tick();
        }
    }
}

/// Reads what the terminal still delivers: until no process holds it, until it has been quiet for
/// [`DRAIN_QUIET`], or for `max` in all (zero: one read of what is there now).
fn drain(session: &PtySession, stream: &mut Stream<'_>, buf: &mut [u8], max: Duration) {
    let end = Instant::now() + max;
    loop {
        let wait = end.saturating_duration_since(Instant::now()).min(DRAIN_QUIET);
        let mut fds = [pollin(session.master())];
        match nix::poll::poll(&mut fds, PollTimeout::try_from(wait).unwrap_or(PollTimeout::ZERO)) {
            Ok(0) => return,
            Ok(_) => {}
            Err(Errno::EINTR) => continue,
            Err(_) => return,
        }
        match session.read(buf) {
            Ok(ReadResult::Data(n)) => stream.push(&buf[..n]),
            Ok(ReadResult::Empty) => {}
            Ok(ReadResult::Closed) | Err(_) => return,
        }
        if Instant::now() >= end {
            return;
        }
    }
}

fn pollin(fd: BorrowedFd<'_>) -> PollFd<'_> {
    PollFd::new(fd, PollFlags::POLLIN)
}

fn ready(fd: &PollFd<'_>) -> bool {
    fd.revents().is_some_and(|r| !r.is_empty())
}

/// Rounded up, so the loop does not wake just before the deadline and spin on zero timeouts.
fn time_left(deadline: Option<Instant>) -> PollTimeout {
    let Some(deadline) = deadline else {
        return PollTimeout::NONE;
    };
    let left = deadline.saturating_duration_since(Instant::now());
    PollTimeout::try_from(left.as_nanos().div_ceil(1_000_000)).unwrap_or(PollTimeout::MAX)
}

/// `io::Error` for callers that want one.
impl From<PtyError> for io::Error {
    fn from(e: PtyError) -> Self {
        io::Error::other(e)
    }
}
