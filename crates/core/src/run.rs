//! The run stage: execute one command into a sink and finish. The only place where a command meets the
//! executor, for both surfaces — a tool call arrives here after its front stages (normalize, intercept,
//! validate), a session command as typed — and both leave with the same [`RunReport`] for their own
//! shaping.
//!
//! Promises: the shell, its snapshot and the command's environment come from the runtime; the artifact
//! is allocated only when output spills, or when the view will hide part of the output (a head/tail
//! limit that cuts lines, binary output), so nothing is lost without a link; the artifact is flushed
//! and closed before the report exists.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::arguments::StdinMode;
use crate::artifact::{AllocateError, ArtifactAllocator, ArtifactBudget, ArtifactDir, NewArtifact};
use crate::cancel::CancelToken;
use crate::exec::pty::ToolUi;
use crate::exec::{compose, CwdMode, ExecError, ExecRequest, ShellError, StatusMode};
use crate::feed::{ChunkCallback, Feed, UpdateCallback};
use crate::job::{JobStart, YieldPlan, YieldReason};
use crate::result::{shape_yielded, Details, Limits, RunReport, ToolResult};
use crate::runtime::Runtime;
use crate::sink::{OutputSink, Spill};
use crate::validate::Timeout;
use crate::view::{model_view_detailed, View, ViewOptions};

/// One command to run, as the surface decided it.
pub(crate) struct RunSpec<'a, 'f> {
    /// The command text (after normalization, for a tool call); the runtime adds the prefix.
    pub command: &'a str,
    /// Which exit status the script must end with (see [`compose`]).
    pub status: StatusMode,
    /// Where it runs (with [`CwdMode::Persist`], where the session starts if its shell is new).
    pub cwd: &'a Path,
    pub cwd_mode: CwdMode,
    /// The session whose shell runs it; `None` for tool calls.
    pub session: Option<&'a str>,
    pub timeout: Timeout,
    /// What the view will show; decides whether the whole output must be kept.
    pub limits: Limits,
    /// Stop reading (the producer gets SIGPIPE) after this many lines: an extracted `| head -n N`.
    pub stop_after: Option<u64>,
    /// Where the full output goes when it does not fit; `None`: it is not kept.
    pub artifacts: Option<&'a ArtifactDir>,
    pub cancel: &'a CancelToken,
    /// Raw output chunks as they arrive.
    pub on_chunk: Option<ChunkCallback<'f>>,
    /// Throttled model views of the output so far.
    pub on_update: Option<UpdateCallback<'f>>,
    /// When the call may return before its command ends (a front that can yield).
    pub yielding: Option<YieldSpec<'f>>,
    /// The command's stdin: `/dev/null`, or a pipe or a terminal that its job then holds (only with
    /// `yielding`; a terminal with no UI to show it).
    pub stdin: StdinMode,
    /// What confines the command.
    pub sandbox: crate::result::SandboxUse,
}

/// How a call yields: when, and what its yielded result carries besides the output so far.
pub(crate) struct YieldSpec<'f> {
    /// After the call's start; `None`: only a listening socket makes it yield.
    pub after: Option<Duration>,
    /// The caller's id of the call, so that an abort of it finds the job.
    pub call_id: Option<String>,
    /// Gets the yielded result, once, on the call's thread.
    pub on_yield: Box<dyn FnOnce(ToolResult) + 'f>,
    /// The details the call has so far (notes on its arguments), for the yielded result.
    pub details: &'f Details,
    /// Pulled: yield now.
    pub now: Option<crate::job::YieldNow>,
    /// A program waiting for input makes the call yield (not where a person at a UI answers it).
    pub on_input: bool,
}

/// How a command run in `cwd` is confined: by the runtime's sandbox, or not (`sandbox.mode =
/// "off"`), or, where the kernel cannot confine it, not at all under `sandbox.fallback = "warn"`;
/// `Err(refusal)` under `"refuse"`.
pub(crate) fn sandbox_use(runtime: &Runtime, cwd: &Path) -> Result<crate::result::SandboxUse, String> {
    use crate::result::SandboxUse;
    match runtime.sandbox_for(cwd) {
        Ok(Some(sandbox)) => Ok(SandboxUse::On(sandbox)),
        Ok(None) => Ok(SandboxUse::Off),
        Err(e) => match runtime.settings().sandbox.fallback {
            crate::sandbox::Fallback::Refuse => Err(e.refusal()),
            crate::sandbox::Fallback::Warn => Ok(SandboxUse::Unconfined(e.to_string())),
        },
    }
}

