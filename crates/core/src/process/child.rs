//! A process the runtime started, held by one handle from its spawn to its reap: the one-shot call's
//! shell, the PTY session's shell, the long-lived shell and the reaper's watchdog all are an
//! [`OwnedChild`].
//!
//! The spawn, written once: under the spawn gate (a shutdown's sweep either sees the child carrying its
//! marker, or the spawn is refused because the runtime is ending), registered with the reaper of
//! orphans before that can take it for one, then watched (a pidfd, or a waiting thread) and pinned
//! for signals. Nothing is left behind on the way: a child that cannot be watched is killed with its
//! tree and reaped before the error returns, and a handle dropped before its child was reaped (an
//! I/O error, a panicking consumer) kills the tree and reaps it.
//!
//! What is done to the process goes through its [`ChildKiller`], which can be cloned and used from
//! another thread (a pool's shutdown ends a shell whose call is waiting on it) and reaches only this
//! process and what it started, never a later process that got its pid.

use std::ffi::OsStr;
use std::io;
use std::os::fd::BorrowedFd;
use std::process::{ChildStdin, Command};
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::Signal;
use nix::unistd::Pid;

use super::exit_watch::ExitWatch;
use super::pinned::Pinned;
use super::procfs::{self, ProcEntry};
use super::tree::{self, CallMarker};
use super::{children, marker, pidfd, spawn_gate};
use crate::outcome::Outcome;

/// Why a process was not started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpawnError {
    /// The runtime the marker belongs to is ending: it starts nothing more.
    #[error("the runtime is shutting down")]
    Closed,
    /// The kernel refused, or the child could not be watched.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// What the child's environment carries, and so how its processes are found.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mark<'a> {
    /// Nothing: the reaper's watchdog, which must outlive what it watches.
    Unmarked,
    /// The runtime's marker (`BASHRT_RUNTIME=<token>`, or a long-lived shell's own `<token>.<n>`):
    /// the reaper's sweep finds the child's processes by it.
    Runtime(&'a OsStr),
    /// A one-shot call's own marker (`<token>.<n>`): the call's timeout also kills, by it, what
    /// escaped the tree (a `setsid -f` child orphaned before the kill).
    Call(&'a OsStr),
}

impl<'a> Mark<'a> {
    fn value(self) -> Option<&'a OsStr> {
        match self {
            Mark::Unmarked => None,
            Mark::Runtime(value) | Mark::Call(value) => Some(value),
        }
    }
}

/// A process this runtime started and has not reaped yet; see the module docs.
pub(crate) struct OwnedChild {
    exit: ExitWatch,
    killer: ChildKiller,
    stdin: Option<ChildStdin>,
}

impl OwnedChild {
    /// Spawns `command`, whose environment carries what `mark` says, in the process group or session
    /// `command` sets up. The `Command` is dropped before this returns, so that the copies of pipe
    /// ends it held are closed (EOF and SIGPIPE need them closed); a piped stdin is kept
    /// ([`Self::take_stdin`]).
    pub(crate) fn spawn(mut command: Command, mark: Mark<'_>) -> Result<Self, SpawnError> {
        // Held until the child has called `exec`, so that a shutdown's sweep sees it marked.
        let permit = spawn_gate::permit(mark.value()).map_err(|_| SpawnError::Closed)?;
        // Held until the child is registered, so that a reaper of orphans cannot take it for one.
        let owner = children::lock_for_spawn();
        let spawned = command.spawn();
        if let Ok(child) = &spawned {
            if let Ok(pid) = i32::try_from(child.id()) {
                owner.register(Pid::from_raw(pid));
            }
        }
        drop(permit);
        drop(command);
        let mut child = spawned?;
        let stdin = child.stdin.take();
        let pid = Pid::from_raw(i32::try_from(child.id()).map_err(|_| io::Error::other("child pid out of range"))?);
        // The `Child` holds no pipes now: reaping goes through the exit watch, by pid.
        drop(child);
        let call = match mark {
            Mark::Call(value) => Some(Arc::new(CallMarker {
                entry: marker::entry(value),
                since: procfs::stat(pid.as_raw()).and_then(|e| e.start_time).unwrap_or(0),
            })),
            Mark::Unmarked | Mark::Runtime(_) => None,
        };
        let mut owned = Self::watch(pid, call)?;
        owned.stdin = stdin;
        Ok(owned)
    }

    /// A child this process forked itself (the preforked watchdog), already registered with the
    /// reaper of orphans.
    pub(crate) fn forked(pid: Pid) -> io::Result<Self> {
        Self::watch(pid, None)
    }

