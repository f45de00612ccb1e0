//! The poll loop of one execution: moves output to the consumer until the command is done, the
//! deadline passes, or the caller cancels, whichever comes first. It knows fds, not processes, so the
//! one-shot and a long-lived shell share it. Promises: one `poll(2)` wait with no polling interval;
//! when the command is done, the output already in the pipe is delivered before it returns.

use std::io;
use std::os::fd::BorrowedFd;
use std::time::{Duration, Instant};

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

/// The most `done` fds [`watch_outputs`] takes: a long-lived shell needs its control socket and its pidfd.
pub(crate) const MAX_DONE: usize = 2;

/// The most output pipes [`watch_outputs`] reads: the merged output, or stderr and stdout apart.
pub(crate) const MAX_OUTPUTS: usize = 2;

/// Moves output from `outputs` (at most [`MAX_OUTPUTS`]; more are ignored) until one of `done`
/// becomes readable (the command may have finished: a pidfd, a report pipe; the caller tells which
/// and whether it really has), the deadline, or the cancel. With several events at once, cancel wins
/// over done, and done over the deadline: a command that finished in time is not reported as timed
/// out because the loop woke late. More than [`MAX_DONE`] fds are ignored.
pub(crate) fn watch_outputs(
    outputs: &mut [OutputReader],
    done: &[BorrowedFd<'_>],
    cancel: &CancelToken,
    deadline: Option<Instant>,
    consumer: &mut dyn OutputConsumer,
) -> io::Result<Ending> {
    let done = &done[..done.len().min(MAX_DONE)];
    let count = outputs.len().min(MAX_OUTPUTS);
    let outputs = &mut outputs[..count];
    let mut tick;
    loop {
        let (cancelled, finished, readable) = {
            // A fixed array, unused slots cut off: no allocation per chunk. Order: cancel, done…,
            // open outputs.
            let pollfd = |fd| PollFd::new(fd, PollFlags::POLLIN);
            let spare = cancel.fd();
            let mut fds: [PollFd<'_>; 1 + MAX_DONE + MAX_OUTPUTS] = std::array::from_fn(|_| pollfd(spare));
            for (slot, fd) in fds[1..].iter_mut().zip(done) {
                *slot = pollfd(*fd);
            }
            let first_output = 1 + done.len();
            let mut which = [usize::MAX; MAX_OUTPUTS];
            let mut watched = first_output;
            for (i, output) in outputs.iter().enumerate() {
                if let Some(fd) = output.fd() {
                    fds[watched] = pollfd(fd);
                    which[watched - first_output] = i;
                    watched += 1;
                }
            }
            // The consumer's tick, if sooner than the deadline, bounds the wait too. It cannot move
            // while the loop waits: only output the consumer is given (below) moves it.
            tick = consumer.next_tick();
            let wake = match (deadline, tick) {
                (Some(d), Some(t)) => Some(d.min(t)),
                (d, t) => d.or(t),
            };
            match nix::poll::poll(&mut fds[..watched], time_left(wake)) {
                Ok(_) => {}
                Err(Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
            let ready = |fd: &PollFd<'_>| fd.revents().is_some_and(|r| !r.is_empty());
            let finished = fds[1..first_output].iter().any(ready);
            let mut readable = [false; MAX_OUTPUTS];
            for (slot, fd) in fds[first_output..watched].iter().enumerate() {
                if ready(fd) {
                    readable[which[slot]] = true;
                }
            }
            (ready(&fds[0]), finished, readable)
        };
        if cancel.is_cancelled() || (cancelled && cancel.woken()) {
            return Ok(Ending::Cancelled);
        }
        if finished {
            // What was written before the done event is seen by the same `poll`: an output it did
            // not find readable had nothing yet, and what comes later is the caller's to drain.
            for (output, readable) in outputs.iter_mut().zip(readable) {
                if readable {
                    output.drain(consumer)?;
                }
            }
            return Ok(Ending::Done);
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return Ok(Ending::DeadlineReached);
        }
        if tick.is_some_and(|t| now >= t) {
            consumer.tick();
        }
        for (output, readable) in outputs.iter_mut().zip(readable) {
            if readable {
                output.read_once(consumer)?;
            }
        }
    }
}

/// After the command is done: keeps delivering what processes it left behind still write to the
/// outputs (the late output of its own children), until none holds them, nothing arrived for
/// `quiet`, `max` passed, the deadline passed or the caller cancelled. Returns whether some output
/// was still held open when it gave up; the outputs are closed either way.
pub(crate) fn linger(
    outputs: &mut [OutputReader],
    cancel: &CancelToken,
    deadline: Option<Instant>,
    quiet: Duration,
    max: Duration,
    consumer: &mut dyn OutputConsumer,
) -> io::Result<bool> {
    let count = outputs.len().min(MAX_OUTPUTS);
    let outputs = &mut outputs[..count];
    let end = Instant::now().checked_add(max);
    let end = match (end, deadline) {
        (Some(end), Some(deadline)) => Some(end.min(deadline)),
        (end, deadline) => end.or(deadline),
    };
    loop {
        if outputs.iter().all(|o| o.fd().is_none()) {
            return Ok(false);
        }
        let now = Instant::now();
        if cancel.is_cancelled() || end.is_some_and(|end| now >= end) {
            break;
        }
        let wait = end.map_or(quiet, |end| quiet.min(end - now));
        let readable = {
            let pollfd = |fd| PollFd::new(fd, PollFlags::POLLIN);
            let mut fds: [PollFd<'_>; 1 + MAX_OUTPUTS] = std::array::from_fn(|_| pollfd(cancel.fd()));
            let mut which = [usize::MAX; MAX_OUTPUTS];
            let mut watched = 1;
            for (i, output) in outputs.iter().enumerate() {
                if let Some(fd) = output.fd() {
                    fds[watched] = pollfd(fd);
                    which[watched - 1] = i;
                    watched += 1;
                }
            }
            let millis = wait.as_nanos().div_ceil(1_000_000);
            match nix::poll::poll(&mut fds[..watched], PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX)) {
                Ok(0) => break,
                Ok(_) => {}
                Err(Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
            if fds[0].revents().is_some_and(|r| !r.is_empty()) && cancel.woken() {
                break;
            }
            let mut readable = [false; MAX_OUTPUTS];
            for (slot, fd) in fds[1..watched].iter().enumerate() {
                if fd.revents().is_some_and(|r| !r.is_empty()) {
                    readable[which[slot]] = true;
                }
            }
            readable
        };
        for (output, readable) in outputs.iter_mut().zip(readable) {
            if readable {
                output.read_once(consumer)?;
            }
        }
    }
    let mut held = false;
    for output in outputs.iter_mut() {
        output.drain(consumer)?;
        held |= output.has_writers();
        output.close();
    }
    Ok(held)
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
