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
use crate::process::child::{ChildKiller, Mark, OwnedChild, SpawnError};
use crate::process::marker::marker_of;
use crate::process::pipe::{bytes_available, held_output_pipe};
use crate::process::procfs::{self, ProcEntry};
use crate::process::{pidfd, tree};

mod background;
mod pipes;
mod start;
mod wait;

use background::alive;
use pipes::{CommandFile, OutputSlots, RunnerPipe, Transport};

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
    /// Confines the shell for its whole life.
    pub sandbox: Option<&'a std::sync::Arc<crate::sandbox::Sandbox>>,
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

pub(crate) struct PersistentShell {
    pid: Pid,
    /// The shell's `$0` (its file name), the first word of its messages.
    name: String,
    /// The shell process; its killer ends it from another thread (pool shutdown while a call runs).
    child: OwnedChild,
    /// Header, command and secret per call, read by the runner.
    calls_pipe: RunnerPipe,
    /// Reports, written by the runner.
    reports: RunnerPipe,
    report_buf: Vec<u8>,
    command: CommandFile,
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
    /// Where the runner's files are; last, so that the directory of a FIFO transport is removed
    /// after the descriptors are closed.
    _transport: Transport,
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
    /// The two characters that name this shell's runner variables ([`protocol::runner_tag`]).
    pub(crate) fn runner_tag(&self) -> String {
        protocol::runner_tag(self.nonce)
    }

    /// The shell's pid.
    pub(crate) fn pid(&self) -> i32 {
        self.pid.as_raw()
    }

    pub(crate) fn kill_handle(&self) -> ChildKiller {
        self.child.killer().clone()
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
        let began = Instant::now();
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
        let (read, write) = self.slots.pipe(false).map_err(ExecError::Setup)?;
        let stdout_pipe = if call.split_stdout { Some(self.slots.pipe(true).map_err(ExecError::Setup)?) } else { None };
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

        out.started(self.pid.as_raw());
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
                let held = outputs.iter().any(OutputReader::has_writers);
                let final_cwd = self.cwd_after(&report.pwd);
                self.pwd.clone_from(&final_cwd);
                // A `/proc` walk costs microseconds per process on the machine: walk only when this
                // call may have left something (a new `$!`, its pipe still held) or what ran before
                // may have changed. Not seen without a walk: a process that both left the tree's
                // parentage (double fork) and closed the call's output, with no `$!`.
                if held || report.last_job != self.last_job || !self.background_unchanged() {
                    let before = std::mem::take(&mut self.background);
                    self.walk_background();
                    if out.follows_jobs() {
                        self.hand_left(&before, began, &mut outputs, out);
                    }
                }
                self.release(&mut outputs, thread);
                self.last_job = report.last_job;
                let result = CallResult::Ran { outcome, final_cwd, background: self.count() };
                Ok(CallReport::new(result, self.file_limit()))
            }
            End::Died => {
                // Read before reaping: a zombie's limits are still there. A runner that could not
                // open its files ends the shell with the command's status.
                let limit = self.file_limit();
                let outcome = self.child.reap()?;
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
        let _ = self.child.terminate_sparing(Duration::ZERO, &self.background);
        alive(&std::mem::take(&mut self.background))
    }

    /// Ends an idle shell the pool no longer keeps: like [`Self::retire`], after a fresh look at what
    /// it runs, so that a background process started since the last look is spared too.
    pub(crate) fn evict(mut self) -> Vec<ProcEntry> {
        if !self.child.is_reaped() {
            self.walk_background();
        }
        self.retire()
    }

    /// Kills the shell and everything it runs, background included (shutdown).
    pub(crate) fn kill(self) {
        drop(self);
    }

    /// The shell could not run the command: kill it (sparing its background) and say why, its death
    /// if it died on its own.
    fn kill_not_started(&mut self) -> Result<CallReport, ExecError> {
        let reason = if self.child.has_exited() {
            replace_reason(self.child.reap()?)
        } else {
            self.child.terminate_sparing(Duration::ZERO, &self.background)?;
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
        let _ = self.child.terminate(Duration::ZERO);
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
