//! The bash tool: one tool call through every stage, in order — normalize → intercept → validate →
//! (the run stage: allocate artifact lazily → execute → sink) → shape the tool result.
//!
//! The tool never panics and never returns a Rust error for something the command or its caller did:
//! every outcome, refusals included, is a [`ToolResult`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::arguments::BashParams;
use crate::arguments::{ArgumentError, StdinMode};
use crate::artifact::ArtifactDir;
use crate::cancel::CancelToken;
use crate::exec::pty::ToolUi;
use crate::exec::{CwdMode, StatusMode};
use crate::feed::{ChunkCallback, UpdateCallback};
use crate::intercept::Interceptor;
use crate::job::YieldNow;
use crate::job_tool::JobParams;
use crate::normalize::{normalize_bash_command, LimitKind};
use crate::result::{prepend_ended, refused, shape_tool_result, Details, Limits, Normalization, ToolResult};
use crate::run::{run_on, RunSpec, YieldSpec};
use crate::runtime::Runtime;
use crate::settings::Settings;
use crate::validate::{check_command, resolve_cwd, Timeout};

/// The JSON Schema of a result's [`Details`] as serialized, for protocols that declare what a tool
/// returns (an MCP tool's `outputSchema`).
pub fn details_schema() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().for_serialize().into_generator();
    serde_json::to_value(generator.into_root_schema_for::<Details>()).unwrap_or(serde_json::Value::Null)
}

/// Per-call context from the caller (a mode: print, RPC, MCP, TUI).
pub struct CallContext<'a> {
    /// The session's working directory; the call's `cwd` is resolved against it.
    pub session_cwd: PathBuf,
    /// Where artifacts go; `None` means the output cannot be kept beyond what the model sees.
    pub artifacts: Option<ArtifactDir>,
    /// The tools the caller has; interception suggests only these.
    pub tool_names: Vec<String>,
    /// Cancels the call: its whole process tree is killed and the result says `cancelled`.
    pub cancel: CancelToken,
    /// Called with the model view of the output so far, at most every [`UPDATE_INTERVAL`](crate::UPDATE_INTERVAL).
    pub on_update: Option<UpdateCallback<'a>>,
}

/// How a call may return before its command ends, for a front that can answer early (RPC, MCP): see
/// [`BashTool::execute_yielding`].
pub struct Yielding<'a> {
    /// The caller's id of the call (RPC's `toolCallId`): an abort of that id kills the job it became.
    pub call_id: Option<String>,
    /// Gets the result of a call that yields, once, on the thread running the call, which goes on
    /// running the command.
    pub on_yield: Box<dyn FnOnce(ToolResult) + 'a>,
}

/// How long a `background` call looks at its command before returning (unless it listens sooner).
const BACKGROUND_PEEK: Duration = Duration::from_millis(1000);

/// The shortest yield time: a call always gets a moment to finish at once.
const MIN_YIELD: Duration = Duration::from_millis(100);

/// Jobs running at once, at most, per runtime (a session's server): past it a call that could become
/// one is refused, naming them.
pub const MAX_RUNNING_JOBS: usize = 32;

/// `Not run: 32 jobs are running already (1: npm run dev, …). Stop one with the job tool …`.
fn too_many_jobs(running: &[crate::job::JobInfo]) -> String {
    let each: Vec<String> = running.iter().map(|j| format!("{}: {}", j.id, crate::job::one_line(&j.command))).collect();
    let last = running.last().map_or(1, |j| j.id.0);
    format!(
        "Not run: {} jobs are running already ({}). Stop one with the job tool ({{\"action\": \"kill\", \"id\": {last}}}) or wait for one to end, then run this again.",
        running.len(),
        each.join("; ")
    )
}

