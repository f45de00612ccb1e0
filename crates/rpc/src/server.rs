//! The server: reads requests on its own thread and dispatches them there (quick commands answer at
//! once; a hop to another thread before a command starts would cost a wakeup and a context switch per
//! request), runs a command that takes time (`bash`, `tool_call`, `read_artifact`) on a worker thread of
//! its own (from a pool that grows on demand, [`crate::workers`]: a thread spawn per request was a large
//! part of a quick command's cost) — or, for a `bash` or `tool_call` read with nothing else waiting, on
//! the reading thread itself while a second thread takes the reading over ([`crate::baton`]) — and
//! shuts down cleanly.
//!
//! Promises: input is read while commands run (a request that comes while a command runs on the
//! reading thread is read within [`crate::TAKE_OVER_AFTER`]), so `abort_bash` and `abort` reach a
//! running command; one session's `bash` commands run one at a time in arrival order
//! ([`crate::queue`]), everything else runs concurrently; at most [`MAX_RUNNING`] commands run or wait
//! at once (more are refused with an error response); every request line gets exactly one `response`
//! (blank lines are skipped); at the end of
//! the input (or on [`ShutdownHandle::shutdown`]) every running command is aborted and waited for — each
//! still sends its response and events — and then every process the server started that is still
//! alive is killed ([`bashrt_core::reaper`]).

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use bashrt_core::agent_session::{AgentSession, BashOptions};
use bashrt_core::artifact::{read_window, ArtifactError, ReadError, WindowRequest, MAX_READ_BYTES};

use bashrt_core::result::{refused, Details};
use bashrt_core::session::{SessionError, SessionName};
use bashrt_core::tool::{BashTool, CallContext};
use bashrt_core::{read_arguments, ArgumentError};
use bashrt_core::{CancelToken, Runtime};
use serde::Serialize;
use serde_json::Value;

use crate::baton::Baton;
use crate::lines::{Frame, LineReader, MAX_LINE_BYTES};
use crate::live::{LatestText, LiveStream};
use crate::output::{Output, TOOL_NAME};
use crate::queue::{Place, SessionQueue};
use crate::request::{
    self, AbortRequest, BashRequest, HistoryRequest, ReadArtifactRequest, Request, SessionOnly, ToolCallRequest,
    HISTORY_PAGE_MAX,
};
use crate::workers::{Here, Workers};

/// The most commands running at once, all sessions together.
pub const MAX_RUNNING: usize = 64;

/// Arguments longer than this (as JSON) are left out of `tool_execution_update` events.
pub const UPDATE_ARGS_MAX: usize = 1024;

/// The most sessions one server keeps.
pub const MAX_SESSIONS: usize = 1024;

/// Room for the input thread's end and a shutdown, whichever comes first.
const EVENT_QUEUE: usize = 1;

/// How the server is set up.
pub struct ServerConfig {
    /// Settings, executor, state directory: everything commands share. A runtime without a state
    /// directory disables `bash`, artifacts and `read_artifact`.
    pub runtime: Arc<Runtime>,
    /// The session of requests without `sessionId`.
    pub default_session: SessionName,
    /// Where sessions start, and what tool calls resolve a relative `cwd` against.
    pub cwd: PathBuf,
}

/// Why [`Server::serve`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The input reached its end.
    InputClosed,
    /// [`ShutdownHandle::shutdown`] was called (a signal, in the binary).
    Shutdown,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Reading the input failed; the server shut down as at the end of the input.
    #[error("cannot read the input: {0}")]
    Input(io::Error),
    #[error("cannot start the input thread: {0}")]
    Thread(io::Error),
}

