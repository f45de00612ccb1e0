//! The descriptors a long-lived shell opens by path: the runner's pipes, the command's text, and the
//! two output slots.
//!
//! Two transports, one protocol. An unconfined shell opens the runtime's own descriptors by path
//! (`/proc/<our pid>/fd/<n>`): nothing is on the filesystem. A confined shell cannot: Landlock lets
//! a sandboxed process reach no other process's descriptors (the check of `ptrace`, which
//! `/proc/<pid>/fd` makes). It opens FIFOs and a file in a private directory of its own instead, in
//! the sandbox's writable runner directory; each call's output still gets a pipe of its own (a fresh
//! FIFO renamed over the slot's path), so what an earlier call left running never writes into a
//! later call's output.

use std::ffi::CString;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};

use super::*;

/// Where a shell's runner files are: see the module docs.
pub(super) enum Transport {
    Proc,
    /// The shell's private directory, removed with the shell.
    Fifo(tempfile::TempDir),
}

impl Transport {
    /// The transport of a shell confined by `sandbox`, if any: a fresh 0700 directory in its runner
    /// directory.
    pub(super) fn for_shell(sandbox: Option<&std::sync::Arc<crate::sandbox::Sandbox>>) -> io::Result<Self> {
        match sandbox {
            None => Ok(Self::Proc),
            Some(sandbox) => Ok(Self::Fifo(
                tempfile::Builder::new()
                    .prefix("shell-")
                    .permissions(std::fs::Permissions::from_mode(0o700))
                    .tempdir_in(sandbox.runner_dir())?,
            )),
        }
    }

    fn dir(&self) -> Option<&Path> {
        match self {
            Self::Proc => None,
            Self::Fifo(dir) => Some(dir.path()),
        }
    }
}

/// A FIFO made at `path` (0600), opened read-write: both ends held here, so that neither the
/// runtime's open nor the shell's ever waits for the other.
fn fifo(path: &Path) -> io::Result<OwnedFd> {
    make_fifo(path)?;
    open_fifo(path, OFlag::O_RDWR)
}

fn make_fifo(path: &Path) -> io::Result<()> {
    let name = CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: `name` is a valid C string for the duration of the call.
    if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn open_fifo(path: &Path, how: OFlag) -> io::Result<OwnedFd> {
    let flags = how | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW;
    Ok(nix::fcntl::open(path, flags, nix::sys::stat::Mode::empty())?)
}

/// A pipe the shell opens by path, both ends held here.
pub(super) struct RunnerPipe {
    pub(super) read: OwnedFd,
    pub(super) write: OwnedFd,
    path: String,
}

impl RunnerPipe {
    /// `name`: the FIFO's name under a [`Transport::Fifo`].
    pub(super) fn new(transport: &Transport, name: &str) -> io::Result<Self> {
        match transport.dir() {
            None => {
                let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
                let path = format!("/proc/{}/fd/{}", std::process::id(), read.as_raw_fd());
                Ok(Self { read, write, path })
            }
            Some(dir) => {
                let path = dir.join(name);
                let read = fifo(&path)?;
                let write = read.try_clone()?;
                Ok(Self { read, write, path: path.to_string_lossy().into_owned() })
            }
        }
    }

    pub(super) fn path(&self) -> String {
        self.path.clone()
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
    /// Under [`Transport::Fifo`], the directory of the slots' FIFOs.
    fifo_dir: Option<PathBuf>,
    /// Under [`Transport::Fifo`], the read end of each slot's FIFO (output, stdout) when the last
    /// call read it to its end: no process holds it, so the next call may write through it.
    spent: [Option<OwnedFd>; 2],
}

impl OutputSlots {
    pub(super) fn new(transport: &Transport) -> io::Result<Self> {
        let null: OwnedFd = std::fs::OpenOptions::new().write(true).open("/dev/null")?.into();
        let fifo_dir = transport.dir().map(Path::to_path_buf);
        Ok(Self {
            output: null.try_clone()?,
            stdout: null.try_clone()?,
            null,
            stdout_lent: false,
            fifo_dir,
            spent: [None, None],
        })
    }

    pub(super) fn paths(&self) -> (String, String) {
        match &self.fifo_dir {
            None => {
                let pid = std::process::id();
                (
                    format!("/proc/{pid}/fd/{}", self.output.as_raw_fd()),
                    format!("/proc/{pid}/fd/{}", self.stdout.as_raw_fd()),
                )
            }
            Some(dir) => (dir.join("output").display().to_string(), dir.join("stdout").display().to_string()),
        }
    }

    /// A new pipe for a call's output (`stdout`: for its split-off stdout), `(read, write)`, both
    /// non-blocking; [`Self::lend`] puts the write end where the runner opens it. Under a FIFO
    /// transport, the slot's FIFO again when the last call read it to its end ([`Self::give_back`]:
    /// an `open`), else a fresh FIFO renamed over the slot's path (a `mkfifo`, two `open`s and a
    /// `rename`). The call's reader is the pipe's only one, so that a producer the call stops reading
    /// (an extracted `| head`) gets SIGPIPE, as under bash.
    pub(super) fn pipe(&mut self, stdout: bool) -> io::Result<(OwnedFd, OwnedFd)> {
        let Some(dir) = &self.fifo_dir else { return held_output_pipe() };
        let name = if stdout { "stdout" } else { "output" };
        if let Some(reader) = self.spent[usize::from(stdout)].take() {
            let writer = open_fifo(&dir.join(name), OFlag::O_WRONLY)?;
            return Ok((reader, writer));
        }
        let fresh = dir.join(format!("{name}.new"));
        make_fifo(&fresh).or_else(|_| {
            // One left by a call that failed half-way.
            let _ = std::fs::remove_file(&fresh);
            make_fifo(&fresh)
        })?;
        // Not read-write: the reader must see the end of the output once the shell and its
        // processes close their ends. A non-blocking open for reading never waits; for writing it
        // succeeds once there is a reader.
        let reader = open_fifo(&fresh, OFlag::O_RDONLY)?;
        let writer = open_fifo(&fresh, OFlag::O_WRONLY)?;
        std::fs::rename(&fresh, dir.join(name))?;
        Ok((reader, writer))
    }

    /// The read end of a slot's FIFO that a call read to its end (`stdout`: the stdout slot's).
    pub(super) fn give_back(&mut self, reader: OwnedFd, stdout: bool) {
        if self.fifo_dir.is_some() {
            self.spent[usize::from(stdout)] = Some(reader);
        }
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

/// Where the runner reads a command too long (or not ASCII) to travel in the call record: a sealed
/// memfd under [`Transport::Proc`], a file rewritten per call (written aside, then renamed into
/// place) under [`Transport::Fifo`].
pub(super) enum CommandFile {
    Mem(crate::process::memfile::MemFile),
    File(PathBuf),
}

impl CommandFile {
    pub(super) fn new(transport: &Transport) -> io::Result<Self> {
        match transport.dir() {
            None => Ok(Self::Mem(crate::process::memfile::MemFile::new("bashrt-command")?)),
            Some(dir) => Ok(Self::File(dir.join("command"))),
        }
    }

    pub(super) fn path(&self) -> String {
        match self {
            Self::Mem(file) => file.path().to_string(),
            Self::File(path) => path.display().to_string(),
        }
    }

    pub(super) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Self::Mem(file) => file.write(bytes),
            Self::File(path) => {
                let fresh = path.with_extension("new");
                let _ = std::fs::remove_file(&fresh);
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                    .open(&fresh)?;
                file.write_all(bytes)?;
                drop(file);
                std::fs::rename(&fresh, path)
            }
        }
    }
}
