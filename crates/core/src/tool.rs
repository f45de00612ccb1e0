//! The bash tool (`BashTool::execute`, SPEC 2): one tool call through every stage, in order —
//! normalize → intercept → validate → allocate artifact (lazily) → execute → sink → shape result.
//!
//! The tool never panics and never returns a Rust error for something the command or its caller did:
//! every outcome, refusals included, is a [`ToolResult`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::artifact::{ArtifactAllocator, ArtifactDir};
use crate::cancel::CancelToken;
use crate::env::CommandEnv;
use crate::exec::{compose, CwdMode, ExecRequest, Executor, OneShotExecutor, ShellEvent, StatusMode};
use crate::feed::Feed;
pub use crate::feed::UPDATE_INTERVAL;
use crate::intercept::Interceptor;
use crate::normalize::{normalize_bash_command, LimitKind};
use crate::result::{refused, shape_tool_result, Details, Limits, Normalization, RunReport, ToolResult};
use crate::settings::Settings;
use crate::sink::OutputSink;
use crate::validate::{resolve_cwd, Timeout};
use crate::view::{model_view, View, ViewOptions};

/// The tool's parameters, as the model sends them.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashParams {
    /// Command to execute
    pub command: String,
    /// Timeout in seconds (default: 300)
    #[serde(default)]
    pub timeout: Option<f64>,
    /// Working directory (default: cwd)
    #[serde(default)]
    pub cwd: Option<String>,
    /// Return only first N lines of output
    #[serde(default)]
    pub head: Option<u64>,
    /// Return only last N lines of output
    #[serde(default)]
    pub tail: Option<u64>,
}

/// The JSON Schema of [`BashParams`], for tool registration.
pub fn params_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(BashParams)).unwrap_or(serde_json::Value::Null)
}

/// Per-call context from the caller (a mode: print, RPC, MCP, TUI).
pub struct CallContext<'a> {
    /// The session's working directory; the call's `cwd` is resolved against it.
    pub session_cwd: PathBuf,
    /// Where artifacts go; `None` means the output cannot be kept beyond the tail.
    pub artifacts: Option<ArtifactDir>,
    /// The tools the caller has; interception suggests only these.
    pub tool_names: Vec<String>,
    pub cancel: CancelToken,
    /// Called with the model view of the output so far, at most every [`UPDATE_INTERVAL`].
    pub on_update: Option<&'a mut dyn FnMut(&str)>,
}

#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error("Custom shell path not found: {}", .0.display())]
    CustomNotFound(PathBuf),
    #[error("No bash found: set shellPath, or install bash on PATH")]
    NoBash,
}

/// Finds the shell: the `shellPath` setting, else `$SHELL` if it is bash, else bash on PATH.
pub fn resolve_shell(setting: Option<&Path>) -> Result<PathBuf, ShellError> {
    if let Some(path) = setting {
        return if is_executable(path) {
            Ok(path.to_path_buf())
        } else {
            Err(ShellError::CustomNotFound(path.to_path_buf()))
        };
    }
    if let Some(shell) = std::env::var_os("SHELL").map(PathBuf::from) {
        if shell.file_name().is_some_and(|n| n == "bash") && is_executable(&shell) {
            return Ok(shell);
        }
    }
    let path_dirs = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    path_dirs
        .into_iter()
        .chain(["/bin", "/usr/bin", "/usr/local/bin"].map(PathBuf::from))
        .map(|d| d.join("bash"))
        .find(|p| is_executable(p))
        .ok_or(ShellError::NoBash)
}

/// [`resolve_shell`]'s answer, kept for the next calls of a tool or session.
///
/// Resolving stats a few files per call (`$SHELL`, then `bash` in each `PATH` directory). The answer
/// changes only when the shell is installed or removed, or the runtime changes its own `SHELL`/`PATH`
/// (bashrt does not after start-up), so a found shell is kept, and forgotten when a call fails to run
/// ([`ShellCache::forget`]; a shell that vanished fails to spawn), so that the next call resolves again.
/// A failure to resolve is not kept: every call retries and reports it, as before.
#[derive(Debug, Default)]
pub(crate) struct ShellCache {
    resolved: Mutex<Option<PathBuf>>,
}

impl ShellCache {
    /// The kept shell, or [`resolve_shell`]`(setting)`'s (the setting is fixed for the cache's owner).
    pub(crate) fn get(&self, setting: Option<&Path>) -> Result<PathBuf, ShellError> {
        let mut resolved = self.resolved.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(shell) = &*resolved {
            return Ok(shell.clone());
        }
        let shell = resolve_shell(setting)?;
        *resolved = Some(shell.clone());
        Ok(shell)
    }