/// Why one command was refused (its error response says this).
#[derive(Debug, thiserror::Error)]
enum CommandError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("too many sessions with commands running or waiting (limit {MAX_SESSIONS})")]
    TooManySessions,
    #[error("too many running commands (limit {MAX_RUNNING}); wait for one to end or abort one")]
    Busy,
    #[error("Unknown tool: {0} (this server runs: {TOOL_NAME})")]
    UnknownTool(String),
    #[error(transparent)]
    InvalidArguments(#[from] ArgumentError),
    #[error("tool call {0} is already running")]
    DuplicateToolCall(String),
    #[error("no running tool call {0}")]
    NoSuchToolCall(String),
    #[error("cannot create a cancel token: {0}")]
    Cancel(io::Error),
    #[error("cannot start a thread: {0}")]
    Thread(io::Error),
    #[error(transparent)]
    Read(#[from] ReadError),
}

impl From<ArtifactError> for CommandError {
    fn from(e: ArtifactError) -> Self {
        CommandError::Read(ReadError::Artifact(e))
    }
}

/// What ends [`Server::serve`].
enum Event {
    End(Option<io::Error>),
    Shutdown,
}

/// Ends [`Server::serve`] as the end of the input would; callable from any thread (a signal thread).
#[derive(Clone)]
pub struct ShutdownHandle(SyncSender<Event>);

impl ShutdownHandle {
    pub fn shutdown(&self) {
        // A server that already ended has nothing to shut down.
        let _ = self.0.send(Event::Shutdown);
    }
}

/// A JSON-lines server over one input and one output.
pub struct Server {
    config: ServerConfig,
    sender: SyncSender<Event>,
    events: Receiver<Event>,
}

impl Server {
    pub fn new(config: ServerConfig) -> Self {
        let (sender, events) = sync_channel(EVENT_QUEUE);
        Self { config, sender, events }
    }

    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.sender.clone())
    }

    /// Serves until the input ends or a shutdown is asked for; returns after every command ended and
    /// every process it started was killed. The thread reading `input` is left blocked in its read if
    /// the input never ends (it exits with the process).
    pub fn serve(
        self,
        input: impl Read + Send + 'static,
        output: impl Write + Send + 'static,
    ) -> Result<Ending, ServeError> {
        let Server { config, sender, events } = self;
        warm_snapshot(&config.runtime);
        let shared = Arc::new(Shared::new(config, Output::new(output)));
        let baton = standby_reader(&shared, &sender);
        let (input_shared, input_baton) = (shared.clone(), baton.clone());
        let reader = LineReader::new(input, MAX_LINE_BYTES);
        let spawned = std::thread::Builder::new()
            .name("rpc-input".into())
            .spawn(move || read_input(reader, &input_shared, &sender, input_baton.as_deref()));
        if let Err(e) = spawned {
            if let Some(baton) = &baton {
                baton.close();
            }
            return Err(ServeError::Thread(e));
        }
        let ending = match events.recv() {
            Ok(Event::End(None)) | Err(_) => Ok(Ending::InputClosed),
            Ok(Event::End(Some(e))) => Err(ServeError::Input(e)),
            Ok(Event::Shutdown) => Ok(Ending::Shutdown),
        };
        // The parked reading thread leaves (the other one may stay blocked in its read, as before).
        if let Some(baton) = &baton {
            baton.close();
        }
        // Waits for a request being dispatched; none is dispatched after this.
        *lock(&shared.accepting) = false;
        shared.abort_all();
        shared.workers.join();
        let grace = Duration::from_millis(shared.runtime.settings().kill_grace_ms);
        let killed = shared.runtime.close(grace);
        if killed > 0 {
            tracing::info!("killed {killed} process(es) left running by commands");
        }
        ending
    }
}

/// The second reading thread, parked until the first lends it the reader ([`crate::baton`]); `None`
/// when it cannot be started, and then every command runs on a worker.
fn standby_reader<R: Read + Send + 'static>(shared: &Arc<Shared>, sender: &SyncSender<Event>) -> Option<Arc<Baton<R>>> {
    let baton = match Baton::new() {
        Ok(baton) => Arc::new(baton),
        Err(e) => {
            tracing::warn!("every command runs on a worker thread: cannot make a timer: {e}");
            return None;
        }
    };
    let (shared, sender, standby) = (shared.clone(), sender.clone(), baton.clone());
    let spawned = std::thread::Builder::new().name("rpc-input".into()).spawn(move || {
        if let Some(reader) = standby.take() {
            read_input(reader, &shared, &sender, Some(&standby));
        }
    });
    match spawned {
        Ok(_) => Some(baton),
        Err(e) => {
            tracing::warn!("every command runs on a worker thread: cannot start a second reading thread: {e}");
            None
        }
    }
}

