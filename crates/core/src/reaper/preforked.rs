//! A watchdog that costs a `fork`, not a program: forked by a program that owns its process while that
//! process has one thread only (so that the fork may run anything), before it starts a runtime. The
//! first runtime of the process that needs a watchdog takes it ([`take`]); later ones start the bash
//! watchdog as before. It runs the sweep of a clean shutdown (`super::sweep`), so a SIGKILLed runtime's
//! processes end the same way as at an orderly end.
//!
//! What it reads on its pipe: `token <token> <grace ms>` (the runtime that took it), `swept` (the
//! runtime swept its processes itself: nothing to do), or EOF (the runtime is gone: sweep).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use nix::fcntl::OFlag;
use nix::sys::signal::{signal, SigHandler, Signal};
use nix::unistd::{ForkResult, Pid};

use super::MARKER_VAR;
use crate::process::children;

/// The watchdog forked by [`prefork_watchdog`], until a runtime takes it.
static PREFORKED: Mutex<Option<Preforked>> = Mutex::new(None);

/// A forked watchdog: the write end of its pipe (close-on-exec: no command holds it) and its pid.
pub(super) struct Preforked {
    pub(super) pipe: File,
    pub(super) pid: Pid,
}

impl Preforked {
    /// Hands the watchdog the runtime's token and grace.
    pub(super) fn watch(&mut self, token: &str, grace: Duration) -> std::io::Result<()> {
        // One write: a line under `PIPE_BUF` arrives whole, in one read.
        self.pipe.write_all(format!("token {token} {}\n", grace.as_millis()).as_bytes())
    }
}

/// Why [`prefork_watchdog`] did not fork.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PreforkError {
    /// Other threads run: a forked copy of the process could find one of their locks held forever.
    #[error("the process already runs other threads")]
    Threads,
    /// The kernel refused the pipe or the fork.
    #[error("cannot fork the watchdog: {0}")]
    Os(#[from] nix::Error),
}

/// Forks the watchdog of the process's first runtime. Call it while the process has one thread only,
/// first thing in `main` (before [`children::adopt_orphans`], which starts a thread). Without it, a
/// runtime starts a small bash as its watchdog on its first command.
pub fn prefork_watchdog() -> Result<(), PreforkError> {
    if thread_count() != Some(1) {
        return Err(PreforkError::Threads);
    }
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    let owner = children::lock_for_spawn();
    // SAFETY: the process has a single thread (checked above), so the child is a whole copy of it,
    // with no lock held by a thread that does not exist in it.
    match unsafe { nix::unistd::fork() }? {
        ForkResult::Child => {
            drop(write);
            drop(owner);
            serve(read)
        }
        ForkResult::Parent { child } => {
            drop(read);
            owner.register(child);
            *PREFORKED.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(Preforked { pipe: File::from(write), pid: child });
            Ok(())
        }
    }
}

/// The forked watchdog, if no runtime took it yet.
pub(super) fn take() -> Option<Preforked> {
    PREFORKED.lock().unwrap_or_else(PoisonError::into_inner).take()
}

fn thread_count() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count())
}

/// The watchdog's life: it keeps only its pipe (so that it holds none of the program's output open),
/// in a process group of its own with terminal signals ignored (a Ctrl-C meant for the program must
/// not end its watchdog), and waits.
fn serve(read: OwnedFd) -> ! {
    let _ = nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP, Signal::SIGQUIT] {
        // SAFETY: SIG_IGN installs no handler code.
        let _ = unsafe { signal(s, SigHandler::SigIgn) };
    }
    // Above the standard descriptors, which are about to become /dev/null (a program started with
    // one of them closed gets the pipe there).
    let read = match nix::fcntl::fcntl(&read, nix::fcntl::FcntlArg::F_DUPFD_CLOEXEC(3)) {
        // SAFETY: the descriptor fcntl just created is owned by nobody else.
        Ok(fd) => unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) },
        Err(_) => exit(),
    };
    let keep = read.as_raw_fd();
    if let Ok(null) = File::options().read(true).write(true).open("/dev/null") {
        for fd in 0..3 {
            // SAFETY: dup2 onto the standard descriptors, which this process owns.
            unsafe { libc::dup2(null.as_raw_fd(), fd) };
        }
    }
    // SAFETY: closes every descriptor above the standard ones but the pipe; nothing in this process
    // uses them (it is a fresh single-threaded copy).
    unsafe {
        if keep > 3 {
            libc::syscall(libc::SYS_close_range, 3u32, (keep - 1) as u32, 0u32);
        }
        libc::syscall(libc::SYS_close_range, (keep + 1) as u32, u32::MAX, 0u32);
    }
    let mut watched: Vec<(String, Duration)> = Vec::new();
    let mut lines = BufReader::new(File::from(read));
    let mut line = String::new();
    loop {
        line.clear();
        match lines.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let mut words = line.split_ascii_whitespace();
        match (words.next(), words.next(), words.next().and_then(|g| g.parse::<u64>().ok())) {
            (Some("swept"), _, _) => exit(),
            (Some("token"), Some(token), Some(grace)) => watched.push((token.to_owned(), Duration::from_millis(grace))),
            _ => {}
        }
    }
    for (token, grace) in &watched {
        super::sweep::terminate_marked(MARKER_VAR, token, *grace);
    }
    exit()
}

fn exit() -> ! {
    // SAFETY: `_exit` ends the process at once, without running the program's exit handlers (they
    // belong to the process this one was copied from).
    unsafe { libc::_exit(0) }
}
