//! The commands, one function each: `bash`, `tool_call` and `read_artifact` start on a worker (or the
//! reading thread) and answer from there; `abort_bash`, `abort`, `get_state` and `list_sessions`
//! answer at once; `get_history` reads the log on a worker.

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use bashrt_core::{
    read_arguments, read_job_arguments, read_window, refused, AgentSession, ArtifactError, BashOptions, CallContext,
    CancelToken, Details, ReadError, ToolResult, WindowRequest, Yielding, MAX_READ_BYTES,
};
use serde::Serialize;
use serde_json::Value;

use super::shared::{lock, CommandError, Kind, SessionEntry, Shared, Slot};
use super::Inline;
use crate::live::{LatestText, LiveStream};
use crate::output::{JOB_TOOL_NAME, TOOL_NAME};
use crate::queue::Place;
use crate::request::{
    AbortRequest, BashRequest, HistoryRequest, ReadArtifactRequest, SessionOnly, ToolCallRequest, HISTORY_PAGE_MAX,
};

/// Arguments longer than this (as JSON) are left out of `tool_execution_update` events.
const UPDATE_ARGS_MAX: usize = 1024;

/// `bash`: session-level execution; live `bash_update` events, then the response with the result.
pub(super) fn start_bash(
    shared: &Arc<Shared>,
    id: Option<Value>,
    req: BashRequest,
    here: &mut Inline,
) -> Result<(), CommandError> {
    let SessionEntry { session, queue, .. } = shared.agent_session(req.session_id.as_deref())?;
    let cancel = CancelToken::new().map_err(CommandError::Cancel)?;
    let slot = shared.register(Kind::Bash { session: session.id().to_string() }, Some(cancel.clone()))?;
    let place = queue.enter();
    let job = {
        let shared = shared.clone();
        move || run_bash(&shared, slot, place, id, &session, &req, cancel)
    };
    shared.start("rpc-bash", job, here)
}

fn run_bash(
    shared: &Arc<Shared>,
    slot: Slot,
    place: Place,
    id: Option<Value>,
    session: &AgentSession,
    req: &BashRequest,
    cancel: CancelToken,
) {
    // Aborted while waiting: the executor sees the cancelled token and starts nothing.
    place.wait_turn(&cancel);
    // The pump starts with the first chunk: a command without output (the common quick case) needs no
    // second thread. Dropping the guard ends the pump, also on a panic, so shutdown never waits forever.
    let live = Finish(Arc::new(LiveStream::new()));
    let mut pump = Pump::NotStarted;
    let mut push = |chunk: &[u8]| {
        if matches!(pump, Pump::NotStarted) {
            pump = match start_pump(shared, &live.0, id.clone(), session.id().to_string()) {
                Ok(done) => Pump::Running(done),
                Err(e) => {
                    tracing::warn!("no live output for this bash command: {e}");
                    Pump::Failed
                }
            };
        }
        if matches!(pump, Pump::Running(_)) {
            live.0.push(chunk);
        }
    };
    let options = BashOptions { timeout: req.timeout, cancel: Some(cancel), on_chunk: Some(&mut push) };
    let result = session.execute_bash(&req.command, options);
    drop(live);
    if let Pump::Running(done) = pump {
        // An error means the pump's job ended without signalling: it panicked (and was logged).
        let _ = done.recv();
    }
    drop(slot);
    match &result.error {
        None => shared.output.ok_with(id.as_ref(), "bash", &result),
        Some(error) => shared.output.fail_with(id.as_ref(), "bash", error, &result),
    }
    // Only now may the session's next command start: its output comes after this response.
    drop(place);
}

/// Where a `bash` command's live-output pump is.
enum Pump {
    NotStarted,
    /// Receives (or errs) once the pump emitted everything.
    Running(Receiver<()>),
    Failed,
}

/// Tells the pump that no more output comes when dropped.
struct Finish(Arc<LiveStream>);

