//! The output pipe: one pipe whose write end becomes the child's stdout and stderr, and the reader
//! that moves its bytes to a consumer. Promises: bytes reach the consumer exactly once and in order,
//! in chunks of up to [`CHUNK`] bytes from one reused buffer; a draining read never waits for writers.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};

use super::{Flow, OutputConsumer};

/// Per read. Large reads are most of a pipe's throughput (perf-baseline §3); this is the floor.
pub(crate) const CHUNK: usize = 64 * 1024;

/// A bigger pipe lets a fast producer run ahead while the consumer works on the previous chunk.
const PIPE_CAPACITY: libc::c_int = 1 << 20;

/// A close-on-exec pipe `(read, write)` with a 1 MiB buffer when the system allows it
/// (`/proc/sys/fs/pipe-max-size` may be lower for unprivileged users; the default 64 KiB still works).
pub(crate) fn output_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    let _ = fcntl(&write, FcntlArg::F_SETPIPE_SZ(PIPE_CAPACITY));
    Ok((read, write))
}

/// The read end of an output pipe. Closing it (on EOF or when the consumer says stop) is final.
pub(crate) struct OutputReader {
    fd: Option<OwnedFd>,
    buf: Vec<u8>,
}

impl OutputReader {
    pub(crate) fn new(fd: OwnedFd) -> Self {
        Self { fd: Some(fd), buf: vec![0; CHUNK] }
    }

    /// `None` once closed.
    pub(crate) fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.fd.as_ref().map(|fd| fd.as_fd())
    }

    /// One read, for when `poll` reported the pipe readable (so it does not block).
    pub(crate) fn read_once(&mut self, consumer: &mut dyn OutputConsumer) -> io::Result<()> {
        self.read_at_most(CHUNK, consumer).map(|_| ())
    }

    /// Delivers what is in the pipe right now, and nothing written after this call started: a
    /// background process that keeps writing cannot make it run forever, and one that keeps the pipe
    /// open cannot make it wait.
    pub(crate) fn drain(&mut self, consumer: &mut dyn OutputConsumer) -> io::Result<()> {
        let Some(fd) = &self.fd else { return Ok(()) };
        let flags = OFlag::from_bits_retain(fcntl(fd, FcntlArg::F_GETFL)?);
        fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
        let mut left = bytes_available(fd.as_fd())?;
        while left > 0 {
            match self.read_at_most(left.min(CHUNK), consumer)? {
                Some(0) | None => break,
                Some(n) => left -= n,
            }
        }
        Ok(())
    }

    pub(crate) fn close(&mut self) {
        self.fd = None;
    }

    /// The read end, unless closed; for handing a pipe that others still write to to a drainer.
    pub(crate) fn into_fd(self) -> Option<OwnedFd> {
        self.fd
    }

    /// Whether some process still holds the write end: a pipe reports POLLHUP only once none does.
    /// False once closed.
    pub(crate) fn has_writers(&self) -> bool {
        let Some(fd) = self.fd() else { return false };
        let mut fds = [nix::poll::PollFd::new(fd, nix::poll::PollFlags::POLLIN)];
        match nix::poll::poll(&mut fds, nix::poll::PollTimeout::ZERO) {
            Ok(_) => !fds[0].revents().is_some_and(|r| r.contains(nix::poll::PollFlags::POLLHUP)),
            // Cannot tell: assume held, the safe side (a drainer costs little, SIGPIPE kills).
            Err(_) => true,
        }
    }

    /// `Some(n)` bytes delivered (0 at EOF, which closes), `None` when nothing was ready.
    fn read_at_most(&mut self, max: usize, consumer: &mut dyn OutputConsumer) -> io::Result<Option<usize>> {
        let Some(fd) = &self.fd else {
            return Ok(Some(0));
        };
        let n = loop {
            match nix::unistd::read(fd, &mut self.buf[..max]) {
                Ok(n) => break n,
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => return Ok(None),
                Err(e) => return Err(e.into()),
            }
        };
        if n == 0 || consumer.consume(&self.buf[..n]) == Flow::Stop {
            self.close();
        }
        Ok(Some(n))
    }
}

/// Bytes waiting in the pipe (`FIONREAD`).
fn bytes_available(fd: BorrowedFd<'_>) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int through the pointer, which points to a live local.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(usize::try_from(n).unwrap_or(0))
}