/// Reads and dispatches request lines, in order, until the input ends or the server shuts down. A
/// `bash` or `tool_call` read when nothing else is buffered runs on this thread, while the other
/// reading thread stands by to read on ([`crate::baton`]); this thread then parks as the standby if
/// the other one took over.
fn read_input<R: Read>(
    mut reader: LineReader<R>,
    shared: &Arc<Shared>,
    sender: &SyncSender<Event>,
    baton: Option<&Baton<R>>,
) {
    let _leaving = Leaving { baton, sender };
    loop {
        let frame = match reader.next_frame() {
            Ok(Some(frame)) => frame,
            // A server that shut down already is not waiting for this.
            Ok(None) => return drop(sender.send(Event::End(None))),
            Err(e) => return drop(sender.send(Event::End(Some(e)))),
        };
        let accepting = lock(&shared.accepting);
        if !*accepting {
            // Shutting down: a line read meanwhile gets no answer (as one not read at all).
            return;
        }
        let lend = baton.filter(|b| reader.is_drained() && b.can_lend());
        let mut here = Inline { allowed: lend.is_some(), job: None };
        dispatch(shared, frame, &mut here);
        // Released before the command runs: a shutdown waits for dispatching, not for commands.
        drop(accepting);
        let (Some(baton), Some(job)) = (lend, here.job) else { continue };
        baton.lend(reader);
        job.run();
        reader = match baton.reclaim().or_else(|| baton.take()) {
            Some(reader) => reader,
            None => return,
        };
    }
}

/// Whatever ends a reading thread (the end of the input, a shutdown, the other thread keeping the
/// reader) ends the lending: the parked thread leaves. On a panic (a bug) the reader is lost with the
/// thread, so the server ends as on a failed input; without that, [`Server::serve`] would wait for
/// ever, the parked thread keeping the channel open.
struct Leaving<'a, R> {
    baton: Option<&'a Baton<R>>,
    sender: &'a SyncSender<Event>,
}

impl<R> Drop for Leaving<'_, R> {
    fn drop(&mut self) {
        if let Some(baton) = self.baton {
            baton.close();
        }
        if std::thread::panicking() {
            let error = io::Error::other("the thread reading requests panicked");
            let _ = self.sender.try_send(Event::End(Some(error)));
        }
    }
}

/// Where [`dispatch`] leaves a command for the reading thread to run itself.
struct Inline {
    allowed: bool,
    job: Option<Here>,
}

/// What a running command is, for aborts and `get_state`.
enum Kind {
    Bash { session: String },
    Tool { tool_call_id: String },
    Read,
}

struct Running {
    kind: Kind,
    cancel: Option<CancelToken>,
}

#[derive(Default)]
struct Calls {
    next: u64,
    running: HashMap<u64, Running>,
}

/// What every thread of a server shares.
struct Shared {
    runtime: Arc<Runtime>,
    default_session: SessionName,
    cwd: PathBuf,
    tool: BashTool,
    output: Output,
    workers: Workers,
    sessions: Mutex<HashMap<String, SessionEntry>>,
    calls: Mutex<Calls>,
    /// Held while a request is dispatched; false once the server shuts down, so no command starts
    /// after every running one was aborted.
    accepting: Mutex<bool>,
}

/// A session and the queue of its `bash` commands.
#[derive(Clone)]
struct SessionEntry {
    session: Arc<AgentSession>,
    queue: Arc<SessionQueue>,
    last_used: Instant,
}

impl SessionEntry {
    /// No command of the session runs or waits: nothing but the map holds it.
    fn is_idle(&self) -> bool {
        Arc::strong_count(&self.session) == 1 && Arc::strong_count(&self.queue) == 1
    }
}

