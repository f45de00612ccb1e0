//! The shell pool's one background thread, with two jobs:
//!
//! - It spawns the long-lived shells. Linux ties `PR_SET_PDEATHSIG` to the *thread* that forked the
//!   child: a shell spawned by a caller's short-lived thread would be killed when that thread ends.
//!   Spawned from this thread, a shell dies with the pool (or the whole process), not before.
//! - It drains the output pipes that background processes still hold after their call returned
//!   (`server &`): bytes are read and discarded until EOF, so such a process neither dies of SIGPIPE
//!   on its next log line nor blocks on a full pipe, and its output never reaches another call.
//!
//! Promises: one thread per pool, whatever the number of calls; a drained pipe is closed at EOF;
//! dropping the handle stops the thread and closes every pipe it still holds.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{PollFd, PollFlags, PollTimeout};

use crate::process::child::OwnedChild;
use crate::process::pipe::CHUNK;

/// Builds and spawns a child; runs on the pool thread.
pub(crate) type SpawnFn = Box<dyn FnOnce() -> io::Result<OwnedChild> + Send>;

enum Request {
    Spawn {
        spawn: SpawnFn,
        reply: mpsc::SyncSender<io::Result<OwnedChild>>,
    },
    /// Read and discard until EOF, then close.
    Drain(OwnedFd),
}

pub(crate) struct PoolThread {
    requests: Option<mpsc::Sender<Request>>,
    /// Pipes handed over and not yet at EOF.
    draining: Arc<AtomicUsize>,
    /// One byte per request wakes the thread from `poll`.
    wake: OwnedFd,
    handle: Option<JoinHandle<()>>,
}

impl PoolThread {
    pub(crate) fn start() -> io::Result<Self> {
        let (wake_read, wake) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
        let (requests, inbox) = mpsc::channel();
        let draining = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&draining);
        let handle = std::thread::Builder::new()
            .name("bashrt-shell-pool".to_string())
            .spawn(move || serve(&inbox, &wake_read, &counter))?;
        Ok(Self { requests: Some(requests), draining, wake, handle: Some(handle) })
    }

    /// Runs `spawn` on the pool thread and waits for its result.
    pub(crate) fn spawn(&self, spawn: SpawnFn) -> io::Result<OwnedChild> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.send(Request::Spawn { spawn, reply })?;
        answer.recv().map_err(|_| io::Error::other("the shell pool thread has stopped"))?
    }

    /// Hands over the read end of a pipe that background processes still hold.
    pub(crate) fn drain(&self, fd: OwnedFd) {
        self.draining.fetch_add(1, Ordering::SeqCst);
        if let Err(error) = self.send(Request::Drain(fd)) {
            // The fd was dropped with the request; the holders' next write fails with EPIPE.
            self.draining.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!(%error, "could not hand a held output pipe to the drainer");
        }
    }

    /// Pipes being drained: handed over and not yet at EOF.
    #[cfg(test)]
    pub(crate) fn draining(&self) -> usize {
        self.draining.load(Ordering::SeqCst)
    }

    fn send(&self, request: Request) -> io::Result<()> {
        let stopped = || io::Error::other("the shell pool thread has stopped");
        let requests = self.requests.as_ref().ok_or_else(stopped)?;
        requests.send(request).map_err(|_| stopped())?;
        // A full wake pipe already wakes the thread.
        let _ = nix::unistd::write(&self.wake, &[1]);
        Ok(())
    }
}

impl Drop for PoolThread {
    fn drop(&mut self) {
        self.requests = None;
        let _ = nix::unistd::write(&self.wake, &[1]);
        if let Some(handle) = self.handle.take() {
            if handle.join().is_err() {
                tracing::error!("the shell pool thread panicked");
            }
        }
    }
}

fn serve(inbox: &mpsc::Receiver<Request>, wake: &OwnedFd, draining: &AtomicUsize) {
    let mut held: Vec<OwnedFd> = Vec::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let (woken, ready) = {
            let mut fds = Vec::with_capacity(1 + held.len());
            fds.push(PollFd::new(wake.as_fd(), PollFlags::POLLIN));
            fds.extend(held.iter().map(|fd| PollFd::new(fd.as_fd(), PollFlags::POLLIN)));
            match nix::poll::poll(&mut fds, PollTimeout::NONE) {
                Ok(_) | Err(Errno::EINTR) => {}
                Err(error) => {
                    // Out of memory or too many fds for poll: nothing sensible left to do but stop
                    // draining; the holders then get EPIPE on their next write.
                    tracing::error!(%error, "the shell pool thread cannot poll; stopping");
                    return;
                }
            }
            let is_ready = |fd: &PollFd<'_>| fd.revents().is_some_and(|r| !r.is_empty());
            let ready: Vec<usize> = (1..fds.len()).filter(|&i| is_ready(&fds[i])).map(|i| i - 1).collect();
            (is_ready(&fds[0]), ready)
        };
        // Highest index first, so removals do not shift the indices still to visit.
        for &index in ready.iter().rev() {
            if !discard_once(&held[index], &mut buf) {
                held.swap_remove(index);
                draining.fetch_sub(1, Ordering::SeqCst);
            }
        }
        if woken {
            while nix::unistd::read(wake, &mut buf).is_ok_and(|n| n > 0) {}
            loop {
                match inbox.try_recv() {
                    Ok(Request::Spawn { spawn, reply }) => {
                        let _ = reply.send(spawn());
                    }
                    Ok(Request::Drain(fd)) => {
                        let flags = fcntl(&fd, FcntlArg::F_GETFL).map(OFlag::from_bits_retain);
                        if let Ok(flags) = flags {
                            let _ = fcntl(&fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK));
                        }
                        held.push(fd);
                    }
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => return,
                }
            }
        }
    }
}

/// One read; false once the pipe is at EOF or broken. A chatty holder gets one chunk per round, so it
/// cannot starve the others.
fn discard_once(fd: &OwnedFd, buf: &mut [u8]) -> bool {
    loop {
        match nix::unistd::read(fd, buf) {
            Ok(0) => return false,
            Ok(_) | Err(Errno::EAGAIN) => return true,
            Err(Errno::EINTR) => continue,
            Err(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::child::Mark;
    use std::process::Command;

    #[test]
    fn drains_until_eof_then_closes() {
        let thread = PoolThread::start().unwrap();
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).unwrap();
        thread.drain(read);
        assert_eq!(thread.draining(), 1);
        // More than a pipe holds: completes only if someone reads.
        let big = vec![b'x'; 4 << 20];
        nix::unistd::write(&write, &big[..65536]).unwrap();
        let mut written = 65536;
        while written < big.len() {
            written += nix::unistd::write(&write, &big[written..]).unwrap();
        }
        drop(write);
        // The count drops once the drainer has read to EOF; nothing to wait on but the count itself.
        while thread.draining() != 0 {
            std::thread::yield_now();
        }
    }

    #[test]
    fn spawns_on_its_own_thread() {
        let thread = PoolThread::start().unwrap();
        let spawn = || OwnedChild::spawn(Command::new("true"), Mark::Unmarked).map_err(io::Error::other);
        let mut child = thread.spawn(Box::new(spawn)).unwrap();
        assert_eq!(child.reap().unwrap(), crate::outcome::Outcome::Exited { code: 0 });
    }
}
