//! A cancellation token that a blocking executor can wait on with `poll(2)` beside its other fds.
//!
//! Why not an `AtomicBool`: the executor sleeps in `poll` on the output pipe; cancelling must wake it at
//! once, without a polling interval. The token owns a non-blocking pipe; `cancel()` writes one byte to it.
//!
//! Why pipes are reused: a server makes a token per request, and most are never cancelled; their pipes
//! are still empty when the last clone goes, so they are kept for the next tokens (up to
//! [`SPARE_PIPES`]) instead of paying `pipe2` and two `close` per request.
//!
//! Why a readable pipe is not the signal: a command runs as the same user as the runtime and can open
//! the pipe through `/proc/<runtime>/fd/<n>` (close-on-exec does not stop that) and write a byte into
//! it. Only the flag says a token was cancelled; a byte that came without it is read away
//! ([`CancelToken::woken`]), and a pipe is reused only once emptied.

use std::mem::ManuallyDrop;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// The most unused pipes kept for later tokens.
const SPARE_PIPES: usize = 16;

/// Pipes of tokens that ended without being cancelled: empty, ready for a new token.
static SPARE: Mutex<Vec<Pipe>> = Mutex::new(Vec::new());

#[derive(Debug)]
struct Pipe {
    read: OwnedFd,
    write: OwnedFd,
}

impl Pipe {
    fn take() -> std::io::Result<Self> {
        if let Some(pipe) = SPARE.lock().unwrap_or_else(PoisonError::into_inner).pop() {
            return Ok(pipe);
        }
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NONBLOCK)
            .map_err(std::io::Error::from)?;
        Ok(Self { read, write })
    }
}

#[derive(Debug)]
struct Inner {
    cancelled: AtomicBool,
    /// Taken out only in `drop`.
    pipe: ManuallyDrop<Pipe>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // SAFETY: `pipe` is not used again: this is the last use of `self`.
        let pipe = unsafe { ManuallyDrop::take(&mut self.pipe) };
        // Only `cancel()` writes to the pipe, after setting the flag; a byte found without it came from
        // elsewhere, and a pipe someone keeps writing to is not kept.
        if !self.cancelled.load(Ordering::SeqCst) && drain(&pipe.read) {
            let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
            if spare.len() < SPARE_PIPES {
                spare.push(pipe);
            }
        }
    }
}

/// Cheap to clone; all clones cancel together.
#[derive(Debug, Clone)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

impl CancelToken {
    /// Fails only when the process is out of file descriptors.
    pub fn new() -> std::io::Result<Self> {
        let pipe = Pipe::take()?;
        Ok(Self { inner: Arc::new(Inner { cancelled: AtomicBool::new(false), pipe: ManuallyDrop::new(pipe) }) })
    }

    /// Idempotent; safe from any thread (and from a signal-handling thread).
    pub fn cancel(&self) {
        if !self.inner.cancelled.swap(true, Ordering::SeqCst) {
            // A full pipe already wakes the reader; the error is irrelevant.
            let _ = nix::unistd::write(&self.inner.pipe.write, &[1u8]);
        }
    }

    /// Whether [`CancelToken::cancel`] was called on any clone.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Becomes readable (and stays readable) once `cancel()` was called. Never read from it; when a
    /// `poll` finds it readable, ask [`CancelToken::woken`].
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.inner.pipe.read.as_fd()
    }

    /// After [`CancelToken::fd`] was found readable: whether the token is cancelled. A byte that came
    /// without a cancel (written by a command through `/proc`) is read away: the caller goes on
    /// waiting.
    pub fn woken(&self) -> bool {
        if self.is_cancelled() {
            return true;
        }
        drain(&self.inner.pipe.read);
        // A cancel between the check and the read set the flag before writing the byte it read.
        self.is_cancelled()
    }
}

/// Reads what is in the non-blocking pipe `read`, up to one pipe's worth; whether it is empty now.
fn drain(read: &OwnedFd) -> bool {
    let mut buf = [0u8; 4096];
    for _ in 0..16 {
        match nix::unistd::read(read, &mut buf) {
            Ok(n) if n == buf.len() => continue,
            Ok(_) => return true,
            Err(nix::errno::Errno::EAGAIN) => return true,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::io::Write;

    fn readable(token: &CancelToken) -> bool {
        let mut fds = [PollFd::new(token.fd(), PollFlags::POLLIN)];
        poll(&mut fds, PollTimeout::ZERO).unwrap() == 1
    }

    #[test]
    fn a_reused_pipe_is_empty_and_a_cancelled_one_is_never_reused() {
        for i in 0..2 * SPARE_PIPES {
            let token = CancelToken::new().unwrap();
            assert!(!readable(&token) && !token.is_cancelled());
            let clone = token.clone();
            drop(token);
            if i % 2 == 0 {
                clone.cancel();
                assert!(readable(&clone) && clone.is_cancelled());
            }
        }
        let tokens: Vec<_> = (0..2 * SPARE_PIPES).map(|_| CancelToken::new().unwrap()).collect();
        assert!(tokens.iter().all(|t| !readable(t) && !t.is_cancelled()));
    }

    #[test]
    fn a_byte_written_from_outside_is_not_a_cancel_and_is_not_handed_on() {
        let token = CancelToken::new().unwrap();
        // What a command can do through /proc/<pid>/fd/<n>: open the pipe's write end and write.
        let path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&token.inner.pipe.write));
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().write_all(b"x").unwrap();
        assert!(readable(&token));
        assert!(!token.woken() && !token.is_cancelled());
        assert!(!readable(&token), "the foreign byte was read away");
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().write_all(b"y").unwrap();
        drop(token);
        let tokens: Vec<_> = (0..2 * SPARE_PIPES).map(|_| CancelToken::new().unwrap()).collect();
        assert!(tokens.iter().all(|t| !readable(t)), "a pipe holding a byte was reused");
        tokens[0].cancel();
        assert!(tokens[0].woken());
    }
}