/// Captures the user's shell snapshot in the background, so the first command does not wait for an
/// interactive bash to read the rc files (commands that arrive meanwhile wait for the same capture).
fn warm_snapshot(runtime: &Arc<Runtime>) {
    if !runtime.settings().snapshot {
        return;
    }
    let runtime = Arc::clone(runtime);
    let spawned = std::thread::Builder::new().name("rpc-snapshot".into()).spawn(move || runtime.warm_up());
    if let Err(e) = spawned {
        tracing::warn!("cannot warm the shell snapshot: {e}");
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn new(config: ServerConfig, output: Output) -> Self {
        let tool = config.runtime.tool();
        for warning in tool.warnings() {
            tracing::warn!("{warning}");
        }
        Self {
            runtime: config.runtime,
            default_session: config.default_session,
            cwd: config.cwd,
            tool,
            output,
            workers: Workers::new(),
            sessions: Mutex::new(HashMap::new()),
            calls: Mutex::new(Calls::default()),
            accepting: Mutex::new(true),
        }
    }

    fn session_name(&self, id: Option<&str>) -> Result<SessionName, SessionError> {
        id.map_or_else(|| Ok(self.default_session.clone()), SessionName::parse)
    }

    /// The session of `id`, created on first use.
    fn agent_session(&self, id: Option<&str>) -> Result<SessionEntry, CommandError> {
        let name = self.session_name(id)?;
        let mut sessions = lock(&self.sessions);
        if let Some(entry) = sessions.get_mut(name.as_str()) {
            entry.last_used = Instant::now();
            return Ok(entry.clone());
        }
        if sessions.len() >= MAX_SESSIONS {
            // Make room by closing the least recently used session that runs nothing.
            let idle = sessions.iter().filter(|(_, e)| e.is_idle()).min_by_key(|(_, e)| e.last_used);
            let Some(oldest) = idle.map(|(name, _)| name.clone()) else {
                return Err(CommandError::TooManySessions);
            };
            sessions.remove(&oldest);
        }
        let session = Arc::new(self.runtime.session(&name, self.cwd.clone())?);
        let entry = SessionEntry { session, queue: Arc::default(), last_used: Instant::now() };
        sessions.insert(name.as_str().to_string(), entry.clone());
        Ok(entry)
    }

    /// Wakes the queued `bash` commands of every session, so aborted ones stop waiting.
    fn wake_queues(&self) {
        for entry in lock(&self.sessions).values() {
            entry.queue.wake();
        }
    }

    /// Takes a slot for a command, or refuses when [`MAX_RUNNING`] run already.
    fn register(self: &Arc<Self>, kind: Kind, cancel: Option<CancelToken>) -> Result<Slot, CommandError> {
        let mut calls = lock(&self.calls);
        if calls.running.len() >= MAX_RUNNING {
            return Err(CommandError::Busy);
        }
        if let Kind::Tool { tool_call_id } = &kind {
            if calls.running.values().any(|r| matches!(&r.kind, Kind::Tool { tool_call_id: t } if t == tool_call_id)) {
                return Err(CommandError::DuplicateToolCall(tool_call_id.clone()));
            }
        }
        calls.next += 1;
        let key = calls.next;
        calls.running.insert(key, Running { kind, cancel });
        Ok(Slot { shared: self.clone(), key })
    }

    fn abort_all(&self) {
        for running in lock(&self.calls).running.values() {
            if let Some(cancel) = &running.cancel {
                cancel.cancel();
            }
        }
        self.wake_queues();
    }
}

/// A command's place among the running ones; dropping it frees the place (also on a panic).
struct Slot {
    shared: Arc<Shared>,
    key: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.shared.calls).running.remove(&self.key);
    }
}

impl Shared {
    /// Runs `f` on a worker thread.
    fn spawn(&self, name: &str, f: impl FnOnce() + Send + 'static) -> Result<(), CommandError> {
        self.workers.submit(name, f).map_err(CommandError::Thread)
    }

    /// Leaves a command to the reading thread when it may run one, else runs it on a worker thread.
    fn start(&self, name: &str, f: impl FnOnce() + Send + 'static, here: &mut Inline) -> Result<(), CommandError> {
        if here.allowed && here.job.is_none() {
            here.job = Some(self.workers.here(f));
            return Ok(());
        }
        self.spawn(name, f)
    }
}

/// Handles one input line. Quick commands answer here; others answer from their worker thread, or
/// from this one once [`read_input`] runs the command it left in `here`.
fn dispatch(shared: &Arc<Shared>, frame: Frame, here: &mut Inline) {
    if matches!(&frame, Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace)) {
        return;
    }
    let envelope = match request::parse(frame) {
        Ok(envelope) => envelope,
        Err(rejected) => {
            shared.output.fail(rejected.id.as_ref(), &rejected.command, &rejected.error.to_string());
            return;
        }
    };
    let id = envelope.id;
    let command = envelope.request.command();
    let started = match envelope.request {
        Request::Bash(req) => start_bash(shared, id.clone(), req, here),
        Request::ToolCall(req) => start_tool_call(shared, id.clone(), req, here),
        Request::ReadArtifact(req) => start_read_artifact(shared, id.clone(), req),
        Request::AbortBash(req) => abort_bash(shared, id.as_ref(), &req),
        Request::Abort(req) => abort(shared, id.as_ref(), &req),
        Request::GetState(req) => get_state(shared, id.as_ref(), &req),
        Request::GetHistory(req) => start_get_history(shared, id.clone(), req),
        Request::ListSessions => {
            list_sessions(shared, id.as_ref());
            Ok(())
        }
    };
    if let Err(e) = started {
        shared.output.fail(id.as_ref(), command, &e.to_string());
    }
}

