//! Asking the client's user about a `bash` call's `sandbox` request, where the client can
//! (`elicitation`, form mode): once, for the rest of the connection, or not. A client that cannot
//! gets `bash_escalated` instead, whose own permission prompt is the approval.

use std::time::Duration;

use bashrt_core::{Approval, SandboxRequest};
use rmcp::service::{ElicitationError, ElicitationMode};
use rmcp::{Peer, RoleServer};
use schemars::JsonSchema;
use serde::Deserialize;

/// How long the user has to answer; no answer is a denial.
const ANSWER_WITHIN: Duration = Duration::from_secs(600);

/// The form the user fills in.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(description = "Allow it?")]
struct Decision {
    /// once: this call; session: this and later calls of this connection; deny: not at all
    decision: Choice,
}

/// Inlined: a form's fields are flat, a `$ref` would not do.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
enum Choice {
    Once,
    Session,
    Deny,
}

rmcp::elicit_safe!(Decision);

/// The user's decision, or `None` when the client cannot ask (then `bash` names `bash_escalated`).
pub async fn decide(peer: &Peer<RoleServer>, command: &str, request: &SandboxRequest) -> Option<Approval> {
    if !peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
        return None;
    }
    let message = format!(
        "The command `{}` asks for more than the sandbox allows: {}. Its reason: {}",
        command.chars().take(300).collect::<String>(),
        request.summary(),
        request.reason.trim()
    );
    Some(match peer.elicit_with_timeout::<Decision>(message, Some(ANSWER_WITHIN)).await {
        Ok(Some(Decision { decision: Choice::Once })) => Approval::Once,
        Ok(Some(Decision { decision: Choice::Session })) => Approval::Session,
        Ok(Some(Decision { decision: Choice::Deny })) | Err(ElicitationError::UserDeclined) => Approval::Deny(None),
        Ok(None) | Err(ElicitationError::UserCancelled) => {
            Approval::Deny(Some("the user dismissed the question".into()))
        }
        Err(e) => Approval::Deny(Some(format!("the question could not be asked: {e}"))),
    })
}
