//! Widening the sandbox from the terminal UI: the person at the keyboard is the one who decides. A
//! command the sandbox refused offers, in the status line, to allow what was refused for the rest of
//! the session (ctrl+g); the command is then run again by the person (↑, enter), never by itself.

use bashrt_core::{DenialKind, RequestedNetwork, SandboxRequest, ToolResult};

use crate::worker::Done;

/// What to offer once a command ended, and the status line that says so.
pub fn offer_after(done: &Done) -> Option<(SandboxRequest, String)> {
    let Done::Tool(result) = done else { return None };
    let request = offer(result)?;
    let message = format!("the sandbox refused {} — ctrl+g allows it for this session", request.summary());
    Some((request, message))
}

/// What to offer after `result`: the paths and addresses its sandbox denials name.
pub fn offer(result: &ToolResult) -> Option<SandboxRequest> {
    let sandbox = result.details.sandbox.as_ref()?;
    let mut request = SandboxRequest { reason: "allowed at the terminal".into(), ..SandboxRequest::default() };
    for denial in &sandbox.denials {
        match (denial.kind, denial.path.as_deref(), denial.address.as_deref()) {
            (DenialKind::Write, Some(path), _) => request.write.push(existing(path)),
            (DenialKind::Read, Some(path), _) => request.read.push(path.to_string()),
            (DenialKind::Network, _, Some(address)) => match loopback_port(address) {
                Some(port) => request.loopback_ports.push(port),
                None => request.network = Some(RequestedNetwork::On),
            },
            _ => {}
        }
    }
    request.write.dedup();
    let empty = request.write.is_empty()
        && request.read.is_empty()
        && request.network.is_none()
        && request.loopback_ports.is_empty();
    (!empty && request.problem().is_none()).then_some(request)
}

/// The path, or the nearest directory above it that exists: what the kernel can grant (a file the
/// command was creating is granted through its directory).
fn existing(path: &str) -> String {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let expanded = match (path.strip_prefix("~/"), &home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => std::path::PathBuf::from(path),
    };
    let mut at = expanded.as_path();
    while !at.exists() {
        match at.parent() {
            Some(parent) => at = parent,
            None => break,
        }
    }
    match (home.as_deref().and_then(|h| at.strip_prefix(h).ok()), at == expanded) {
        (Some(rest), _) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => at.display().to_string(),
    }
}

/// The port of a loopback address (`127.0.0.1:5432`, `[::1]:5432`).
fn loopback_port(address: &str) -> Option<u16> {
    let parsed: std::net::SocketAddr = address.parse().ok()?;
    parsed.ip().is_loopback().then_some(parsed.port())
}