impl Drop for Finish {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// Starts emitting `live` as `bash_update` events on a worker thread.
fn start_pump(
    shared: &Arc<Shared>,
    live: &Arc<LiveStream>,
    id: Option<Value>,
    session_id: String,
) -> Result<Receiver<()>, CommandError> {
    let (done, wait) = sync_channel(1);
    let (live, out) = (live.clone(), shared.clone());
    shared.spawn("rpc-bash-live", move || {
        live.pump(|chunk, skipped| out.output.bash_update(id.as_ref(), &session_id, chunk, skipped));
        let _ = done.send(());
    })?;
    Ok(wait)
}

/// Starts writing `latest` as `tool_execution_update` events on a worker thread; `None` (updates are
/// left out, the call goes on) when no thread could be started.
fn start_update_pump(
    shared: &Arc<Shared>,
    latest: &Arc<LatestText>,
    tool_call_id: &str,
    args: Option<Value>,
) -> Option<Receiver<()>> {
    let (done, wait) = sync_channel(1);
    let (latest, out, tool_call_id) = (latest.clone(), shared.clone(), tool_call_id.to_string());
    let started = shared.spawn("rpc-tool-updates", move || {
        latest.pump(|text| out.output.tool_update(&tool_call_id, args.as_ref(), text));
        let _ = done.send(());
    });
    started.ok().map(|()| wait)
}

/// `tool_call`: the accepted response, then `tool_execution_start`, `_update`s and `_end`. A `bash`
/// call may yield: its `_end` then carries the output so far and the job it became, the command goes
/// on, and a `job_end` event says how it ended. A `job` call answers with the same events.
pub(super) fn start_tool_call(
    shared: &Arc<Shared>,
    id: Option<Value>,
    req: ToolCallRequest,
    here: &mut Inline,
) -> Result<(), CommandError> {
    if req.name == JOB_TOOL_NAME {
        return start_job_call(shared, id, req, here);
    }
    if req.name != TOOL_NAME {
        return Err(CommandError::UnknownTool(req.name));
    }
    let params = read_arguments(&req.arguments)?;
    let name = shared.session_name(req.session_id.as_deref())?;
    let artifacts = shared.runtime.state_dir().map(|state| state.session(&name).artifacts());
    let cancel = CancelToken::new().map_err(CommandError::Cancel)?;
    let slot = shared.register(Kind::Tool { tool_call_id: req.tool_call_id.clone() }, Some(cancel.clone()))?;
    // Both lines are out before the job starts, so they always come first.
    shared.output.tool_accepted(id.as_ref(), TOOL_NAME, &req.tool_call_id, &req.arguments);
    let tool_call_id = req.tool_call_id.clone();
    let job = {
        let shared = shared.clone();
        move || {
            let ToolCallRequest { tool_call_id, arguments, tool_names, .. } = req;
            // Updates repeat the arguments only while they are small: a 4 MiB command must not be
            // written again with every update (the start event carried it).
            let small = serde_json::to_string(&arguments).is_ok_and(|a| a.len() <= UPDATE_ARGS_MAX);
            let update_args = small.then_some(&arguments);
            // The call's thread never writes an update itself: a client that stops reading must not
            // hold the command past its deadline or its abort (see `LatestText`).
            let latest = Arc::new(LatestText::default());
            let pump: RefCell<Option<Receiver<()>>> = RefCell::new(None);
            // Set once the call yielded: its updates stop, its end is out.
            let yielded = Cell::new(false);
            let slot = RefCell::new(Some(slot));
            // The last update goes out before the end event; the id is freed first (once the end
            // event is out, the client may reuse it).
            let end = |result: &ToolResult| {
                write_end(&shared, &tool_call_id, &latest, pump.borrow_mut().take(), slot.borrow_mut().take(), result)
            };
            let mut on_update = |text: &str| {
                if !yielded.get() && latest.set(text) {
                    *pump.borrow_mut() = start_update_pump(&shared, &latest, &tool_call_id, update_args.cloned());
                }
            };
            let ctx = CallContext {
                session_cwd: shared.cwd.clone(),
                artifacts,
                tool_names,
                cancel,
                on_update: Some(&mut on_update),
            };
            // Written once the yield's end is out, so that `job_end` never comes before it.
            let yield_written: RefCell<Option<Receiver<()>>> = RefCell::new(None);
            let on_yield = Box::new(|result: ToolResult| {
                yielded.set(true);
                // The command goes on: the end (after the last update) is written by another thread,
                // so that a client that stops reading cannot hold the command past its deadline.
                let parts = (latest.clone(), pump.borrow_mut().take(), slot.borrow_mut().take(), result);
                let task = Arc::new(std::sync::Mutex::new(Some(parts)));
                let (done, written) = sync_channel(1);
                let write = {
                    let (shared, id, task) = (shared.clone(), tool_call_id.clone(), task.clone());
                    move || {
                        let parts = task.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
                        if let Some((latest, pump, slot, result)) = parts {
                            write_end(&shared, &id, &latest, pump, slot, &result);
                        }
                        let _ = done.send(());
                    }
                };
                match shared.spawn("rpc-yield-end", write) {
                    Ok(()) => *yield_written.borrow_mut() = Some(written),
                    // No thread: written here, as a call's end always was.
                    Err(_) => {
                        let parts = task.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
                        if let Some((latest, pump, slot, result)) = parts {
                            write_end(&shared, &tool_call_id, &latest, pump, slot, &result);
                        }
                    }
                }
            });
            let yielding = Yielding { call_id: Some(tool_call_id.clone()), on_yield };
            let result = shared.tool.execute_yielding(&params, ctx, yielding, None);
            match (yielded.get(), result.details.job.as_ref()) {
                (true, Some(job)) => {
                    if let Some(written) = yield_written.borrow_mut().take() {
                        let _ = written.recv();
                    }
                    shared.output.job_end(job.id.0, &tool_call_id, &result)
                }
                _ => end(&result),
            }
        }
    };
    // The call was accepted already, so a failure to start ends it as a refused call (the dropped job
    // freed its id).
    if let Err(e) = shared.start("rpc-tool-call", job, here) {
        shared.output.tool_end(&tool_call_id, &refused(e.to_string(), Details::default()));
    }
    Ok(())
}

/// The end of a tool call's events: the last update out first, then the id freed (once the end is
/// out, the client may reuse it), then `tool_execution_end`.
fn write_end(
    shared: &Shared,
    tool_call_id: &str,
    latest: &LatestText,
    pump: Option<Receiver<()>>,
    slot: Option<Slot>,
    result: &ToolResult,
) {
    latest.finish();
    if let Some(pump) = pump {
        let _ = pump.recv();
    }
    drop(slot);
    shared.output.tool_end(tool_call_id, result);
}

/// A `job` tool call: list, read, wait or kill; a wait runs on a worker (it may take a while) and an
/// `abort` of its id ends it.
fn start_job_call(
    shared: &Arc<Shared>,
    id: Option<Value>,
    req: ToolCallRequest,
    here: &mut Inline,
) -> Result<(), CommandError> {
    let params = read_job_arguments(&req.arguments)?;
    let cancel = CancelToken::new().map_err(CommandError::Cancel)?;
    let slot = shared.register(Kind::Tool { tool_call_id: req.tool_call_id.clone() }, Some(cancel.clone()))?;
    shared.output.tool_accepted(
        id.as_ref(),
        JOB_TOOL_NAME,
        &req.tool_call_id,
        &echoed(shared, &params, &req.arguments),
    );
    let tool_call_id = req.tool_call_id.clone();
    let job = {
        let shared = shared.clone();
        move || {
            let result = shared.tool.job(&params, &cancel);
            drop(slot);
            shared.output.tool_end_of(JOB_TOOL_NAME, &req.tool_call_id, &result);
        }
    };
    if let Err(e) = shared.start("rpc-job-call", job, here) {
        shared.output.tool_end_of(JOB_TOOL_NAME, &tool_call_id, &refused(e.to_string(), Details::default()));
    }
    Ok(())
}

/// The arguments a `job` call's `tool_execution_start` repeats: as sent, except an answer to a
/// secret prompt (a password), which no event repeats.
fn echoed<'v>(shared: &Shared, params: &bashrt_core::JobParams, arguments: &'v Value) -> std::borrow::Cow<'v, Value> {
    let secret = params.input.is_some()
        && params.id.is_some_and(|id| {
            shared.runtime.jobs().list().iter().any(|j| j.id.0 == id && j.prompt.as_ref().is_some_and(|p| p.secret))
        });
    match (secret, arguments) {
        (true, Value::Object(map)) => {
            let mut map = map.clone();
            for name in ["input", "text", "data", "chars"] {
                if let Some(value) = map.get_mut(name) {
                    *value = Value::String("[secret: not repeated]".to_string());
                }
            }
            std::borrow::Cow::Owned(Value::Object(map))
        }
        _ => std::borrow::Cow::Borrowed(arguments),
    }
}

