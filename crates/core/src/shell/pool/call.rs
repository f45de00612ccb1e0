//! One call in a pooled shell: run it, or start the shell it needs first.

use super::*;

impl Pool {
    pub(super) fn run_pooled(
        &self,
        call: &mut PooledCall<'_>,
        shell: Option<Box<PersistentShell>>,
        gone: Option<ReplaceReason>,
        session_cwd: Option<PathBuf>,
        capture: Option<u64>,
        handed: Option<(Carry, Option<Arc<[u8]>>)>,
    ) -> Result<Execution, ExecError> {
        let req = call.req;
        let persist = req.cwd_mode == CwdMode::Persist;
        let mut target = match (session_cwd, persist) {
            (Some(cwd), true) => cwd,
            _ => req.cwd.clone(),
        };
        let (mut shell, mut event) = match shell {
            Some(shell) => (shell, ShellEvent::Reused),
            None => {
                let event = gone.clone().map_or(ShellEvent::Started, |reason| ShellEvent::Replaced { reason });
                match (self.start(call, gone)?, handed) {
                    (Started::Shell(mut shell), Some((carried, seed))) => {
                        let carried = self.take_on(call, &mut shell, carried, seed.as_deref());
                        (shell, ShellEvent::Handed { carried })
                    }
                    (Started::Shell(shell), None) => (shell, event),
                    (Started::Done(execution), _) => return Ok(execution.with(event, call.started)),
                }
            }
        };
        if let Some(generation) = capture {
            let captured = capture::capture_shell(&mut shell, &call.thread, call.cancel);
            let retire = captured.retire.clone();
            Self::record(&mut self.lock(), &call.lease.key, generation, captured);
            self.captured.notify_all();
            if let Some(reason) = retire {
                // The capture found the shell broken: the call gets a fresh one, as when a shell
                // cannot run the command.
                add_orphans(&mut self.lock().orphans, shell.retire());
                event = ShellEvent::Replaced { reason: reason.clone() };
                match self.start(call, Some(reason))? {
                    Started::Shell(fresh) => shell = fresh,
                    Started::Done(execution) => return Ok(execution.with(event, call.started)),
                }
            }
        }
        let mut replaced = false;
        loop {
            // A `cd` costs a round trip of its own: only when the shell is not in the directory yet.
            let there = shell.pwd() == Some(target.as_path()) && shell.is_in(&target);
            let cd = if there { None } else { Some(target.as_path()) };
            let step =
                Call { script: req.script.as_bytes(), cd, kill_grace: req.kill_grace, split_stdout: req.split_stdout };
            // A tool call that may become a job lends its shell to it (a session's commands never yield).
            if call.lease.key.key.session.is_none() && call.out.follows_jobs() {
                let loan = self.loan(call, &shell);
                call.lease.loaned = Some(shell.pid());
                call.out.shell_on_loan(loan);
            }
            let report = shell.run(&step, call.out, call.cancel, call.deadline, &call.thread)?;
            match report.result {
                CallResult::Ran { outcome, final_cwd, background } => {
                    let session_cwd = if persist { final_cwd.clone() } else { None };
                    if report.lost {
                        if let Some(reason) = report.retire.clone() {
                            event = ShellEvent::Lost { reason };
                        }
                    }
                    match call.lease.loaned.is_some_and(|pid| self.take_lent(pid)) {
                        true => self.give_back(&call.lease.key, shell, report.retire),
                        false => self.checkin(&call.lease.key, shell, report.retire, session_cwd),
                    }
                    call.lease.open = false;
                    let duration = call.started.elapsed();
                    return Ok(Execution {
                        outcome,
                        duration,
                        background,
                        final_cwd,
                        shell: event,
                        waiting_for_input: None,
                    });
                }
                CallResult::CwdFailed if persist && target != req.cwd => {
                    // The session's directory is gone: start over where the session started.
                    target = req.cwd.clone();
                }
                CallResult::CwdFailed => {
                    self.checkin(&call.lease.key, shell, None, None);
                    call.lease.open = false;
                    return Err(cwd_error(&target));
                }
                CallResult::NotStarted => {
                    // The command did not run, so running it in a fresh shell runs it once.
                    let reason = report.retire.unwrap_or(ReplaceReason::Broken);
                    let orphans = shell.retire();
                    if replaced {
                        self.vacate(&call.lease.key, Some(reason.clone()), orphans);
                        call.lease.open = false;
                        return Err(ExecError::Setup(io::Error::other(format!(
                            "a fresh shell could not run the command either: {reason}"
                        ))));
                    }
                    add_orphans(&mut self.lock().orphans, orphans);
                    replaced = true;
                    event = ShellEvent::Replaced { reason: reason.clone() };
                    match self.start(call, Some(reason))? {
                        Started::Shell(fresh) => shell = fresh,
                        Started::Done(execution) => return Ok(execution.with(event, call.started)),
                    }
                }
            }
        }
    }

    /// Starts the key's shell. A shell that starts but does not answer makes the call run one-shot.
    pub(super) fn start(&self, call: &mut PooledCall<'_>, gone: Option<ReplaceReason>) -> Result<Started, ExecError> {
        let req = call.req;
        let spec = ShellSpec {
            shell: &req.shell,
            env: &req.env,
            snapshot: req.snapshot.as_deref(),
            cwd: &req.cwd,
            sandbox: req.sandbox.as_ref(),
        };
        match PersistentShell::start(&spec, &call.thread, call.cancel, call.deadline) {
            Ok(shell) => {
                self.started(&call.lease.key, Some(shell.kill_handle()));
                Ok(Started::Shell(Box::new(shell)))
            }
            Err(error) => {
                self.vacate(&call.lease.key, gone, Vec::new());
                call.lease.open = false;
                match error {
                    StartError::Exec(error) => Err(error),
                    StartError::Interrupted(outcome) => Ok(Started::Done(Execution {
                        outcome,
                        duration: Duration::ZERO,
                        background: 0,
                        final_cwd: None,
                        shell: ShellEvent::Started,
                        waiting_for_input: None,
                    })),
                    StartError::Protocol(error) => {
                        tracing::warn!(%error, shell = %req.shell.display(), "long-lived shell unusable");
                        let reason = OneShotReason::StartFailed { error };
                        let session_cwd = (req.cwd_mode == CwdMode::Persist).then(|| req.cwd.clone());
                        // Nothing of the command ran yet: its output goes to the caller as usual.
                        Ok(Started::Done(one_shot(req, session_cwd, reason, call.out, call.cancel)?))
                    }
                }
            }
        }
    }
}
