//! One long-lived bash, driven call by call through [`super::protocol`]. The shell's stdin, stdout and
//! stderr are one Unix socket owned by us (the control channel); each command's output goes through a
//! pipe made for that call alone, which the shell opens as `/proc/<our pid>/fd/<n>`.
//!
//! Promises: a call returns when the command is done (its report arrived), the shell died, the deadline
//! passed or the caller cancelled, never later, whatever else holds the pipe or writes to the socket;
//! background processes keep their pipe (drained by the pool thread) and never write into another
//! call's output; on deadline or cancel the command's whole tree *and the shell* are killed, because
//! bash would go on with the rest of the command once its foreground child died; what earlier calls
//! left running (a server) is spared. The shell is reaped before a call that saw it die returns, and
//! killed with its tree when this value is dropped without [`PersistentShell::retire`].

use std::ffi::OsString;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::signal::Signal;
use nix::unistd::Pid;

use super::pool_thread::PoolThread;
use super::protocol::{self, Report};
use crate::cancel::CancelToken;
use crate::exec::reader::OutputReader;
use crate::exec::spawn_error;
use crate::exec::watch::{watch, Ending};
use crate::exec::{ExecError, Flow, OutputConsumer, ReplaceReason};
use crate::outcome::Outcome;
use crate::process::exit_watch::ExitWatch;
use crate::process::memfile::MemFile;
use crate::process::pipe::output_pipe;
use crate::process::procfs::{self, ProcEntry};
use crate::process::{pidfd, tree};

/// Below this many open files a shell cannot be trusted to run the next command: bash needs fds 0–2,
/// one to read the runner, and its redirections save copies at fd 10 and up.
const MIN_OPEN_FILES: u64 = 16;

/// How long a `/proc` walk's list of background processes is trusted while nothing hints at a change:
/// what a known background process forks later (a server's workers) shows in the count after this.
const BACKGROUND_FRESH: Duration = Duration::from_secs(1);

/// Beyond this, stray bytes on the control socket (traces, trap output) are cut to the tail, where a
/// report being written would be.
const CONTROL_BUF_LIMIT: usize = 1 << 20;
const CONTROL_BUF_KEEP: usize = 16 * 1024;

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

pub(crate) struct PersistentShell {
    pid: Pid,
    exit: ExitWatch,
    killer: Option<KillHandle>,
    /// Our end of the socket that is the shell's stdin, stdout and stderr; non-blocking.
    control: UnixStream,
    /// False after EOF or an error: then only the exit watch tells the end.
    control_open: bool,
    /// The socket said ECONNRESET: the shell closed it with our control line unread.
    control_reset: bool,
    control_buf: Vec<u8>,
    control_line: Vec<u8>,
    command: MemFile,
    runner: MemFile,
    runner_text: Vec<u8>,
    nonce: u64,
    calls: u64,
    id: String,
    /// `$PWD` after the last call.
    pwd: Option<PathBuf>,
    /// `$!` after the last call: a new value means a new background job.
    last_job: Vec<u8>,
    /// What runs besides the shell, as of the last `/proc` walk (empty when cheap checks showed that
    /// nothing could be running). Spared when a call is killed, killed when the shell is evicted.
    background: Vec<ProcEntry>,
    /// Pidfds of `background`, in order: one `poll` tells whether any of them exited.
    background_fds: Vec<OwnedFd>,
    walked_at: Instant,
}

