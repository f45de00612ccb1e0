//! One pseudo-terminal session: a fresh `<shell> -c <script>` whose stdin, stdout and stderr are the
//! terminal, leader of its own session (so the terminal is its controlling terminal, `stty` works on it,
//! and a resize reaches its foreground job as SIGWINCH). Promises: the master never leaks into the
//! child; the shell is reaped exactly once; dropping the session kills the tree and reaps it.
//!
//! The child needs `setsid` and `TIOCSCTTY` between fork and exec, which only a `pre_exec` hook can do:
//! this path forks the runtime, where the pipe path uses `posix_spawn`. It runs only when a person
//! watches the command in a console, one command at a time, so the fork's cost does not matter.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, FdFlag, OFlag};

use super::super::script_file::{ScriptFile, ARG_LIMIT};
use super::super::ExecRequest;
use crate::outcome::Outcome;
use crate::process::child::{Mark, OwnedChild, SpawnError};
use crate::process::marker::marker_of;
use crate::process::waiting::Stdin;

/// What the program's terminal emulates; the program's `TERM` says so, whatever the user's terminal is.
pub const PTY_TERM: &str = "xterm-256color";

/// A terminal size in character cells. Zero is raised to one: a terminal has at least one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PtySize {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

impl PtySize {
    /// `cols` × `rows`, each at least 1.
    pub fn new(cols: u16, rows: u16) -> Self {
        Self { cols: cols.max(1), rows: rows.max(1) }
    }

    fn winsize(self) -> libc::winsize {
        libc::winsize { ws_row: self.rows.max(1), ws_col: self.cols.max(1), ws_xpixel: 0, ws_ypixel: 0 }
    }
}

/// Why a pseudo-terminal session could not start. The texts follow `PTY error: `.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PtyError {
    /// No pseudo-terminal could be opened (out of ptys or descriptors).
    #[error("Failed to open PTY: {0}")]
    Open(io::Error),
    /// The shell could not be started on the terminal.
    #[error("Failed to spawn PTY command: {0}")]
    Spawn(io::Error),
    /// Reading the terminal failed while the command ran.
    #[error("Failed to read PTY: {0}")]
    Read(io::Error),
}

/// What a UI holds to talk to the program in a running session: keys in, size changes. Cheap to
/// clone; every call after the session ended is a no-op error ([`io::ErrorKind::BrokenPipe`]).
#[derive(Debug, Clone)]
pub struct PtyControl {
    master: Arc<Mutex<Option<OwnedFd>>>,
}

impl PtyControl {
    /// Writes what fits in the terminal's input buffer without waiting (the master is non-blocking)
    /// and returns how many bytes were taken; 0 means the program is not reading its input right now,
    /// and the caller keeps the rest for later.
    pub fn write(&self, bytes: &[u8]) -> io::Result<usize> {
        self.with_master(|fd| loop {
            match nix::unistd::write(fd, bytes) {
                Ok(n) => return Ok(n),
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => return Ok(0),
                Err(e) => return Err(e.into()),
            }
        })
    }

    /// Waits until the terminal's input has room again (the program read some), or `wait` passes.
    pub fn wait_writable(&self, wait: Duration) -> io::Result<()> {
        self.with_master(|fd| {
            let mut fds = [nix::poll::PollFd::new(fd, nix::poll::PollFlags::POLLOUT)];
            let millis = wait.as_millis().clamp(1, 60_000) as u16;
            match nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(millis)) {
                Ok(_) | Err(Errno::EINTR) => Ok(()),
                Err(e) => Err(e.into()),
            }
        })
    }

    /// Sets the terminal size; the kernel sends SIGWINCH to the program's foreground job.
    pub fn resize(&self, size: PtySize) -> io::Result<()> {
        self.with_master(|fd| set_size(fd, size))
    }

    /// Whether the session still runs.
    pub fn is_open(&self) -> bool {
        self.master.lock().unwrap_or_else(PoisonError::into_inner).is_some()
    }

    fn with_master<T>(&self, f: impl FnOnce(BorrowedFd<'_>) -> io::Result<T>) -> io::Result<T> {
        let guard = self.master.lock().unwrap_or_else(PoisonError::into_inner);
        match guard.as_ref() {
            Some(fd) => f(fd.as_fd()),
            None => Err(io::Error::new(io::ErrorKind::BrokenPipe, "PTY session is no longer available")),
        }
    }

    /// Ends every holder's access, so that only the session's own descriptor keeps the terminal open.
    fn close(&self) {
        self.master.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
}

/// A terminal's line discipline, as far as telling a password prompt (no echo, lines) from a
/// full-screen program (no echo, keys) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermMode {
    /// Typed characters are shown.
    pub echo: bool,
    /// Input comes a line at a time (cooked), not key by key (raw).
    pub canonical: bool,
}

/// What one read of the master gave.
pub(crate) enum ReadResult {
    Data(usize),
    /// Nothing to read now.
    Empty,
    /// No process holds the terminal any more (Linux reports EIO, not EOF, on a pty master).
    Closed,
}

/// A running pseudo-terminal session; see the module docs.
pub(crate) struct PtySession {
    /// First, so that it is dropped (its tree killed) while the terminal is still open.
    shell: OwnedChild,
    master: OwnedFd,
    control: PtyControl,
    /// The terminal as the programs on it see it, to tell one that reads it (see
    /// [`crate::process::waiting`]); `None` when it could not be read.
    terminal: Option<Stdin>,
    /// Removed when the session is dropped.
    _script_file: Option<ScriptFile>,
}

