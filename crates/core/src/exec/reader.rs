//! The reader of an execution's output pipe: moves its bytes to the consumer. Promises: bytes reach
//! the consumer exactly once and in order, in chunks of up to [`CHUNK`] bytes from one reused buffer;
//! a draining read never waits for writers.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use nix::errno::Errno;

use super::{Flow, OutputConsumer};
use crate::process::pipe::{self, CHUNK};

/// The first read of a drain: enough for what most commands print, small enough for the stack.
const PROBE: usize = 4096;

/// The read end of an output pipe. Closing it (on EOF or when the consumer says stop) is final.
pub(crate) struct OutputReader {
    fd: Option<OwnedFd>,
    /// Allocated at the first read: a quiet command (most calls) never pays for zeroing 64 KiB.
    buf: Vec<u8>,
    /// Stdout of a split execution: chunks go to [`OutputConsumer::consume_stdout`].
    stdout: bool,
    /// Set once the fd is non-blocking, so that later drains skip the two `fcntl`s.
    nonblocking: bool,
    /// Set once the pipe was given a large buffer, at the first read that found output in bulk.
    grown: bool,
    /// The read end after the end of the output was read (every writer had closed it, and it was
    /// empty): for a FIFO that the next call may write through again ([`Self::into_spent`]).
    spent: Option<OwnedFd>,
}

impl OutputReader {
    /// The merged output (or stderr alone, when stdout is split off).
    pub(crate) fn new(fd: OwnedFd) -> Self {
        Self { fd: Some(fd), buf: Vec::new(), stdout: false, nonblocking: false, grown: false, spent: None }
    }

    /// The stdout pipe of a split execution.
    pub(crate) fn stdout(fd: OwnedFd) -> Self {
        Self { stdout: true, ..Self::new(fd) }
    }

    /// A reader of a pipe created non-blocking ([`pipe::held_output_pipe`]).
    pub(crate) fn nonblocking(self) -> Self {
        Self { nonblocking: true, ..self }
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
        if !self.nonblocking {
            pipe::set_nonblocking(fd.as_fd())?;
            self.nonblocking = true;
        }
        // One small read first, into the stack: it finds most pipes empty or at their end (a quiet
        // command, writers gone), which closes the reader with no `FIONREAD`, no later `poll` for
        // writers and no chunk buffer to allocate; and a read short of its buffer took all there was.
        let mut probe = [0u8; PROBE];
        let Some(n) = read_some(fd.as_fd(), &mut probe)? else { return Ok(()) };
        if n == 0 {
            self.spent = self.fd.take();
            return Ok(());
        }
        if self.deliver(&probe[..n], consumer) == Flow::Stop || n < PROBE {
            return Ok(());
        }
        let Some(fd) = &self.fd else { return Ok(()) };
        let mut left = pipe::bytes_available(fd.as_fd())?;
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

    /// The read end, when its output was read to the end (nothing wrote to it since, nothing holds
    /// its write end); whether it was stdout's.
    pub(crate) fn into_spent(self) -> Option<(OwnedFd, bool)> {
        let stdout = self.stdout;
        // Still open: spent as well when every writer closed it and nothing is left to read.
        let open = self.fd.filter(|fd| pipe::closed_and_empty(fd.as_fd()));
        self.spent.or(open).map(|fd| (fd, stdout))
    }

    /// Whether some process still holds the write end ([`pipe::has_writers`]). False once closed.
    pub(crate) fn has_writers(&self) -> bool {
        self.fd().is_some_and(pipe::has_writers)
    }

    /// `Some(n)` bytes delivered (0 at EOF, which closes), `None` when nothing was ready.
    fn read_at_most(&mut self, max: usize, consumer: &mut dyn OutputConsumer) -> io::Result<Option<usize>> {
        let Some(fd) = &self.fd else {
            return Ok(Some(0));
        };
        if self.buf.is_empty() {
            self.buf = vec![0; CHUNK];
        }
        let Some(n) = read_some(fd.as_fd(), &mut self.buf[..max])? else { return Ok(None) };
        if n >= pipe::BULK_READ && !self.grown {
            pipe::grow(fd.as_fd());
            self.grown = true;
        }
        if n == 0 {
            self.spent = self.fd.take();
        } else {
            let chunk = std::mem::take(&mut self.buf);
            self.deliver(&chunk[..n], consumer);
            self.buf = chunk;
        }
        Ok(Some(n))
    }

    /// Hands `chunk` to the consumer; closes the reader when it says stop.
    fn deliver(&mut self, chunk: &[u8], consumer: &mut dyn OutputConsumer) -> Flow {
        let flow = if self.stdout { consumer.consume_stdout(chunk) } else { consumer.consume(chunk) };
        if flow == Flow::Stop {
            self.close();
        }
        flow
    }
}

/// One `read`, retried on EINTR: `None` when nothing was ready (`EAGAIN`).
fn read_some(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        match nix::unistd::read(fd, buf) {
            Ok(n) => return Ok(Some(n)),
            Err(Errno::EINTR) => continue,
            Err(Errno::EAGAIN) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn capacity(fd: BorrowedFd<'_>) -> libc::c_int {
        // SAFETY: F_GETPIPE_SZ takes no argument and only reads the descriptor's pipe.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) }
    }

    #[test]
    fn a_pipe_grows_once_output_comes_in_bulk_and_every_byte_arrives_in_order() {
        let (read, write) = pipe::output_pipe().unwrap();
        let mut reader = OutputReader::new(read);
        let (mut got, mut write) = (Vec::new(), std::fs::File::from(write));
        let mut keep = |chunk: &[u8]| {
            got.extend_from_slice(chunk);
            Flow::Continue
        };
        let default = capacity(reader.fd().unwrap());
        // A few bytes: the pipe keeps the kernel's default buffer.
        std::io::Write::write_all(&mut write, b"small\n").unwrap();
        reader.read_once(&mut keep).unwrap();
        assert_eq!(capacity(reader.fd().unwrap()), default);
        // A bulk read: the pipe gets the large buffer (or the most the system allows).
        let bulk: Vec<u8> = (0..pipe::BULK_READ + 100).map(|i| (i % 251) as u8).collect();
        std::io::Write::write_all(&mut write, &bulk).unwrap();
        reader.read_once(&mut keep).unwrap();
        let limit: libc::c_int = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(default);
        assert_eq!(capacity(reader.fd().unwrap()), limit.clamp(default, 1 << 20));
        drop(write);
        while reader.fd().is_some() {
            reader.read_once(&mut keep).unwrap();
        }
        let mut want = b"small\n".to_vec();
        want.extend_from_slice(&bulk);
        assert_eq!(got, want);
    }
}
