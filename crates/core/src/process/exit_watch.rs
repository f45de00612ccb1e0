//! Learning that a child exited without SIGCHLD: an fd that becomes readable when it does, for the
//! same `poll` as the output pipe. A pidfd where the kernel has one, else a helper thread that blocks
//! in `waitpid` and then writes to a pipe. Promises: the child is reaped exactly once, by [`reap`].
//!
//! [`reap`]: ExitWatch::reap

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::thread::JoinHandle;

use nix::fcntl::OFlag;
use nix::unistd::Pid;

use super::{children, pidfd};
use crate::outcome::Outcome;

pub(crate) struct ExitWatch {
    pid: Pid,
    notifier: Notifier,
    reaped: Option<Outcome>,
}

enum Notifier {
    Pidfd(OwnedFd),
    Thread { ready: OwnedFd, waiter: Option<JoinHandle<io::Result<Outcome>>> },
}

impl ExitWatch {
    /// `pid` must be an unreaped child of this process, and nothing else may wait for it.
    pub(crate) fn new(pid: Pid) -> io::Result<Self> {
        let notifier = match pidfd::open(pid.as_raw()) {
            Ok(fd) => Notifier::Pidfd(fd),
            Err(error) => {
                tracing::debug!(%error, "pidfd_open unavailable; waiting in a thread");
                Self::thread(pid)?
            }
        };
        Ok(Self { pid, notifier, reaped: None })
    }

    /// Forces the fallback, to test it on kernels that have pidfds.
    #[cfg(test)]
    fn with_thread(pid: Pid) -> io::Result<Self> {
        Ok(Self { pid, notifier: Self::thread(pid)?, reaped: None })
    }

    fn thread(pid: Pid) -> io::Result<Notifier> {
        let (ready, notify) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
        let waiter = std::thread::Builder::new().name(format!("bashrt-wait-{pid}")).spawn(move || {
            let outcome = wait_blocking(pid);
            let _ = nix::unistd::write(&notify, &[1]);
            outcome
        })?;
        Ok(Notifier::Thread { ready, waiter: Some(waiter) })
    }

    pub(crate) fn pid(&self) -> Pid {
        self.pid
    }

    /// Readable once the child has exited; never read from it.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        match &self.notifier {
            Notifier::Pidfd(fd) => fd.as_fd(),
            Notifier::Thread { ready, .. } => ready.as_fd(),
        }
    }

    pub(crate) fn is_reaped(&self) -> bool {
        self.reaped.is_some()
    }

    /// Blocks until the child has exited, then collects its status; later calls return the same.
    pub(crate) fn reap(&mut self) -> io::Result<Outcome> {
        if let Some(outcome) = self.reaped {
            return Ok(outcome);
        }
        let outcome = match &mut self.notifier {
            Notifier::Pidfd(_) => wait_blocking(self.pid)?,
            Notifier::Thread { waiter, .. } => match waiter.take() {
                Some(handle) => handle.join().map_err(|_| io::Error::other("the waiter thread panicked"))??,
                None => return Err(io::Error::other("the waiter thread already failed")),
            },
        };
        self.reaped = Some(outcome);
        Ok(outcome)
    }
}

impl Drop for ExitWatch {
    fn drop(&mut self) {
        if self.reaped.is_none() {
            // Nobody will collect the status: a reaper of orphans must not keep it.
            children::forget(self.pid);
        }
    }
}

/// Until the child has exited or was killed (stops are not reported).
fn wait_blocking(pid: Pid) -> io::Result<Outcome> {
    children::wait(pid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::poll::{PollFd, PollFlags, PollTimeout};
    use std::process::Command;

    // The child is reaped through the watch, by pid, which clippy cannot see.
    #[allow(clippy::zombie_processes)]
    fn exit_status_via(make: fn(Pid) -> io::Result<ExitWatch>, script: &str) -> Outcome {
        let child = Command::new("/bin/sh").arg("-c").arg(script).spawn().unwrap();
        let mut watch = make(Pid::from_raw(child.id() as i32)).unwrap();
        let mut fds = [PollFd::new(watch.fd(), PollFlags::POLLIN)];
        assert_eq!(nix::poll::poll(&mut fds, PollTimeout::NONE).unwrap(), 1);
        let outcome = watch.reap().unwrap();
        assert_eq!(watch.reap().unwrap(), outcome, "reap is idempotent");
        outcome
    }

    #[test]
    fn pidfd_watch_reports_exit_codes_and_signals() {
        assert_eq!(exit_status_via(ExitWatch::new, "exit 5"), Outcome::Exited { code: 5 });
        assert_eq!(exit_status_via(ExitWatch::new, "kill -KILL $$"), Outcome::Signalled { signal: 9 });
    }

    #[test]
    fn thread_watch_reports_exit_codes_and_signals() {
        assert_eq!(exit_status_via(ExitWatch::with_thread, "exit 6"), Outcome::Exited { code: 6 });
        assert_eq!(exit_status_via(ExitWatch::with_thread, "kill -TERM $$"), Outcome::Signalled { signal: 15 });
    }
}
