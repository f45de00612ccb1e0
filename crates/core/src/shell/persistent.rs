//! One long-lived bash, driven call by call through [`super::protocol`]. The shell reads its runner
//! loop from a pipe (then EOF); per call the runtime writes a record into the call pipe (the command
//! inline when short, else in a memfd), and the command's output comes through a pipe made for that call
//! alone, put at the shell's output slot (a descriptor number fixed for its life), which the shell
//! opens as `/proc/<our pid>/fd/<n>`. The report comes on the report pipe.
//!
//! Promises: a call returns when the command is done (its report arrived), the shell died, the
//! shell stopped answering (detected within [`TICK`]s: it was stopped, or it consumed the report's
//! secret and no report followed), the deadline passed or the caller cancelled, never later, whatever
//! else holds the pipes. Background processes keep their pipe (drained by the pool thread) and never
//! write into another call's output. On deadline or cancel the command's processes are killed and the
//! shell is interrupted (SIGINT, which the runner traps): a shell that comes back within the grace
//! period keeps its state; one that does not (a command that traps SIGINT) is killed. What earlier
//! calls left running (a server) is spared. The shell is a child subreaper, so what a command orphans
//! (`setsid -f`, a double fork, a pid-hopper's generations) stays in its tree: killed with the command,
//! or counted and spared like any background process when the command ended on its own. The shell is reaped before a call that saw it die returns,
//! and killed with its tree when this value is dropped without [`PersistentShell::retire`].

use std::ffi::OsString;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::fcntl::OFlag;
use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::signal::Signal;
use nix::unistd::Pid;

use super::messages::{self, ParseErrorPrefix};
use super::pool_thread::PoolThread;
use super::protocol::{self, Report, ReportStatus, RunnerPaths};
use crate::cancel::CancelToken;
use crate::exec::reader::OutputReader;
use crate::exec::spawn_error;
use crate::exec::watch::{watch_outputs, Ending};
use crate::exec::{ExecError, Flow, OutputConsumer, ReplaceReason};
use crate::outcome::Outcome;
use crate::process::exit_watch::ExitWatch;
use crate::process::marker::marker_of;
use crate::process::memfile::MemFile;
use crate::process::pipe::{bytes_available, held_output_pipe};
use crate::process::procfs::{self, ProcEntry};
use crate::process::spawn::{self, SpawnError};
use crate::process::{pidfd, tree};

/// Below this many open files a shell cannot be trusted to run the next command: bash needs fds 0–2,
/// the runner's files, and its redirections save copies at fd 10 and up.
const MIN_OPEN_FILES: u64 = 16;

/// How long a `/proc` walk's list of background processes is trusted while nothing hints at a change:
/// what a known background process forks later (a server's workers) shows in the count after this.
const BACKGROUND_FRESH: Duration = Duration::from_secs(1);

/// While a command runs without news, how often the shell is checked for having stopped answering
/// (stopped, or waiting for the next call with no report sent). Two ticks in that state make it
/// broken, so a broken shell is noticed within 0.2 s and replaced at once.
const TICK: Duration = Duration::from_millis(100);

/// How long an interrupted shell gets to come back to its runner after its command's processes are
/// gone, at least: the runner needs microseconds, but the machine may be loaded.
const COME_BACK_MIN: Duration = Duration::from_millis(500);

/// How long the command's processes get to end on SIGINT before they are sent SIGTERM.
const INTERRUPT_WAIT: Duration = Duration::from_millis(200);
/// How often, during [`INTERRUPT_WAIT`], processes that appeared since get their SIGINT.
const INTERRUPT_ROUND: Duration = Duration::from_millis(20);

/// Report bytes kept at most: a command that floods the report pipe with forged records is cut to
/// the tail, where the real report would be.
const REPORT_BUF_LIMIT: usize = 64 * 1024;

/// What a shell is started with; the key of the pool, minus what does not reach the process.
pub(crate) struct ShellSpec<'a> {
    pub shell: &'a Path,
    pub env: &'a [(OsString, OsString)],
    pub snapshot: Option<&'a Path>,
    /// Where the shell process starts.
    pub cwd: &'a Path,
}

/// One command to run.
pub(crate) struct Call<'a> {
    pub script: &'a [u8],
    /// `cd` there before the command; the command does not run if that fails.
    pub cd: Option<&'a Path>,
    pub kill_grace: Duration,
    /// Deliver the command's stdout apart from the rest ([`OutputConsumer::stdout_split`]).
    pub split_stdout: bool,
}

/// How a call went.
#[derive(Debug)]
pub(crate) enum CallResult {
    /// The command ran: to its end, or until the shell died or was killed.
    Ran { outcome: Outcome, final_cwd: Option<PathBuf>, background: u32 },
    /// `cd` to the call's directory failed; the command did not run, the shell is fine.
    CwdFailed,
    /// The command did not run because the shell could not run it; see the report's `retire`.
    NotStarted,
}

