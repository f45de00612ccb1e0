//! The escalation stage of a tool call: a call that asks for more than the sandbox allows
//! (`sandbox: {write, read, network, loopbackPorts, off, reason}`) runs only as a person decides —
//! once, for the rest of the runtime's life, or not at all — never because the model asked. The
//! decision comes before the command runs; nothing is re-run by itself.

use crate::result::{SandboxGrant, SandboxUse};
use crate::runtime::Runtime;
use crate::sandbox::{Approval, ApprovalAsk, ApprovalPolicy};

/// What the call runs under once `request` is decided: `base` widened, or the refusal's text.
/// `decided`: what the front's user decided already (an MCP client's permission prompt for
/// `bash_escalated`, an answer to an elicitation).
pub(crate) fn decide(
    runtime: &Runtime,
    base: SandboxUse,
    ask: &ApprovalAsk<'_>,
    decided: Option<&Approval>,
) -> Result<SandboxUse, String> {
    let (request, cwd) = (ask.request, ask.cwd);
    // Nothing confines the call: there is nothing to widen.
    if !matches!(base, SandboxUse::On(_)) {
        return Ok(base);
    }
    if let Some(problem) = request.problem() {
        return Err(format!("Not run: {problem}."));
    }
    let summary = request.summary();
    if request.covered_by(&runtime.sandbox_grants()) {
        return Ok(base);
    }
    let approval = match runtime.settings().sandbox.approval {
        ApprovalPolicy::Never => {
            return Err(format!(
                "Not run: the sandbox does not allow {summary}, and sandbox.approval is \"never\": ask the user to \
                 allow it in the settings (sandbox.writableRoots, sandbox.denyRead, sandbox.network, \
                 sandbox.allowLoopbackPorts), or do without."
            ));
        }
        ApprovalPolicy::Always => Approval::Once,
        ApprovalPolicy::Ask if decided.is_some() => decided.cloned().unwrap_or(Approval::Once),
        ApprovalPolicy::Ask => match runtime.approver() {
            Some(approver) => approver.ask(ask),
            None => Approval::Unavailable("nobody can approve it here".into()),
        },
    };
    let sandboxes = runtime.sandboxes();
    let settings = &runtime.settings().sandbox;
    let failed = |e: crate::sandbox::SandboxError| format!("Not run: the widened sandbox could not be made: {e}.");
    match approval {
        Approval::Once | Approval::Session if request.off => {
            Ok(SandboxUse::Granted { sandbox: None, grant: SandboxGrant::once(request) })
        }
        Approval::Once => {
            let sandbox = sandboxes.once(settings, cwd, request).map_err(failed)?;
            Ok(SandboxUse::Granted { sandbox: Some(sandbox), grant: SandboxGrant::once(request) })
        }
        Approval::Session => {
            sandboxes.grant(request);
            let sandbox = runtime.sandbox_for(cwd).map_err(failed)?;
            Ok(SandboxUse::Granted { sandbox, grant: SandboxGrant::session(request) })
        }
        Approval::Deny(message) => Err(match message.filter(|m| !m.trim().is_empty()) {
            Some(message) => {
                format!("Blocked: the sandbox does not allow {summary}, and the user denied it ({message:?}).")
            }
            None => format!("Blocked: the sandbox does not allow {summary}, and the user denied it."),
        }),
        Approval::Unavailable(why) => Err(format!("Not run: the sandbox does not allow {summary}, and {why}.")),
    }
}
