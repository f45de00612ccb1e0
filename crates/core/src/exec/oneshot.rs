//! The one-shot executor: a fresh `<shell> -c <script>` per call, in its own process group, spawned
//! with `posix_spawn` (no `pre_exec`, so the runtime itself is never forked). Promises: the child gets
//! exactly fds 0 (/dev/null), 1 and 2 (one shared pipe); the shell is always reaped before `execute`
//! returns, and on any error or panic on the way its tree is killed first.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::unistd::Pid;

use super::reader::OutputReader;
use super::script_file::{ScriptFile, ARG_LIMIT};
use super::watch::{watch, Ending};
use super::{ExecError, ExecRequest, Execution, Executor, OneShotReason, OutputConsumer, ShellEvent};
use crate::cancel::CancelToken;
use crate::outcome::Outcome;
use crate::process::exit_watch::ExitWatch;
use crate::process::pipe::output_pipe;
use crate::process::tree;

/// Spawns `<shell> -c <script>` per call (`<shell> <file>` for scripts over ~100 KiB).
#[derive(Debug, Clone, Copy, Default)]
pub struct OneShotExecutor;

impl Executor for OneShotExecutor {
    fn execute(
        &self,
        req: &ExecRequest,
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
    ) -> Result<Execution, ExecError> {
        let started = Instant::now();
        if cancel.is_cancelled() {
            // Nothing to abort yet: do not start what would be killed at once.
            return Ok(finished(Outcome::Cancelled, started, 0));
        }
        let deadline = started.checked_add(req.timeout);
        let script = super::script::sourcing_snapshot(req.snapshot.as_deref(), &req.script);
        let script_file = if script.len() > ARG_LIMIT {
            let file = ScriptFile::create(&script).map_err(|(path, source)| ExecError::ScriptFile { path, source })?;
            Some(file)
        } else {
            None
        };
        let (read, write) = output_pipe().map_err(ExecError::Setup)?;
        let mut command = Command::new(&req.shell);
        match &script_file {
            Some(file) => command.arg(file.path()),
            None => command.arg("-c").arg(&*script),
        };
        command
            .current_dir(&req.cwd)
            .envs(req.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::from(write.try_clone().map_err(ExecError::Setup)?))
            .stderr(Stdio::from(write))
            .process_group(0);
        let spawned = command.spawn();
        // The command holds our copies of the write end; EOF and SIGPIPE need them closed.
        drop(command);
        let child = spawned.map_err(|source| spawn_error(&req.shell, &req.cwd, source))?;
        let pid = Pid::from_raw(
            i32::try_from(child.id()).map_err(|_| ExecError::Setup(io::Error::other("child pid out of range")))?,
        );
        // Reaping goes through `waitpid` on the pid; the `Child` holds no pipes (all set above).
        drop(child);
        let mut shell = Shell::new(pid).map_err(ExecError::Setup)?;

        let mut output = OutputReader::new(read);
        let ending = watch(&mut output, &[shell.exit.fd()], cancel, deadline, out)?;
        let (outcome, background) = match ending {
            Ending::Done => {
                output.close();
                // After reaping, so that the shell's zombie does not make the group look non-empty
                // (which would cost a `/proc` scan on every call). The group id cannot be reused
                // while the group has members, and an empty group answers ESRCH at once.
                let outcome = shell.exit.reap()?;
                (outcome, tree::survivors(pid))
            }
            Ending::DeadlineReached | Ending::Cancelled => {
                // Keep the partial output, then kill, then keep what the dying tree printed.
                output.drain(out)?;
                tree::terminate(pid, pid, req.kill_grace);
                shell.exit.reap()?;
                let background = tree::survivors(pid);
                output.drain(out)?;
                let outcome = match ending {
                    Ending::Cancelled => Outcome::Cancelled,
                    _ if cancel.is_cancelled() => Outcome::Cancelled,
                    _ => Outcome::TimedOut,
                };
                (outcome, background)
            }
        };
        drop(script_file);
        Ok(finished(outcome, started, background))
    }
}

fn finished(outcome: Outcome, started: Instant, background: u32) -> Execution {
    Execution {
        outcome,
        duration: started.elapsed(),
        background,
        final_cwd: None,
        shell: ShellEvent::OneShot { reason: OneShotReason::NotPooled },
    }
}

/// A spawned shell that is killed with its tree and reaped if `execute` leaves early (an I/O error,
/// a panicking consumer): no orphaned tree, no zombie.
struct Shell {
    exit: ExitWatch,
}

impl Shell {
    fn new(pid: Pid) -> io::Result<Self> {
        match ExitWatch::new(pid) {
            Ok(exit) => Ok(Self { exit }),
            Err(e) => {
                // Without a way to wait, the command cannot be run; do not leave it running.
                tree::terminate(pid, pid, Duration::ZERO);
                let _ = nix::sys::wait::waitpid(pid, None);
                Err(e)
            }
        }
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        if !self.exit.is_reaped() {
            let pid = self.exit.pid();
            tree::terminate(pid, pid, Duration::ZERO);
            let _ = self.exit.reap();
        }
    }
}

/// A missing working directory makes the spawn fail with the same ENOENT as a missing shell; say
/// which one it was.
pub(crate) fn spawn_error(shell: &Path, cwd: &Path, source: io::Error) -> ExecError {
    let cwd_problem = match std::fs::metadata(cwd) {
        Err(e) => Some(e),
        Ok(meta) if !meta.is_dir() => Some(io::Error::from(io::ErrorKind::NotADirectory)),
        Ok(_) => None,
    };
    match cwd_problem {
        Some(source) => ExecError::Cwd { cwd: cwd.to_path_buf(), source },
        None => ExecError::Spawn { shell: shell.to_path_buf(), source },
    }
}
