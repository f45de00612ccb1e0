//! The runtime's [`Approver`] in an RPC server: asks the server's client (see `approvals`).

use std::sync::mpsc::RecvTimeoutError;
use std::sync::Weak;
use std::time::{Duration, Instant};

use bashrt_core::{Approval, ApprovalAsk, Approver};
use serde::Serialize;

use super::approvals::APPROVAL_TIMEOUT;
use super::shared::Shared;

/// How often a waiting question looks whether its call was aborted.
const ABORT_LOOK: Duration = Duration::from_millis(100);

/// The runtime's [`Approver`]: asks this server's client.
pub(super) struct RpcApprover {
    pub(super) shared: Weak<Shared>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApprovalRequest<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    approval_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    command: &'a str,
    cwd: String,
    request: &'a bashrt_core::SandboxRequest,
    /// One line for the person: what it asks for.
    summary: String,
    reason: &'a str,
}

impl Approver for RpcApprover {
    fn ask(&self, ask: &ApprovalAsk<'_>) -> Approval {
        let Some(shared) = self.shared.upgrade() else {
            return Approval::Unavailable("the server is ending".into());
        };
        let approvals = &shared.approvals;
        if !approvals.enabled() {
            return Approval::Unavailable(
                "this client cannot ask its user (it did not send {\"type\":\"set_capabilities\",\"approvals\":true}); \
                 the user can allow it in the settings instead (sandbox.writableRoots, sandbox.denyRead, \
                 sandbox.network, sandbox.allowLoopbackPorts; sandbox.approval)"
                    .into(),
            );
        }
        let (id, answers) = approvals.open();
        shared.output.event(&ApprovalRequest {
            kind: "approval_request",
            approval_id: &id,
            tool_call_id: ask.call_id,
            command: ask.command,
            cwd: ask.cwd.display().to_string(),
            request: ask.request,
            summary: ask.request.summary(),
            reason: ask.request.reason.trim(),
        });
        // Not the server's own handle while waiting: its end must not wait for a person.
        drop(shared);
        let deadline = Instant::now() + APPROVAL_TIMEOUT;
        let answer = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break Approval::Deny(Some(format!("no answer within {} s", APPROVAL_TIMEOUT.as_secs())));
            }
            match answers.recv_timeout(left.min(ABORT_LOOK)) {
                Ok(answer) => break answer,
                Err(RecvTimeoutError::Timeout) if ask.cancel.is_some_and(|c| c.is_cancelled()) => {
                    break Approval::Deny(Some("the call was aborted".into()));
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break Approval::Deny(Some("the server is ending".into())),
            }
        };
        if let Some(shared) = self.shared.upgrade() {
            shared.approvals.close(&id);
        }
        answer
    }
}
