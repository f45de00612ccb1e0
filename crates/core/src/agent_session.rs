//! Session-level execution (`AgentSession::execute_bash`, SPEC §1): the user's own `!cmd`, or the RPC
//! `bash` command. No normalization, no interception; the cwd persists between calls of the session; the
//! output goes through the same sink with artifact spill; every execution is appended to the session's
//! log (`<session dir>/bash.jsonl`) so a restarted runtime can list what ran.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::artifact::{ArtifactAllocator, ArtifactId};
use crate::cancel::CancelToken;
use crate::env::CommandEnv;
use crate::exec::{compose, CwdMode, ExecRequest, Executor, ShellEvent, StatusMode};
use crate::feed::{ChunkCallback, Feed};
use crate::outcome::Outcome;
use crate::result::{append_notices, shape_output, Limits, Meta, RunReport};
use crate::session::Session;
use crate::settings::Settings;
use crate::sink::OutputSink;
use crate::tool::ShellCache;
use crate::validate::{Timeout, MAX_TIMEOUT_SECS};
use crate::view::ViewOptions;

/// What a session-level execution returns: the reference's `BashResult` fields, plus ours
/// (`timedOut`, `signal`, `durationMs`, `cwd`, `outcome`, `backgroundProcesses`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    /// The model view of the output, with a truncation notice appended when something was cut.
    pub output: String,
    pub exit_code: Option<i32>,
    pub cancelled: bool,
    pub truncated: bool,
    pub total_lines: u64,
    pub total_bytes: u64,
    pub output_lines: u64,
    pub output_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<ArtifactId>,
    pub timed_out: bool,
    pub signal: Option<String>,
    pub duration_ms: u64,
    /// The directory the command ended in (where the next command of the session starts).
    pub cwd: String,
    /// Which shell ran it: the session's long-lived shell (started, reused, or replaced — and why, since
    /// a replacement lost the session's variables and functions) or a one-shot shell (and why).
    pub shell: String,
    pub outcome: Outcome,
    pub background_processes: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_error: Option<String>,
    /// Why nothing ran (shell missing, cwd gone), when that is the case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The truncation metadata of a tool result (`meta.truncation`), when the output was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// One line of the session log.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    /// Milliseconds since the Unix epoch when the command started.
    pub started_ms: u64,
    pub command: String,
    pub cwd: String,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub timed_out: bool,
    pub cancelled: bool,
    pub duration_ms: u64,
    pub truncated: bool,
    pub artifact_id: Option<u64>,
}

/// Options of one session-level execution.
#[derive(Default)]
pub struct BashOptions<'a> {
    /// Seconds; `None` means no deadline (the user's own command runs until it ends or is aborted),
    /// otherwise clamped like tool calls.
    pub timeout: Option<f64>,
    pub cancel: Option<CancelToken>,
    /// Raw output chunks as they arrive (for a live view).
    pub on_chunk: Option<ChunkCallback<'a>>,
}

/// A session: an id, a directory for artifacts and the log, and a cwd that persists.
pub struct AgentSession {
    id: String,
    session: Session,
    settings: Arc<Settings>,
    executor: Arc<dyn Executor>,
    /// The settings' part of every command's environment, computed once (see [`CommandEnv`] for when the
    /// runtime's own environment is read).
    env: CommandEnv,
    shell: ShellCache,
    cwd: Mutex<PathBuf>,
    log: Mutex<()>,
}

