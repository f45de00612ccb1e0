//! The executor: runs one shell script as a child process tree and pushes its output to a consumer.
//!
//! Promises: one blocking call per execution (callers run it on their own thread); stdin is /dev/null;
//! stdout and stderr arrive merged through one pipe, byte-exact (or stdout apart, when the request
//! asks and the executor can, see [`OutputConsumer::stdout_split`]); once the command is done the call
//! returns as soon as the output has been quiet for [`LATE_OUTPUT_QUIET`] (at most
//! [`LATE_OUTPUT_MAX`]), whoever else still holds the pipe; on deadline or cancel the whole process
//! tree is killed (TERM, grace, KILL) before the call returns.
//!
//! Two executors: [`OneShotExecutor`] (a fresh `bash -c` per call) and the shell pool
//! ([`crate::shell::ShellPool`]: long-lived shells, so that state carries from one call to the next).
//! An embedder may bring its own: the runtime needs only the [`Executor`] trait.

mod carry;
mod oneshot;
pub mod pty;
pub(crate) mod reader;
mod script;
mod script_file;
mod shell_path;
pub(crate) mod watch;

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::cancel::CancelToken;
use crate::env::Vars;
use crate::outcome::Outcome;

pub use carry::Carry;
pub(crate) use oneshot::spawn_error;
pub use oneshot::OneShotExecutor;
pub(crate) use script::quote_into;
pub use script::{compose, StatusMode};
pub(crate) use shell_path::{is_bash, ShellResolver};
pub use shell_path::{resolve_shell, ShellError};

/// Long enough for a process to flush and remove its temporary files on SIGTERM, short enough that a
/// cancelled call still feels immediate.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_millis(200);

/// After the shell exits, how long its output is still read while nothing arrives: the late output of
/// the command's own children (`tee >(sha1sum)`, `gzip -d missing &`) comes within it, and a silent
/// background process (`sleep 30 &`) costs no more than this.
pub const LATE_OUTPUT_QUIET: Duration = Duration::from_millis(150);

/// The most time spent reading late output after the shell exited, however chatty what it left
/// running is (`while :; do date; sleep 0.1; done &`).
pub const LATE_OUTPUT_MAX: Duration = Duration::from_secs(1);

/// One script to run, and the limits it runs under.
///
/// `Default` gives `bash` (looked up on PATH) in the current directory with no deadline; the fields
/// added for long-lived shells all default to "behave like a one-shot call".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecRequest {
    /// The shell binary; it runs `<shell> -c <script>` (or `<shell> <file>` for very large scripts).
    pub shell: PathBuf,
    /// The text the shell runs; see [`compose`](crate::compose) for building it from a command.
    pub script: String,
    /// Where the command runs; with [`CwdMode::Persist`], where a session starts. Must exist.
    pub cwd: PathBuf,
    /// Set on top of the inherited environment.
    pub env: Vars,
    /// Measured from the start of the call; a duration too large to represent means "no deadline".
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL when the tree is killed; zero means SIGKILL at once.
    pub kill_grace: Duration,
    /// How `cwd` applies in a long-lived shell; a one-shot shell always starts in `cwd`.
    pub cwd_mode: CwdMode,
    /// Calls with different sessions never share a long-lived shell (part of the [`ShellKey`](crate::shell::ShellKey)).
    pub session: Option<String>,
    /// A file a long-lived shell sources once when it starts (aliases, functions, options of the
    /// user's rc); part of the [`ShellKey`](crate::shell::ShellKey).
    pub snapshot: Option<PathBuf>,
    /// The configured command prefix. `script` already contains it ([`compose`](crate::compose)); it is here because
    /// shells are keyed by it, as the reference does.
    pub prefix: Option<String>,
    /// The script is the producer of a pipeline whose last stage (`| head`, `| tail`) the runtime
    /// applies itself: that stage would have read the producer's stdout only, so the executor may
    /// deliver stdout apart from stderr ([`OutputConsumer::stdout_split`]) and the limit counts
    /// stdout alone, as in bash.
    pub split_stdout: bool,
    /// Run the shell interactive (`<shell> -i -c …`), in a session of its own: no controlling
    /// terminal can stop it (SIGTTIN/SIGTTOU) or be read or changed by it. The snapshot's capture
    /// reads the user's rc files this way. One-shot executions only; a long-lived shell ignores it.
    pub interactive: bool,
    /// A script a one-shot bash reads after the snapshot, before the command: the state of a busy
    /// long-lived shell, carried over ([`Carry`]). A long-lived shell ignores it.
    pub seed: Option<std::sync::Arc<[u8]>>,
    /// Give the command a pipe for stdin instead of `/dev/null`, its write end handed to the consumer
    /// ([`OutputConsumer::stdin_opened`]). One-shot executions only: a long-lived shell runs such a
    /// request in a one-shot shell.
    pub stdin_pipe: bool,
    /// Confine the shell ([`Sandbox::confine`](crate::sandbox::Sandbox)); part of the
    /// [`ShellKey`](crate::shell::ShellKey) by its digest.
    pub sandbox: Option<std::sync::Arc<crate::sandbox::Sandbox>>,
}

