//! Session-level execution (`AgentSession::execute_bash`): the user's own `!cmd`, or the RPC
//! `bash` command. No normalization, no interception; the cwd persists between calls of the session; the
//! output goes through the same sink with artifact spill; every execution is appended to the session's
//! log (`<session dir>/bash.jsonl`) so a restarted runtime can list what ran.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::artifact::ArtifactId;
use crate::cancel::CancelToken;
use crate::exec::{CwdMode, ShellEvent, StatusMode};
use crate::feed::ChunkCallback;
use crate::outcome::Outcome;
use crate::result::{append_notices, shape_output, timed_out_notice, Limits, Meta, RunReport};
use crate::run::{run, RunSpec};
use crate::runtime::Runtime;
use crate::session::{Session, SessionError, SessionName};
use crate::validate::Timeout;

/// What a session-level execution returns: the reference's `BashResult` fields (`output`, `exitCode`,
/// `cancelled`, `truncated`, `fullOutputPath`), typed as its client types them, plus ours. `output` is the
/// command's own (sanitized) output only: a client that shows it, or hands it to a model, must not find
/// our notices mixed into it, so they come in `notices` ([`BashResult::text`] joins the two).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    /// The model view of the output (the whole output, or the excerpt/tail when it did not fit); no notices.
    pub output: String,
    /// The shell's exit status; `None` (left out, as the reference's client expects) when it was killed
    /// (signal, timeout, cancel) or nothing ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Timed out or cancelled (the reference's field; `timed_out` tells the two apart).
    pub cancelled: bool,
    /// Part of the output is not in `output`; the artifact has all of it.
    pub truncated: bool,
    /// Lines the command printed (an unterminated last line counts).
    pub total_lines: u64,
    /// Bytes the command printed.
    pub total_bytes: u64,
    /// Lines in `output`, notices excluded.
    pub output_lines: u64,
    /// Bytes of the command's output shown in `output`.
    pub output_bytes: u64,
    /// Where the full raw output is kept (`artifact://<id>`), when something was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<ArtifactId>,
    /// The artifact's absolute path, for clients that open the full output as a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// What a reader must know besides the output, one line each, in this order: truncation (with the
    /// artifact), a replaced shell, a timeout or cancel.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// The deadline passed and the command's tree was killed.
    pub timed_out: bool,
    /// The signal that killed the shell (`SIGKILL`), when one did.
    pub signal: Option<String>,
    /// From the start of the call to the end of the command.
    pub duration_ms: u64,
    /// The directory the command ended in (where the next command of the session starts).
    pub cwd: String,
    /// Which shell ran it: the session's long-lived shell (started, reused, or replaced — and why, since
    /// a replacement lost the session's variables and functions) or a one-shot shell (and why).
    pub shell: String,
    /// How the command ended, as one value.
    pub outcome: Outcome,
    /// Processes the command left running in the background.
    pub background_processes: u32,
    /// Why the full output could not be kept (full disk, no directory), when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_error: Option<String>,
    /// Why nothing ran (shell missing, cwd gone), when that is the case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why this command could not be added to the session's log (full disk, read-only state
    /// directory), when it could not: the command ran, but `get_history` will not list it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_error: Option<String>,
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
    /// The command as typed (cut at [`LOG_COMMAND_MAX`] bytes).
    pub command: String,
    /// The command's full length, when it was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_bytes: Option<u64>,
    /// Where it started.
    pub cwd: String,
    /// Its exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that killed it, when one did.
    pub signal: Option<String>,
    /// Its deadline passed.
    pub timed_out: bool,
    /// It was timed out or aborted.
    pub cancelled: bool,
    /// How long it ran.
    pub duration_ms: u64,
    /// Its output did not fit the view.
    pub truncated: bool,
    /// The artifact with its full output, when one was written.
    pub artifact_id: Option<u64>,
}