    /// Resolve again on the next call.
    pub(crate) fn forget(&self) {
        *self.resolved.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The bash tool: settings compiled once, then any number of calls (concurrently too).
pub struct BashTool {
    settings: Settings,
    interceptor: Interceptor,
    executor: Arc<dyn Executor>,
    /// The settings' part of every command's environment, computed once (see [`CommandEnv`] for when the
    /// runtime's own environment is read).
    env: CommandEnv,
    shell: ShellCache,
}

impl BashTool {
    /// Compiles the interceptor rules; invalid ones are skipped and listed in [`BashTool::warnings`].
    pub fn new(settings: Settings) -> Self {
        Self::with_executor(settings, Arc::new(OneShotExecutor))
    }

    pub fn with_executor(settings: Settings, executor: Arc<dyn Executor>) -> Self {
        let interceptor = Interceptor::new(&settings.interceptor_rules);
        let env = CommandEnv::from_process(settings.non_interactive_env, &settings.env);
        Self { settings, interceptor, executor, env, shell: ShellCache::default() }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Settings problems found while compiling (invalid interceptor rules).
    pub fn warnings(&self) -> &[String] {
        self.interceptor.warnings()
    }

    pub fn execute(&self, params: &BashParams, ctx: CallContext<'_>) -> ToolResult {
        let mut details = Details::default();

        // 1. Normalize: an explicit parameter of the same kind wins, and then the command is left whole.
        let original = params.command.trim();
        let normalized = normalize_bash_command(original);
        let mut limits = Limits { head: params.head, tail: params.tail };
        let mut command = original.to_string();
        let mut stop_after = None;
        if let Some(extracted) = normalized.extracted {
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
        if original.is_empty() {
            return refused("Command must not be empty".to_string(), details);
        }

        // 2. Intercept.
        if self.settings.interceptor_enabled {
            if let Some(block) = self.interceptor.check(original, &ctx.tool_names) {
                let text = block.error_text(&params.command);
                details.interception = Some(block);
                return refused(text, details);
            }
        }

        // 3. Validate.
        let timeout = Timeout::clamp(params.timeout, self.settings.default_timeout_secs);
        details.timeout = Some(timeout);
        details.timeout_ms = Some(timeout.applied_ms());
        let cwd = match resolve_cwd(&ctx.session_cwd, params.cwd.as_deref()) {
            Ok(cwd) => cwd,
            Err(e) => return refused(e.to_string(), details),
        };
        let shell = match self.shell.get(self.settings.shell_path.as_deref()) {
            Ok(shell) => shell,
            Err(e) => return refused(e.to_string(), details),
        };

        // 4. Artifact allocation is lazy: the sink asks only when output spills.
        let allocator = ctx.artifacts.as_ref().map(|d| Box::new(d.allocator()) as Box<dyn ArtifactAllocator>);
        let sink = OutputSink::new(self.settings.sink_config(limits.head), allocator);

        // 5. Execute.
        let status = if stop_after.is_some() || details.normalization.is_some() {
            StatusMode::ExtractedLastStage
        } else {
            StatusMode::AsIs
        };
        let extra: Vec<(&str, OsString)> =
            ctx.artifacts.as_ref().map(|d| vec![("ARTIFACTS", d.path().as_os_str().to_owned())]).unwrap_or_default();
        let snapshot = if self.settings.snapshot { crate::exec::snapshot::for_shell(&shell) } else { None };
        let request = ExecRequest {
            shell,
            script: compose(&command, self.settings.command_prefix.as_deref(), status),
            cwd: cwd.clone(),
            env: self.env.with(&extra),
            timeout: timeout.duration(),
            kill_grace: Duration::from_millis(self.settings.kill_grace_ms),
            cwd_mode: CwdMode::Set,
            session: None,
            snapshot,
            prefix: self.settings.command_prefix.clone(),
        };
        let view = ViewOptions { max_line_chars: self.settings.max_line_chars };
        let mut consumer = Feed::new(sink, view).stop_after(stop_after).on_update(ctx.on_update);
        let execution = match self.executor.execute(&request, &mut consumer, &ctx.cancel) {
            Ok(execution) => execution,
            Err(e) => {
                self.shell.forget();
                return refused(e.to_string(), details);
            }
        };

        // 6. Sink: keep the whole output when the view will hide part of it.
        let mut sink = consumer.into_sink();
        if limits.hides_lines(sink.total_lines()) || matches!(model_view(sink.tail_bytes(), &view), View::Binary { .. })
        {
            sink.ensure_spilled();
        }
        let output = sink.finish();

        // 7. Shape.
        let report = RunReport {
            output,
            limits,
            outcome: execution.outcome,
            duration_ms: execution.duration.as_millis() as u64,
            background: execution.background,
            cwd: &cwd,
            timeout,
            max_bytes: self.settings.max_output_bytes,
            view,
            artifacts_available: ctx.artifacts.is_some(),
            shell_replaced: matches!(execution.shell, ShellEvent::Replaced { .. }).then(|| execution.shell.to_string()),
        };
        details.shell = Some(execution.shell.to_string());
        shape_tool_result(report, details)
    }
}