impl Default for ExecRequest {
    fn default() -> Self {
        Self {
            shell: PathBuf::from("bash"),
            script: String::new(),
            cwd: PathBuf::from("."),
            env: Vars::default(),
            timeout: Duration::MAX,
            kill_grace: DEFAULT_KILL_GRACE,
            cwd_mode: CwdMode::default(),
            session: None,
            snapshot: None,
            prefix: None,
            split_stdout: false,
            interactive: false,
            seed: None,
            stdin_pipe: false,
            sandbox: None,
        }
    }
}

/// What a long-lived shell does with the request's `cwd`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum CwdMode {
    /// Tool calls: the command runs in `cwd` every time; a `cd` in it does not carry over to the next
    /// call (the model names the directory of each call).
    #[default]
    Set,
    /// Session-level calls (the user's `!cmd`): the command runs where the previous call of the session
    /// ended, as in a terminal; `cwd` is where the session starts, and where it restarts if that
    /// directory is gone.
    Persist,
}

impl ExecRequest {
    /// A request with no extra environment and the default kill grace.
    pub fn new(
        shell: impl Into<PathBuf>,
        script: impl Into<String>,
        cwd: impl Into<PathBuf>,
        timeout: Duration,
    ) -> Self {
        Self { shell: shell.into(), script: script.into(), cwd: cwd.into(), timeout, ..Self::default() }
    }
}

/// What a consumer wants after a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep delivering output.
    Continue,
    /// Close the pipe: the consumer has what it wants (an extracted `| head -n N`).
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
    /// One chunk; the answer says whether to go on reading.
    fn consume(&mut self, chunk: &[u8]) -> Flow;

    /// Called once, before any output, by an executor that honours [`ExecRequest::split_stdout`]:
    /// from then on the command's stdout arrives through [`consume_stdout`](Self::consume_stdout)
    /// and everything else (stderr, bash's own messages) through [`consume`](Self::consume). An
    /// executor that does not split never calls it, and all output comes through `consume`.
    fn stdout_split(&mut self) {}

    /// A stdout chunk of a split execution. [`Flow::Stop`] closes only the stdout pipe (the
    /// producer gets SIGPIPE, as when a `| head` stage exits); stderr is still read.
    fn consume_stdout(&mut self, chunk: &[u8]) -> Flow {
        self.consume(chunk)
    }

    /// The shell running the command has started (a one-shot's, or a long-lived one whose earlier
    /// calls' processes are in its tree too): for a consumer that looks at the command's processes.
    fn started(&mut self, _shell: i32) {}

    /// The write end of the command's stdin, when the request asked for a pipe: whoever holds it
    /// gives the command input, and closing it is the command's end of input.
    fn stdin_opened(&mut self, _stdin: std::os::fd::OwnedFd) {}

    /// The command runs in a terminal the runtime hosts with no UI to show it (a `stdin: "pty"`
    /// job): whoever holds `control` types into it.
    fn terminal_opened(&mut self, _control: pty::PtyControl) {}

    /// On the terminal path: a program of the command is blocked reading its terminal (its name, and
    /// how the terminal is set), or no longer is (`None`).
    fn terminal_reader(&mut self, _reader: Option<(&str, pty::TermMode)>) {}

    /// Whether the consumer follows what outlives the call as jobs (a front that yields): it then
    /// takes what the command leaves running ([`left_running`](Self::left_running)), and a
    /// long-lived shell lends itself to the job the call becomes
    /// ([`shell_on_loan`](Self::shell_on_loan)).
    fn follows_jobs(&self) -> bool {
        false
    }

    /// The long-lived shell running the command goes on with the job the call may become: `loan`,
    /// called when the call yields, lets the shell's other calls start a fresh shell at once instead
    /// of waiting for it or running one-shot. Given before the command starts, when
    /// [`follows_jobs`](Self::follows_jobs) says so.
    fn shell_on_loan(&mut self, _loan: ShellLoan) {}

    /// The command ended leaving processes running (`server &`), new since the call began; see
    /// [`LeftRunning`]. Called once, only when [`follows_jobs`](Self::follows_jobs) said so.
    fn left_running(&mut self, _left: LeftRunning) {}

    /// The call's deadline, when it was moved later since the call began (its job was given more
    /// time): the executor's wait reads it at each wake, and it replaces the request's timeout.
    fn moved_deadline(&self) -> Option<std::time::Instant> {
        None
    }

    /// When the consumer wants [`tick`](Self::tick) called next, even if no output comes; `None`:
    /// never. The executor's wait wakes for it (until the command is done).
    fn next_tick(&self) -> Option<std::time::Instant> {
        None
    }

    /// The time [`next_tick`](Self::next_tick) asked for has come.
    fn tick(&mut self) {}

    /// The call is returning while processes the command left behind still hold its output open:
    /// what they print from now on is not read.
    fn output_left_open(&mut self) {}
}

