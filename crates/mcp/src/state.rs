//! What every request of a connection shares: the tool, the session, the running calls, the resources
//! and how results are shaped for this client. Built by `server`, read by `handler` and `call`.

use std::path::PathBuf;
use std::sync::Arc;

use bashrt_core::{AgentSession, ArtifactDir, BashTool};
use rmcp::model::Tool;

use crate::calls::Calls;
use crate::resources::Commands;
use crate::shape::ResultShape;

/// What every request of a connection shares.
pub struct State {
    pub tool: BashTool,
    pub cwd: PathBuf,
    pub tool_names: Vec<String>,
    /// The connection's session: it holds the artifacts against the state directory's budget while
    /// the connection lasts. `None` without a state directory, and once the server ended.
    pub session: std::sync::Mutex<Option<AgentSession>>,
    /// The session is this connection's alone: it is removed at the end if it kept nothing.
    pub session_per_connection: bool,
    pub artifacts: Option<ArtifactDir>,
    pub calls: Arc<Calls>,
    pub commands: Commands,
    pub tools: Vec<Tool>,
    /// How results are shaped for this client.
    pub shape: ResultShape,
}
