//! The poll loop of one execution: moves output to the consumer until the command is done, the
//! deadline passes, or the caller cancels, whichever comes first. It knows fds, not processes, so the
//! one-shot and a long-lived shell share it. Promises: one `poll(2)` wait with no polling interval;
//! when the command is done, the output already in the pipe is delivered before it returns.

use std::io;
use std::os::fd::BorrowedFd;
use std::time::Instant;

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout};

use super::pipe::OutputReader;
use super::OutputConsumer;
use crate::cancel::CancelToken;

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// `done` became readable; the output available at that moment has been delivered.
    Done,
    DeadlineReached,
    Cancelled,
}

/// `done` becomes readable when the command has finished (a pidfd, a control pipe). With several
/// events at once, cancel wins over done, and done over the deadline: a command that finished in time
/// is not reported as timed out because the loop woke late.
pub(crate) fn watch(
    output: &mut OutputReader,
    done: BorrowedFd<'_>,
    cancel: &CancelToken,
    deadline: Option<Instant>,
    consumer: &mut dyn OutputConsumer,
) -> io::Result<Ending> {
    loop {
        let (cancelled, finished, readable) = {
            let output_fd = output.fd();
            // A fixed array (the third slot unused once the output is closed): no allocation per chunk.
            let mut fds = [
                PollFd::new(cancel.fd(), PollFlags::POLLIN),
                PollFd::new(done, PollFlags::POLLIN),
                PollFd::new(output_fd.unwrap_or(done), PollFlags::POLLIN),
            ];
            let watched = if output_fd.is_some() { 3 } else { 2 };
            match nix::poll::poll(&mut fds[..watched], time_left(deadline)) {
                Ok(_) => {}
                Err(Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
            let ready = |fd: &PollFd<'_>| fd.revents().is_some_and(|r| !r.is_empty());
            (ready(&fds[0]), ready(&fds[1]), watched == 3 && ready(&fds[2]))
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