/// Who watches a call's output as it arrives.
enum Watch<'w> {
    None,
    /// A UI: it hosts the terminal on the PTY path, else sees the raw chunks.
    Ui(&'w mut dyn ToolUi),
    /// A front that only wants the raw chunks.
    Chunks(&'w mut dyn FnMut(&[u8])),
}

/// The bash tool: the interceptor rules compiled once, then any number of calls (concurrently too), each
/// through the front stages of a tool call, the runtime's run stage, and tool-result shaping.
pub struct BashTool {
    runtime: Arc<Runtime>,
    interceptor: Interceptor,
}

impl BashTool {
    /// The tool on `runtime` ([`Runtime::tool`] does the same). Invalid interceptor rules are skipped and
    /// listed in [`BashTool::warnings`].
    pub fn new(runtime: Arc<Runtime>) -> Self {
        let interceptor = Interceptor::new(&runtime.settings().interceptor_rules);
        Self { runtime, interceptor }
    }

    /// The runtime the tool runs on.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    /// The settings of the tool's runtime.
    pub fn settings(&self) -> &Settings {
        self.runtime.settings()
    }

    /// Settings problems found while compiling (invalid interceptor rules).
    pub fn warnings(&self) -> &[String] {
        self.interceptor.warnings()
    }

    /// Runs one tool call. Never fails: a refusal (blocked, bad cwd, no shell) is an error result too.
    pub fn execute(&self, params: &BashParams, ctx: CallContext<'_>) -> ToolResult {
        self.execute_on(params, ctx, Watch::None, None, None)
    }

    /// Runs one tool call that may return before its command ends: once the call has run for its
    /// yield time (`yield_ms`, else `bash.yieldMs`; a short peek with `background`), or as soon as
    /// its command listens on a port, `yielding.on_yield` gets the output so far and the id of the
    /// job the command goes on as; this function returns when the command ends, with the result it
    /// would have had (its details name the job). Chunks go to `on_chunk` as in
    /// [`BashTool::execute_streaming`], before and after the yield.
    pub fn execute_yielding(
        &self,
        params: &BashParams,
        ctx: CallContext<'_>,
        yielding: Yielding<'_>,
        on_chunk: Option<ChunkCallback<'_>>,
    ) -> ToolResult {
        let watch = match on_chunk {
            Some(on_chunk) => Watch::Chunks(on_chunk),
            None => Watch::None,
        };
        self.execute_on(params, ctx, watch, Some(yielding), None)
    }

    /// Runs one `job` call (list, read, wait, kill) on this runtime's jobs. Never fails: a refusal is
    /// an error result. `cancel` ends a wait early.
    pub fn job(&self, params: &JobParams, cancel: &CancelToken) -> ToolResult {
        let mut result = crate::job_tool::run(&self.runtime, params, cancel);
        prepend_ended(&mut result, self.runtime.jobs().take_unseen_ends());
        result
    }

    /// Kills the job a yielded call with this caller id became; false when there is none running.
    pub fn kill_job_of_call(&self, call_id: &str) -> bool {
        match self.runtime.jobs().by_call(call_id) {
            Some(job) => {
                job.kill();
                true
            }
            None => false,
        }
    }

    /// Runs one tool call and hands `on_chunk` every raw output chunk as it arrives, always on pipes
    /// (never a terminal): for a front that paces and shapes live output itself (MCP progress), which
    /// must see the last chunk too, not only the throttled snapshots of [`CallContext::on_update`].
    pub fn execute_streaming(
        &self,
        params: &BashParams,
        ctx: CallContext<'_>,
        on_chunk: &mut dyn FnMut(&[u8]),
    ) -> ToolResult {
        self.execute_on(params, ctx, Watch::Chunks(on_chunk), None, None)
    }

    /// Runs one tool call that a UI shows: `ui` gets the output as it arrives and, when the PTY path is
    /// selected (`bash.virtualTerminal` on, `PI_NO_PTY` not `1`), the
    /// command runs in a pseudo-terminal that `ui` shows as a console. In a terminal the command runs
    /// as typed: a trailing `| head`/`| tail` stage stays in it (a terminal cannot close a pipe early),
    /// while explicit `head`/`tail` parameters still limit what the model sees.
    pub fn execute_with_ui(&self, params: &BashParams, ctx: CallContext<'_>, ui: &mut dyn ToolUi) -> ToolResult {
        self.execute_on(params, ctx, Watch::Ui(ui), None, None)
    }

    /// [`BashTool::execute_with_ui`] for a UI that keeps commands running as jobs: the call returns
    /// (through `yielding.on_yield`) once its command listens on a port, at its yield time
    /// (`yield_ms`), or as soon as `now` is pulled — never because a program waits for input, which
    /// the person at the UI answers in the console. This function returns when the command ends.
    pub fn execute_with_ui_yielding(
        &self,
        params: &BashParams,
        ctx: CallContext<'_>,
        ui: &mut dyn ToolUi,
        yielding: Yielding<'_>,
        now: YieldNow,
    ) -> ToolResult {
        self.execute_on(params, ctx, Watch::Ui(ui), Some(yielding), Some(now))
    }

    fn execute_on(
        &self,
        params: &BashParams,
        ctx: CallContext<'_>,
        watch: Watch<'_>,
        yielding: Option<Yielding<'_>>,
        now: Option<YieldNow>,
    ) -> ToolResult {
        let settings = self.runtime.settings();
        let ui = matches!(watch, Watch::Ui(_));
        let pty = ui && crate::exec::pty::selected(settings);
        let mut details = Details {
            ignored_arguments: params.notes.ignored.clone(),
            argument_notices: params.notes.notices(),
            ..Details::default()
        };

        // Normalize: an explicit parameter of the same kind wins, and then the command is left whole.
        let original = params.command.trim();
        let normalized = normalize_bash_command(original);
        let mut limits = Limits { head: params.head, tail: params.tail };
        let mut command = original.to_string();
        let mut stop_after = None;
        // In a terminal (a console, or a terminal job) the command runs as typed.
        let in_terminal = pty || params.stdin == Some(StdinMode::Pty);
        if let Some(extracted) = normalized.extracted.filter(|_| !in_terminal) {
            let explicit = match extracted.kind {
                LimitKind::Head => params.head.is_some(),
                LimitKind::Tail => params.tail.is_some(),
            };
            if !explicit {
                match extracted.kind {
                    LimitKind::Head => {
                        limits.head = Some(extracted.count);
                        stop_after = Some(extracted.count);
                    }
                    LimitKind::Tail => limits.tail = Some(extracted.count),
                }
                command = normalized.command.clone();
                details.normalization = Some(Normalization { command: normalized.command, extracted });
            }
        }
        if let Err(e) = check_command(original) {
            return refused(e.to_string(), details);
        }

        // Intercept.
        if settings.interceptor_enabled {
            if let Some(block) = self.interceptor.check(original, &ctx.tool_names) {
                let text = block.error_text(&params.command);
                details.interception = Some(block);
                return refused(text, details);
            }
        }

        // Validate.
        let mut timeout = Timeout::clamp(params.timeout, settings.default_timeout_secs);
        timeout.given_ms = params.notes.timeout_read_as_ms;
        details.timeout = Some(timeout);
        details.timeout_ms = Some(timeout.applied_ms());
        let cwd = match resolve_cwd(&ctx.session_cwd, params.cwd.as_deref()) {
            Ok(cwd) => cwd,
            Err(e) => return refused(e.to_string(), details),
        };

        // Yield: when the front can answer early and the deadline is not sooner.
        let background = params.background == Some(true);
        if background && yielding.is_none() {
            let flag = params.notes.background_flag.clone().unwrap_or_else(|| "background".to_string());
            return refused(ArgumentError::Background(flag).to_string(), details);
        }
        // Jobs are capped: a model that starts servers in a loop is told which ones run.
        if yielding.is_some() && self.runtime.jobs().running_count() >= MAX_RUNNING_JOBS {
            return refused(too_many_jobs(&self.runtime.jobs().running()), details);
        }
        let after = match params.yield_ms {
            Some(ms) => Duration::from_millis(ms),
            None => Duration::from_millis(settings.yield_ms),
        };
        let after = if background { after.min(BACKGROUND_PEEK) } else { after }.max(MIN_YIELD);
        // A yield time past the deadline never comes (the deadline kills first); a listening server
        // still brings the call back.
        let after = (after < timeout.duration()).then_some(after);
        // A pipe or a terminal for input only where a job can hold it (a UI's console is a terminal
        // already).
        let stdin = match params.stdin.unwrap_or_default() {
            StdinMode::Pty if pty => StdinMode::Null,
            other => other,
        };
        if stdin != StdinMode::Null && yielding.is_none() {
            let name = if stdin == StdinMode::Pipe { "pipe" } else { "pty" };
            return refused(
                format!(
                    "Not run: `stdin: \"{name}\"` needs a front that returns running commands as jobs (RPC, MCP); \
                     here give the command its input in the command itself (`printf 'y\\n' | cmd`)"
                ),
                details,
            );
        }
        let sandbox = match crate::run::sandbox_use(&self.runtime, &cwd) {
            Ok(sandbox) => sandbox,
            Err(refusal) => return refused(refusal, details),
        };
        // Escalate: what the call asks beyond the sandbox, as a person decides.
        let sandbox = match &params.sandbox {
            None => sandbox,
            Some(request) => {
                let call_id = yielding.as_ref().and_then(|y| y.call_id.as_deref());
                let ask = crate::sandbox::ApprovalAsk {
                    call_id,
                    command: original,
                    cwd: &cwd,
                    request,
                    cancel: Some(&ctx.cancel),
                };
                match crate::escalate::decide(&self.runtime, sandbox, &ask, params.decided.as_ref()) {
                    Ok(sandbox) => sandbox,
                    Err(refusal) => return refused(refusal, details),
                }
            }
        };
        let yielding = yielding.map(|y| YieldSpec {
            after,
            call_id: y.call_id,
            on_yield: y.on_yield,
            details: &details,
            now,
            // A person at a UI answers a prompt in the console: waiting for input is no reason to return.
            on_input: !ui,
        });

        // Run: allocate the artifact lazily, execute, sink.
        let status = if details.normalization.is_some() { StatusMode::ExtractedLastStage } else { StatusMode::AsIs };
        let (terminal, mut watcher) = match watch {
            Watch::Ui(ui) if pty => (Some(ui), Watch::None),
            other => (None, other),
        };
        let watched = !matches!(watcher, Watch::None);
        let mut forward = |chunk: &[u8]| match &mut watcher {
            Watch::Ui(ui) => ui.output(chunk),
            Watch::Chunks(on_chunk) => on_chunk(chunk),
            Watch::None => {}
        };
        let spec = RunSpec {
            command: &command,
            status,
            cwd: &cwd,
            cwd_mode: CwdMode::Set,
            session: None,
            timeout,
            limits,
            stop_after,
            artifacts: ctx.artifacts.as_ref(),
            cancel: &ctx.cancel,
            on_chunk: if watched { Some(&mut forward) } else { None },
            on_update: ctx.on_update.map(|f| f as &mut dyn FnMut(&str)),
            yielding,
            stdin,
            sandbox,
        };
        let report = match run_on(&self.runtime, spec, terminal) {
            Ok(report) => report,
            Err(e) => return refused(e.to_string(), details),
        };

        // Shape.
        details.shell = Some(report.shell.to_string());
        let yielded = report.job.is_some();
        let mut result = shape_tool_result(report, details);
        if !yielded {
            prepend_ended(&mut result, self.runtime.jobs().take_unseen_ends());
        }
        result
    }
}

impl Runtime {
    /// The bash tool on this runtime (interceptor rules compiled now).
    pub fn tool(self: &Arc<Self>) -> BashTool {
        BashTool::new(Arc::clone(self))
    }
}
