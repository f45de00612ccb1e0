//! The one-shot executor: a fresh `<shell> -c <script>` per call, in its own process group, spawned
//! with `posix_spawn` (no `pre_exec`, so the runtime itself is never forked; a confined or interactive
//! shell is forked, to set itself up before `exec`). Promises: the child gets
//! exactly fds 0 (/dev/null), 1 and 2 (one shared pipe, or two when stdout is split off); `$0` is the
//! shell's name and the script is the command alone, so bash's messages read as under `bash -c`; every
//! process of the call carries its own marker (`BASHRT_RUNTIME=<token>.<n>`); the shell is always
//! reaped before `execute` returns, and on any error or panic on the way its tree is killed first.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::reader::OutputReader;
use super::script_file::{ScriptFile, ARG_LIMIT};
use super::watch::{linger, watch_outputs, Ending};
use super::{
    ExecError, ExecRequest, Execution, Executor, OneShotReason, OutputConsumer, ShellEvent, LATE_OUTPUT_MAX,
    LATE_OUTPUT_QUIET,
};
use crate::cancel::CancelToken;
use crate::outcome::Outcome;
use crate::process::child::{Mark, OwnedChild, SpawnError};
use crate::process::marker::{self, marker_of, MARKER_VAR};
use crate::process::pipe::output_pipe;

/// How long processes that closed the output may take to finish exiting before they are counted as
/// left running.
const EXIT_SETTLE: Duration = Duration::from_millis(20);

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
        let bash_env = super::script::bash_env_file(req).map_err(ExecError::Setup)?;
        let script = match bash_env {
            Some(_) => std::borrow::Cow::Borrowed(req.script.as_str()),
            None => super::script::sourcing_snapshot(req.snapshot.as_deref(), &req.script),
        };
        let script_file = if script.len() > ARG_LIMIT {
            let file = ScriptFile::create(&script).map_err(|(path, source)| ExecError::ScriptFile { path, source })?;
            Some(file)
        } else {
            None
        };
        let (read, write) = output_pipe().map_err(ExecError::Setup)?;
        let stdout_pipe = if req.split_stdout { Some(output_pipe().map_err(ExecError::Setup)?) } else { None };
        let mut command = Command::new(&req.shell);
        // `$0` and the prefix of bash's messages, as when the user types `bash -c`.
        if let Some(name) = req.shell.file_name() {
            command.arg0(name);
        }
        if req.interactive {
            command.arg("-i");
        }
        match &script_file {
            Some(file) => command.arg(file.path()),
            // `--`: a command that starts with `-` is a command, not an option of the shell.
            None => command.arg("-c").arg("--").arg(&*script),
        };
        // Input for a job (`stdin: "pipe"`): close-on-exec both ends here; the child's copy of the read
        // end is made its stdin by the spawn.
        let (stdin_read, stdin_write) = match req.stdin_pipe {
            true => {
                let (read, write) =
                    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| ExecError::Setup(e.into()))?;
                (Some(read), Some(write))
            }
            false => (None, None),
        };
        let stdout = match &stdout_pipe {
            Some((_, stdout_write)) => stdout_write.try_clone(),
            None => write.try_clone(),
        };
        // The runtime's marker, made this call's own: `<token>.<n>` still starts with the token the
        // reaper looks for, and finds this call's processes wherever they went.
        let marker = marker_of(&req.env).map(marker::call_marker);
        command
            .current_dir(&req.cwd)
            .envs(req.env.iter().map(|(k, v)| (k, v)))
            .stdin(match &stdin_read {
                Some(read) => Stdio::from(read.try_clone().map_err(ExecError::Setup)?),
                None => Stdio::null(),
            })
            .stdout(Stdio::from(stdout.map_err(ExecError::Setup)?))
            .stderr(Stdio::from(write));
        if req.interactive {
            // A session of its own, which also makes it the leader of a process group of its own,
            // as `process_group(0)` does for the others: the tree is killed the same way.
            // SAFETY: `setsid` is async-signal-safe and touches no memory of the parent's.
            unsafe {
                command.pre_exec(|| nix::unistd::setsid().map(drop).map_err(io::Error::from));
            }
        } else {
            command.process_group(0);
        }
        if let Some(file) = &bash_env {
            command.env("BASH_ENV", file.path());
        }
        if let Some(value) = &marker {
            command.env(MARKER_VAR, value);
        }
        if let Some(sandbox) = &req.sandbox {
            sandbox.confine(&mut command);
        }
        let mark = marker.as_deref().map_or(Mark::Unmarked, Mark::Call);
        // Killed with its tree and reaped if this returns early (an I/O error, a panicking consumer).
        let mut shell = OwnedChild::spawn(command, mark).map_err(|e| match e {
            SpawnError::Io(source) => spawn_error(&req.shell, &req.cwd, source),
            closed => ExecError::Spawn { shell: req.shell.clone(), source: io::Error::other(closed) },
        })?;
        let stdout_read = stdout_pipe.map(|(read, _)| read);

        let mut outputs = vec![OutputReader::new(read)];
        if let Some(read) = stdout_read {
            out.stdout_split();
            outputs.push(OutputReader::stdout(read));
        }
        out.started(shell.pid().as_raw());
        // The child has its copy of the read end; the consumer gets the write end.
        drop(stdin_read);
        if let Some(write) = stdin_write {
            out.stdin_opened(write);
        }
        // A job given more time goes on past the request's deadline: the wait is taken up again
        // with the new one.
        let ending = loop {
            let until = out.moved_deadline().or(deadline);
            match watch_outputs(&mut outputs, &[shell.exit_fd()], cancel, until, out)? {
                Ending::DeadlineReached if out.moved_deadline().is_some_and(|d| Instant::now() < d) => continue,
                ending => break ending,
            }
        };
        let deadline = out.moved_deadline().or(deadline);
        let (outcome, background) = match ending {
            Ending::Done => {
                // After reaping, so that the shell's zombie does not make the group look non-empty
                // (which would cost a `/proc` scan on every call). The group id cannot be reused
                // while the group has members, and an empty group answers ESRCH at once.
                let outcome = shell.reap()?;
                // What the command's children still print (`tee >(sha1sum)`, `cmd &` failing at
                // once) is part of its output; a silent or endless one does not hold the call.
                if linger(&mut outputs, cancel, deadline, LATE_OUTPUT_QUIET, LATE_OUTPUT_MAX, out)? {
                    out.output_left_open();
                }
                let background = shell.killer().survivors(EXIT_SETTLE);
                (outcome, background)
            }
            Ending::DeadlineReached | Ending::Cancelled => {
                // Keep the partial output, then kill, then keep what the dying tree printed.
                for output in &mut outputs {
                    output.drain(out)?;
                }
                shell.terminate(req.kill_grace)?;
                let background = shell.killer().survivors(Duration::ZERO);
                for output in &mut outputs {
                    output.drain(out)?;
                }
                let outcome = match ending {
                    Ending::Cancelled => Outcome::Cancelled,
                    _ if cancel.is_cancelled() => Outcome::Cancelled,
                    _ => Outcome::TimedOut,
                };
                (outcome, background)
            }
        };
        drop(bash_env);
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
        waiting_for_input: None,
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