impl BashResult {
    /// What a person reads: the output, then the notices after a blank line (as a tool result shows
    /// them).
    pub fn text(&self) -> String {
        let mut text = self.output.clone();
        append_notices(&mut text, &self.notices);
        text
    }
}

/// Options of one session-level execution.
#[derive(Default)]
pub struct BashOptions<'a> {
    /// Seconds; `None` means no deadline (the user's own command runs until it ends or is aborted),
    /// otherwise clamped like tool calls.
    pub timeout: Option<f64>,
    /// Cancels the command (the RPC `abort_bash`, Esc in the UI); a new token when `None`.
    pub cancel: Option<CancelToken>,
    /// Raw output chunks as they arrive (for a live view).
    pub on_chunk: Option<ChunkCallback<'a>>,
}

/// A session: a name, a directory for artifacts and the log, a cwd that persists, and (through the
/// runtime's pool) a shell of its own.
pub struct AgentSession {
    runtime: Arc<Runtime>,
    session: Session,
    cwd: Mutex<Cwd>,
    /// Where the session started: where a command runs when the session's directory is gone.
    start: PathBuf,
    /// The log, open for appending, once a line was written; `None` until then or after a failure.
    log: Mutex<Option<HeldLog>>,
}

/// Where the session's next command starts.
struct Cwd {
    path: PathBuf,
    /// `path` is known to be canonical, so a command that ends where it started needs no
    /// `canonicalize` (a `readlink` per component) to store it again.
    canonical: bool,
}

/// The session's log file kept open between commands: opening it the safe way (create and check the
/// private directory, open it without following links, open the file in it) costs a dozen system calls,
/// against one `lstat` to see that the file at the log's path is still this one.
struct HeldLog {
    file: File,
    dev: u64,
    ino: u64,
}

impl HeldLog {
    /// Opens the log as [`crate::private_dir`] requires: a private directory of the user's, the file
    /// created 0600, no symbolic link followed.
    fn open(dir: &Path) -> std::io::Result<Self> {
        crate::private_dir::ensure(dir)?;
        let dir = crate::private_dir::open_dir(dir)?;
        let file = crate::private_dir::append_in(&dir, LOG_FILE)?;
        let meta = file.metadata()?;
        Ok(Self { file, dev: meta.dev(), ino: meta.ino() })
    }

    /// Whether `path` still names this file: not when the file or its directory was deleted, moved or
    /// replaced from outside (the next line then goes to a freshly opened log, so none is lost).
    fn is_at(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.dev() == self.dev && m.ino() == self.ino)
    }
}

impl AgentSession {
    /// Made by [`Runtime::session`].
    pub(crate) fn new(runtime: Arc<Runtime>, session: Session, cwd: PathBuf) -> Self {
        // In use from now until dropped: the state directory's budget never removes it meanwhile.
        if let Some(retention) = runtime.retention() {
            retention.hold(session.dir());
        }
        let start = cwd.clone();
        Self { runtime, session, start, cwd: Mutex::new(Cwd { path: cwd, canonical: false }), log: Mutex::new(None) }
    }

    /// The session's name, which also keys its shell.
    pub fn id(&self) -> &str {
        self.session.name().as_str()
    }

    /// Where the session keeps its log and artifacts.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Where the next command starts.
    pub fn cwd(&self) -> PathBuf {
        self.cwd.lock().unwrap_or_else(PoisonError::into_inner).path.clone()
    }

    /// The session's log file (`bash.jsonl`).
    pub fn log_path(&self) -> PathBuf {
        log_file(&self.session)
    }