impl PtySession {
    /// Opens a terminal of `size` and starts the request's shell on it, in the request's directory and
    /// environment (plus `TERM`).
    /// `bash_env`: the file bash reads before its `-c` text (the snapshot, a carried state).
    pub(crate) fn spawn(
        req: &ExecRequest,
        script: &str,
        size: PtySize,
        bash_env: Option<&std::ffi::OsStr>,
    ) -> Result<Self, PtyError> {
        let winsize = size.winsize();
        let pty = nix::pty::openpty(&winsize, None).map_err(|e| PtyError::Open(e.into()))?;
        let (master, slave) = (pty.master, pty.slave);
        for fd in [master.as_fd(), slave.as_fd()] {
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).map_err(|e| PtyError::Open(e.into()))?;
        }
        let flags = OFlag::from_bits_retain(fcntl(&master, FcntlArg::F_GETFL).map_err(|e| PtyError::Open(e.into()))?);
        fcntl(&master, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK)).map_err(|e| PtyError::Open(e.into()))?;
        let control_fd = master.try_clone().map_err(PtyError::Open)?;

        let script_file = if script.len() > ARG_LIMIT {
            Some(ScriptFile::create(script).map_err(|(_, e)| PtyError::Spawn(e))?)
        } else {
            None
        };
        let mut command = Command::new(&req.shell);
        match &script_file {
            Some(file) => command.arg(file.path()),
            None => command.arg("-c").arg(script),
        };
        let stdio = |fd: &OwnedFd| fd.try_clone().map(Stdio::from).map_err(PtyError::Spawn);
        command
            .current_dir(&req.cwd)
            .envs(req.env.iter().map(|(k, v)| (k, v)))
            .env("TERM", PTY_TERM)
            .envs(bash_env.map(|path| ("BASH_ENV", path)))
            .stdin(stdio(&slave)?)
            .stdout(stdio(&slave)?)
            .stderr(stdio(&slave)?);
        // SAFETY: between fork and exec only async-signal-safe calls are made (setsid, ioctl), touching
        // no memory of the parent.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(io::Error::last_os_error());
                }
                // The terminal (now fd 0) becomes the new session's controlling terminal.
                if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        if let Some(sandbox) = &req.sandbox {
            sandbox.confine(&mut command);
        }
        let terminal = Stdin::of_fd(slave.as_fd()).ok();
        let spawned = OwnedChild::spawn(command, marker_of(&req.env).map_or(Mark::Unmarked, Mark::Runtime));
        // Only the child may hold the slave: a copy here would keep the terminal open after it exits.
        drop(slave);
        let shell = spawned.map_err(|e| match e {
            SpawnError::Io(e) => PtyError::Spawn(e),
            closed => PtyError::Spawn(io::Error::other(closed)),
        })?;
        Ok(Self {
            shell,
            master,
            control: PtyControl { master: Arc::new(Mutex::new(Some(control_fd))) },
            terminal,
            _script_file: script_file,
        })
    }

    /// The terminal, as [`crate::process::waiting`] matches a read against it.
    pub(crate) fn terminal(&self) -> Option<&Stdin> {
        self.terminal.as_ref()
    }

    /// The shell's pid.
    pub(crate) fn pid(&self) -> i32 {
        self.shell.pid().as_raw()
    }

    /// How the terminal's line discipline is set now, as the program on it left it.
    pub(crate) fn mode(&self) -> TermMode {
        match nix::sys::termios::tcgetattr(&self.master) {
            Ok(t) => TermMode {
                echo: t.local_flags.contains(nix::sys::termios::LocalFlags::ECHO),
                canonical: t.local_flags.contains(nix::sys::termios::LocalFlags::ICANON),
            },
            Err(_) => TermMode { echo: true, canonical: true },
        }
    }

    /// The shell and every process under it now.
    pub(crate) fn processes(&self) -> Vec<i32> {
        let shell = self.shell.pid().as_raw();
        let mut pids = vec![shell];
        crate::process::procfs::visit_descendants(shell, |pid| {
            pids.push(pid);
            true
        });
        pids
    }

    pub(crate) fn control(&self) -> PtyControl {
        self.control.clone()
    }

    pub(crate) fn master(&self) -> BorrowedFd<'_> {
        self.master.as_fd()
    }

    /// Readable once the shell has exited.
    pub(crate) fn exit_fd(&self) -> BorrowedFd<'_> {
        self.shell.exit_fd()
    }

    pub(crate) fn read(&self, buf: &mut [u8]) -> io::Result<ReadResult> {
        loop {
            match nix::unistd::read(&self.master, buf) {
                Ok(0) | Err(Errno::EIO) => return Ok(ReadResult::Closed),
                Ok(n) => return Ok(ReadResult::Data(n)),
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => return Ok(ReadResult::Empty),
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Kills the shell's whole tree (TERM, `grace`, KILL) and reaps the shell.
    pub(crate) fn kill(&mut self, grace: Duration) -> io::Result<Outcome> {
        self.shell.terminate(grace)
    }

    /// The shell's status; blocks until it exits.
    pub(crate) fn reap(&mut self) -> io::Result<Outcome> {
        self.shell.reap()
    }

    /// How many processes the shell left running after it exited.
    pub(crate) fn survivors(&self) -> u32 {
        self.shell.killer().survivors(Duration::ZERO)
    }

    /// Ends the UI's access to the terminal: from now on the session's own master is the last holder.
    pub(crate) fn close_control(&self) {
        self.control.close();
    }
}

impl Drop for PtySession {
    fn drop(&mut self) {
        // The shell's tree is then killed and reaped with the handle, if it still runs.
        self.control.close();
    }
}

fn set_size(fd: BorrowedFd<'_>, size: PtySize) -> io::Result<()> {
    let winsize = size.winsize();
    // SAFETY: TIOCSWINSZ reads one `winsize` through the pointer, which points to a live local.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TIOCSWINSZ, &winsize) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