/// `bash`: session-level execution; live `bash_update` events, then the response with the result.
fn start_bash(
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

/// `tool_call`: the accepted response, then `tool_execution_start`, `_update`s and `_end`.
fn start_tool_call(
    shared: &Arc<Shared>,
    id: Option<Value>,
    req: ToolCallRequest,
    here: &mut Inline,
) -> Result<(), CommandError> {
    if req.name != TOOL_NAME {
        return Err(CommandError::UnknownTool(req.name));
    }
    let params = read_arguments(&req.arguments)?;
    let name = shared.session_name(req.session_id.as_deref())?;
    let artifacts = shared.runtime.state_dir().map(|state| state.session(&name).artifacts());
    let cancel = CancelToken::new().map_err(CommandError::Cancel)?;
    let slot = shared.register(Kind::Tool { tool_call_id: req.tool_call_id.clone() }, Some(cancel.clone()))?;
    // Both lines are out before the job starts, so they always come first.
    shared.output.tool_accepted(id.as_ref(), &req.tool_call_id, &req.arguments);
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
            let mut pump = None;
            let mut on_update = |text: &str| {
                if latest.set(text) {
                    pump = start_update_pump(&shared, &latest, &tool_call_id, update_args.cloned());
                }
            };
            let ctx = CallContext {
                session_cwd: shared.cwd.clone(),
                artifacts,
                tool_names,
                cancel,
                on_update: Some(&mut on_update),
            };
            let result = shared.tool.execute(&params, ctx);
            latest.finish();
            // The last update goes out before the end event.
            if let Some(done) = pump {
                let _ = done.recv();
            }
            // Free the id first: once the end event is out, the client may reuse it.
            drop(slot);
            shared.output.tool_end(&tool_call_id, &result);
        }
    };
    // The call was accepted already, so a failure to start ends it as a refused call (the dropped job
    // freed its id).
    if let Err(e) = shared.start("rpc-tool-call", job, here) {
        shared.output.tool_end(&tool_call_id, &refused(e.to_string(), Details::default()));
    }
    Ok(())
}

/// `read_artifact`: runs on its own thread (a grep over a large artifact takes a while).
fn start_read_artifact(shared: &Arc<Shared>, id: Option<Value>, req: ReadArtifactRequest) -> Result<(), CommandError> {
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
fn abort_bash(shared: &Shared, id: Option<&Value>, req: &SessionOnly) -> Result<(), CommandError> {
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
fn abort(shared: &Shared, id: Option<&Value>, req: &AbortRequest) -> Result<(), CommandError> {
    let calls = lock(&shared.calls);
    let found = calls.running.values().find_map(|r| match (&r.kind, &r.cancel) {
        (Kind::Tool { tool_call_id }, Some(cancel)) if *tool_call_id == req.tool_call_id => Some(cancel),
        _ => None,
    });
    let Some(cancel) = found else { return Err(CommandError::NoSuchToolCall(req.tool_call_id.clone())) };
    cancel.cancel();
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
    /// A summary, not a list: its size must not grow with the session.
    artifacts: bashrt_core::artifact::ArtifactSummary,
}

/// `get_state`: one session as the server sees it (without creating it).
fn get_state(shared: &Shared, id: Option<&Value>, req: &SessionOnly) -> Result<(), CommandError> {
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
        artifacts,
    };
    shared.output.ok_with(id, "get_state", &state);
    Ok(())
}

/// `get_history`: a page of what ran in a session, from its log — also what ran before this server
/// started. Read on a worker thread, streaming: a large log neither holds up the input (an
/// `abort_bash` behind it) nor takes memory beyond the page.
fn start_get_history(shared: &Arc<Shared>, id: Option<Value>, req: HistoryRequest) -> Result<(), CommandError> {
    let name = shared.session_name(req.session_id.as_deref())?;
    let offset = req.offset.unwrap_or(0);
    let limit = req.limit.unwrap_or(HISTORY_PAGE_MAX).min(HISTORY_PAGE_MAX) as usize;
    let log = shared.runtime.state_dir().map(|state| bashrt_core::agent_session::log_file(&state.session(&name)));
    let slot = shared.register(Kind::Read, None)?;
    let job = {
        let shared = shared.clone();
        move || {
            let page =
                log.map(|path| bashrt_core::agent_session::read_log_page(&path, offset, limit)).unwrap_or_default();
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
fn list_sessions(shared: &Shared, id: Option<&Value>) {
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