impl<F: FnMut(&[u8]) -> Flow> OutputConsumer for F {
    fn consume(&mut self, chunk: &[u8]) -> Flow {
        self(chunk)
    }
}

/// What a command left running when it ended (`server &`, `npm run dev &`): the processes that were
/// not there before the call, and the read ends of the call's output pipes they still write to.
/// Whoever takes it keeps reading those pipes (a writer to a full pipe would block) and decides when
/// the processes die; made only by the runtime's executors.
#[derive(Debug)]
pub struct LeftRunning {
    pub(crate) processes: Vec<crate::process::procfs::ProcEntry>,
    pub(crate) outputs: Vec<std::os::fd::OwnedFd>,
}

impl LeftRunning {
    pub(crate) fn new(processes: Vec<crate::process::procfs::ProcEntry>, outputs: Vec<std::os::fd::OwnedFd>) -> Self {
        Self { processes, outputs }
    }

    /// How many processes were left running.
    pub fn count(&self) -> usize {
        self.processes.len()
    }
}

/// A long-lived shell lent to the job its call became: see [`OutputConsumer::shell_on_loan`]. Made
/// only by the runtime's executors.
pub struct ShellLoan(Box<dyn FnOnce() + Send>);

impl ShellLoan {
    pub(crate) fn new(lend: impl FnOnce() + Send + 'static) -> Self {
        Self(Box::new(lend))
    }

    /// The call became a job: the shell is the job's now.
    pub(crate) fn lend(self) {
        (self.0)();
    }
}

impl fmt::Debug for ShellLoan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ShellLoan")
    }
}

/// How one execution ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// How the command ended.
    pub outcome: Outcome,
    /// From the start of the call to the end of the command (the reaped shell for a one-shot).
    pub duration: Duration,
    /// Processes left running in the background: for a one-shot, alive in the command's process group
    /// (or descending from one of them) or carrying the call's marker (`setsid -f` children) after the
    /// shell exited; for a long-lived shell, every process
    /// of the shell's tree but the shell itself, those of earlier calls included. They are left
    /// running: the user may have started a server on purpose.
    pub background: u32,
    /// The directory the command ended in (a long-lived shell's `$PWD` after the command); `None` for a
    /// one-shot shell, whose directory dies with it.
    pub final_cwd: Option<PathBuf>,
    /// Which shell ran the command, so the result can say when state was lost.
    pub shell: ShellEvent,
    /// The program that was blocked reading the command's terminal when the call ended, by its name
    /// (`python3`, `less`): a command killed at its deadline or cancelled while it waited for input.
    /// Only the terminal path knows it (a pipe call's stdin is `/dev/null`: nothing waits on it).
    pub waiting_for_input: Option<String>,
}

/// Which shell ran a command: where its variables, functions and cwd came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShellEvent {
    /// A new long-lived shell: the first call of its key.
    Started,
    /// The long-lived shell of this key, with the state earlier calls left in it.
    Reused,
    /// A new long-lived shell because the previous one of this key is gone, and with it its
    /// variables, functions and options (a session's cwd is restored).
    Replaced {
        /// Why the previous shell is gone.
        reason: ReplaceReason,
    },
    /// The long-lived shell that ran this command broke or was killed during it (it stopped, stopped
    /// answering, or did not come back from an abort): its state is gone, and the next call of its
    /// key starts a fresh one.
    Lost {
        /// What happened to it, as the next call will say.
        reason: ReplaceReason,
    },
    /// A fresh shell for this call only; no state from earlier calls except the snapshot.
    OneShot {
        /// Why no long-lived shell ran it.
        reason: OneShotReason,
    },
    /// A new long-lived shell because the previous one went on running a job (a call that yielded
    /// in it), started from the state that shell had as last captured.
    Handed {
        /// What of that state the new shell has.
        carried: Carry,
    },
}