/// Why a command could not be run at all (a command that failed is a report, not an error).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    #[error(transparent)]
    Shell(#[from] ShellError),
    #[error(transparent)]
    Exec(#[from] ExecError),
}

/// Runs `spec` on `runtime` and returns what shaping needs.
pub(crate) fn run<'a>(runtime: &Arc<Runtime>, spec: RunSpec<'a, '_>) -> Result<RunReport<'a>, RunError> {
    run_on(runtime, spec, None)
}

/// [`run`], in a pseudo-terminal hosted by `terminal` when one is given (the PTY path), else by the
/// runtime's executor.
pub(crate) fn run_on<'a>(
    runtime: &Arc<Runtime>,
    spec: RunSpec<'a, '_>,
    terminal: Option<&mut dyn ToolUi>,
) -> Result<RunReport<'a>, RunError> {
    let settings = runtime.settings();
    let shell = runtime.shell()?;
    let hold = SharedHold::default();
    let allocator = spec.artifacts.map(|dir| {
        let runtime = Arc::clone(runtime);
        Box::new(BudgetedAllocator { runtime, dir: dir.clone(), hold: Arc::clone(&hold) }) as Box<dyn ArtifactAllocator>
    });
    // An extracted head may be applied to stdout alone (the executor splits it off): then stderr
    // lines come on top of its count, and the sink keeps every line up to its byte cap. Otherwise the
    // feed stops at that many lines anyway.
    let head_lines = if spec.stop_after.is_some() { Some(u64::MAX) } else { spec.limits.head };
    let sink = OutputSink::new(settings.sink_config(head_lines), allocator);
    let extra: Vec<(&str, OsString)> =
        spec.artifacts.map(|d| vec![("ARTIFACTS", d.path().as_os_str().to_owned())]).unwrap_or_default();
    let mut request = ExecRequest {
        script: compose(spec.command, settings.command_prefix.as_deref(), spec.status),
        cwd: spec.cwd.to_path_buf(),
        env: runtime.command_env(&extra),
        timeout: spec.timeout.duration(),
        kill_grace: Duration::from_millis(settings.kill_grace_ms),
        cwd_mode: spec.cwd_mode,
        session: spec.session.map(str::to_owned),
        snapshot: match spec.sandbox.confining() {
            Some(sandbox) => runtime.snapshot(&shell).and_then(|held| sandbox.snapshot(&held)),
            None => runtime.snapshot(&shell),
        },
        prefix: settings.command_prefix.clone(),
        split_stdout: spec.status == StatusMode::ExtractedLastStage,
        interactive: false,
        seed: None,
        stdin_pipe: spec.stdin == StdinMode::Pipe,
        sandbox: spec.sandbox.confining().cloned(),
        shell,
    };
    // A call with a shell of its own for its input (a pipe, a terminal) starts from the session's
    // state, so that it sees what earlier calls defined.
    let carried = match (spec.stdin != StdinMode::Null || terminal.is_some()) && spec.session.is_none() {
        true => runtime.executor().carried(&request).map(|(carry, seed)| {
            request.seed = seed;
            carry
        }),
        false => None,
    };
    let view = ViewOptions { max_line_chars: settings.max_line_chars };
    // An extracted tail is the limit when no head was extracted (an explicit one of the same kind
    // would have kept the stage in the command).
    let extracted_tail =
        spec.limits.tail.filter(|_| spec.status == StatusMode::ExtractedLastStage && spec.stop_after.is_none());
    let jobs_offered = spec.yielding.is_some();
    let plan = match spec.yielding {
        Some(y) => {
            let shown = Shown {
                command: spec.command.to_string(),
                cwd: spec.cwd.to_path_buf(),
                timeout: spec.timeout,
                limits: spec.limits,
                view,
                budget: settings.view_budget(false),
                artifacts_available: spec.artifacts.is_some(),
                carried: carried.clone(),
            };
            Some(yield_plan(runtime, y, shown, spec.cancel))
        }
        None => None,
    };
    let mut feed = Feed::new(sink, view)
        .yielding(plan)
        .stop_after(spec.stop_after)
        .tail_of_stdout(extracted_tail, settings.max_output_bytes.max(64 * 1024))
        .on_chunk(spec.on_chunk)
        .on_update(spec.on_update);
    // What the call gave the command is /dev/null, and the command gives itself no input of its own
    // (`< file`, a pipe, a here-document): only then is a refused read a missing answer.
    let stdin_null =
        terminal.is_none() && spec.stdin == StdinMode::Null && !crate::result::gives_itself_input(spec.command);
    let mut unseen = UnseenTerminal;
    let terminal = match terminal {
        Some(ui) => Some(ui),
        None if spec.stdin == StdinMode::Pty => Some(&mut unseen as &mut dyn ToolUi),
        None => None,
    };
    let executed = match terminal {
        Some(ui) => Ok(crate::exec::pty::execute(&request, &mut feed, spec.cancel, ui)),
        None => runtime.executor().execute(&request, &mut feed, spec.cancel),
    };
    let execution = match executed {
        Ok(execution) => execution,
        Err(e) => {
            runtime.forget_shell();
            return Err(e.into());
        }
    };

    // A command that was not found may be an alias or function of the user's that the snapshot
    // would have defined: the result says why there is none.
    let snapshot_problem = (execution.outcome == crate::outcome::Outcome::Exited { code: 127 })
        .then(|| runtime.snapshot_problem(&request.shell))
        .flatten();
    let split = feed.split_report();
    let output_left_open = feed.output_left_open();
    let mut limits = spec.limits;
    if split.is_some() && spec.stop_after.is_some() {
        // The head limit was applied to stdout at the source: every line read is what bash shows.
        limits.head = Some(u64::MAX);
    }
    let job = feed.job().cloned();
    // What it left running (`server &`) goes on as a job of its own, where jobs are offered.
    let left_job = feed.take_left().and_then(|left| {
        let processes = left.count();
        let window = settings.sink_config(None);
        let grace = Duration::from_millis(settings.kill_grace_ms);
        // What they print from now on is kept whole, as a yielded call's output is.
        let keep = spec.artifacts.map(|dir| {
            let hold = SharedHold::default();
            let allocator =
                BudgetedAllocator { runtime: Arc::clone(runtime), dir: dir.clone(), hold: Arc::clone(&hold) };
            let mut sink = OutputSink::new(settings.sink_config(None), Some(Box::new(allocator)));
            sink.ensure_spilled();
            let (runtime, dir) = (Arc::clone(runtime), dir.clone());
            let settle: crate::job::Settle =
                Box::new(move |spill: &Spill| settle_spill(&runtime, Some(&dir), spill, &hold));
            (sink, settle)
        });
        crate::job::adopt(runtime.jobs(), spec.command, left, execution.duration, window, grace, keep)
            .map(|info| Box::new((info, processes)))
    });
    let mut sink = feed.into_sink();
    // An error result may have a smaller budget than the sink kept (a client that cuts errors
    // shorter): an output that fits the sink but not that budget is kept whole too.
    let budget = settings.view_budget(!matches!(execution.outcome, crate::outcome::Outcome::Exited { code: 0 }));
    let hides = match split.as_ref().and_then(|s| s.tail.as_ref().map(|t| (s, t))) {
        Some((split, tail)) => split.stdout_lines > tail.shown_stdout_lines,
        None => limits.hides_lines(sink.total_lines()) || sink.total_bytes() > budget as u64,
    };
    // Binary output and clamped lines hide part of the output too: keep it whole.
    if hides || !matches!(model_view_detailed(sink.tail_bytes(), &view, 0), (View::Text(_), 0)) {
        sink.ensure_spilled();
    }
    let output = sink.finish();
    settle_spill(runtime, spec.artifacts, output.spill(), &hold);
    if let Some(job) = &job {
        job.set_artifact(output.spill().artifact());
        job.end(Some(execution.outcome), execution.duration);
    }
    Ok(RunReport {
        output,
        limits,
        outcome: execution.outcome,
        duration_ms: execution.duration.as_millis() as u64,
        background: execution.background,
        cwd: spec.cwd,
        final_cwd: execution.final_cwd,
        timeout: spec.timeout,
        max_bytes: budget,
        view,
        artifacts_available: spec.artifacts.is_some(),
        shell: execution.shell,
        split,
        extracted_head: spec.stop_after,
        output_left_open,
        snapshot_problem,
        background_stopped: runtime.is_single_call(),
        stdin_null,
        waiting_for_input: execution.waiting_for_input,
        job: job.map(|j| Box::new(j.info())),
        jobs_offered,
        carried,
        background_followed: execution.background > 0
            && jobs_offered
            && left_job.is_none()
            && runtime.jobs().running_count() > 0,
        left_job,
        sandbox: spec.sandbox,
    })
}