#[derive(Debug)]
pub(crate) struct CallReport {
    pub result: CallResult,
    /// Set when the shell must not run another command, with the reason the next call will give.
    pub retire: Option<ReplaceReason>,
    /// The shell broke or was killed during this call (not merely exited): the call's own result
    /// says so, besides the next call's.
    pub lost: bool,
}

impl CallReport {
    fn new(result: CallResult, retire: Option<ReplaceReason>) -> Self {
        Self { result, retire, lost: false }
    }
}

/// Why a shell could not be started.
#[derive(Debug)]
pub(crate) enum StartError {
    /// The process could not be started at all (missing shell, missing cwd, no fds).
    Exec(ExecError),
    /// It started but did not answer as expected; a one-shot shell may still work.
    Protocol(String),
    /// The call's deadline passed or it was cancelled while the shell was starting.
    Interrupted(Outcome),
}

/// Kills a shell from another thread (pool shutdown while a call runs), race-free through a pidfd.
#[derive(Clone)]
pub(crate) struct KillHandle(Arc<OwnedFd>);

impl KillHandle {
    pub(crate) fn kill(&self) {
        let _ = pidfd::send_signal(self.0.as_fd(), Signal::SIGKILL);
    }
}

/// A pipe the shell opens by path (`/proc/<our pid>/fd/<read end>`), both ends held here.
struct RunnerPipe {
    read: OwnedFd,
    write: OwnedFd,
}

impl RunnerPipe {
    fn new() -> io::Result<Self> {
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
        Ok(Self { read, write })
    }

    fn path(&self) -> String {
        format!("/proc/{}/fd/{}", std::process::id(), self.read.as_raw_fd())
    }

