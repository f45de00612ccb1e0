//! What a result says of the sandbox: the refusals its output shows (checked against the policy),
//! the variables left out of the environment (once), and that it ran unconfined where the kernel
//! could not confine it and the settings said to run anyway.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::sandbox::{Denial, DenialKind, Mode, Network, Sandbox};

/// How a call's command was confined.
#[derive(Debug, Clone, Default)]
pub(crate) enum SandboxUse {
    /// `sandbox.mode = "off"`, or a session command.
    #[default]
    Off,
    /// Confined by this sandbox.
    On(Arc<Sandbox>),
    /// It should have been, the kernel could not, and `sandbox.fallback = "warn"` ran it anyway.
    Unconfined(String),
    /// Widened as a person decided: by `sandbox` (`None`: the call runs without one, `off`).
    Granted { sandbox: Option<Arc<Sandbox>>, grant: SandboxGrant },
}

/// A request a person granted, as a result reports it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SandboxGrant {
    /// `once` or `session`.
    pub scope: &'static str,
    /// What was granted.
    pub request: crate::sandbox::SandboxRequest,
}

impl SandboxGrant {
    pub(crate) fn once(request: &crate::sandbox::SandboxRequest) -> Self {
        Self { scope: "once", request: request.clone() }
    }

    pub(crate) fn session(request: &crate::sandbox::SandboxRequest) -> Self {
        Self { scope: "session", request: request.clone() }
    }
}

impl SandboxUse {
    pub(crate) fn confining(&self) -> Option<&Arc<Sandbox>> {
        match self {
            Self::On(sandbox) | Self::Granted { sandbox: Some(sandbox), .. } => Some(sandbox),
            _ => None,
        }
    }
}

/// `details.sandbox`: present when there is something to say.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SandboxDetails {
    /// `workspace-write` or `read-only`; absent when the command ran unconfined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// `on` or `off`; absent when the command ran unconfined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<Network>,
    /// What the sandbox refused, as the output shows it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub denials: Vec<Denial>,
    /// Variables left out of the environment because they look like secrets (names only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env_removed: Vec<String>,
    /// Files of the workspace that run outside the sandbox later (git hooks and config, `.envrc`,
    /// editor tasks) changed since the last call.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sensitive_writes: Vec<String>,
    /// Why the command ran without the sandbox (`sandbox.fallback = "warn"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconfined: Option<String>,
    /// What a person granted for this call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant: Option<SandboxGrant>,
}

impl SandboxDetails {
    /// The details of a command that ran without the sandbox, and why.
    fn unconfined(why: String, grant: Option<SandboxGrant>) -> Self {
        Self {
            mode: None,
            network: None,
            denials: Vec::new(),
            env_removed: Vec::new(),
            sensitive_writes: Vec::new(),
            unconfined: Some(why),
            grant,
        }
    }
}

