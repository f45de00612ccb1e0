//! The protocol's requests, answered: `initialize` (bashrt's name and version, the protocol versions it
//! speaks), `tools/list` and `tools/call`, `resources/list`, `resources/templates/list` and
//! `resources/read`. Each request runs on its own task, so calls are concurrent.

use std::borrow::Cow;
use std::sync::Arc;

use bashrt_core::{read_window, ArtifactDir, ReadError, WindowRequest};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, InitializeResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use crate::call;
use crate::resources::{self, ResourceError};
use crate::state::State;
use crate::tools::{
    read_limit, ReadOutputDetails, ReadOutputParams, BASH_ESCALATED_TOOL, BASH_TOOL, JOB_TOOL, READ_OUTPUT_TOOL,
};

/// The protocol versions this server speaks (older ones included, for older clients).
const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
];

#[derive(Clone)]
pub struct Handler {
    state: Arc<State>,
}

impl Handler {
    pub fn new(state: Arc<State>) -> Self {
        Self { state }
    }

    fn artifacts(&self) -> Result<&ArtifactDir, ErrorData> {
        self.state.artifacts.as_ref().ok_or_else(|| {
            ErrorData::resource_not_found("no artifacts: bashrt has no state directory (set BASHRT_STATE_DIR)", None)
        })
    }
}

const INSTRUCTIONS: &str = "bashrt runs shell commands for you. Use its `bash` tool for every shell command: \
variables and functions persist between calls, long outputs are cut to what matters and kept whole as \
artifact://N, which `read_output` pages through (head, tail, a line range, or grep) without rerunning the \
command.";

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_resources().build();
        let mut server = Implementation::new("bashrt", env!("CARGO_PKG_VERSION"));
        server.title = Some("bashrt: the bash tool runtime".into());
        InitializeResult::new(capabilities)
            .with_server_info(server)
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.state.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.state.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match request.name.as_ref() {
            BASH_TOOL => call::bash(self.state.clone(), request.arguments, context, false).await,
            BASH_ESCALATED_TOOL if self.get_tool(BASH_ESCALATED_TOOL).is_some() => {
                call::bash(self.state.clone(), request.arguments, context, true).await
            }
            READ_OUTPUT_TOOL => self.read_output(request.arguments).await,
            JOB_TOOL => call::job(self.state.clone(), request.arguments, context).await,
            other => {
                return Err(ErrorData::invalid_params(
                    format!("Unknown tool: {other} (this server has {BASH_TOOL}, {JOB_TOOL} and {READ_OUTPUT_TOOL})"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let Some(dir) = self.state.artifacts.clone() else { return Ok(ListResourcesResult::default()) };
        let state = self.state.clone();
        let listed = tokio::task::spawn_blocking(move || resources::list(&dir, &state.commands))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ListResourcesResult::with_all_items(listed))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(resources::templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let dir = self.artifacts()?.clone();
        let uri = request.uri;
        let read = tokio::task::spawn_blocking(move || resources::read(&dir, &uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match read {
            Ok(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            Err(e @ (ResourceError::BadUri(_) | ResourceError::Read(ReadError::Artifact(_)))) => {
                Err(ErrorData::resource_not_found(e.to_string(), None))
            }
            Err(e) => Err(ErrorData::invalid_params(e.to_string(), None)),
        }
    }
}

impl Handler {
    /// `read_output`: a window of an artifact, on a blocking thread (a grep over a large artifact takes
    /// a while).
    async fn read_output(&self, arguments: Option<serde_json::Map<String, Value>>) -> CallToolResult {
        let shape = self.state.shape;
        let params = match ReadOutputParams::read(&arguments.unwrap_or_default()) {
            Ok(params) => params,
            Err(e) => return shape.refusal(e),
        };
        let request = WindowRequest {
            head: params.head,
            tail: params.tail,
            lines: params.lines.clone(),
            grep: params.grep.clone(),
        };
        let window = match request.window() {
            Ok(window) => window,
            Err(e) => return shape.refusal(e.to_string()),
        };
        let dir = match self.artifacts() {
            Ok(dir) => dir.clone(),
            Err(e) => return shape.refusal(e.message.to_string()),
        };
        let reference = params.artifact_id.as_reference();
        let limit = read_limit(self.state.tool.settings());
        let read = tokio::task::spawn_blocking(move || read_window(&dir, &reference, &window, limit)).await;
        let content = match read {
            Ok(Ok(content)) => content,
            Ok(Err(e)) => return shape.refusal(e.to_string()),
            Err(e) => return shape.refusal(format!("the read failed inside bashrt: {e}")),
        };
        let details = ReadOutputDetails {
            artifact_id: content.artifact_id.0,
            bytes: content.content.len() as u64,
            truncated: content.truncated,
        };
        let mut text = content.content;
        if details.truncated {
            text.push_str(&format!(
                "\n\n[Cut at {} — read the rest with a narrower window: lines or grep]",
                bashrt_core::format_size(limit as u64)
            ));
        } else if text.is_empty() {
            text = "(no lines in this window)".to_string();
        }
        let notes = bashrt_core::ArgumentNotes { ignored: params.ignored, ..Default::default() };
        let notices = notes.notices();
        if !notices.is_empty() {
            // An argument a model may have meant as a window (`offset`, `pattern`) did not narrow it.
            bashrt_core::append_notices(&mut text, &notices);
        }
        shape.result(text, false, serde_json::to_value(&details).ok())
    }
}