    /// Runs the command as typed; never fails: problems are in the result.
    pub fn execute_bash(&self, command: &str, options: BashOptions<'_>) -> BashResult {
        let started_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        let mut cwd = self.cwd();
        // A directory deleted (or replaced by a file) from outside does not end the session: the
        // command runs where the session started, and says why.
        let mut moved = None;
        let mut is_dir = cwd.is_dir();
        if !is_dir && cwd != self.start && self.start.is_dir() {
            let reason = match std::fs::metadata(&cwd) {
                Err(e) => e.to_string(),
                Ok(_) => "not a directory".to_string(),
            };
            moved = Some(format!(
                "[Working directory {} is gone ({reason}); ran in {} instead]",
                cwd.display(),
                self.start.display()
            ));
            cwd = self.start.clone();
            is_dir = true;
        }
        if !is_dir {
            return refused(&cwd, format!("Working directory does not exist: {}", cwd.display()));
        }
        let mut result = self.run(command, &cwd, options, moved);
        if result.error.is_none() {
            self.store_cwd(&result.cwd);
            let (command, command_bytes) = if command.len() > LOG_COMMAND_MAX {
                let cut = crate::utf8::complete_utf8_len(&command.as_bytes()[..LOG_COMMAND_MAX]);
                (command[..cut].to_string(), Some(command.len() as u64))
            } else {
                (command.to_string(), None)
            };
            result.log_error = self.append_log(&LogEntry {
                started_ms,
                command,
                command_bytes,
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

    /// Where the next command starts: the cwd the command ended in, canonical. Kept even when it no
    /// longer exists (the command deleted it): `cwd()` and the result agree, and the next command says
    /// where it ran instead.
    fn store_cwd(&self, ended_in: &str) {
        let mut cwd = self.cwd.lock().unwrap_or_else(PoisonError::into_inner);
        // The common case: the command did not change directory.
        if cwd.canonical && cwd.path.as_os_str() == ended_in {
            return;
        }
        *cwd = match std::fs::canonicalize(ended_in) {
            Ok(path) => Cwd { path, canonical: true },
            Err(_) => Cwd { path: PathBuf::from(ended_in), canonical: false },
        };
    }

    /// Runs in `cwd`, a directory the caller checked.
    fn run(&self, command: &str, cwd: &Path, options: BashOptions<'_>, moved: Option<String>) -> BashResult {
        if let Some(at) = command.bytes().position(|b| b == 0) {
            return refused(cwd, crate::validate::CommandError::Nul(at).to_string());
        }
        let cancel = match options.cancel {
            Some(c) => c,
            None => match CancelToken::new() {
                Ok(c) => c,
                Err(e) => return refused(cwd, format!("cannot create a cancel token: {e}")),
            },
        };
        let timeout = match options.timeout {
            Some(t) => Timeout::clamp(Some(t), self.runtime.settings().default_timeout_secs),
            None => Timeout::unlimited(),
        };
        let artifacts = self.session.artifacts();
        let sandbox = match self.runtime.settings().sandbox.session_commands {
            true => match crate::run::sandbox_use(&self.runtime, cwd) {
                Ok(sandbox) => sandbox,
                Err(refusal) => return refused(cwd, refusal),
            },
            false => crate::result::SandboxUse::Off,
        };
        let spec = RunSpec {
            command: command.trim(),
            status: StatusMode::AsIs,
            cwd,
            cwd_mode: CwdMode::Persist,
            session: Some(self.id()),
            timeout,
            limits: Limits::default(),
            stop_after: None,
            artifacts: Some(&artifacts),
            cancel: &cancel,
            on_chunk: options.on_chunk,
            on_update: None,
            yielding: None,
            stdin: crate::arguments::StdinMode::Null,
            sandbox,
        };
        match run(&self.runtime, spec) {
            Ok(report) => {
                let mut result = shape_bash_result(report, moved);
                result.full_output_path = result
                    .artifact_id
                    .and_then(|id| artifacts.resolve(&id.url()).ok())
                    .map(|(_, path)| std::path::absolute(&path).unwrap_or(path).display().to_string());
                result
            }
            Err(e) => refused(cwd, e.to_string()),
        }
    }

    /// Appends one line; a failure is returned for the result to report (and logged), never fatal.
    /// The log stays open between commands ([`HeldLog`]); it is opened again when its path no longer
    /// names the open file, and dropped after a failed write, so that the next command starts afresh.
    fn append_log(&self, entry: &LogEntry) -> Option<String> {
        let mut held = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let path = self.log_path();
        let mut write = || -> std::io::Result<()> {
            let mut line = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
            line.push(b'\n');
            let log = match held.take() {
                Some(log) if log.is_at(&path) => log,
                _ => HeldLog::open(self.session.dir())?,
            };
            (&log.file).write_all(&line)?;
            *held = Some(log);
            Ok(())
        };
        let error = write().err()?;
        let text = format!("cannot append to the session log {}: {error}", path.display());
        tracing::warn!("{text}");
        Some(text)
    }

    /// Ends the session, and removes its directory when nothing was kept in it (no artifact, no log):
    /// for a front that makes a session per client connection (`bashrt mcp`), so that the sessions of
    /// connections that spilled nothing do not pile up. Returns whether the directory was removed.
    pub fn close_if_empty(self) -> bool {
        let dir = self.session.dir().to_path_buf();
        let artifacts = self.session.artifacts();
        let log = self.log_path();
        drop(self);
        if !artifacts.list().is_empty() || log.exists() {
            return false;
        }
        // Each step fails harmlessly when something else appeared meanwhile (another process's call).
        let _ = std::fs::remove_dir(artifacts.path());
        let _ = std::fs::remove_file(dir.join(crate::retention::LOCK_FILE));
        std::fs::remove_dir(&dir).is_ok()
    }

    /// What ran in this session, oldest first (lines that can't be read are skipped).
    pub fn history(&self) -> Vec<LogEntry> {
        read_log(&self.log_path())
    }
}

impl Drop for AgentSession {
    /// The session ended: its directory now counts as any other against the state directory's budget.
    fn drop(&mut self) {
        if let Some(retention) = self.runtime.retention() {
            retention.release(self.session.dir());
        }
    }
}

/// The session log's file name, in the session's directory.
const LOG_FILE: &str = "bash.jsonl";

/// Where a session's log lives.
pub fn log_file(session: &Session) -> PathBuf {
    session.dir().join(LOG_FILE)
}

/// Reads a session log; a missing file is an empty history.
pub fn read_log(path: &Path) -> Vec<LogEntry> {
    read_log_page(path, 0, usize::MAX).entries
}

/// The longest command text a log entry keeps; longer ones are cut (with `commandBytes` saying how long
/// it was), so that one huge command cannot make the log, or a history page, huge.
pub const LOG_COMMAND_MAX: usize = 16 * 1024;

/// The longest log line read back; a longer one (written by something else) is skipped.
const LOG_LINE_MAX: usize = 1024 * 1024;

/// One page of a session log.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogPage {
    /// Entries `offset..offset + entries.len()`, oldest first.
    pub entries: Vec<LogEntry>,
    /// Readable entries in the whole log.
    pub total: u64,
    /// Where the next page starts, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
}

/// Entries `offset..offset + limit` of the log at `path`, read line by line: memory stays bounded by
/// the page, whatever the log's size. Unreadable lines are skipped and not counted.
pub fn read_log_page(path: &Path, offset: u64, limit: usize) -> LogPage {
    let mut page = LogPage::default();
    let Ok(file) = crate::private_dir::open_regular(path) else { return page };
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    loop {
        match read_line_capped(&mut reader, &mut line, LOG_LINE_MAX) {
            Ok(Line::End) | Err(_) => break,
            Ok(Line::TooLong) => continue,
            Ok(Line::Read) => {}
        }
        let Ok(entry) = serde_json::from_slice::<LogEntry>(&line) else { continue };
        if page.total >= offset && page.entries.len() < limit {
            page.entries.push(entry);
        }
        page.total += 1;
    }
    let end = offset.saturating_add(page.entries.len() as u64);
    page.next_offset = (end < page.total).then_some(end);
    page
}

enum Line {
    Read,
    TooLong,
    End,
}

/// Reads one line into `line` (cleared first), holding at most `cap` bytes of it; a longer line is
/// consumed and reported as [`Line::TooLong`].
fn read_line_capped(reader: &mut impl std::io::BufRead, line: &mut Vec<u8>, cap: usize) -> std::io::Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if line.is_empty() {
                Line::End
            } else {
                Line::Read
            });
        }
        let (piece, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if line.len() + piece.len() > cap {
            too_long = true;
            line.clear();
        } else if !too_long {
            line.extend_from_slice(piece);
        }
        let used = piece.len() + usize::from(done);
        reader.consume(used);
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Read });
        }
    }
}