impl PersistentShell {
    /// Spawns `<shell> --noprofile --norc` (from the pool thread, see there) and runs the start-up
    /// call: the snapshot, then `shopt -s expand_aliases`. Honours the call's deadline and cancel.
    pub(crate) fn start(
        spec: &ShellSpec<'_>,
        thread: &PoolThread,
        cancel: &CancelToken,
        deadline: Option<Instant>,
    ) -> Result<Self, StartError> {
        let setup = |e: io::Error| StartError::Exec(ExecError::Setup(e));
        let (control, theirs) = UnixStream::pair().map_err(setup)?;
        control.set_nonblocking(true).map_err(setup)?;
        let theirs = OwnedFd::from(theirs);
        let stdio = [theirs.try_clone().map_err(setup)?, theirs.try_clone().map_err(setup)?, theirs];
        let command = MemFile::new("bashrt-command").map_err(setup)?;
        let runner = MemFile::new("bashrt-runner").map_err(setup)?;

        let child = thread
            .spawn(spawn_fn(spec, stdio))
            .map_err(|source| StartError::Exec(spawn_error(spec.shell, spec.cwd, source)))?;
        let pid =
            Pid::from_raw(i32::try_from(child.id()).map_err(|_| setup(io::Error::other("child pid out of range")))?);
        // Reaping goes through the exit watch, by pid; the `Child` holds no pipes.
        drop(child);
        let exit = match ExitWatch::new(pid) {
            Ok(exit) => exit,
            Err(e) => {
                tree::terminate(pid, pid, Duration::ZERO);
                let _ = nix::sys::wait::waitpid(pid, None);
                return Err(setup(e));
            }
        };
        let killer = pidfd::open(pid.as_raw()).ok().map(|fd| KillHandle(Arc::new(fd)));
        let nonce = RandomState::new().hash_one((std::process::id(), pid.as_raw(), Instant::now()));
        let control_line = protocol::control_line(runner.path());
        let mut shell = Self {
            pid,
            exit,
            killer,
            control,
            control_open: true,
            control_reset: false,
            control_buf: Vec::new(),
            control_line,
            command,
            runner,
            runner_text: Vec::new(),
            nonce,
            calls: 0,
            id: String::new(),
            pwd: None,
            last_job: Vec::new(),
            background: Vec::new(),
            background_fds: Vec::new(),
            walked_at: Instant::now(),
        };

        let mut init = Vec::new();
        if let Some(snapshot) = spec.snapshot {
            init.extend_from_slice(b"\\. ");
            crate::exec::quote_into(&mut init, snapshot.as_os_str().as_bytes());
            init.push(b'\n');
        }
        init.extend_from_slice(b"shopt -s expand_aliases\n");
        let mut discard = |_: &[u8]| Flow::Continue;
        let call = Call { script: &init, cd: None, kill_grace: Duration::ZERO };
        let report = shell.run(&call, &mut discard, cancel, deadline, thread).map_err(StartError::Exec)?;
        match (report.result, report.retire) {
            (CallResult::Ran { outcome: Outcome::Exited { .. }, .. }, None) => Ok(shell),
            (CallResult::Ran { outcome: outcome @ (Outcome::TimedOut | Outcome::Cancelled), .. }, _) => {
                Err(StartError::Interrupted(outcome))
            }
            (CallResult::Ran { outcome, .. }, retire) => Err(StartError::Protocol(match retire {
                Some(ReplaceReason::FileLimit { limit }) => format!("its open-file limit ({limit}) is too low"),
                _ => format!("it ended while sourcing its start-up files ({outcome:?})"),
            })),
            (_, _) => Err(StartError::Protocol(format!(
                "it could not open the files it is given as {} (is /proc mounted and readable?)",
                shell.runner.path()
            ))),
        }
    }

    pub(crate) fn kill_handle(&self) -> Option<KillHandle> {
        self.killer.clone()
    }

    /// `$PWD` after the last call (`None` before the first one).
    pub(crate) fn pwd(&self) -> Option<&Path> {
        self.pwd.as_deref()
    }