impl AgentSession {
    pub fn new(
        id: String,
        session: Session,
        cwd: PathBuf,
        settings: Arc<Settings>,
        executor: Arc<dyn Executor>,
    ) -> Self {
        let env = CommandEnv::from_process(settings.non_interactive_env, &settings.env);
        Self {
            id,
            session,
            settings,
            executor,
            env,
            shell: ShellCache::default(),
            cwd: Mutex::new(cwd),
            log: Mutex::new(()),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Where the next command starts.
    pub fn cwd(&self) -> PathBuf {
        self.cwd.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub fn log_path(&self) -> PathBuf {
        log_file(&self.session)
    }

    /// Runs the command as typed; never fails: problems are in the result.
    pub fn execute_bash(&self, command: &str, options: BashOptions<'_>) -> BashResult {
        let started_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        let cwd = self.cwd();
        let result = self.run(command, &cwd, options);
        if result.error.is_none() {
            if let Ok(path) = std::fs::canonicalize(&result.cwd) {
                *self.cwd.lock().unwrap_or_else(PoisonError::into_inner) = path;
            }
            self.append_log(&LogEntry {
                started_ms,
                command: command.to_string(),
                cwd: cwd.display().to_string(),
                exit_code: result.exit_code,
                signal: result.signal.clone(),
                timed_out: result.timed_out,
                cancelled: result.cancelled,
                duration_ms: result.duration_ms,
                truncated: result.truncated,
                artifact_id: result.artifact_id.map(|a| a.0),
            });
        }
        result
    }

    fn run(&self, command: &str, cwd: &Path, options: BashOptions<'_>) -> BashResult {
        let settings = &self.settings;
        let refuse = |error: String| BashResult {
            output: String::new(),
            exit_code: None,
            cancelled: false,
            truncated: false,
            total_lines: 0,
            total_bytes: 0,
            output_lines: 0,
            output_bytes: 0,
            artifact_id: None,
            timed_out: false,
            signal: None,
            duration_ms: 0,
            cwd: cwd.display().to_string(),
            shell: String::new(),
            outcome: Outcome::Exited { code: 2 },
            background_processes: 0,
            artifact_error: None,
            error: Some(error),
            meta: None,
        };
        if !cwd.is_dir() {
            return refuse(format!("Working directory does not exist: {}", cwd.display()));
        }
        let shell = match self.shell.get(settings.shell_path.as_deref()) {
            Ok(shell) => shell,
            Err(e) => return refuse(e.to_string()),
        };
        let cancel = match options.cancel {
            Some(c) => c,
            None => match CancelToken::new() {
                Ok(c) => c,
                Err(e) => return refuse(format!("cannot create a cancel token: {e}")),
            },
        };
        let timeout = match options.timeout {
            Some(t) => Timeout::clamp(Some(t), settings.default_timeout_secs),
            None => Timeout {
                requested_secs: MAX_TIMEOUT_SECS * 24.0,
                applied_secs: MAX_TIMEOUT_SECS * 24.0,
                clamped: false,
            },
        };
        let artifacts = self.session.artifacts();
        let allocator: Box<dyn ArtifactAllocator> = Box::new(artifacts.allocator());
        let sink = OutputSink::new(settings.sink_config(None), Some(allocator));
        let artifacts_env = [("ARTIFACTS", artifacts.path().as_os_str().to_owned())];
        let snapshot = if settings.snapshot { crate::exec::snapshot::for_shell(&shell) } else { None };
        let request = ExecRequest {
            shell,
            script: compose(command.trim(), settings.command_prefix.as_deref(), StatusMode::AsIs),
            cwd: cwd.to_path_buf(),
            env: self.env.with(&artifacts_env),
            timeout: timeout.duration(),
            kill_grace: Duration::from_millis(settings.kill_grace_ms),
            cwd_mode: CwdMode::Persist,
            session: Some(self.id.clone()),
            snapshot,
            prefix: settings.command_prefix.clone(),
        };
        let view = ViewOptions { max_line_chars: settings.max_line_chars };
        let mut feed = Feed::new(sink, view).on_chunk(options.on_chunk);
        let execution = match self.executor.execute(&request, &mut feed, &cancel) {
            Ok(e) => e,
            Err(e) => {
                self.shell.forget();
                return refuse(e.to_string());
            }
        };
        let mut sink = feed.into_sink();
        if matches!(crate::view::model_view(sink.tail_bytes(), &view), crate::view::View::Binary { .. }) {
            sink.ensure_spilled();
        }
        let output = sink.finish();
        let (total_lines, total_bytes) = (output.total_lines(), output.total_bytes());
        let report = RunReport {
            output,
            limits: Limits::default(),
            outcome: execution.outcome,
            duration_ms: execution.duration.as_millis() as u64,
            background: execution.background,
            cwd,
            timeout,
            max_bytes: settings.max_output_bytes,
            view,
            artifacts_available: true,
            shell_replaced: None,
        };
        let shaped = shape_output(&report);
        let mut text = shaped.body;
        if text == "(no output)" {
            text.clear();
        }
        let mut notices = shaped.notices;
        if let ShellEvent::Replaced { .. } = &execution.shell {
            notices.push(format!("[Shell restarted: {}]", execution.shell));
        }
        match execution.outcome {
            Outcome::TimedOut => notices.push(format!("[Command timed out after {} seconds]", timeout.applied_secs)),
            Outcome::Cancelled => notices.push("[Command cancelled]".to_string()),
            _ => {}
        }
        append_notices(&mut text, &notices);
        let final_cwd = execution.final_cwd.clone().unwrap_or_else(|| cwd.to_path_buf());
        let (output_lines, output_bytes) =
            shaped.truncation.as_ref().map_or((total_lines, total_bytes), |t| (t.output_lines, t.output_bytes));
        BashResult {
            output: text,
            exit_code: execution.outcome.exit_code(),
            cancelled: matches!(execution.outcome, Outcome::Cancelled | Outcome::TimedOut),
            truncated: shaped.truncation.is_some(),
            total_lines,
            total_bytes,
            output_lines,
            output_bytes,
            artifact_id: shaped.artifact_id,
            timed_out: execution.outcome == Outcome::TimedOut,
            signal: execution.outcome.signal_name(),
            duration_ms: execution.duration.as_millis() as u64,
            cwd: final_cwd.display().to_string(),
            shell: execution.shell.to_string(),
            outcome: execution.outcome,
            background_processes: execution.background,
            artifact_error: shaped.artifact_error,
            error: None,
            meta: shaped.truncation.map(|truncation| Meta { truncation }),
        }
    }

    /// Appends one line; a failure to log is reported on stderr by tracing, never fatal.
    fn append_log(&self, entry: &LogEntry) {
        let _guard = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(self.session.dir())?;
            let mut file = std::fs::OpenOptions::new().create(true).append(true).open(self.log_path())?;
            let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
            line.push(b'\n');
            file.write_all(&line)
        };
        if let Err(e) = write() {
            tracing::warn!("cannot append to session log {}: {e}", self.log_path().display());
        }
    }

    /// What ran in this session, oldest first (lines that can't be read are skipped).
    pub fn history(&self) -> Vec<LogEntry> {
        read_log(&self.log_path())
    }
}

/// Where a session's log lives.
pub fn log_file(session: &Session) -> PathBuf {
    session.dir().join("bash.jsonl")
}

/// Reads a session log; a missing file is an empty history.
pub fn read_log(path: &Path) -> Vec<LogEntry> {
    std::fs::read_to_string(path)
        .map(|text| text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect())
        .unwrap_or_default()
}
