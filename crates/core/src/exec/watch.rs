//! The poll loop of one execution: moves output to the consumer until the command is done, the
//! deadline passes, or the caller cancels, whichever comes first. It knows fds, not processes, so the
//! one-shot and a long-lived shell share it. Promises: one `poll(2)` wait with no polling interval;
//! when the command is done, the output already in the pipe is delivered before it returns.

use std::io;
use std::os::fd::BorrowedFd;
use std::time::Instant;

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout};

use super::reader::OutputReader;
use super::OutputConsumer;
use crate::cancel::CancelToken;

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// One of the `done` fds became readable; the output available at that moment has been delivered.
    Done,
    DeadlineReached,
    Cancelled,
}

/// The most `done` fds [`watch`] takes: a long-lived shell needs its control socket and its pidfd.
pub(crate) const MAX_DONE: usize = 2;

/// `done` fds become readable when the command may have finished (a pidfd, a control socket); the
/// caller tells which and whether it really has. With several events at once, cancel wins over done,
/// and done over the deadline: a command that finished in time is not reported as timed out because
/// the loop woke late. More than [`MAX_DONE`] fds are ignored.
pub(crate) fn watch(
    output: &mut OutputReader,
    done: &[BorrowedFd<'_>],
    cancel: &CancelToken,
    deadline: Option<Instant>,
    consumer: &mut dyn OutputConsumer,
) -> io::Result<Ending> {
    let done = &done[..done.len().min(MAX_DONE)];
    loop {
        let (cancelled, finished, readable) = {
            let output_fd = output.fd();
            // A fixed array, unused slots cut off: no allocation per chunk. Order: cancel, done…, output.
            let pollfd = |fd| PollFd::new(fd, PollFlags::POLLIN);
            let spare = cancel.fd();
            let mut fds = [
                pollfd(cancel.fd()),
                pollfd(done.first().copied().unwrap_or(spare)),
                pollfd(done.get(1).copied().unwrap_or(spare)),
                pollfd(spare),
            ];
            let output_slot = 1 + done.len();
            if let Some(fd) = output_fd {
                fds[output_slot] = pollfd(fd);
            }
            let watched = output_slot + usize::from(output_fd.is_some());
            match nix::poll::poll(&mut fds[..watched], time_left(deadline)) {
                Ok(_) => {}
                Err(Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
            let ready = |fd: &PollFd<'_>| fd.revents().is_some_and(|r| !r.is_empty());
            let finished = fds[1..output_slot].iter().any(ready);
            (ready(&fds[0]), finished, output_fd.is_some() && ready(&fds[output_slot]))
        };
        if cancelled || cancel.is_cancelled() {
            return Ok(Ending::Cancelled);
        }
        if finished {
            output.drain(consumer)?;
            return Ok(Ending::Done);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Ending::DeadlineReached);
        }
        if readable {
            output.read_once(consumer)?;
        }
    }
}

/// Rounded up, so the loop does not wake just before the deadline and spin on zero timeouts.
fn time_left(deadline: Option<Instant>) -> PollTimeout {
    let Some(deadline) = deadline else {
        return PollTimeout::NONE;
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let millis = left.as_nanos().div_ceil(1_000_000);
    PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX)
}