/// Why the previous long-lived shell of a key is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplaceReason {
    /// It exited (`exit`, `set -e`, `exec` of a program that ended).
    Exited {
        /// Its exit status.
        code: i32,
    },
    /// Something outside bashrt killed it.
    Signalled {
        /// The signal number.
        signal: i32,
    },
    /// A command timed out; the shell was killed with it, because bash would have gone on with the
    /// rest of the command.
    TimedOut,
    /// A command was cancelled; the shell was killed with it (see `TimedOut`).
    Cancelled,
    /// The pool dropped it: unused for too long, or room was needed for another shell.
    Evicted,
    /// A command lowered its open-file limit below what running the next command needs.
    FileLimit {
        /// The limit it was left with.
        limit: u64,
    },
    /// It could no longer open a command's input or output, so the command never ran.
    Broken,
    /// A call failed inside the runtime (an I/O error, a panicking output consumer); its shell was
    /// killed rather than trusted.
    CallFailed,
    /// Its command stopped it (`kill -STOP $$`): a stopped shell never answers.
    Stopped,
    /// It stopped answering: its command disabled what the runner needs (`enable -n printf echo`,
    /// `set -n`, a DEBUG trap that skips commands or reads stdin).
    Unresponsive,
    /// It could no longer enter a directory that exists (a `cd` broken by its commands).
    CannotCd,
    /// It ended itself: a command redefined or disabled what the runner calls (a function named
    /// `builtin`, `enable -n` of it or of `read` or `eval`).
    RunnerBroken,
    /// It died when a timeout or an abort interrupted its command (bash interrupted just as it
    /// started a program can end so).
    DiedOnInterrupt,
}

impl fmt::Display for ReplaceReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exited { code } => write!(f, "the previous shell exited with status {code}"),
            Self::Signalled { signal } => {
                write!(f, "the previous shell was killed by {}", crate::outcome::signal_name(*signal))
            }
            Self::TimedOut => f.write_str("the previous command timed out and its shell was killed"),
            Self::Cancelled => f.write_str("the previous command was cancelled and its shell was killed"),
            Self::Evicted => f.write_str("the pool closed the previous shell (idle too long, or room was needed)"),
            Self::FileLimit { limit } => {
                write!(f, "the previous shell's open-file limit was lowered to {limit}, too low to run commands")
            }
            Self::Broken => f.write_str("the previous shell could no longer open a command's input or output"),
            Self::CallFailed => f.write_str("the previous call failed inside the runtime and its shell was killed"),
            Self::Stopped => f.write_str("the previous shell was stopped (SIGSTOP) by its command and was killed"),
            Self::Unresponsive => f.write_str(
                "the previous shell stopped answering (its command disabled what bashrt needs) and was killed",
            ),
            Self::CannotCd => f.write_str("the previous shell could no longer change directory and was killed"),
            Self::DiedOnInterrupt => f.write_str("the previous shell died when its command was interrupted"),
            Self::RunnerBroken => f.write_str(
                "the previous shell ended: a command disabled or redefined a builtin bashrt needs \
                 (builtin, read or eval), or wrote into its call pipe",
            ),
        }
    }
}

/// Why a command ran in a one-shot shell rather than a long-lived one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OneShotReason {
    /// The executor keeps no shells ([`OneShotExecutor`]).
    NotPooled,
    /// Another call is running in this key's shell; two commands never share one shell at once. The
    /// fresh shell took what it could of that shell's state.
    ShellBusy {
        /// What of the busy shell's state the fresh one has.
        carried: Carry,
    },
    /// Every shell of the pool is running a command, and the pool is at its size limit.
    PoolFull,
    /// Only bash is driven as a long-lived shell.
    NotBash,
    /// The pool was shut down.
    PoolShutDown,
    /// The command ran in a pseudo-terminal, which gets a fresh shell every time.
    Terminal,
    /// The command's stdin is a pipe for input (`stdin: "pipe"`), which only a one-shot shell gives.
    StdinPipe,
    /// A long-lived shell could not be started or did not answer (the text says why).
    StartFailed {
        /// What went wrong.
        error: String,
    },
}