    fn watch(pid: Pid, call: Option<Arc<CallMarker>>) -> io::Result<Self> {
        let killer = ChildKiller { pid, process: Pinned::open(pid.as_raw()).map(Arc::new), call };
        match ExitWatch::new(pid) {
            Ok(exit) => Ok(Self { exit, killer, stdin: None }),
            Err(e) => {
                // Without a way to wait, the process cannot be run; do not leave it running.
                killer.terminate(Duration::ZERO);
                let _ = children::wait(pid);
                Err(e)
            }
        }
    }

    pub(crate) fn pid(&self) -> Pid {
        self.exit.pid()
    }

    /// The write end of the child's stdin, when `command` asked for a pipe.
    pub(crate) fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// Readable once the child has exited; never read from it.
    pub(crate) fn exit_fd(&self) -> BorrowedFd<'_> {
        self.exit.fd()
    }

    /// Whether the child has exited (a zombie counts), without reaping it.
    pub(crate) fn has_exited(&self) -> bool {
        self.exit.is_reaped() || pidfd::has_exited(self.exit.fd())
    }

    pub(crate) fn is_reaped(&self) -> bool {
        self.exit.is_reaped()
    }

    /// Blocks until the child has exited, then collects its status; later calls return the same.
    pub(crate) fn reap(&mut self) -> io::Result<Outcome> {
        self.exit.reap()
    }

    /// Kills the child's tree (stop, SIGTERM, `grace`, SIGKILL) and reaps the child.
    pub(crate) fn terminate(&mut self, grace: Duration) -> io::Result<Outcome> {
        if !self.exit.is_reaped() {
            self.killer.terminate(grace);
        }
        self.exit.reap()
    }

    /// Kills the child's tree but `spare` (see [`ChildKiller::terminate_sparing`]) and reaps the child.
    pub(crate) fn terminate_sparing(&mut self, grace: Duration, spare: &[ProcEntry]) -> io::Result<Outcome> {
        if !self.exit.is_reaped() {
            self.killer.terminate_sparing(grace, spare);
        }
        self.exit.reap()
    }

    pub(crate) fn killer(&self) -> &ChildKiller {
        &self.killer
    }
}

impl Drop for OwnedChild {
    fn drop(&mut self) {
        if !self.exit.is_reaped() {
            let _ = self.terminate(Duration::ZERO);
        }
    }
}

/// What the runtime does to a process it started and to what that process started; cloneable, usable
/// from any thread. The child itself is signalled through its pidfd (by its start time on kernels
/// without one), so never a later process with its pid, even after it was reaped.
#[derive(Debug, Clone)]
pub(crate) struct ChildKiller {
    pid: Pid,
    /// `None` when the child was gone before it could be pinned.
    process: Option<Arc<Pinned>>,
    /// A one-shot call's marker: its processes are found by it wherever they went.
    call: Option<Arc<CallMarker>>,
}

impl ChildKiller {
    /// `signal` to the child alone: SIGKILL from a pool's shutdown (whoever waits for the child then
    /// ends its tree), SIGINT from an interrupt.
    pub(crate) fn signal(&self, signal: Signal) {
        if let Some(process) = &self.process {
            process.signal(signal);
        }
    }

    /// Kills the child's whole tree (see [`tree`]): stop, SIGTERM, `grace`, SIGKILL; with a call's
    /// marker, its marked processes wherever they are. Does not reap the child.
    pub(crate) fn terminate(&self, grace: Duration) {
        match &self.call {
            Some(call) => tree::terminate_call(self.pid, self.pid, grace, call),
            None => tree::terminate(self.pid, self.pid, grace),
        }
    }

    /// [`Self::terminate`], except for the processes of `spare` that are still the same processes,
    /// and their descendants (what earlier calls of a long-lived shell left running).
    pub(crate) fn terminate_sparing(&self, grace: Duration, spare: &[ProcEntry]) {
        tree::terminate_sparing(self.pid, self.pid, grace, spare);
    }

    /// [`Self::terminate_sparing`], except for the child itself, which lives on.
    pub(crate) fn terminate_descendants(&self, grace: Duration, spare: &[ProcEntry]) {
        tree::terminate_descendants(self.pid, self.pid, grace, spare);
    }

    /// Ctrl-C for what the child runs besides itself and `spare` (see [`tree::Interrupt`]).
    pub(crate) fn interrupt<'a>(&self, spare: &'a [ProcEntry]) -> tree::Interrupt<'a> {
        tree::Interrupt::start(self.pid, self.pid, spare)
    }

    /// How many processes the child left running after it exited: its process group and their
    /// descendants, and with a call's marker, every marked process, after giving those that are
    /// exiting `settle` to finish.
    pub(crate) fn survivors(&self, settle: Duration) -> u32 {
        match &self.call {
            Some(call) => tree::call_survivors(self.pid, call, settle),
            None => tree::survivors(self.pid),
        }
    }

    /// What the child (a long-lived shell) runs besides itself (see [`tree::background`]).
    pub(crate) fn background(&self) -> Vec<ProcEntry> {
        tree::background(self.pid)
    }
}
