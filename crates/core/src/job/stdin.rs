//! A job's input: the write end of its stdin pipe (`stdin: "pipe"`), or its terminal
//! (`stdin: "pty"`), and writing to a command that may have stopped reading it.

use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use crate::exec::pty::PtyControl;

/// How long a write waits for room in the pipe, at most.
pub(super) const WRITE_WAIT: Duration = Duration::from_secs(5);

/// What a terminal's user types to end input at the start of a line (VEOF, ctrl-d).
const END_OF_INPUT: u8 = 0x04;

/// Why input could not be given to a job. The text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum WriteError {
    #[error(
        "its stdin is not a pipe or a terminal: start the command with \"stdin\": \"pipe\" (or \"pty\" for a \
         program that wants a terminal) to give it input"
    )]
    NoInput,
    #[error("its stdin is not a terminal, so keys cannot be pressed: start the command with \"stdin\": \"pty\"")]
    NoTerminal,
    #[error("its stdin was closed")]
    Closed,
    #[error("it has ended")]
    Ended,
    #[error("the command does not read its stdin: {0}")]
    Stuck(String),
}

/// Where a job's input goes.
pub(crate) enum JobInput {
    /// The write end of the command's stdin pipe; dropping it is the command's end of input.
    Pipe(std::fs::File),
    /// The command's terminal: what is written is typed, as by a person at a keyboard.
    Terminal(PtyControl),
}

impl JobInput {
    /// The write end of a stdin pipe.
    pub(crate) fn pipe(fd: OwnedFd) -> Self {
        JobInput::Pipe(std::fs::File::from(fd))
    }

    pub(crate) fn is_terminal(&self) -> bool {
        matches!(self, JobInput::Terminal(_))
    }

    /// Gives the command `text`, then `keys` (already encoded; a terminal only), then its end of input
    /// when `close`. On a terminal a line break is typed as Enter (`\r`) and the end of input is
    /// ctrl-d, so the terminal stays open; a pipe is closed. True when the input is still open.
    pub(crate) fn give(&mut self, text: &[u8], keys: &[u8], close: bool) -> Result<bool, WriteError> {
        match self {
            JobInput::Pipe(file) => {
                if !keys.is_empty() {
                    return Err(WriteError::NoTerminal);
                }
                write_within(file, text, WRITE_WAIT)?;
                Ok(!close)
            }
            JobInput::Terminal(control) => {
                let mut typed: Vec<u8> = text.iter().map(|&b| if b == b'\n' { b'\r' } else { b }).collect();
                typed.extend_from_slice(keys);
                if close {
                    // After a partial line the first ctrl-d only hands that line over; the second ends
                    // the input, as at a keyboard.
                    if typed.last().is_some_and(|&b| b != b'\r') {
                        typed.push(END_OF_INPUT);
                    }
                    typed.push(END_OF_INPUT);
                }
                let give_up = Instant::now() + WRITE_WAIT;
                let mut rest = &typed[..];
                while !rest.is_empty() {
                    let n = control.write(rest).map_err(|_| WriteError::Ended)?;
                    rest = &rest[n..];
                    if n == 0 {
                        let left = give_up.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            return Err(stuck(typed.len() - rest.len(), typed.len()));
                        }
                        control.wait_writable(left).map_err(|e| WriteError::Stuck(e.to_string()))?;
                    }
                }
                Ok(true)
            }
        }
    }
}

fn stuck(written: usize, of: usize) -> WriteError {
    WriteError::Stuck(format!("{written} of {of} bytes written in {}s", WRITE_WAIT.as_secs()))
}

/// Writes all of `input`, waiting at most `wait` for room in the pipe.
fn write_within(file: &mut std::fs::File, input: &[u8], wait: Duration) -> Result<(), WriteError> {
    use std::io::Write;
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
                    return Err(stuck(input.len() - rest.len(), input.len()));
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