/// `read_artifact`: runs on its own thread (a grep over a large artifact takes a while).
pub(super) fn start_read_artifact(
    shared: &Arc<Shared>,
    id: Option<Value>,
    req: ReadArtifactRequest,
) -> Result<(), CommandError> {
    let window =
        WindowRequest { head: req.head, tail: req.tail, lines: req.lines.clone(), grep: req.grep.clone() }.window()?;
    let name = shared.session_name(req.session_id.as_deref())?;
    let dir = shared.runtime.state_dir().ok_or(ArtifactError::NoSession)?.session(&name).artifacts();
    // Commands of the session sent before this request may still be writing the artifact asked for.
    let earlier = lock(&shared.sessions).get(name.as_str()).map(|e| (e.queue.clone(), e.queue.issued()));
    let cancel = CancelToken::new().map_err(CommandError::Cancel)?;
    let slot = shared.register(Kind::Read, Some(cancel.clone()))?;
    let job = {
        let shared = shared.clone();
        move || {
            let mut read = read_window(&dir, &req.artifact_id, &window, MAX_READ_BYTES);
            let missing =
                matches!(read, Err(ReadError::Artifact(ArtifactError::NotFound { .. } | ArtifactError::NoDirectory)));
            if let (true, Some((queue, upto))) = (missing, earlier) {
                // Not there yet: look again once the commands sent before have ended, so that a client
                // may send `bash` and then `read_artifact` of its output without waiting in between.
                queue.wait_done(upto, &cancel);
                read = read_window(&dir, &req.artifact_id, &window, MAX_READ_BYTES);
            }
            drop(slot);
            match read {
                Ok(content) => shared.output.ok_with(id.as_ref(), "read_artifact", &content),
                Err(e) => shared.output.fail(id.as_ref(), "read_artifact", &e.to_string()),
            }
        }
    };
    shared.spawn("rpc-read-artifact", job)
}