/// The host of a terminal no UI shows (a `stdin: "pty"` job): the job types into it through the
/// output consumer, which hears of its readers too.
struct UnseenTerminal;

impl ToolUi for UnseenTerminal {
    fn output(&mut self, _chunk: &[u8]) {}

    fn pty_size(&mut self) -> crate::exec::pty::PtySize {
        UNSEEN_TERMINAL_SIZE
    }

    fn pty_started(&mut self, _control: crate::exec::pty::PtyControl) {}

    fn pty_output(&mut self, _raw: &[u8]) {}
}

/// The size of a terminal no UI shows: wide enough that few lines wrap, tall enough for a pager's page.
const UNSEEN_TERMINAL_SIZE: crate::exec::pty::PtySize = crate::exec::pty::PtySize { cols: 120, rows: 40 };

/// What a yielded result shows the output with: the call's own view of it.
struct Shown {
    command: String,
    cwd: PathBuf,
    timeout: crate::validate::Timeout,
    limits: Limits,
    view: ViewOptions,
    budget: usize,
    artifacts_available: bool,
    carried: Option<crate::exec::Carry>,
}

/// The plan of a call that may yield: at its time (or when it listens), a job is made of it and the
/// caller gets the output so far, shaped as the call's result would be, with where the job is.
fn yield_plan<'f>(runtime: &Arc<Runtime>, y: YieldSpec<'f>, shown: Shown, cancel: &CancelToken) -> YieldPlan<'f> {
    let started = Instant::now();
    let deadline = started.checked_add(shown.timeout.duration());
    let (runtime, cancel) = (Arc::clone(runtime), cancel.clone());
    let YieldSpec { after, call_id, on_yield, details, now, on_input } = y;
    let fire = Box::new(move |sink: &OutputSink, reason: YieldReason, stdin: Option<crate::job::JobInput>| {
        let window = runtime.settings().sink_config(None);
        let job = runtime.jobs().add(JobStart {
            command: shown.command.clone(),
            call_id,
            started,
            deadline,
            cancel,
            window,
            lines_before: sink.total_lines(),
            bytes_before: sink.total_bytes(),
            artifact: sink.spilled_to(),
            stdin,
            last_line: {
                let mut last = crate::job::LastLine::default();
                last.push(sink.tail_bytes());
                last
            },
        });
        match reason {
            YieldReason::Listening(addresses) => job.set_listening(addresses),
            YieldReason::AwaitingInput(reader, mode) => job.set_awaiting(Some(reader), mode),
            YieldReason::Time => {}
        }
        let report = RunReport {
            limits: shown.limits,
            duration_ms: started.elapsed().as_millis() as u64,
            artifacts_available: shown.artifacts_available,
            carried: shown.carried.clone(),
            job: Some(Box::new(job.info())),
            ..RunReport::of_output(sink.snapshot(), &shown.cwd, shown.timeout, shown.budget, shown.view)
        };
        on_yield(shape_yielded(report, details.clone(), runtime.jobs().take_unseen_ends()));
        job
    });
    YieldPlan::new(after.and_then(|after| started.checked_add(after)), fire).triggered_by(now).on_input(on_input)
}

