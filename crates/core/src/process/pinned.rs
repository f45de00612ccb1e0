//! A process the runtime is about to signal, pinned so that a signal never reaches a later process
//! that got its pid: through a pidfd where the kernel has them (Linux 5.3), else by its start time,
//! checked before every signal. Both the tree kill of a call and the reaper's sweep hold their
//! processes so, and wait for them through [`wait_for_exit`].

use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::pidfd;
use super::procfs::{self, ProcEntry};

/// Bounds of the re-check interval for processes without a pidfd (old kernels only).
const STAT_POLL_MIN: Duration = Duration::from_millis(1);
const STAT_POLL_MAX: Duration = Duration::from_millis(20);

/// One pinned process.
#[derive(Debug)]
pub(crate) struct Pinned {
    pub(crate) pid: i32,
    handle: Handle,
}

#[derive(Debug)]
enum Handle {
    Pidfd(OwnedFd),
    /// No pidfd available: the start time tells this process from a later one with its pid.
    StartTime(Option<u64>),
}

impl Pinned {
    /// The process of `entry` (read from `/proc`).
    pub(crate) fn new(entry: &ProcEntry) -> Self {
        let handle = match pidfd::open(entry.pid) {
            Ok(fd) => Handle::Pidfd(fd),
            Err(_) => Handle::StartTime(entry.start_time),
        };
        Self { pid: entry.pid, handle }
    }

    /// The process `pid` now, or `None` when there is none.
    pub(crate) fn open(pid: i32) -> Option<Self> {
        match pidfd::open(pid) {
            Ok(fd) => Some(Self { pid, handle: Handle::Pidfd(fd) }),
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => None,
            Err(_) => procfs::stat(pid).filter(|e| e.alive).map(|e| Self::new(&e)),
        }
    }

    pub(crate) fn has_exited(&self) -> bool {
        match &self.handle {
            Handle::Pidfd(fd) => pidfd::has_exited(fd.as_fd()),
            Handle::StartTime(start) => match procfs::stat(self.pid) {
                Some(now) => !now.alive || now.start_time != *start,
                None => true,
            },
        }
    }

    /// Sends `signal`; an error means the process is already gone.
    pub(crate) fn signal(&self, signal: Signal) {
        match &self.handle {
            Handle::Pidfd(fd) => {
                let _ = pidfd::send_signal(fd.as_fd(), signal);
            }
            Handle::StartTime(_) => {
                if !self.has_exited() {
                    let _ = kill(Pid::from_raw(self.pid), signal);
                }
            }
        }
    }
}

/// Waits until every one of `members` has exited or `deadline` passed: asleep in `poll` on their
/// pidfds, looking again by start time every few milliseconds for those without one. Returns the
/// members still alive.
pub(crate) fn wait_for_exit(mut members: Vec<Pinned>, deadline: Instant) -> Vec<Pinned> {
    let mut stat_interval = STAT_POLL_MIN;
    loop {
        members.retain(|m| !m.has_exited());
        let now = Instant::now();
        if members.is_empty() || now >= deadline {
            return members;
        }
        let mut wait = deadline - now;
        let mut pidfds: Vec<PollFd<'_>> = members
            .iter()
            .filter_map(|m| match &m.handle {
                Handle::Pidfd(fd) => Some(PollFd::new(fd.as_fd(), PollFlags::POLLIN)),
                Handle::StartTime(_) => None,
            })
            .collect();
        if pidfds.len() < members.len() {
            wait = wait.min(stat_interval);
            stat_interval = (stat_interval * 2).min(STAT_POLL_MAX);
        }
        let timeout = PollTimeout::try_from(wait.as_millis().max(1)).unwrap_or(PollTimeout::MAX);
        // EINTR or out of memory: re-check and poll again, still bounded by the deadline. With no
        // pidfd at all, `poll` of nothing sleeps for the timeout.
        let _ = nix::poll::poll(&mut pidfds, timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_child_is_seen_to_exit_and_waited_for() {
        let mut child = std::process::Command::new("sleep").arg("100").spawn().unwrap();
        let pinned = Pinned::open(child.id() as i32).unwrap();
        assert!(!pinned.has_exited());
        pinned.signal(Signal::SIGKILL);
        let _ = child.wait();
        let left = wait_for_exit(vec![pinned], Instant::now() + Duration::from_secs(10));
        assert!(left.is_empty());
    }
}