#[derive(Serialize)]
struct Aborted {
    aborted: usize,
}

/// `abort_bash`: aborts the session's newest `bash` command that is still running or waiting its turn,
/// as the reference aborts the command it started last (none is not an error). Commands sent before it
/// go on: a client that pipelines `a`, `b`, `abort_bash` stops `b`, not `a`; a second `abort_bash` stops
/// `a`.
pub(super) fn abort_bash(shared: &Shared, id: Option<&Value>, req: &SessionOnly) -> Result<(), CommandError> {
    let name = shared.session_name(req.session_id.as_deref())?;
    let calls = lock(&shared.calls);
    let newest = calls
        .running
        .iter()
        .filter_map(|(key, running)| match (&running.kind, &running.cancel) {
            (Kind::Bash { session }, Some(cancel)) if session == name.as_str() && !cancel.is_cancelled() => {
                Some((*key, cancel))
            }
            _ => None,
        })
        .max_by_key(|(key, _)| *key);
    let aborted = match newest {
        Some((_, cancel)) => {
            cancel.cancel();
            1
        }
        None => 0,
    };
    drop(calls);
    shared.wake_queues();
    shared.output.ok_with(id, "abort_bash", &Aborted { aborted });
    Ok(())
}

/// `abort`: aborts one running tool call by its id.
pub(super) fn abort(shared: &Shared, id: Option<&Value>, req: &AbortRequest) -> Result<(), CommandError> {
    let calls = lock(&shared.calls);
    let found = calls.running.values().find_map(|r| match (&r.kind, &r.cancel) {
        (Kind::Tool { tool_call_id }, Some(cancel)) if *tool_call_id == req.tool_call_id => Some(cancel),
        _ => None,
    });
    match found {
        Some(cancel) => cancel.cancel(),
        // A call that yielded is a job now: aborting it kills the job.
        None if shared.tool.kill_job_of_call(&req.tool_call_id) => {}
        None => return Err(CommandError::NoSuchToolCall(req.tool_call_id.clone())),
    }
    drop(calls);
    shared.output.ok(id, "abort");
    Ok(())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct State {
    session_id: String,
    default_session_id: String,
    /// Where the session's next `bash` command starts.
    cwd: String,
    state_dir: Option<String>,
    running_bash: usize,
    running_tool_calls: Vec<String>,
    /// The jobs calls became (every session's: they are the server's).
    jobs: Vec<bashrt_core::JobInfo>,
    /// A summary, not a list: its size must not grow with the session.
    artifacts: bashrt_core::ArtifactSummary,
    /// What the user granted the sandbox for the rest of the server's life; absent when nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sandbox_grants: Vec<bashrt_core::SandboxRequest>,
}

/// `approval`: the user's answer to an `approval_request`.
pub(super) fn approval(
    shared: &Shared,
    id: Option<&Value>,
    req: crate::request::ApprovalAnswer,
) -> Result<(), CommandError> {
    use crate::request::Decision;
    let answer = match req.decision {
        Decision::Once => bashrt_core::Approval::Once,
        Decision::Session => bashrt_core::Approval::Session,
        Decision::Deny => bashrt_core::Approval::Deny(req.message),
    };
    match shared.approvals.answer(&req.approval_id, answer) {
        true => shared.output.ok(id, "approval"),
        false => shared.output.fail(id, "approval", &format!("no approval request {} is waiting", req.approval_id)),
    }
    Ok(())
}

/// `get_state`: one session as the server sees it (without creating it).
pub(super) fn get_state(shared: &Shared, id: Option<&Value>, req: &SessionOnly) -> Result<(), CommandError> {
    let name = shared.session_name(req.session_id.as_deref())?;
    let cwd = lock(&shared.sessions).get(name.as_str()).map_or_else(|| shared.cwd.clone(), |e| e.session.cwd());
    let (running_bash, mut running_tool_calls) = {
        let calls = lock(&shared.calls);
        let bash =
            calls.running.values().filter(|r| matches!(&r.kind, Kind::Bash { session } if session == name.as_str()));
        let tools = calls.running.values().filter_map(|r| match &r.kind {
            Kind::Tool { tool_call_id } => Some(tool_call_id.clone()),
            _ => None,
        });
        (bash.count(), tools.collect::<Vec<_>>())
    };
    running_tool_calls.sort();
    let artifacts = shared.runtime.artifacts(&name).map(|dir| dir.summary()).unwrap_or_default();
    let state = State {
        session_id: name.as_str().to_string(),
        default_session_id: shared.default_session.as_str().to_string(),
        cwd: cwd.display().to_string(),
        state_dir: shared.runtime.state_dir().map(|s| s.path().display().to_string()),
        running_bash,
        running_tool_calls,
        jobs: shared.tool.runtime().jobs().list(),
        artifacts,
        sandbox_grants: shared.runtime.sandbox_grants(),
    };
    shared.output.ok_with(id, "get_state", &state);
    Ok(())
}

/// `get_history`: a page of what ran in a session, from its log — also what ran before this server
/// started. Read on a worker thread, streaming: a large log neither holds up the input (an
/// `abort_bash` behind it) nor takes memory beyond the page.
pub(super) fn start_get_history(
    shared: &Arc<Shared>,
    id: Option<Value>,
    req: HistoryRequest,
) -> Result<(), CommandError> {
    let name = shared.session_name(req.session_id.as_deref())?;
    let offset = req.offset.unwrap_or(0);
    let limit = req.limit.unwrap_or(HISTORY_PAGE_MAX).min(HISTORY_PAGE_MAX) as usize;
    let log = shared.runtime.state_dir().map(|state| bashrt_core::log_file(&state.session(&name)));
    let slot = shared.register(Kind::Read, None)?;
    let job = {
        let shared = shared.clone();
        move || {
            let page = log.map(|path| bashrt_core::read_log_page(&path, offset, limit)).unwrap_or_default();
            drop(slot);
            let data = serde_json::json!({
                "sessionId": name.as_str(),
                "entries": page.entries,
                "total": page.total,
                "nextOffset": page.next_offset,
            });
            shared.output.ok_with(id.as_ref(), "get_history", &data);
        }
    };
    shared.spawn("rpc-history", job)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionInfo {
    session_id: String,
    cwd: String,
    running_bash: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionList {
    default_session_id: String,
    sessions: Vec<SessionInfo>,
}

/// `list_sessions`: the sessions this server has used (the default one always).
pub(super) fn list_sessions(shared: &Shared, id: Option<&Value>) {
    let mut sessions: Vec<(String, PathBuf)> =
        lock(&shared.sessions).values().map(|e| (e.session.id().to_string(), e.session.cwd())).collect();
    if !sessions.iter().any(|(name, _)| name == shared.default_session.as_str()) {
        sessions.push((shared.default_session.as_str().to_string(), shared.cwd.clone()));
    }
    sessions.sort();
    let calls = lock(&shared.calls);
    let sessions = sessions
        .into_iter()
        .map(|(session_id, cwd)| SessionInfo {
            running_bash: calls
                .running
                .values()
                .filter(|r| matches!(&r.kind, Kind::Bash { session } if *session == session_id))
                .count(),
            session_id,
            cwd: cwd.display().to_string(),
        })
        .collect();
    drop(calls);
    shared.output.ok_with(
        id,
        "list_sessions",
        &SessionList { default_session_id: shared.default_session.as_str().to_string(), sessions },
    );
}