/// Allocates artifacts in the session's directory, capped at `artifacts.maxBytes` and growing only as
/// the state directory's budget allows (room reserved step by step as the file grows), and marks the
/// session as in use.
struct BudgetedAllocator {
    runtime: Arc<Runtime>,
    dir: ArtifactDir,
    hold: SharedHold,
}

/// What a call's spill holds of the state directory's budget: its file, and the room reserved for it.
#[derive(Debug, Default)]
struct SpillHold {
    file: PathBuf,
    reserved: u64,
}

/// The spill's hold, shared by its allocator, its budget and the settling at the end of the call.
type SharedHold = Arc<Mutex<SpillHold>>;

/// Room asked of the budget at a time: a step per few megabytes, so that fifty small outputs at once
/// do not each hold a whole artifact's cap.
const RESERVE_STEP: u64 = 4 * 1024 * 1024;

impl ArtifactAllocator for BudgetedAllocator {
    fn allocate(&mut self) -> Result<NewArtifact, AllocateError> {
        if let Some(retention) = self.runtime.retention() {
            if let Some(session) = self.dir.path().parent() {
                retention.hold(session);
            }
        }
        let mut artifact = self.dir.allocator().allocate()?;
        artifact.max_bytes = self.runtime.settings().max_artifact_bytes;
        if self.runtime.retention().is_some() {
            self.hold.lock().unwrap_or_else(PoisonError::into_inner).file = artifact.path.clone();
            let budget = RetentionBudget { runtime: Arc::clone(&self.runtime), hold: Arc::clone(&self.hold) };
            artifact.budget = Some(Box::new(budget));
        }
        Ok(artifact)
    }
}

