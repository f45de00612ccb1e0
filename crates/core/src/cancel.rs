//! A cancellation token that a blocking executor can wait on with `poll(2)` beside its other fds.
//!
//! Why not an `AtomicBool`: the executor sleeps in `poll` on the output pipe; cancelling must wake it at
//! once, without a polling interval. The token owns a non-blocking pipe; `cancel()` writes one byte to it.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Debug)]
struct Inner {
    cancelled: AtomicBool,
    read: OwnedFd,
    write: OwnedFd,
}

/// Cheap to clone; all clones cancel together.
#[derive(Debug, Clone)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

impl CancelToken {
    /// Fails only when the process is out of file descriptors.
    pub fn new() -> std::io::Result<Self> {
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NONBLOCK)
            .map_err(std::io::Error::from)?;
        Ok(Self { inner: Arc::new(Inner { cancelled: AtomicBool::new(false), read, write }) })
    }

    /// Idempotent; safe from any thread (and from a signal-handling thread).
    pub fn cancel(&self) {
        if !self.inner.cancelled.swap(true, Ordering::SeqCst) {
            // A full pipe already wakes the reader; the error is irrelevant.
            let _ = nix::unistd::write(&self.inner.write, &[1u8]);
        }
    }

    /// Whether [`CancelToken::cancel`] was called on any clone.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Becomes readable (and stays readable) once `cancel()` was called. Never read from it.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.inner.read.as_fd()
    }
}