/// The notices and details of `used`, for a command whose output the model sees as `text`, run in
/// `cwd`.
/// `started`: when the call started (the network supervisor's denials since then are its own).
pub(crate) fn report(
    used: &SandboxUse,
    text: &str,
    cwd: &Path,
    started: std::time::Instant,
) -> (Vec<String>, Option<SandboxDetails>) {
    match used {
        SandboxUse::Off => (Vec::new(), None),
        SandboxUse::Unconfined(why) => (
            vec![format!("[Ran WITHOUT the sandbox: {why} (sandbox.fallback = \"warn\")]")],
            Some(SandboxDetails::unconfined(why.clone(), None)),
        ),
        SandboxUse::Granted { sandbox: None, grant } => (
            vec![format!(
                "[Ran without the sandbox, as the user allowed for this call: {}]",
                grant.request.reason.trim()
            )],
            Some(SandboxDetails::unconfined("the user allowed it for this call".into(), Some(grant.clone()))),
        ),
        SandboxUse::On(sandbox) | SandboxUse::Granted { sandbox: Some(sandbox), .. } => {
            let grant = match used {
                SandboxUse::Granted { grant, .. } => Some(grant.clone()),
                _ => None,
            };
            let mut denials = sandbox.network_denials(started);
            let exact = !denials.is_empty();
            // A refused connection the supervisor recorded says it exactly: the output's signs of one
            // add nothing.
            denials
                .extend(sandbox.denials(text, cwd).into_iter().filter(|d| !(exact && d.kind == DenialKind::Network)));
            let mut notices: Vec<String> = denials.iter().take(3).map(|d| notice(sandbox, d)).collect();
            if denials.len() > 3 {
                notices.push(format!("[… and {} more sandbox denials: details.sandbox.denials]", denials.len() - 3));
            }
            let env_removed: Vec<String> =
                if sandbox.tell_env_once() { sandbox.env_removed().collect() } else { Vec::new() };
            if !env_removed.is_empty() {
                let n = env_removed.len();
                notices.push(format!(
                    "[Sandbox: {n} variable{} that look{} like secrets {} left out of the environment: {} (sandbox.envKeep keeps one)]",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "s" } else { "" },
                    if n == 1 { "was" } else { "were" },
                    env_removed.join(", ")
                ));
            }
            let sensitive_writes = sandbox.sensitive_changes();
            if !sensitive_writes.is_empty() {
                notices.push(format!(
                    "[Sandbox: changed since the last call: {} — these run outside the sandbox (git runs its hooks and \
                     its config's commands, direnv its .envrc, editors their tasks): the user should check them]",
                    sensitive_writes.join(", ")
                ));
            }
            if let Some(grant) = &grant {
                let scope = if grant.scope == "session" { "for the rest of this session" } else { "for this call" };
                notices.insert(0, format!("[Sandbox widened {scope} by the user: {}]", grant.request.summary()));
            }
            if denials.is_empty() && env_removed.is_empty() && sensitive_writes.is_empty() && grant.is_none() {
                return (notices, None);
            }
            let (mode, network) = sandbox.mode();
            (
                notices,
                Some(SandboxDetails {
                    mode: Some(mode),
                    network: Some(network),
                    denials,
                    env_removed,
                    sensitive_writes,
                    unconfined: None,
                    grant,
                }),
            )
        }
    }
}

fn notice(sandbox: &Sandbox, denial: &Denial) -> String {
    let path = denial.path.as_deref().unwrap_or("?");
    let (mode, network) = sandbox.mode();
    match denial.kind {
        DenialKind::Write => {
            let roots = match mode {
                Mode::ReadOnly => "the sandbox is read-only",
                _ => "outside the writable roots: the workspace, the temporary directories and the package caches",
            };
            format!("[Sandbox denied: write to {path} ({roots}). The user can allow it in sandbox.writableRoots]")
        }
        DenialKind::Read => {
            format!("[Sandbox denied: read of {path} (credentials are unreadable). The user can allow it in sandbox.denyRead]")
        }
        DenialKind::Network => match (&denial.address, network) {
            (Some(address), _) if address.starts_with('/') => format!(
                "[Sandbox denied: {} (a unix socket outside the workspace: a service of the user's). The user can allow \
                 it in sandbox.allowUnixSockets]",
                denial.line
            ),
            (Some(_), _) => format!(
                "[Sandbox denied: {} (the network is loopback-only: commands reach only the servers the sandbox's \
                 commands started). The user can allow a local port in sandbox.allowLoopbackPorts, or the network in \
                 sandbox.network]",
                denial.line
            ),
            (None, Network::Off) => {
                "[Sandbox may have denied a network connection: the network is off in the sandbox (sandbox.network)]"
                    .to_string()
            }
            (None, Network::Loopback) => "[Sandbox may have denied a network connection: the network is \
                                          loopback-only in the sandbox (sandbox.network)]"
                .to_string(),
            (None, Network::On) => "[Sandbox may have denied a network connection]".to_string(),
        },
        DenialKind::Privilege => {
            "[Sandbox denied: a gain of privileges (sudo, set-user-ID programs): commands run with no new privileges]"
                .to_string()
        }
    }
}