/// Reserves room under the state directory's budget as an artifact grows.
struct RetentionBudget {
    runtime: Arc<Runtime>,
    hold: SharedHold,
}

impl ArtifactBudget for RetentionBudget {
    fn grow(&mut self, bytes: u64) -> Result<(), String> {
        let Some(retention) = self.runtime.retention() else { return Ok(()) };
        let mut hold = self.hold.lock().unwrap_or_else(PoisonError::into_inner);
        if bytes <= hold.reserved {
            return Ok(());
        }
        // Steps are small beside the budget too, so that a small budget is not taken by one step.
        let step = (bytes - hold.reserved).max(RESERVE_STEP.min(retention.budget() / 16));
        match retention.reserve(&hold.file, step) {
            Ok(plan) => {
                if let Some(plan) = plan {
                    let (items, freed) = (plan.removals.len(), plan.freed_bytes());
                    tracing::info!("state directory over budget: removed {items} item(s), {freed} bytes");
                }
                hold.reserved += step;
                Ok(())
            }
            Err(()) => Err(format!(
                "the state directory is at its budget (state.maxBytes = {} bytes) and what remains is in use or \
was written in the last {}s (state.keepRecentSecs)",
                retention.budget(),
                retention.keep().recent.as_secs()
            )),
        }
    }

    fn release(&mut self) {
        let Some(retention) = self.runtime.retention() else { return };
        let mut hold = self.hold.lock().unwrap_or_else(PoisonError::into_inner);
        if hold.reserved > 0 {
            retention.settle(&hold.file, hold.reserved, 0);
            hold.reserved = 0;
        }
    }
}

/// Gives back the reservation, and removes an artifact whose writing failed (a full disk): it holds an
/// unknown prefix of the output and must never be served as the full output; the result already says
/// the output could not be kept.
fn settle_spill(runtime: &Runtime, dir: Option<&ArtifactDir>, spill: &Spill, hold: &SharedHold) {
    let written = match spill {
        Spill::Written { bytes, dropped, .. } => bytes - dropped,
        Spill::Failed { id: Some(id), .. } => {
            if let Some(dir) = dir {
                if let Err(e) = dir.remove(*id) {
                    tracing::warn!("cannot remove the incomplete artifact {}: {e}", id.url());
                }
            }
            0
        }
        _ => 0,
    };
    let hold = hold.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(retention) = runtime.retention().filter(|_| hold.reserved > 0) {
        retention.settle(&hold.file, hold.reserved, written);
    }
}