impl fmt::Display for OneShotReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotPooled => f.write_str("one-shot executor"),
            Self::ShellBusy { carried } => write!(f, "the session's shell is busy with another command; {carried}"),
            Self::PoolFull => f.write_str("every shell of the pool is busy"),
            Self::NotBash => f.write_str("only bash is kept as a long-lived shell"),
            Self::PoolShutDown => f.write_str("the shell pool is shut down"),
            Self::Terminal => f.write_str("the command ran in a pseudo-terminal"),
            Self::StdinPipe => f.write_str("its stdin is a pipe for the job tool's input"),
            Self::StartFailed { error } => write!(f, "a long-lived shell could not be started: {error}"),
        }
    }
}

impl fmt::Display for ShellEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Started => f.write_str("started a new shell"),
            Self::Reused => f.write_str("reused the shell of earlier calls"),
            Self::Replaced { reason } => write!(f, "{reason}; started a fresh one"),
            Self::Lost { reason } => write!(f, "{}; the next command starts a fresh one", lost_text(reason)),
            Self::OneShot { reason } => write!(f, "ran in a one-shot shell: {reason}"),
            Self::Handed { carried } => write!(f, "the previous shell went on running a job; {carried}"),
        }
    }
}

/// What happened to a shell during the call that lost it, in that call's words.
fn lost_text(reason: &ReplaceReason) -> String {
    match reason {
        ReplaceReason::Stopped => "the command stopped its shell (SIGSTOP); the shell was killed".to_string(),
        ReplaceReason::Unresponsive => {
            "the shell stopped answering (the command disabled what bashrt needs); it was killed".to_string()
        }
        ReplaceReason::RunnerBroken => "a command disabled or redefined a builtin bashrt needs (builtin, read or \
                                        eval), or wrote into its call pipe, and the shell ended"
            .to_string(),
        ReplaceReason::TimedOut | ReplaceReason::Cancelled => {
            "the shell did not come back from the interrupt; it was killed".to_string()
        }
        ReplaceReason::DiedOnInterrupt => "the shell died when the command was interrupted".to_string(),
        other => other.to_string(),
    }
}

/// Why a command could not be run at all. Timeouts, cancels and non-zero exits are not errors:
/// they are [`Outcome`]s.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The shell binary could not be started (missing, not executable, no memory).
    #[error("Failed to start shell {}: {source}", shell.display())]
    Spawn {
        /// The shell binary.
        shell: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// The working directory is missing or not a directory.
    #[error("Cannot run in {}: {source}", cwd.display())]
    Cwd {
        /// The directory.
        cwd: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// A script too large for the command line could not be written to a temporary file.
    #[error("Failed to write the script to {}: {source}", path.display())]
    ScriptFile {
        /// The file (or its directory).
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// The output pipe or the shell's exit watch could not be set up (usually: out of descriptors).
    #[error("Failed to set up the execution: {0}")]
    Setup(io::Error),
    /// Waiting on or reading from the running command failed; the tree was killed before returning.
    #[error("Failed while watching the command: {0}")]
    Io(#[from] io::Error),
}

/// Runs scripts. Implementations block for the whole execution and are shared between threads.
///
/// Promises an implementation keeps (the runtime's own executors do): stdin is /dev/null; stdout and
/// stderr arrive merged, byte-exact (or stdout apart, when the request asks and the executor can,
/// see [`OutputConsumer::stdout_split`]); once the command is done the call returns as soon as the
/// output has been quiet for a moment (150 ms, at most 1 s), whoever else still holds the pipe; on
/// deadline or cancel the whole process tree is killed (TERM, grace, KILL) before the call returns.
pub trait Executor: Send + Sync {
    /// Errors only when the command could not be started or watched; a command that timed out,
    /// was cancelled, or failed is an `Ok` with the matching [`Outcome`].
    fn execute(
        &self,
        req: &ExecRequest,
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
    ) -> Result<Execution, ExecError>;

    /// Stops every shell the executor keeps, with its tree; running calls end as if their shell had
    /// been killed. Called when the runtime shuts down. An executor that keeps nothing has nothing to do.
    fn shutdown(&self) {}

    /// The state a shell of its own for `req` starts from (a call whose stdin is a pipe or a
    /// terminal): what the long-lived shell `req` would have run in holds, as last captured, and the
    /// script that recreates it (for [`ExecRequest::seed`]). `None`: no such shell, nothing to carry.
    fn carried(&self, req: &ExecRequest) -> Option<(Carry, Option<std::sync::Arc<[u8]>>)> {
        let _ = req;
        None
    }
}
