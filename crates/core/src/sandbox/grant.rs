//! Asking for more than the sandbox allows: a call's `sandbox` request, what a person decides, and
//! how a granted request widens the policy. Nothing is ever re-run by itself: a call asks before it
//! runs, and a person (never the model) decides.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::settings::{Network, SandboxSettings};

/// A call's `sandbox` argument: what it asks for beyond the policy, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxRequest {
    /// Paths to make writable (absolute or ~/)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<String>,
    /// Unreadable paths (credentials) to make readable (absolute or ~/)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<String>,
    /// "on": the whole network, not only loopback
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<RequestedNetwork>,
    /// Local ports to reach on loopback (a database the user runs)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loopback_ports: Vec<u16>,
    /// Run this one call without the sandbox at all (never granted for a session)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub off: bool,
    /// Why: shown to the person who decides, word for word
    #[serde(default)]
    pub reason: String,
}

/// The network a request may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RequestedNetwork {
    /// Everything.
    On,
}

/// What a person decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// For this call.
    Once,
    /// For this call and the later ones of this runtime (not `off`, which is only ever once).
    Session,
    /// Refused, with the person's words for the model, if any.
    Deny(Option<String>),
    /// Nobody here can decide (the client did not say it can); the text says how to ask instead.
    Unavailable(String),
}

/// What a person is asked.
#[derive(Debug, Clone)]
pub struct ApprovalAsk<'a> {
    /// The caller's id of the call, when it has one.
    pub call_id: Option<&'a str>,
    /// The command as the model wrote it.
    pub command: &'a str,
    /// Where it would run.
    pub cwd: &'a std::path::Path,
    /// What it asks for.
    pub request: &'a SandboxRequest,
    /// The call's cancel: an abort ends the wait for an answer.
    pub cancel: Option<&'a crate::cancel::CancelToken>,
}

/// The front's way to ask a person (an RPC client's user, the TUI's); see
/// [`Runtime::set_approver`](crate::Runtime::set_approver).
pub trait Approver: Send + Sync {
    /// Asks, and waits for the answer (a front bounds the wait: no answer is a denial).
    fn ask(&self, ask: &ApprovalAsk<'_>) -> Approval;
}

impl SandboxRequest {
    /// Why the request cannot be considered, if so.
    pub fn problem(&self) -> Option<String> {
        if self.reason.trim().is_empty() {
            return Some("`sandbox.reason` is required: say why the command needs it".into());
        }
        if self.write.is_empty()
            && self.read.is_empty()
            && self.network.is_none()
            && self.loopback_ports.is_empty()
            && !self.off
        {
            return Some(
                "`sandbox` asks for nothing: name `write`, `read`, `network`, `loopbackPorts` or `off`".into(),
            );
        }
        let bad =
            self.write.iter().chain(&self.read).find(|p| !(p.starts_with('/') || p.starts_with("~/") || *p == "~"));
        if let Some(p) = bad {
            return Some(format!("`sandbox` paths must be absolute or start with ~/, got {p:?}"));
        }
        // The kernel grants existing files and directories: a file the command will create is
        // granted through its directory, which the request must name.
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let missing = self.write.iter().chain(&self.read).find(|p| {
            super::paths::expand_home(std::path::Path::new(p), home.as_deref()).is_none_or(|path| !path.exists())
        });
        missing.map(|p| format!("`sandbox` path {p} does not exist: name the directory the command writes into"))
    }

    /// One line for a person: `write ~/.cache/uv; network on`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.off {
            parts.push("no sandbox at all".to_string());
        }
        if !self.write.is_empty() {
            parts.push(format!("write {}", self.write.join(", ")));
        }
        if !self.read.is_empty() {
            parts.push(format!("read {}", self.read.join(", ")));
        }
        if self.network.is_some() {
            parts.push("the whole network".to_string());
        }
        if !self.loopback_ports.is_empty() {
            let ports: Vec<String> = self.loopback_ports.iter().map(u16::to_string).collect();
            parts.push(format!("local port {}", ports.join(", ")));
        }
        parts.join("; ")
    }

    /// `settings` widened by this request (what a person grants on a command line, say).
    pub fn widened(&self, settings: &SandboxSettings) -> SandboxSettings {
        let mut out = settings.clone();
        out.writable_roots.extend(self.write.iter().map(PathBuf::from));
        let read: Vec<PathBuf> = self.read.iter().map(PathBuf::from).collect();
        // A path asked for and every denied path under it, or above it, become readable.
        out.deny_read.retain(|denied| !read.iter().any(|r| r.starts_with(denied) || denied.starts_with(r)));
        if self.network.is_some() {
            out.network = Network::On;
        }
        out.allow_loopback_ports.extend(&self.loopback_ports);
        out
    }

    /// Whether `granted` already allows everything this asks (a standing grant covers it).
    pub(crate) fn covered_by(&self, granted: &[SandboxRequest]) -> bool {
        let under = |path: &String, grants: &[String]| grants.iter().any(|g| std::path::Path::new(path).starts_with(g));
        !self.off
            && self.write.iter().all(|w| granted.iter().any(|g| under(w, &g.write)))
            && self.read.iter().all(|r| granted.iter().any(|g| under(r, &g.read)))
            && (self.network.is_none() || granted.iter().any(|g| g.network.is_some()))
            && self.loopback_ports.iter().all(|p| granted.iter().any(|g| g.loopback_ports.contains(p)))
    }
}
