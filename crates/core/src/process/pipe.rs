//! Pipes as the kernel offers them: an output pipe, a larger buffer for bulk, how many bytes wait in one,
//! and whether anyone still holds its write end. No reading policy here (see the executor's reader).

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{PollFd, PollFlags, PollTimeout};

/// Bytes per read. Large reads are most of a pipe's throughput: this is where reading a pipe reaches
/// its floor on the machines bashrt was measured on (see BENCHMARKS.md).
pub(crate) const CHUNK: usize = 64 * 1024;

/// A bigger pipe lets a fast producer run ahead while the consumer works on the previous chunk.
const PIPE_CAPACITY: libc::c_int = 1 << 20;

/// A single read this large means output comes in bulk: time to [`grow`] the pipe.
pub(crate) const BULK_READ: usize = 16 * 1024;

/// A close-on-exec pipe `(read, write)` with the kernel's default buffer (64 KiB): most commands
/// write less than that, and a larger buffer costs a 10 KiB allocation per pipe. The reader grows it
/// once output comes in bulk ([`grow`]).
pub(crate) fn output_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(nix::unistd::pipe2(OFlag::O_CLOEXEC)?)
}

/// An output pipe whose write end the runtime only holds, never writes and never hands to a child
/// (a long-lived shell opens its own by `/proc` path, a file description of its own): both ends are
/// created non-blocking, which saves the reader the two `fcntl`s per call of [`set_nonblocking`].
pub(crate) fn held_output_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?)
}

/// Gives the pipe of `fd` (either end) a 1 MiB buffer when the system allows it
/// (`/proc/sys/fs/pipe-max-size` may be lower for unprivileged users; the default 64 KiB still works).
pub(crate) fn grow(fd: BorrowedFd<'_>) {
    let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(PIPE_CAPACITY));
}

/// Bytes waiting in the pipe (`FIONREAD`).
pub(crate) fn bytes_available(fd: BorrowedFd<'_>) -> io::Result<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int through the pointer, which points to a live local.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(usize::try_from(n).unwrap_or(0))
}

/// Whether some process still holds the write end of the pipe whose read end is `fd`: a pipe reports
/// POLLHUP only once none does. When it cannot tell, it says held — the safe side (keeping a pipe
/// drained costs little; closing one under a live writer kills it with SIGPIPE).
pub(crate) fn has_writers(fd: BorrowedFd<'_>) -> bool {
    let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
    match nix::poll::poll(&mut fds, PollTimeout::ZERO) {
        Ok(_) => !fds[0].revents().is_some_and(|r| r.contains(PollFlags::POLLHUP)),
        Err(_) => true,
    }
}

/// Every writer closed the pipe (`POLLHUP`) and nothing is left to read (no `POLLIN`).
pub(crate) fn closed_and_empty(fd: BorrowedFd<'_>) -> bool {
    let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
    matches!(nix::poll::poll(&mut fds, PollTimeout::ZERO), Ok(1)) && fds[0].revents() == Some(PollFlags::POLLHUP)
}

/// Makes reads of `fd` return `EAGAIN` instead of waiting.
pub(crate) fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    let flags = OFlag::from_bits_retain(fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(())
}