    fn queued(&self) -> usize {
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
struct OutputSlots {
    output: OwnedFd,
    stdout: OwnedFd,
    /// `/dev/null`, write-only: what the slots hold between calls.
    null: OwnedFd,
    /// Whether `stdout` holds a call's pipe.
    stdout_lent: bool,
}

impl OutputSlots {
    fn new() -> io::Result<Self> {
        let null: OwnedFd = std::fs::OpenOptions::new().write(true).open("/dev/null")?.into();
        Ok(Self { output: null.try_clone()?, stdout: null.try_clone()?, null, stdout_lent: false })
    }

    fn paths(&self) -> (String, String) {
        let pid = std::process::id();
        (format!("/proc/{pid}/fd/{}", self.output.as_raw_fd()), format!("/proc/{pid}/fd/{}", self.stdout.as_raw_fd()))
    }

    /// Puts a call's pipes (write ends) in the slots, close-on-exec like every descriptor of the
    /// runtime's: no child spawned meanwhile (another session's shell) inherits them.
    fn lend(&mut self, output: &OwnedFd, stdout: Option<&OwnedFd>) -> io::Result<()> {
        nix::unistd::dup3(output, &mut self.output, OFlag::O_CLOEXEC)?;
        if let Some(stdout) = stdout {
            nix::unistd::dup3(stdout, &mut self.stdout, OFlag::O_CLOEXEC)?;
            self.stdout_lent = true;
        }
        Ok(())
    }

    /// Puts `/dev/null` back: the runtime no longer holds the call's pipes.
    fn vacate(&mut self) {
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

pub(crate) struct PersistentShell {
    pid: Pid,
    /// The shell's `$0` (its file name), the first word of its messages.
    name: String,
    exit: ExitWatch,
    killer: Option<KillHandle>,
    /// Header, command and secret per call, read by the runner.
    calls_pipe: RunnerPipe,
    /// Reports, written by the runner.
    reports: RunnerPipe,
    report_buf: Vec<u8>,
    command: MemFile,
    slots: OutputSlots,
    record: Vec<u8>,
    nonce: u64,
    /// The shell ended by itself while [`PersistentShell::interrupt`] waited for it to come back.
    died_on_interrupt: bool,
    calls: u64,
    secret: String,
    /// The cwd after the last call (`$PWD` when it names the same directory as the kernel's).
    pwd: Option<PathBuf>,
    /// `$!` after the last call: a new value means a new background job.
    last_job: Vec<u8>,
    /// What runs besides the shell, as of the last `/proc` walk (empty when cheap checks showed that
    /// nothing could be running). Spared when a call is killed or the shell evicted; killed at shutdown.
    background: Vec<ProcEntry>,
    /// Pidfds of `background`, in order: one `poll` tells whether any of them exited.
    background_fds: Vec<OwnedFd>,
    walked_at: Instant,
    /// `/proc/<shell>/task/<shell>/children` (the kernel's list of the shell's children, orphans it
    /// adopted included), re-read per call: one `pread` tells whether a process appeared that the
    /// last walk did not see. `None` where the kernel does not offer the file.
    children: Option<std::fs::File>,
    children_buf: Vec<u8>,
}

/// How the wait for a call ended.
enum End {
    Report(Report),
    Died,
    Killed(Outcome),
    /// The shell stopped answering; it is killed and replaced.
    Broken(ReplaceReason),
}

impl PersistentShell {
    /// Spawns `<shell> --noprofile --norc` (from the pool thread, see there) reading the runner, and
    /// runs the start-up call: the snapshot, then `shopt -s expand_aliases`. Honours the call's
    /// deadline and cancel.
    pub(crate) fn start(
        spec: &ShellSpec<'_>,
        thread: &PoolThread,
        cancel: &CancelToken,
        deadline: Option<Instant>,
    ) -> Result<Self, StartError> {
        let setup = |e: io::Error| StartError::Exec(ExecError::Setup(e));
        let calls_pipe = RunnerPipe::new().map_err(setup)?;
        let reports = RunnerPipe::new().map_err(setup)?;
        let command = MemFile::new("bashrt-command").map_err(setup)?;
        let slots = OutputSlots::new().map_err(setup)?;
        let nonce = RandomState::new().hash_one((std::process::id(), Instant::now(), calls_pipe.read.as_raw_fd()));
        let tag = protocol::runner_tag(nonce);
        let (call_path, report_path) = (calls_pipe.path(), reports.path());
        let (output_path, stdout_path) = slots.paths();
        let paths = RunnerPaths {
            call: &call_path,
            command: command.path(),
            report: &report_path,
            output: &output_path,
            stdout: &stdout_path,
        };
        let runner = protocol::runner(&tag, &paths);
        // The runner starts by reporting on a call before the first: this first secret lets it.
        nix::unistd::write(&calls_pipe.write, secret(nonce, 0).as_bytes()).map_err(|e| setup(e.into()))?;
        let (script_read, script_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(|e| setup(e.into()))?;
        // The runner is one line of about 800 bytes: it fits the pipe, so writing never waits. The
        // write end is closed at once: if the runner ever ends, the shell reads EOF and exits.
        let mut script_write = std::fs::File::from(script_write);
        script_write.write_all(&runner).map_err(setup)?;
        drop(script_write);

        let child = thread
            .spawn(spawn_fn(spec, script_read))
            .map_err(|source| StartError::Exec(spawn_error(spec.shell, spec.cwd, source)))?;
        // Reaping goes through the exit watch, by pid; the `Child` holds no pipes.
        let (pid, exit) = spawn::watch(child).map_err(setup)?;
        let killer = pidfd::open(pid.as_raw()).ok().map(|fd| KillHandle(Arc::new(fd)));
        let mut shell = Self {
            pid,
            name: spec.shell.file_name().map_or_else(|| "bash".into(), |n| n.to_string_lossy().into_owned()),
            exit,
            killer,
            calls_pipe,
            reports,
            report_buf: Vec::new(),
            command,
            slots,
            record: Vec::new(),
            nonce,
            died_on_interrupt: false,
            calls: 0,
            secret: String::new(),
            pwd: None,
            last_job: Vec::new(),
            background: Vec::new(),
            background_fds: Vec::new(),
            walked_at: Instant::now(),
            children: std::fs::File::open(format!("/proc/{pid}/task/{pid}/children")).ok(),
            children_buf: Vec::new(),
        };

        let init = protocol::init_script(spec.snapshot);
        let mut discard = |_: &[u8]| Flow::Continue;
        let call = Call { script: &init, cd: None, kill_grace: Duration::ZERO, split_stdout: false };
        let report = shell.run(&call, &mut discard, cancel, deadline, thread).map_err(StartError::Exec)?;
        match (report.result, report.retire) {
            (CallResult::Ran { outcome: Outcome::Exited { .. }, .. }, None) => Ok(shell),
            (CallResult::Ran { outcome: outcome @ (Outcome::TimedOut | Outcome::Cancelled), .. }, _) => {
                Err(StartError::Interrupted(outcome))
            }
            (CallResult::Ran { outcome, .. }, retire) => Err(StartError::Protocol(match retire {
                Some(ReplaceReason::FileLimit { limit }) => format!("its open-file limit ({limit}) is too low"),
                Some(reason @ (ReplaceReason::Stopped | ReplaceReason::Unresponsive)) => {
                    format!("it stopped answering while sourcing its start-up files ({reason})")
                }
                _ => format!("it ended while sourcing its start-up files ({outcome:?})"),
            })),
            (_, _) => Err(StartError::Protocol(format!(
                "it could not open the files it is given as {} (is /proc mounted and readable?)",
                shell.command.path()
            ))),
        }
    }

    /// The two characters that name this shell's runner variables ([`protocol::runner_tag`]).
    pub(crate) fn runner_tag(&self) -> String {
        protocol::runner_tag(self.nonce)
    }

    pub(crate) fn kill_handle(&self) -> Option<KillHandle> {
        self.killer.clone()
    }

    /// The cwd after the last call (`None` before the first one).
    pub(crate) fn pwd(&self) -> Option<&Path> {
        self.pwd.as_deref()
    }

    /// Whether the shell's cwd is `dir` (the same directory, still there).
    pub(crate) fn is_in(&self, dir: &Path) -> bool {
        let cwd = format!("/proc/{}/cwd", self.pid);
        // The kernel's path of the shell's cwd, when it spells `dir`, is the directory at `dir` now (a
        // directory deleted or moved away reads otherwise): one `readlink` instead of two `stat`s.
        // Paths through a symbolic link are compared by inode. (A mount made over the directory
        // while the shell is idle leaves it where it is, as it would leave an interactive shell.)
        // A directory named `x (deleted)` must not pass for the deleted `x`.
        let spelled = |real: &Path| real == dir && !real.as_os_str().as_bytes().ends_with(b" (deleted)");
        std::fs::read_link(&cwd).is_ok_and(|real| spelled(&real)) || same_dir(&cwd, dir)
    }

    /// Runs one command (after a `cd` of its own when the call sets a directory). Errors only when
    /// the call could not be set up or watched; the shell is then best dropped (which kills it).
    pub(crate) fn run(
        &mut self,
        call: &Call<'_>,
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
        deadline: Option<Instant>,
        thread: &PoolThread,
    ) -> Result<CallReport, ExecError> {
        if cancel.is_cancelled() {
            // Nothing to abort yet: no reason to kill a shell that has not seen the command.
            let result = CallResult::Ran { outcome: Outcome::Cancelled, final_cwd: None, background: self.count() };
            return Ok(CallReport::new(result, None));
        }
        if let Some(dir) = call.cd {
            let mut script = Vec::new();
            protocol::cd_script(&mut script, dir);
            let mut discard = |_: &[u8]| Flow::Continue;
            let step = Call { script: &script, cd: None, kill_grace: call.kill_grace, split_stdout: false };
            let report = self.run(&step, &mut discard, cancel, deadline, thread)?;
            match report.result {
                // `cd`'s status is not trusted (`readonly OLDPWD` fails it after it changed
                // directory); the kernel's cwd is.
                CallResult::Ran { outcome: Outcome::Exited { .. }, .. } if report.retire.is_none() => {
                    if !same_dir(format!("/proc/{}/cwd", self.pid), dir) {
                        if dir.is_dir() && nix::unistd::access(dir, nix::unistd::AccessFlags::X_OK).is_ok() {
                            // The directory is there and may be entered, yet the shell could not enter
                            // it: its `cd` is broken (a trap, a disabled builtin). A fresh shell can.
                            self.kill_call_tree();
                            return Ok(CallReport::new(CallResult::NotStarted, Some(ReplaceReason::CannotCd)));
                        }
                        return Ok(CallReport::new(CallResult::CwdFailed, None));
                    }
                }
                _ => return Ok(report),
            }
        }
        // A shell that died while idle is found once the call is written: its record is still in
        // the call pipe, so the command did not start (see `End::Died`).
        let name = self.name.clone();
        let mut words = ParseErrorPrefix::new(out, &name);
        let report = self.run_command(call, &mut words, cancel, deadline, thread);
        words.finish();
        report
    }

    /// The command itself, its output through `out` (which rewrites parse errors), drained in full
    /// before it returns.
    fn run_command(
        &mut self,
        call: &Call<'_>,
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
        deadline: Option<Instant>,
        thread: &PoolThread,
    ) -> Result<CallReport, ExecError> {
        self.calls += 1;
        self.secret = secret(self.nonce, self.calls);
        let inline = protocol::inline(call.script);
        if inline.is_none() {
            // Ended by a NUL, where the runner's `read -d ''` stops: it then succeeds (at the end of
            // the file it would fail, which `set -e` or an ERR trap would act on).
            let mut text = Vec::with_capacity(call.script.len() + 1);
            text.extend_from_slice(call.script);
            text.push(0);
            self.command.write(&text).map_err(ExecError::Setup)?;
        }
        let (read, write) = held_output_pipe().map_err(ExecError::Setup)?;
        let stdout_pipe = if call.split_stdout { Some(held_output_pipe().map_err(ExecError::Setup)?) } else { None };
        // The slots hold the write ends until the command is over: the shell opens them by path.
        self.slots.lend(&write, stdout_pipe.as_ref().map(|(_, write)| write)).map_err(ExecError::Setup)?;
        drop(write);
        let stdout_read = stdout_pipe.map(|(read, _write)| read);
        protocol::call_record(&mut self.record, call.split_stdout, inline, &self.secret);
        // Records left from before (forged ones, a report that came after its call gave up) carry an
        // older secret and can never count for this call: they are read with this call's report.
        self.report_buf.clear();
        let mut outputs = vec![OutputReader::new(read).nonblocking()];
        if let Some(read) = stdout_read {
            out.stdout_split();
            outputs.push(OutputReader::stdout(read).nonblocking());
        }
        let output = &mut outputs[..];
        if let Err(error) = nix::unistd::write(&self.calls_pipe.write, &self.record) {
            // A full call pipe: something else writes into it. The shell cannot be trusted.
            tracing::debug!(%error, "call pipe refused the command");
            return self.kill_not_started();
        }

        let ending = self.wait(output, out, cancel, deadline)?;
        match ending {
            End::Report(report) => {
                self.slots.vacate();
                drain(output, out)?;
                let outcome = match report.status {
                    ReportStatus::Exited(code) => Outcome::Exited { code },
                    // What `bash -c` prints there, before it goes on; here the rest did not run.
                    ReportStatus::LeftLoops(exit) => {
                        out.consume(messages::left_loops(&self.name, exit.name()).as_bytes());
                        Outcome::Exited { code: 1 }
                    }
                    // What `bash -c` dies of; this shell's trap took it back to the runner, and it
                    // serves on.
                    ReportStatus::Interrupted => Outcome::Signalled { signal: libc::SIGINT },
                };
                let held = self.release(&mut outputs, thread);
                let final_cwd = self.cwd_after(&report.pwd);
                self.pwd.clone_from(&final_cwd);
                // A `/proc` walk costs microseconds per process on the machine: walk only when this
                // call may have left something (a new `$!`, its pipe still held) or what ran before
                // may have changed. Not seen without a walk: a process that both left the tree's
                // parentage (double fork) and closed the call's output, with no `$!`.
                if held || report.last_job != self.last_job || !self.background_unchanged() {
                    self.walk_background();
                }
                self.last_job = report.last_job;
                let result = CallResult::Ran { outcome, final_cwd, background: self.count() };
                Ok(CallReport::new(result, self.file_limit()))
            }
            End::Died => {
                // Read before reaping: a zombie's limits are still there. A runner that could not
                // open its files ends the shell with the command's status.
                let limit = self.file_limit();
                let outcome = self.exit.reap()?;
                // A runner that ended itself said why on the report pipe, last.
                self.read_reports();
                let broken = protocol::runner_broken(&self.report_buf);
                if self.calls_pipe.queued() > self.secret.len() {
                    // Killed before it read the call (a signal already on its way when the call
                    // began, or its runner broken by the last command): the command never ran, and a
                    // fresh shell may run it.
                    self.walk_background();
                    let reason = if broken.is_some() { ReplaceReason::RunnerBroken } else { replace_reason(outcome) };
                    return Ok(CallReport::new(CallResult::NotStarted, Some(reason)));
                }
                self.slots.vacate();
                drain(output, out)?;
                self.release(&mut outputs, thread);
                self.walk_background();
                let (outcome, retire, lost) = match broken {
                    // The command ran; what it did to the shell ended it, which this call says too.
                    Some(status) => {
                        (status.map_or(outcome, |code| Outcome::Exited { code }), ReplaceReason::RunnerBroken, true)
                    }
                    None => (outcome, limit.unwrap_or_else(|| replace_reason(outcome)), false),
                };
                let result = CallResult::Ran { outcome, final_cwd: None, background: self.count() };
                Ok(CallReport { result, retire: Some(retire), lost })
            }
            End::Killed(outcome) => {
                // Keep the partial output, then interrupt, then keep what the dying tree printed.
                drain(output, out)?;
                let came_back = self.interrupt(output, out, call.kill_grace)?;
                self.slots.vacate();
                drain(output, out)?;
                let held = self.release(&mut outputs, thread);
                if let Some(report) = came_back {
                    let final_cwd = self.cwd_after(&report.pwd);
                    self.pwd.clone_from(&final_cwd);
                    if held || report.last_job != self.last_job || !self.background_unchanged() {
                        self.walk_background();
                    }
                    self.last_job = report.last_job;
                    let result = CallResult::Ran { outcome, final_cwd, background: self.count() };
                    return Ok(CallReport::new(result, self.file_limit()));
                }
                self.background = alive(&self.background);
                let result = CallResult::Ran { outcome, final_cwd: None, background: self.count() };
                let reason = match (self.died_on_interrupt, outcome) {
                    (true, _) => ReplaceReason::DiedOnInterrupt,
                    (false, Outcome::Cancelled) => ReplaceReason::Cancelled,
                    (false, _) => ReplaceReason::TimedOut,
                };
                Ok(CallReport { result, retire: Some(reason), lost: true })
            }
            End::Broken(reason) => {
                drain(output, out)?;
                self.kill_call_tree();
                self.slots.vacate();
                drain(output, out)?;
                self.release(&mut outputs, thread);
                let result = CallResult::Ran { outcome: Outcome::Error, final_cwd: None, background: self.count() };
                Ok(CallReport { result, retire: Some(reason), lost: true })
            }
        }
    }

    /// Waits for the report, the shell's death, the deadline or the cancel, checking every [`TICK`]
    /// that the shell still answers.
    fn wait(
        &mut self,
        output: &mut [OutputReader],
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
        deadline: Option<Instant>,
    ) -> Result<End, ExecError> {
        let mut waiting_ticks = 0;
        loop {
            let tick = Instant::now() + TICK;
            let until = deadline.map_or(tick, |d| d.min(tick));
            let done = [self.exit.fd(), self.reports.read.as_fd()];
            let ending = watch_outputs(output, &done, cancel, Some(until), out)?;
            match ending {
                Ending::Done => {
                    if let Some(report) = self.take_report() {
                        return Ok(End::Report(report));
                    }
                    if pidfd::has_exited(self.exit.fd()) {
                        return Ok(End::Died);
                    }
                    // Forged or partial records: go on.
                }
                Ending::DeadlineReached if deadline.is_some_and(|d| Instant::now() >= d) => {
                    return Ok(End::Killed(Outcome::TimedOut));
                }
                Ending::DeadlineReached => {
                    if is_stopped(self.pid) {
                        return Ok(End::Broken(ReplaceReason::Stopped));
                    }
                    // The secret is read only after the command ended, right before the report: a
                    // shell that consumed it and sent no report in two ticks never will.
                    if self.calls_pipe.queued() == 0 {
                        waiting_ticks += 1;
                        if waiting_ticks >= 2 {
                            return Ok(match self.take_report() {
                                Some(report) => End::Report(report),
                                None => End::Broken(ReplaceReason::Unresponsive),
                            });
                        }
                    }
                }
                Ending::Cancelled => return Ok(End::Killed(Outcome::Cancelled)),
            }
        }
    }

    /// After a deadline or cancel, what Ctrl-C does at a prompt: SIGINT to the shell (its runner traps
    /// it and returns to the top of its loop) and to the command's processes; what is left of them
    /// after [`INTERRUPT_WAIT`] (and what the command put in the background) is killed, `grace`
    /// between TERM and KILL. Returns the report when the shell came back in time; otherwise kills
    /// the shell too.
    fn interrupt(
        &mut self,
        output: &mut [OutputReader],
        out: &mut dyn OutputConsumer,
        grace: Duration,
    ) -> Result<Option<Report>, ExecError> {
        // The shell first: bash runs the trap once its foreground child is gone, before it would
        // start the command's next step. Not once the secret is read: the command is over, and the
        // trap would send the runner back to read it again.
        if self.calls_pipe.queued() > 0 {
            let _ = nix::sys::signal::kill(self.pid, Signal::SIGINT);
        }
        let spare = self.background.clone();
        let mut sigint = tree::Interrupt::start(self.pid, self.pid, &spare);
        let never = CancelToken::new().map_err(ExecError::Setup)?;
        let until = Instant::now() + INTERRUPT_WAIT;
        let mut report = None;
        while report.is_none() && Instant::now() < until && !pidfd::has_exited(self.exit.fd()) {
            report = self.wait_for_report(output, out, &never, until.min(Instant::now() + INTERRUPT_ROUND))?;
            if report.is_none() {
                sigint.again();
            }
        }
        tree::terminate_descendants(self.pid, self.pid, grace, &self.background);
        if report.is_none() {
            report = self.wait_for_report(output, out, &never, Instant::now() + grace.max(COME_BACK_MIN))?;
        }
        if report.is_none() {
            // Ended by itself (the call says so), or still there and killed now.
            self.died_on_interrupt = pidfd::has_exited(self.exit.fd());
            tree::terminate_sparing(self.pid, self.pid, Duration::ZERO, &self.background);
            self.exit.reap()?;
        }
        Ok(report)
    }

    /// The report, if it comes before `until` and the shell neither dies nor stops.
    fn wait_for_report(
        &mut self,
        output: &mut [OutputReader],
        out: &mut dyn OutputConsumer,
        never: &CancelToken,
        until: Instant,
    ) -> Result<Option<Report>, ExecError> {
        loop {
            if let Some(report) = self.take_report() {
                return Ok(Some(report));
            }
            if pidfd::has_exited(self.exit.fd()) || Instant::now() >= until || is_stopped(self.pid) {
                return Ok(None);
            }
            let done = [self.exit.fd(), self.reports.read.as_fd()];
            watch_outputs(output, &done, never, Some(until), out)?;
        }
    }

    /// Kills the shell and what the current call started, sparing earlier calls' background.
    fn kill_call_tree(&mut self) {
        if !self.exit.is_reaped() {
            tree::terminate_sparing(self.pid, self.pid, Duration::ZERO, &self.background);
            let _ = self.exit.reap();
        }
        self.background = alive(&self.background);
    }

    /// Reads the report pipe and returns this call's report if it is there.
    fn take_report(&mut self) -> Option<Report> {
        self.read_reports();
        protocol::find_report(&self.report_buf, &self.secret)
    }

    fn read_reports(&mut self) {
        let mut buf = [0u8; 4096];
        loop {
            match nix::unistd::read(&self.reports.read, &mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    self.report_buf.extend_from_slice(&buf[..n]);
                    // Short of the buffer: the pipe is empty now, no need to be told so.
                    if n < buf.len() {
                        break;
                    }
                }
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => break,
            }
        }
        if self.report_buf.len() > REPORT_BUF_LIMIT {
            let cut = self.report_buf.len() - REPORT_BUF_LIMIT / 2;
            self.report_buf.drain(..cut);
        }
    }

    /// The cwd the shell ended in: the kernel's (which no command can fake), spelled as `$PWD` when
    /// that names the same directory (so symbolic links stay as the user typed them).
    ///
    /// A directory deleted under the shell is named by its old path (the kernel appends
    /// ` (deleted)`): the next call finds it gone and says so.
    fn cwd_after(&self, pwd: &[u8]) -> Option<PathBuf> {
        let logical = PathBuf::from(OsString::from_vec(pwd.to_vec()));
        let logical = logical.is_absolute().then_some(logical);
        // Gone already (it exited right after its report): `$PWD` is all there is.
        let Ok(real) = std::fs::read_link(format!("/proc/{}/cwd", self.pid)) else { return logical };
        if let Some(gone) = real.as_os_str().as_bytes().strip_suffix(b" (deleted)") {
            if !real.exists() {
                return Some(logical.unwrap_or_else(|| PathBuf::from(OsString::from_vec(gone.to_vec()))));
            }
        }
        match logical {
            // The kernel's path spelled the same way: no symbolic link in between, nothing to compare.
            Some(logical) if logical == real => Some(logical),
            Some(logical) if same_dir(format!("/proc/{}/cwd", self.pid), &logical) => Some(logical),
            _ => Some(real),
        }
    }

    /// Ends a shell that is not to be used again but whose background processes may be wanted (a
    /// server): kills the shell alone if it still runs, and returns what it left running.
    pub(crate) fn retire(mut self) -> Vec<ProcEntry> {
        if !self.exit.is_reaped() {
            tree::terminate_sparing(self.pid, self.pid, Duration::ZERO, &self.background);
            let _ = self.exit.reap();
        }
        alive(&std::mem::take(&mut self.background))
    }

    /// Ends an idle shell the pool no longer keeps: like [`Self::retire`], after a fresh look at what
    /// it runs, so that a background process started since the last look is spared too.
    pub(crate) fn evict(mut self) -> Vec<ProcEntry> {
        if !self.exit.is_reaped() {
            self.walk_background();
        }
        self.retire()
    }

    /// Kills the shell and everything it runs, background included (shutdown).
    pub(crate) fn kill(self) {
        drop(self);
    }

    /// Lists what the shell's tree runs besides the shell (see [`tree::background`]).
    fn walk_background(&mut self) {
        self.background = tree::background(self.pid);
        self.background_fds = self.background.iter().filter_map(|e| pidfd::open(e.pid).ok()).collect();
        self.walked_at = Instant::now();
    }

    /// True when the last walk is recent and every process it found is still running: one `poll`.
    fn background_unchanged(&mut self) -> bool {
        if self.has_unknown_child() {
            return false;
        }
        if self.background.is_empty() {
            return true;
        }
        if self.walked_at.elapsed() > BACKGROUND_FRESH || self.background_fds.len() != self.background.len() {
            return false;
        }
        let mut fds: Vec<PollFd<'_>> =
            self.background_fds.iter().map(|fd| PollFd::new(fd.as_fd(), PollFlags::POLLIN)).collect();
        matches!(nix::poll::poll(&mut fds, PollTimeout::ZERO), Ok(0))
    }

    /// Whether the shell has a child the last walk did not list: an orphan it adopted (`setsid -f`
    /// with its output elsewhere, no `$!`) shows here, and must be spared by the next call's kill
    /// and counted. A `pread` of a few bytes; false when the file cannot be read.
    fn has_unknown_child(&mut self) -> bool {
        use std::os::unix::fs::FileExt;
        let Some(file) = &self.children else { return false };
        self.children_buf.resize(4096, 0);
        let mut len = 0;
        loop {
            match file.read_at(&mut self.children_buf[len..], len as u64) {
                Ok(0) => break,
                Ok(n) => {
                    len += n;
                    if len == self.children_buf.len() {
                        let grown = self.children_buf.len() * 2;
                        self.children_buf.resize(grown, 0);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        let background = &self.background;
        self.children_buf[..len]
            .split(|b| b.is_ascii_whitespace())
            .filter_map(|word| std::str::from_utf8(word).ok()?.parse::<i32>().ok())
            .any(|pid| !background.iter().any(|e| e.pid == pid))
    }

    fn count(&self) -> u32 {
        u32::try_from(self.background.len()).unwrap_or(u32::MAX)
    }

    /// Closes the call's pipe, or hands it to the drainer if background processes still write to it.
    /// True when handed over.
    fn release(&self, outputs: &mut Vec<OutputReader>, thread: &PoolThread) -> bool {
        let mut held = false;
        for output in outputs.drain(..) {
            if !output.has_writers() {
                continue;
            }
            if let Some(fd) = output.into_fd() {
                thread.drain(fd);
                held = true;
            }
        }
        held
    }

    /// The shell could not run the command: kill it (sparing its background) and say why, its death
    /// if it died on its own.
    fn kill_not_started(&mut self) -> Result<CallReport, ExecError> {
        let reason = if pidfd::has_exited(self.exit.fd()) {
            replace_reason(self.exit.reap()?)
        } else {
            tree::terminate_sparing(self.pid, self.pid, Duration::ZERO, &self.background);
            self.exit.reap()?;
            ReplaceReason::Broken
        };
        self.background = alive(&self.background);
        Ok(CallReport::new(CallResult::NotStarted, Some(reason)))
    }

    /// `ulimit -n` can only be lowered: a shell left with too few fds is replaced.
    fn file_limit(&self) -> Option<ReplaceReason> {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: prlimit reads nothing (null new limit) and writes one rlimit through a live pointer.
        let rc = unsafe { libc::prlimit(self.pid.as_raw(), libc::RLIMIT_NOFILE, std::ptr::null(), &mut limit) };
        (rc == 0 && limit.rlim_cur < MIN_OPEN_FILES).then_some(ReplaceReason::FileLimit { limit: limit.rlim_cur })
    }
}

impl Drop for PersistentShell {
    fn drop(&mut self) {
        if !self.exit.is_reaped() {
            tree::terminate(self.pid, self.pid, Duration::ZERO);
            let _ = self.exit.reap();
        }
        if !self.background.is_empty() {
            tree::terminate_orphans(&self.background);
        }
    }
}

/// Delivers what each output pipe holds right now.
fn drain(outputs: &mut [OutputReader], out: &mut dyn OutputConsumer) -> io::Result<()> {
    outputs.iter_mut().try_for_each(|output| output.drain(out))
}

/// The secret of call `n` of the shell drawn as `nonce`: 64 bits as 16 hex digits, so a forger gets
/// one try per call, and the runner takes it in one `read -N`.
fn secret(nonce: u64, n: u64) -> String {
    format!("{:0w$x}", RandomState::new().hash_one((nonce, n)), w = protocol::SECRET_LEN)
}

fn replace_reason(outcome: Outcome) -> ReplaceReason {
    match outcome {
        Outcome::Exited { code } => ReplaceReason::Exited { code },
        Outcome::Signalled { signal } => ReplaceReason::Signalled { signal },
        Outcome::TimedOut => ReplaceReason::TimedOut,
        Outcome::Cancelled => ReplaceReason::Cancelled,
        Outcome::Error => ReplaceReason::CallFailed,
    }
}

/// The entries that are still the same live processes.
fn alive(entries: &[ProcEntry]) -> Vec<ProcEntry> {
    entries
        .iter()
        .filter(|e| procfs::stat(e.pid).is_some_and(|now| now.alive && now.start_time == e.start_time))
        .copied()
        .collect()
}

/// Whether two paths name the same directory (device and inode).
fn same_dir(a: impl AsRef<Path>, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The process is stopped (`T`, e.g. `kill -STOP $$`): it will not go on by itself. A tracer's stop
/// (`t`: a debugger holding it, `strace` between two system calls) is not: the tracer resumes it, and
/// a shell someone is debugging must not be killed for being looked at.
fn is_stopped(pid: Pid) -> bool {
    let mut buf = [0u8; 512];
    let Ok(mut file) = std::fs::File::open(format!("/proc/{pid}/stat")) else { return false };
    let Ok(n) = file.read(&mut buf) else { return false };
    let line = &buf[..n];
    let Some(close) = line.iter().rposition(|&b| b == b')') else { return false };
    line.get(close + 2) == Some(&b'T')
}

/// The closure the pool thread runs to start a shell: `bash --noprofile --norc` reading its runner
/// from `script`, named as bash names itself (`$0` is the shell's file name, so messages read
/// `bash: line 1: …` as under `bash -c`), in a session of its own (no controlling terminal, so
/// nothing it runs can be stopped by the terminal or read from it) and killed by the kernel if the
/// pool thread (and so the process) ends before it.
fn spawn_fn(spec: &ShellSpec<'_>, script: OwnedFd) -> super::pool_thread::SpawnFn {
    let shell = spec.shell.to_path_buf();
    let cwd = spec.cwd.to_path_buf();
    let env = spec.env.to_vec();
    let marker = marker_of(&env).map(std::ffi::OsStr::to_os_string);
    Box::new(move || {
        let parent = nix::unistd::getpid();
        let name = shell.file_name().map_or_else(|| shell.clone().into_os_string(), |n| n.to_os_string());
        let mut command = Command::new(&shell);
        // The runner on stdin, not as `-c`: under `-c`, bash undoes the `eval`'s redirections before
        // an EXIT trap runs, so what `trap 'echo bye' EXIT; exit 3` prints would be lost.
        command
            .arg0(name)
            .args(["--noprofile", "--norc"])
            .current_dir(cwd)
            .envs(env)
            .stdin(Stdio::from(script))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // What a command orphans (`setsid -f`, a double fork, each generation of a pid-hopper) is
        // re-parented to the shell, not to init: it stays in the shell's tree, where an abort's kill,
        // the background count and the shutdown find it.
        crate::process::subreaper::on_exec(&mut command);
        // SAFETY: the closure runs in the child between fork and exec and calls only async-signal-safe
        // functions (setsid, prctl, getppid), allocating nothing.
        unsafe {
            command.pre_exec(move || {
                // A new session (and so process group) with no controlling terminal.
                if libc::setsid() < 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The parent may have died before the prctl: then no signal would ever come.
                if libc::getppid() != parent.as_raw() {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
        // Spawning is rare (once per shell), so the fork+exec that `pre_exec` forces is acceptable.
        spawn::spawn_marked(command, marker.as_deref()).map_err(|e| match e {
            SpawnError::Io(e) => e,
            closed => io::Error::other(closed),
        })
    })
}
