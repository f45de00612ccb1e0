//! A job's stdin pipe: writing input to a command that may have stopped reading it.

use std::time::{Duration, Instant};

/// How long a write waits for room in the pipe, at most.
pub(super) const WRITE_WAIT: Duration = Duration::from_secs(5);

/// Why input could not be given to a job. The text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum WriteError {
    #[error("its stdin is not a pipe: start the command with \"stdin\": \"pipe\" to give it input")]
    NoPipe,
    #[error("its stdin was closed")]
    Closed,
    #[error("it has ended")]
    Ended,
    #[error("the command does not read its stdin: {0}")]
    Stuck(String),
}

/// Writes all of `input`, waiting at most `wait` for room in the pipe.
pub(super) fn write_within(file: &mut std::fs::File, input: &[u8], wait: Duration) -> Result<(), WriteError> {
    use std::io::Write;
    use std::os::fd::AsFd;
    let give_up = Instant::now() + wait;
    let fd = file.as_fd().try_clone_to_owned().map_err(|e| WriteError::Stuck(e.to_string()))?;
    let flags = nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_GETFL).map_err(|e| WriteError::Stuck(e.to_string()))?;
    let nonblocking = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
    nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_SETFL(nonblocking)).map_err(|e| WriteError::Stuck(e.to_string()))?;
    let mut rest = input;
    while !rest.is_empty() {
        match file.write(rest) {
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let left = give_up.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(WriteError::Stuck(format!(
                        "{} of {} bytes written in {}s",
                        input.len() - rest.len(),
                        input.len(),
                        wait.as_secs()
                    )));
                }
                let mut fds = [nix::poll::PollFd::new(fd.as_fd(), nix::poll::PollFlags::POLLOUT)];
                let millis = nix::poll::PollTimeout::try_from(left.as_millis().min(60_000) as u64)
                    .unwrap_or(nix::poll::PollTimeout::MAX);
                let _ = nix::poll::poll(&mut fds, millis);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                return Err(WriteError::Stuck("nothing reads it any more".into()))
            }
            Err(e) => return Err(WriteError::Stuck(e.to_string())),
        }
    }
    Ok(())
}