    /// Runs one command. Errors only when the call could not be set up or watched; the shell is then
    /// best dropped (which kills it).
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
            return Ok(CallReport { result, retire: None });
        }
        if pidfd::has_exited(self.exit.fd()) {
            // Died while idle: the command never reached it.
            let outcome = self.exit.reap()?;
            self.walk_background();
            return Ok(CallReport { result: CallResult::NotStarted, retire: Some(replace_reason(outcome)) });
        }
        self.calls += 1;
        self.id = format!("{:x}.{}", self.nonce, self.calls);
        self.command.write(call.script).map_err(ExecError::Setup)?;
        let (read, write) = output_pipe().map_err(ExecError::Setup)?;
        let output_path = format!("/proc/{}/fd/{}", std::process::id(), write.as_raw_fd());
        protocol::runner(&mut self.runner_text, &self.id, call.cd, self.command.path(), &output_path);
        self.runner.write(&self.runner_text).map_err(ExecError::Setup)?;
        self.control_buf.clear();
        self.control_reset = false;
        let mut output = OutputReader::new(read);
        if let Err(error) = self.send_control_line() {
            // The shell closed its end (it is dying) or cannot be written to: it cannot run anything.
            tracing::debug!(%error, "control socket refused the command");
            return self.kill_not_started();
        }

        let ending = loop {
            let (done, count) = self.done_fds();
            let ending = watch(&mut output, &done[..count], cancel, deadline, out)?;
            match ending {
                Ending::Done => {
                    if self.control_open {
                        self.read_control();
                    }
                    if let Some(report) = protocol::find_report(&self.control_buf, &self.id) {
                        break End::Report(report);
                    }
                    if pidfd::has_exited(self.exit.fd()) {
                        break End::Died;
                    }
                    // Stray bytes on the socket, or its EOF (the shell `exec`ed a program): go on.
                }
                Ending::DeadlineReached => break End::Killed(Outcome::TimedOut),
                Ending::Cancelled => break End::Killed(Outcome::Cancelled),
            }
        };

        match ending {
            End::Report(Report::CwdFailed) => Ok(CallReport { result: CallResult::CwdFailed, retire: None }),
            End::Report(Report::Ended { status, started, last_job, pwd }) => {
                drop(write);
                output.drain(out)?;
                let held = self.release(output, thread);
                if !started {
                    return self.kill_not_started();
                }
                let final_cwd = if pwd.is_empty() {
                    std::fs::read_link(format!("/proc/{}/cwd", self.pid)).ok()
                } else {
                    Some(PathBuf::from(OsString::from_vec(pwd)))
                };
                self.pwd.clone_from(&final_cwd);
                // A `/proc` walk costs microseconds per process on the machine: walk only when this
                // call may have left something (a new `$!`, its pipe still held) or what ran before
                // may have changed. Not seen without a walk: a process that both left the tree's
                // parentage (double fork) and closed the call's output, with no `$!`.
                if held || last_job != self.last_job || !self.background_unchanged() {
                    self.walk_background();
                }
                self.last_job = last_job;
                let result =
                    CallResult::Ran { outcome: Outcome::Exited { code: status }, final_cwd, background: self.count() };
                Ok(CallReport { result, retire: self.file_limit() })
            }
            End::Died => {
                let outcome = self.exit.reap()?;
                if self.control_open {
                    self.read_control();
                }
                if self.control_reset || self.control_unread() {
                    // Killed before it read the control line (a signal already on its way when the
                    // call began): the command never ran, and a fresh shell may run it.
                    self.walk_background();
                    return Ok(CallReport { result: CallResult::NotStarted, retire: Some(replace_reason(outcome)) });
                }
                drop(write);
                output.drain(out)?;
                // Bash undoes the command's redirections before it runs the EXIT trap, so what the
                // trap printed came on the control socket: it belongs to this call, after the rest.
                if output.fd().is_some() && !self.control_buf.is_empty() {
                    out.consume(&self.control_buf);
                }
                self.release(output, thread);
                self.walk_background();
                let result = CallResult::Ran { outcome, final_cwd: None, background: self.count() };
                Ok(CallReport { result, retire: Some(replace_reason(outcome)) })
            }
            End::Killed(outcome) => {
                // Keep the partial output, then kill, then keep what the dying tree printed.
                output.drain(out)?;
                tree::terminate_sparing(self.pid, self.pid, call.kill_grace, &self.background);
                self.exit.reap()?;
                drop(write);
                output.drain(out)?;
                self.background = alive(&self.background);
                let result = CallResult::Ran { outcome, final_cwd: None, background: self.count() };
                let reason =
                    if outcome == Outcome::Cancelled { ReplaceReason::Cancelled } else { ReplaceReason::TimedOut };
                Ok(CallReport { result, retire: Some(reason) })
            }
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

    /// Kills the shell and everything it runs, background included (eviction, shutdown).
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
    fn background_unchanged(&self) -> bool {
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

    fn count(&self) -> u32 {
        u32::try_from(self.background.len()).unwrap_or(u32::MAX)
    }

    /// What ends the wait for a call: the control socket (the report) while it is open, and the exit.
    fn done_fds(&self) -> ([BorrowedFd<'_>; 2], usize) {
        let exit = self.exit.fd();
        if self.control_open {
            ([exit, self.control.as_fd()], 2)
        } else {
            ([exit, exit], 1)
        }
    }

    fn send_control_line(&mut self) -> io::Result<()> {
        let mut sent = 0;
        while sent < self.control_line.len() {
            // MSG_NOSIGNAL: a dead shell is an error here, never a SIGPIPE for the whole runtime.
            // SAFETY: the pointer and length describe the live tail of `control_line`.
            let n = unsafe {
                libc::send(
                    self.control.as_raw_fd(),
                    self.control_line[sent..].as_ptr().cast(),
                    self.control_line.len() - sent,
                    libc::MSG_NOSIGNAL,
                )
            };
            if n < 0 {
                let error = io::Error::last_os_error();
                match error.kind() {
                    io::ErrorKind::Interrupted => continue,
                    // The socket buffer holds hundreds of KiB and the shell reads everything we
                    // send before it answers, so a full buffer means something else wrote into it.
                    _ => return Err(error),
                }
            }
            sent += n.unsigned_abs();
        }
        Ok(())
    }

    /// Reads what the socket has. EOF and errors close our side for this shell: ECONNRESET, for one,
    /// is how a socket says that the shell died with our control line unread. Whether the shell is
    /// gone is then the exit watch's to tell.
    fn read_control(&mut self) {
        let mut buf = [0u8; 4096];
        loop {
            match (&self.control).read(&mut buf) {
                Ok(0) => {
                    self.control_open = false;
                    return;
                }
                Ok(n) => self.control_buf.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(error) => {
                    tracing::debug!(%error, "control socket closed");
                    self.control_reset |= error.kind() == io::ErrorKind::ConnectionReset;
                    self.control_open = false;
                    return;
                }
            }
        }
        if self.control_buf.len() > CONTROL_BUF_LIMIT {
            let cut = self.control_buf.len() - CONTROL_BUF_KEEP;
            self.control_buf.drain(..cut);
        }
    }

    /// Whether bytes we sent are still in the shell's end of the socket, unread: a socket charges sent
    /// data to the sender until the reader consumed it (`SIOCOUTQ`). Only meaningful while some process
    /// still holds the shell's end (a background subshell); once it is closed, reads say ECONNRESET.
    fn control_unread(&self) -> bool {
        let mut queued: libc::c_int = 0;
        // SAFETY: SIOCOUTQ (= TIOCOUTQ) writes one c_int through the pointer, which points to a local.
        let rc = unsafe { libc::ioctl(self.control.as_raw_fd(), libc::TIOCOUTQ, &mut queued) };
        rc == 0 && queued > 0
    }

    /// Closes the call's pipe, or hands it to the drainer if background processes still write to it.
    /// True when handed over.
    fn release(&self, output: OutputReader, thread: &PoolThread) -> bool {
        if !output.has_writers() {
            return false;
        }
        match output.into_fd() {
            Some(fd) => {
                thread.drain(fd);
                true
            }
            None => false,
        }
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
        Ok(CallReport { result: CallResult::NotStarted, retire: Some(reason) })
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

enum End {
    Report(Report),
    Died,
    Killed(Outcome),
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

/// The closure the pool thread runs to start a shell: `bash --noprofile --norc` reading commands from
/// the socket, in its own process group, killed by the kernel if the pool thread (and so the
/// process) ends before it.
fn spawn_fn(spec: &ShellSpec<'_>, stdio: [OwnedFd; 3]) -> super::pool_thread::SpawnFn {
    let shell = spec.shell.to_path_buf();
    let cwd = spec.cwd.to_path_buf();
    let env = spec.env.to_vec();
    Box::new(move || {
        let [stdin, stdout, stderr] = stdio;
        let parent = nix::unistd::getpid();
        let mut command = Command::new(shell);
        command
            .args(["--noprofile", "--norc"])
            .current_dir(cwd)
            .envs(env)
            .stdin(Stdio::from(stdin))
            .stdout(Stdio::from(stdout))
            .stderr(Stdio::from(stderr))
            .process_group(0);
        // SAFETY: the closure runs in the child between fork and exec and calls only async-signal-safe
        // functions (prctl, getppid), allocating nothing.
        unsafe {
            command.pre_exec(move || {
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
        let child = command.spawn();
        drop(command);
        child
    })
}
