//! How a call's wait ends: the report, the shell's death, the deadline or the cancel, and the
//! interrupt that gives the shell its chance to come back.

use super::*;

impl PersistentShell {
    /// Waits for the report, the shell's death, the deadline or the cancel, checking every [`TICK`]
    /// that the shell still answers.
    pub(super) fn wait(
        &mut self,
        output: &mut [OutputReader],
        out: &mut dyn OutputConsumer,
        cancel: &CancelToken,
        deadline: Option<Instant>,
    ) -> Result<End, ExecError> {
        let mut waiting_ticks = 0;
        let given = deadline;
        loop {
            // A job given more time: its new deadline, read at each wake.
            let deadline = out.moved_deadline().or(given);
            let tick = Instant::now() + TICK;
            let until = deadline.map_or(tick, |d| d.min(tick));
            let done = [self.child.exit_fd(), self.reports.read.as_fd()];
            let ending = watch_outputs(output, &done, cancel, Some(until), out)?;
            match ending {
                Ending::Done => {
                    if let Some(report) = self.take_report() {
                        return Ok(End::Report(report));
                    }
                    if self.child.has_exited() {
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
    pub(super) fn interrupt(
        &mut self,
        output: &mut [OutputReader],
        out: &mut dyn OutputConsumer,
        grace: Duration,
    ) -> Result<Option<Report>, ExecError> {
        // The shell first: bash runs the trap once its foreground child is gone, before it would
        // start the command's next step. Not once the secret is read: the command is over, and the
        // trap would send the runner back to read it again.
        if self.calls_pipe.queued() > 0 {
            self.child.killer().signal(Signal::SIGINT);
        }
        let spare = self.background.clone();
        let mut sigint = self.child.killer().interrupt(&spare);
        let never = CancelToken::new().map_err(ExecError::Setup)?;
        let until = Instant::now() + INTERRUPT_WAIT;
        let mut report = None;
        while report.is_none() && Instant::now() < until && !self.child.has_exited() {
            report = self.wait_for_report(output, out, &never, until.min(Instant::now() + INTERRUPT_ROUND))?;
            if report.is_none() {
                sigint.again();
            }
        }
        self.child.killer().terminate_descendants(grace, &self.background);
        if report.is_none() {
            report = self.wait_for_report(output, out, &never, Instant::now() + grace.max(COME_BACK_MIN))?;
        }
        if report.is_none() {
            // Ended by itself (the call says so), or still there and killed now.
            self.died_on_interrupt = self.child.has_exited();
            self.child.terminate_sparing(Duration::ZERO, &self.background)?;
        }
        Ok(report)
    }

    /// The report, if it comes before `until` and the shell neither dies nor stops.
    pub(super) fn wait_for_report(
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
            if self.child.has_exited() || Instant::now() >= until || is_stopped(self.pid) {
                return Ok(None);
            }
            let done = [self.child.exit_fd(), self.reports.read.as_fd()];
            watch_outputs(output, &done, never, Some(until), out)?;
        }
    }

    /// Kills the shell and what the current call started, sparing earlier calls' background.
    pub(super) fn kill_call_tree(&mut self) {
        let _ = self.child.terminate_sparing(Duration::ZERO, &self.background);
        self.background = alive(&self.background);
    }
}
