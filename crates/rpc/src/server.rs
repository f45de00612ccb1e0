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
//! alive is killed (see [`Runtime::close`]).
//!
//! Here: the server, its input threads and the dispatch of each line; `shared` is what every thread
//! shares (the sessions, the running commands and their limits), `commands` serves each command.

mod approvals;
mod approver;
mod commands;
mod shared;

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::time::Duration;

use bashrt_core::{Runtime, SessionName};

use crate::baton::Baton;
use crate::lines::{Frame, LineReader, MAX_LINE_BYTES};
use crate::output::Output;
use crate::request::{self, Request};
use crate::workers::Here;
use commands::{
    abort, abort_bash, get_state, list_sessions, start_bash, start_get_history, start_read_artifact, start_tool_call,
};
use shared::{lock, Shared};

/// The most commands running at once, all sessions together.
pub const MAX_RUNNING: usize = 64;

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
#[non_exhaustive]
pub enum Ending {
    /// The input reached its end.
    InputClosed,
    /// [`ShutdownHandle::shutdown`] was called (a signal, in the binary).
    Shutdown,
}

/// Why [`Server::serve`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Reading the input failed; the server shut down as at the end of the input.
    #[error("cannot read the input: {0}")]
    Input(io::Error),
    /// The thread that reads the input could not be started; nothing was served.
    #[error("cannot start the input thread: {0}")]
    Thread(io::Error),
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
    /// Asks the server to shut down; does nothing once it has ended.
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
    /// A server with `config`; nothing runs before [`Server::serve`].
    pub fn new(config: ServerConfig) -> Self {
        let (sender, events) = sync_channel(EVENT_QUEUE);
        Self { config, sender, events }
    }

    /// A handle that ends [`Server::serve`] from another thread.
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
        // A call's `sandbox` request is put to this server's client (when it said it can answer).
        shared.runtime.set_approver(Arc::new(approver::RpcApprover { shared: Arc::downgrade(&shared) }));
        shared.runtime.prepare_sandbox(&shared.cwd);
        observe_jobs(&shared);
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

/// How many `job_state` events may wait for a client that is slow to read; past it, new ones are
/// dropped (the state is in every `job` answer and in `get_state` too).
const JOB_STATES_QUEUED: usize = 64;

/// Writes `job_state` events from a thread of their own: a job's thread must never wait for the client
/// to read. The thread holds the server weakly (the runtime, which holds the observer, must not keep
/// the server alive) and ends with the observer.
fn observe_jobs(shared: &Arc<Shared>) {
    let (states, queued) = std::sync::mpsc::sync_channel::<bashrt_core::JobInfo>(JOB_STATES_QUEUED);
    let weak = Arc::downgrade(shared);
    let writer = std::thread::Builder::new().name("rpc-job-states".into()).spawn(move || {
        for job in queued {
            match weak.upgrade() {
                Some(shared) => shared.output.job_state(&job),
                None => return,
            }
        }
    });
    if let Err(e) = writer {
        tracing::warn!("no job_state events: cannot start their thread: {e}");
        return;
    }
    shared.runtime.jobs().observe(Arc::new(move |job| {
        let _ = states.try_send(job.clone());
    }));
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
        Request::SetCapabilities(req) => {
            shared.approvals.enable(req.approvals);
            shared.output.ok(id.as_ref(), "set_capabilities");
            Ok(())
        }
        Request::Approval(req) => commands::approval(shared, id.as_ref(), req),
    };
    if let Err(e) = started {
        shared.output.fail(id.as_ref(), command, &e.to_string());
    }
}