/// The session's back: a [`BashResult`] from the run stage's report. The output keeps what the model
/// view keeps; notices (truncation, a replaced shell, a timeout or cancel) follow it after a blank line.
fn shape_bash_result(report: RunReport<'_>, moved: Option<String>) -> BashResult {
    let shaped = shape_output(&report);
    let (total_lines, total_bytes) = (report.output.total_lines(), report.output.total_bytes());
    let mut notices = shaped.notices;
    notices.extend(moved);
    match &report.shell {
        ShellEvent::Replaced { .. } => notices.push(format!("[Shell restarted: {}]", report.shell)),
        ShellEvent::Lost { .. } => notices.push(format!("[Shell lost: {}]", report.shell)),
        _ => {}
    }
    match report.outcome {
        Outcome::TimedOut => notices.push(timed_out_notice(report.timeout.applied_secs)),
        Outcome::Cancelled => notices.push("[Command cancelled]".to_string()),
        _ => {}
    }
    let output = shaped.body;
    let final_cwd = report.final_cwd.as_deref().unwrap_or(report.cwd);
    let (output_lines, output_bytes) =
        shaped.truncation.as_ref().map_or((total_lines, total_bytes), |t| (t.output_lines, t.output_bytes));
    BashResult {
        output,
        exit_code: report.outcome.exit_code(),
        cancelled: matches!(report.outcome, Outcome::Cancelled | Outcome::TimedOut),
        truncated: shaped.truncation.is_some(),
        total_lines,
        total_bytes,
        output_lines,
        output_bytes,
        artifact_id: shaped.artifact_id,
        full_output_path: None,
        notices,
        timed_out: report.outcome == Outcome::TimedOut,
        signal: report.outcome.signal_name(),
        duration_ms: report.duration_ms,
        cwd: final_cwd.display().to_string(),
        shell: report.shell.to_string(),
        outcome: report.outcome,
        background_processes: report.background,
        artifact_error: shaped.artifact_error,
        error: None,
        log_error: None,
        meta: shaped.truncation.map(|truncation| Meta { truncation }),
    }
}

/// A command that never ran: the reason in `error`, nothing else.
fn refused(cwd: &Path, error: String) -> BashResult {
    BashResult {
        output: String::new(),
        exit_code: None,
        cancelled: false,
        truncated: false,
        total_lines: 0,
        total_bytes: 0,
        output_lines: 0,
        output_bytes: 0,
        artifact_id: None,
        full_output_path: None,
        notices: Vec::new(),
        timed_out: false,
        signal: None,
        duration_ms: 0,
        cwd: cwd.display().to_string(),
        shell: String::new(),
        outcome: Outcome::Exited { code: 2 },
        background_processes: 0,
        artifact_error: None,
        error: Some(error),
        log_error: None,
        meta: None,
    }
}

impl Runtime {
    /// The session `name`, starting in `cwd` (its log and artifacts persist under the state directory;
    /// its shell and cwd live as long as this value).
    pub fn session(self: &Arc<Self>, name: &SessionName, cwd: PathBuf) -> Result<AgentSession, SessionError> {
        Ok(AgentSession::new(Arc::clone(self), self.sessions_state()?.session(name), cwd))
    }
}
