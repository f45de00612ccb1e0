//! The server's life: set up the connection's session, serve stdio until the client goes away or a
//! shutdown is asked for, then end every call and every process.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bashrt_core::{Runtime, SessionName};
use rmcp::service::QuitReason;
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

use crate::calls::Calls;
use crate::handler::Handler;
use crate::pipes::Stdio;
use crate::resources::Commands;
use crate::shape::ResultShape;
use crate::state::State;

/// How the server is set up.
pub struct ServerConfig {
    /// Settings, shells, state directory: what every call uses.
    pub runtime: Arc<Runtime>,
    /// The connection's session (its artifacts and its place in the state directory).
    pub session: SessionName,
    /// Where calls run when they give no `cwd`, and what a relative `cwd` is resolved against.
    pub cwd: PathBuf,
    /// The tools the client has, for interception: a rule blocks a command only when the tool it
    /// suggests is one of these.
    pub tool_names: Vec<String>,
    /// `session` is this connection's alone (not named by the user): when the connection ends and the
    /// session kept nothing, its directory is removed, so that empty sessions do not pile up.
    pub session_per_connection: bool,
    /// How results are shaped for the client (see [`ResultShape`]).
    pub shape: ResultShape,
}

/// Why [`Server::serve_stdio`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ending {
    /// The client closed stdin (or never initialized).
    InputClosed,
    /// A shutdown was asked for, or the client stopped reading (stdout broke).
    Shutdown,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The async runtime could not start.
    #[error("cannot start the server's runtime: {0}")]
    Runtime(std::io::Error),
}

/// Ends [`Server::serve_stdio`] as the end of stdin would; callable from any thread (a signal thread).
#[derive(Clone)]
pub struct ShutdownHandle(CancellationToken);

impl ShutdownHandle {
    /// Asks the server to stop: running calls are cancelled and every process is killed.
    pub fn shutdown(&self) {
        self.0.cancel();
    }
}

/// An MCP server for one client connection on stdin/stdout.
pub struct Server {
    config: ServerConfig,
    stop: CancellationToken,
}

impl Server {
    /// A server; nothing starts before [`Server::serve_stdio`].
    pub fn new(config: ServerConfig) -> Self {
        Self { config, stop: CancellationToken::new() }
    }

    /// A handle that stops the server from another thread.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.stop.clone())
    }

    /// Serves the client on stdin/stdout until it goes away or a shutdown is asked for; returns after
    /// every call ended and every process the server started was killed.
    pub fn serve_stdio(self) -> Result<Ending, ServeError> {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(ServeError::Runtime)?;
        let ending = runtime.block_on(self.serve());
        // A blocking stdin read (stdin not a pipe) never returns by itself: leave it behind.
        runtime.shutdown_background();
        Ok(ending)
    }

    async fn serve(self) -> Ending {
        let Server { config, stop } = self;
        let state = Arc::new(state_of(config));
        for warning in state.tool.warnings() {
            tracing::warn!("{warning}");
        }
        if state.tool.settings().snapshot {
            // Capture the user's snapshot while the client initializes, not in its first call.
            let runtime = state.tool.runtime().clone();
            drop(tokio::task::spawn_blocking(move || runtime.warm_up()));
        }
        let (input, output) = rmcp::transport::io::stdio_pipes();
        let input_ended = Arc::new(AtomicBool::new(false));
        let transport = Stdio::new(input, output, stop.clone(), input_ended.clone());
        let ending = match Handler::new(state.clone()).serve_with_ct(transport, stop.clone()).await {
            Ok(service) => match service.waiting().await {
                Ok(QuitReason::Closed) => Ending::InputClosed,
                Ok(_) => Ending::Shutdown,
                Err(e) => {
                    tracing::error!("the server's task failed: {e}");
                    Ending::Shutdown
                }
            },
            Err(e) => {
                tracing::info!("the client left before initializing: {e}");
                Ending::InputClosed
            }
        };
        // The end of stdin also cancels the shutdown token, which may have ended rmcp's loop first.
        let ending = if input_ended.load(Ordering::Acquire) { Ending::InputClosed } else { ending };
        stop.cancel();
        finish(state).await;
        ending
    }
}

/// The approver of an MCP server: `bash` names `bash_escalated`, whose calls the client asks the
/// user about.
struct EscalatedOnly;

impl bashrt_core::Approver for EscalatedOnly {
    fn ask(&self, _: &bashrt_core::ApprovalAsk<'_>) -> bashrt_core::Approval {
        bashrt_core::Approval::Unavailable(format!(
            "`{}` cannot ask the user: call `{}` with the same arguments instead (the user's client asks them \
             before it runs)",
            crate::tools::BASH_TOOL,
            crate::tools::BASH_ESCALATED_TOOL
        ))
    }
}

fn state_of(config: ServerConfig) -> State {
    let ServerConfig { runtime, session, cwd, tool_names, session_per_connection, shape } = config;
    let agent_session = match runtime.state_dir() {
        Some(_) => match runtime.session(&session, cwd.clone()) {
            Ok(session) => Some(session),
            Err(e) => {
                tracing::warn!("no session {}: {e}; outputs are not kept", session.as_str());
                None
            }
        },
        None => None,
    };
    let artifacts = agent_session.as_ref().map(|s| s.session().artifacts());
    let tools = crate::tools::list(runtime.settings(), &shape);
    // A `bash` call's `sandbox` request is approved by the client's own permission prompt for
    // `bash_escalated`: `bash` itself cannot ask anyone.
    runtime.set_approver(Arc::new(EscalatedOnly));
    runtime.prepare_sandbox(&cwd);
    State {
        tool: runtime.tool(),
        cwd,
        tool_names,
        session: std::sync::Mutex::new(agent_session),
        session_per_connection,
        artifacts,
        calls: Arc::new(Calls::default()),
        commands: Commands::default(),
        tools,
        shape,
    }
}

/// Cancels what still runs, waits for it, then kills every process the runtime started.
async fn finish(state: Arc<State>) {
    state.calls.close();
    let ended = tokio::task::spawn_blocking(move || {
        state.calls.wait_idle();
        let runtime = state.tool.runtime();
        let killed = runtime.close(Duration::from_millis(runtime.settings().kill_grace_ms));
        if killed > 0 {
            tracing::info!("killed {killed} process(es) left running by commands");
        }
        let session = state.session.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(session) = session {
            if state.session_per_connection {
                session.close_if_empty();
            }
        }
    })
    .await;
    if let Err(e) = ended {
        tracing::error!("the shutdown failed: {e}");
    }
}
