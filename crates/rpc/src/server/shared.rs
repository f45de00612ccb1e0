//! What every thread of a server shares: the runtime and the tool, the sessions with the queues of
//! their `bash` commands, and the running commands (for aborts, `get_state` and the limit of
//! [`MAX_RUNNING`]); and why a command is refused.

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use bashrt_core::{
    AgentSession, ArgumentError, ArtifactError, BashTool, CancelToken, ReadError, Runtime, SessionError, SessionName,
};

use super::{Inline, ServerConfig, MAX_RUNNING, MAX_SESSIONS};
use crate::output::{Output, JOB_TOOL_NAME, TOOL_NAME};
use crate::queue::SessionQueue;
use crate::workers::Workers;

/// What a running command is, for aborts and `get_state`.
pub(super) enum Kind {
    Bash { session: String },
    Tool { tool_call_id: String },
    Read,
}

pub(super) struct Running {
    pub(super) kind: Kind,
    pub(super) cancel: Option<CancelToken>,
}

#[derive(Default)]
pub(super) struct Calls {
    pub(super) next: u64,
    pub(super) running: HashMap<u64, Running>,
}

/// What every thread of a server shares.
pub(super) struct Shared {
    pub(super) runtime: Arc<Runtime>,
    pub(super) default_session: SessionName,
    pub(super) cwd: PathBuf,
    pub(super) tool: BashTool,
    pub(super) output: Output,
    pub(super) workers: Workers,
    pub(super) sessions: Mutex<HashMap<String, SessionEntry>>,
    pub(super) calls: Mutex<Calls>,
    /// Held while a request is dispatched; false once the server shuts down, so no command starts
    /// after every running one was aborted.
    pub(super) accepting: Mutex<bool>,
    /// The client's answers to `sandbox` requests.
    pub(super) approvals: super::approvals::Approvals,
}

/// A session and the queue of its `bash` commands.
#[derive(Clone)]
pub(super) struct SessionEntry {
    pub(super) session: Arc<AgentSession>,
    pub(super) queue: Arc<SessionQueue>,
    pub(super) last_used: Instant,
}

impl SessionEntry {
    /// No command of the session runs or waits: nothing but the map holds it.
    pub(super) fn is_idle(&self) -> bool {
        Arc::strong_count(&self.session) == 1 && Arc::strong_count(&self.queue) == 1
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub(super) fn new(config: ServerConfig, output: Output) -> Self {
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
            approvals: Default::default(),
        }
    }

    pub(super) fn session_name(&self, id: Option<&str>) -> Result<SessionName, SessionError> {
        id.map_or_else(|| Ok(self.default_session.clone()), SessionName::parse)
    }

    /// The session of `id`, created on first use.
    pub(super) fn agent_session(&self, id: Option<&str>) -> Result<SessionEntry, CommandError> {
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
    pub(super) fn wake_queues(&self) {
        for entry in lock(&self.sessions).values() {
            entry.queue.wake();
        }
    }

    /// Takes a slot for a command, or refuses when [`MAX_RUNNING`] run already.
    pub(super) fn register(self: &Arc<Self>, kind: Kind, cancel: Option<CancelToken>) -> Result<Slot, CommandError> {
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

    /// Cancels every running command, the jobs calls became included (they run on workers too).
    pub(super) fn abort_all(&self) {
        for running in lock(&self.calls).running.values() {
            if let Some(cancel) = &running.cancel {
                cancel.cancel();
            }
        }
        self.runtime.jobs().kill_all();
        self.wake_queues();
    }
}

/// A command's place among the running ones; dropping it frees the place (also on a panic).
pub(super) struct Slot {
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
    pub(super) fn spawn(&self, name: &str, f: impl FnOnce() + Send + 'static) -> Result<(), CommandError> {
        self.workers.submit(name, f).map_err(CommandError::Thread)
    }

    /// Leaves a command to the reading thread when it may run one, else runs it on a worker thread.
    pub(super) fn start(
        &self,
        name: &str,
        f: impl FnOnce() + Send + 'static,
        here: &mut Inline,
    ) -> Result<(), CommandError> {
        if here.allowed && here.job.is_none() {
            here.job = Some(self.workers.here(f));
            return Ok(());
        }
        self.spawn(name, f)
    }
}

/// Why one command was refused (its error response says this).
#[derive(Debug, thiserror::Error)]
pub(super) enum CommandError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("too many sessions with commands running or waiting (limit {MAX_SESSIONS})")]
    TooManySessions,
    #[error("too many running commands (limit {MAX_RUNNING}); wait for one to end or abort one")]
    Busy,
    #[error("Unknown tool: {0} (this server runs: {TOOL_NAME}, {JOB_TOOL_NAME})")]
    UnknownTool(String),
    #[error(transparent)]
    InvalidArguments(#[from] ArgumentError),
    #[error(transparent)]
    InvalidJobArguments(#[from] bashrt_core::JobArgumentError),
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
