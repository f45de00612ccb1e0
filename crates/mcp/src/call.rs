//! One `bash` call: the tool call of `bashrt-core` on a blocking thread, its output as progress, a
//! cancellation from the client as the call's cancel, and the result in the protocol's shape.
//!
//! Promises: the call never answers before its command's tree is gone (a cancel waits for the kill);
//! every outcome, a refused call included, is a tool result (`isError` for failures, unless the
//! client's profile turns that off), never a protocol error; the result is shaped by
//! [`crate::shape`].

use std::sync::Arc;

use bashrt_core::{read_arguments, read_job_arguments, BashParams, CallContext, CancelToken, ToolResult, Yielding};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::Value;

use crate::progress::Progress;
use crate::shape::ResultShape;
use crate::state::State;

/// Runs one `bash` call to its end.
/// `escalated`: called as `bash_escalated`, whose call the user's client approved: its `sandbox`
/// request is granted for this call.
pub async fn bash(
    state: Arc<State>,
    arguments: Option<JsonObject>,
    context: RequestContext<RoleServer>,
    escalated: bool,
) -> CallToolResult {
    let (mut params, cancel) = match start(&state, arguments, read_arguments) {
        Ok(started) => started,
        Err(refusal) => return refusal,
    };
    if escalated {
        if params.sandbox.is_none() {
            return state.shape.refusal(format!(
                "Invalid arguments for tool {}: `sandbox` is required: what the command needs beyond the sandbox, and why (e.g. {{\"write\": [\"~/.cache/uv\"], \"reason\": \"…\"}}); without it, use {}",
                crate::tools::BASH_ESCALATED_TOOL,
                crate::tools::BASH_TOOL
            ));
        }
        params.decided = Some(bashrt_core::Approval::Once);
    } else if let Some(request) = params.sandbox.as_deref() {
        // A client that can ask its user (elicitation): the user decides here, before the call.
        if let Some(decided) = crate::elicit::decide(&context.peer, &params.command, request).await {
            params.decided = Some(decided);
        }
    }
    let command = params.command.clone();
    let running = match state.calls.register(cancel.clone()) {
        Ok(running) => running,
        Err(refused) => return state.shape.refusal(refused.to_string()),
    };
    let progress = context.meta.get_progress_token().map(|token| Progress::start(context.peer.clone(), token));
    let tail = progress.as_ref().map(Progress::tail);
    // The yielded result comes through this channel; the call's thread goes on with the command.
    let (yielded_tx, yielded_rx) = tokio::sync::oneshot::channel::<ToolResult>();
    let job = {
        let (state, cancel) = (state.clone(), cancel.clone());
        move || {
            let ctx = CallContext {
                session_cwd: state.cwd.clone(),
                artifacts: state.artifacts.clone(),
                tool_names: state.tool_names.clone(),
                cancel,
                on_update: None,
            };
            let on_yield = Box::new(move |result: ToolResult| {
                let _ = yielded_tx.send(result);
            });
            let yielding = Yielding { call_id: None, on_yield };
            let result = match tail {
                Some(tail) => {
                    state.tool.execute_yielding(&params, ctx, yielding, Some(&mut |chunk: &[u8]| tail.push(chunk)))
                }
                None => state.tool.execute_yielding(&params, ctx, yielding, None),
            };
            (Box::new(params), result)
        }
    };
    let mut handle = tokio::task::spawn_blocking(job);
    let ended = tokio::select! {
        joined = &mut handle => Ended::Joined(joined),
        Ok(result) = yielded_rx => Ended::Yielded(result),
        () = context.ct.cancelled() => {
            // The client cancelled (or the server is shutting down): kill the tree, then wait for the
            // executor to report it gone.
            cancel.cancel();
            Ended::Joined(handle.await)
        }
    };
    if let Some(progress) = progress {
        progress.finish().await;
    }
    drop(running);
    match ended {
        // The command goes on as a job on the blocking thread; its end is the job's.
        Ended::Yielded(result) => {
            if let Some(id) = result.details.job.as_ref().and_then(|j| j.artifact_id) {
                state.commands.record(id.0, command.trim());
            }
            to_protocol(result, &state.shape)
        }
        Ended::Joined(Ok((params, result))) => {
            if let Some(id) = artifact_of(&result) {
                state.commands.record(id, params.command.trim());
            }
            to_protocol(result, &state.shape)
        }
        Ended::Joined(Err(e)) => {
            tracing::error!("a bash call failed: {e}");
            state.shape.refusal(format!("the call failed inside bashrt: {e}"))
        }
    }
}

/// How a `bash` call came back: its command ended (or the blocking thread failed), or it yielded.
enum Ended {
    Joined(Result<(Box<BashParams>, ToolResult), tokio::task::JoinError>),
    Yielded(ToolResult),
}

/// Runs one `job` call; a cancel from the client ends a wait.
pub async fn job(
    state: Arc<State>,
    arguments: Option<JsonObject>,
    context: RequestContext<RoleServer>,
) -> CallToolResult {
    let (params, cancel) = match start(&state, arguments, read_job_arguments) {
        Ok(started) => started,
        Err(refusal) => return refusal,
    };
    let handle = {
        let (state, cancel) = (state.clone(), cancel.clone());
        tokio::task::spawn_blocking(move || state.tool.job(&params, &cancel))
    };
    let joined = tokio::select! {
        joined = handle => joined,
        () = context.ct.cancelled() => {
            cancel.cancel();
            return state.shape.refusal("[Wait cancelled]".to_string());
        }
    };
    match joined {
        Ok(result) => to_protocol(result, &state.shape),
        Err(e) => state.shape.refusal(format!("the call failed inside bashrt: {e}")),
    }
}

/// A call's arguments as the tool reads them, and its cancel token; or the refusal that says why not.
fn start<P, E: std::fmt::Display>(
    state: &State,
    arguments: Option<JsonObject>,
    read: impl FnOnce(&Value) -> Result<P, E>,
) -> Result<(P, CancelToken), CallToolResult> {
    let params = read(&Value::Object(arguments.unwrap_or_default())).map_err(|e| state.shape.refusal(e.to_string()))?;
    let cancel = CancelToken::new().map_err(|e| state.shape.refusal(format!("cannot create a cancel token: {e}")))?;
    Ok((params, cancel))
}

/// The artifact holding the full output, when the view left some of it out.
fn artifact_of(result: &ToolResult) -> Option<u64> {
    result.details.meta.as_ref()?.truncation.artifact_id.map(|id| id.0)
}

/// The tool result as MCP carries it (see [`crate::shape`]).
fn to_protocol(result: ToolResult, shape: &ResultShape) -> CallToolResult {
    let details = serde_json::to_value(&result.details)
        .map_err(|e| tracing::error!("cannot serialize the details of a result: {e}"))
        .ok();
    shape.result(result.text(), result.is_error, details)
}
