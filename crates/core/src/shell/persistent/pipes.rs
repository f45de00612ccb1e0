//! The descriptors a long-lived shell opens by path: the runner's pipes, and the two output slots.

use super::*;

/// A pipe the shell opens by path (`/proc/<our pid>/fd/<read end>`), both ends held here.
pub(super) struct RunnerPipe {
    pub(super) read: OwnedFd,
    pub(super) write: OwnedFd,
}

impl RunnerPipe {
    pub(super) fn new() -> io::Result<Self> {
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
        Ok(Self { read, write })
    }

    pub(super) fn path(&self) -> String {
        format!("/proc/{}/fd/{}", std::process::id(), self.read.as_raw_fd())
    }

    pub(super) fn queued(&self) -> usize {
        bytes_available(self.read.as_fd()).unwrap_or(0)
    }
}

/// Two descriptor numbers fixed for the shell's life, at which each call's output pipes (the output,
/// and stdout when the call splits it off) are put while the call runs: the runner opens the same
/// two paths every call. A path with nothing of the call's record in it costs bash less to expand
/// than one built from the header, and nothing written into the call pipe can reach a path. Between
/// calls both hold `/dev/null`, so the numbers are never free for another file to take, and the
/// output pipe's write end is held only while its call runs (the reader sees the end of the
/// output once the shell and what it started close theirs).
pub(super) struct OutputSlots {
    output: OwnedFd,
    stdout: OwnedFd,
    /// `/dev/null`, write-only: what the slots hold between calls.
    null: OwnedFd,
    /// Whether `stdout` holds a call's pipe.
    stdout_lent: bool,
}

impl OutputSlots {
    pub(super) fn new() -> io::Result<Self> {
        let null: OwnedFd = std::fs::OpenOptions::new().write(true).open("/dev/null")?.into();
        Ok(Self { output: null.try_clone()?, stdout: null.try_clone()?, null, stdout_lent: false })
    }

    pub(super) fn paths(&self) -> (String, String) {
        let pid = std::process::id();
        (format!("/proc/{pid}/fd/{}", self.output.as_raw_fd()), format!("/proc/{pid}/fd/{}", self.stdout.as_raw_fd()))
    }

    /// Puts a call's pipes (write ends) in the slots, close-on-exec like every descriptor of the
    /// runtime's: no child spawned meanwhile (another session's shell) inherits them.
    pub(super) fn lend(&mut self, output: &OwnedFd, stdout: Option<&OwnedFd>) -> io::Result<()> {
        nix::unistd::dup3(output, &mut self.output, OFlag::O_CLOEXEC)?;
        if let Some(stdout) = stdout {
            nix::unistd::dup3(stdout, &mut self.stdout, OFlag::O_CLOEXEC)?;
            self.stdout_lent = true;
        }
        Ok(())
    }

    /// Puts `/dev/null` back: the runtime no longer holds the call's pipes.
    pub(super) fn vacate(&mut self) {
        // `dup3` onto a descriptor this value owns fails only for a bad descriptor, which an
        // `OwnedFd` is not; a slot left as it was would only keep a pipe open.
        if let Err(error) = nix::unistd::dup3(&self.null, &mut self.output, OFlag::O_CLOEXEC) {
            tracing::debug!(%error, "output slot kept the call's pipe");
        }
        if std::mem::take(&mut self.stdout_lent) {
            if let Err(error) = nix::unistd::dup3(&self.null, &mut self.stdout, OFlag::O_CLOEXEC) {
                tracing::debug!(%error, "stdout slot kept the call's pipe");
            }
        }
    }
}
