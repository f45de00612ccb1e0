//! The executor: runs one shell script as a child process tree and pushes its output to a consumer.
//!
//! Promises: one blocking call per execution (callers run it on their own thread); stdin is /dev/null;
//! stdout and stderr arrive merged through one pipe, byte-exact; the call returns as soon as the shell
//! has exited, whoever else still holds the pipe; on deadline or cancel the whole process tree is
//! killed (TERM, grace, KILL) and the shell reaped before the call returns.

mod exit_watch;
mod oneshot;
mod pidfd;
mod pipe;
mod procfs;
mod script;
mod script_file;
pub mod snapshot;
mod tree;
mod watch;

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::cancel::CancelToken;
use crate::outcome::Outcome;

pub use oneshot::OneShotExecutor;
pub use script::{compose, StatusMode};

/// Long enough for a process to flush and remove its temporary files on SIGTERM, short enough that a
/// cancelled call still feels immediate.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_millis(200);

/// One script to run, and the limits it runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecRequest {
    /// The shell binary; it runs `<shell> -c <script>` (or `<shell> <file>` for very large scripts).
    pub shell: PathBuf,
    /// The text the shell runs; see [`compose`] for building it from a command.
    pub script: String,
    pub cwd: PathBuf,
    /// Set on top of the inherited environment; later entries win over earlier ones.
    pub env: Vec<(OsString, OsString)>,
    /// Measured from the start of the call; a duration too large to represent means "no deadline".
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL when the tree is killed; zero means SIGKILL at once.
    pub kill_grace: Duration,
}

impl ExecRequest {
    /// A request with no extra environment and the default kill grace.
    pub fn new(
        shell: impl Into<PathBuf>,
        script: impl Into<String>,
        cwd: impl Into<PathBuf>,
        timeout: Duration,
    ) -> Self {
        Self {
            shell: shell.into(),
            script: script.into(),
            cwd: cwd.into(),
            env: Vec::new(),
            timeout,
            kill_grace: DEFAULT_KILL_GRACE,
        }
    }
}

/// What a consumer wants after a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// Receives output chunks: stdout and stderr merged in the order the OS delivered them, raw bytes,
/// arbitrary boundaries (a chunk may end inside a line or inside a UTF-8 sequence).
///
/// The executor drives: it calls `consume` from the thread that called `execute`, never after
/// `execute` returned. Returning [`Flow::Stop`] closes the read end of the output pipe: the producer
/// gets SIGPIPE/EPIPE on its next write, exactly as when a `| head` stage exits. The executor then
/// stops reading and waits for the shell to exit (still honouring the deadline and the cancel token).
pub trait OutputConsumer {
    fn consume(&mut self, chunk: &[u8]) -> Flow;
}

impl<F: FnMut(&[u8]) -> Flow> OutputConsumer for F {
    fn consume(&mut self, chunk: &[u8]) -> Flow {
        self(chunk)
    }
}

/// How one execution ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    pub outcome: Outcome,
    /// From the start of the call to the reaped shell.
    pub duration: Duration,
    /// Processes still alive in the command's process group (or descending from one of them) after
    /// the shell exited. They are left running: the user may have started a server on purpose.
    pub background: u32,
}

/// Why a command could not be run at all. Timeouts, cancels and non-zero exits are not errors:
/// they are [`Outcome`]s.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The shell binary could not be started (missing, not executable, no memory).
    #[error("Failed to start shell {}: {source}", shell.display())]
    Spawn { shell: PathBuf, source: io::Error },
    /// The working directory is missing or not a directory.
    #[error("Cannot run in {}: {source}", cwd.display())]
    Cwd { cwd: PathBuf, source: io::Error },
    /// A script too large for the command line could not be written to a temporary file.
    #[error("Failed to write the script to {}: {source}", path.display())]
    ScriptFile { path: PathBuf, source: io::Error },
    /// The output pipe or the shell's exit watch could not be set up (usually: out of descriptors).
    #[error("Failed to set up the execution: {0}")]
    Setup(io::Error),
    /// Waiting on or reading from the running command failed; the tree was killed before returning.
    #[error("Failed while watching the command: {0}")]
    Io(#[from] io::Error),
}

/// Runs scripts. Implementations block for the whole execution and are shared between threads.
pub trait Executor: Send + Sync {
    /// Errors only when the command could not be started or watched; a command that timed out,
    /// was cancelled, or failed is an `Ok` with the matching [`Outcome`].
    fn execute(
        &self,
        req: &ExecRequest,
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
    ) -> Result<Execution, ExecError>;
}
