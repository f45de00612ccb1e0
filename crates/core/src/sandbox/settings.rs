//! The `sandbox.*` settings and their defaults.

use std::path::PathBuf;

use serde_json::Value;

/// `sandbox.mode`: what a command may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The workspace, the temporary directories and the package caches (the default for tool calls).
    WorkspaceWrite,
    /// Only the private `TMPDIR` (and `/dev/null` and its kind).
    ReadOnly,
    /// No sandbox: the user's own rights.
    Off,
}

/// `sandbox.network`: what a command may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    /// No IP sockets at all (unix sockets and netlink still work).
    Off,
    /// TCP on loopback, to the servers the sandbox's own commands started (and
    /// `sandbox.allowLoopbackPorts`); binds narrowed to loopback; nothing else (the default).
    Loopback,
    /// Anything the user can reach.
    On,
}

/// `sandbox.fallback`: what happens where the kernel cannot enforce the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// Refuse the call (`Sandbox unavailable: …`).
    Refuse,
    /// Run it unsandboxed and say so in every result.
    Warn,
}

/// `sandbox.approval`: who grants a call's `sandbox` request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalPolicy {
    /// A person, where the front can ask one (an RPC client that said so, the TUI, an MCP client's
    /// permission prompt for `bash_escalated`); refused elsewhere.
    Ask,
    /// Nobody: every request is refused.
    Never,
    /// Granted once without asking (for a sandbox whose owner decided in advance).
    Always,
}

/// `sandbox.cacheRoots`: which package caches are writable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheRoots {
    /// The existing ones of the known list (cargo, npm, pip, go, maven, gradle, …), never their `bin`.
    Auto,
    /// Exactly these.
    Listed(Vec<PathBuf>),
}

/// The sandbox part of the settings; see the README for each key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// `sandbox.mode`.
    pub mode: Mode,
    /// `sandbox.network`.
    pub network: Network,
    /// `sandbox.allowLoopbackPorts`: local services a command may reach with the network on
    /// loopback (a database the user runs, say).
    pub allow_loopback_ports: Vec<u16>,
    /// `sandbox.allowUnixSockets`: unix sockets outside the workspace a command may connect to
    /// (absolute or `~/` paths: a database's socket, an SSH agent's).
    pub allow_unix_sockets: Vec<PathBuf>,
    /// `sandbox.writableRoots`: writable besides the workspace (absolute or `~/` paths).
    pub writable_roots: Vec<PathBuf>,
    /// `sandbox.cacheRoots`.
    pub cache_roots: CacheRoots,
    /// `sandbox.denyRead`: unreadable paths (absolute or `~/`); the credential list by default.
    pub deny_read: Vec<PathBuf>,
    /// `sandbox.envFilter`: leave secret-looking variables out of the environment.
    pub env_filter: bool,
    /// `sandbox.envKeep`: variables kept even when they look like secrets.
    pub env_keep: Vec<String>,
    /// `sandbox.fallback`.
    pub fallback: Fallback,
    /// `sandbox.sessionCommands`: confine the commands a person typed (`!cmd`, RPC `bash`) too.
    pub session_commands: bool,
    /// `sandbox.approval`.
    pub approval: ApprovalPolicy,
}

/// Credentials no command reads unless the user lists otherwise.
pub const DEFAULT_DENY_READ: &[&str] = &[
    "~/.ssh",
    "~/.aws",
    "~/.azure",
    "~/.gnupg",
    "~/.kube",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.git-credentials",
    "~/.config/gh",
    "~/.config/gcloud",
    "~/.config/hub",
    "~/.pypirc",
    "~/.cargo/credentials.toml",
    "~/.cargo/credentials",
    "~/.npmrc",
];

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            mode: Mode::WorkspaceWrite,
            network: Network::Loopback,
            allow_loopback_ports: Vec::new(),
            allow_unix_sockets: Vec::new(),
            writable_roots: Vec::new(),
            cache_roots: CacheRoots::Auto,
            deny_read: DEFAULT_DENY_READ.iter().map(PathBuf::from).collect(),
            env_filter: true,
            env_keep: Vec::new(),
            fallback: Fallback::Refuse,
            session_commands: false,
            approval: ApprovalPolicy::Ask,
        }
    }
}

impl SandboxSettings {
    /// Sets the key after `sandbox.`; `Err(expected)` for a bad value, `Ok(false)` for a key it
    /// does not know.
    pub(crate) fn set(&mut self, key: &str, value: &Value) -> Result<bool, String> {
        match key {
            "mode" => {
                self.mode = choice(
                    value,
                    &[("workspace-write", Mode::WorkspaceWrite), ("read-only", Mode::ReadOnly), ("off", Mode::Off)],
                )?
            }
            "network" => {
                self.network =
                    choice(value, &[("off", Network::Off), ("loopback", Network::Loopback), ("on", Network::On)])?
            }
            "fallback" => self.fallback = choice(value, &[("refuse", Fallback::Refuse), ("warn", Fallback::Warn)])?,
            "approval" => {
                self.approval = choice(
                    value,
                    &[
                        ("ask", ApprovalPolicy::Ask),
                        ("never", ApprovalPolicy::Never),
                        ("always", ApprovalPolicy::Always),
                    ],
                )?
            }
            "writableRoots" => self.writable_roots = paths(value)?,
            "allowLoopbackPorts" => {
                self.allow_loopback_ports = value
                    .as_array()
                    .and_then(|list| list.iter().map(|v| v.as_u64().and_then(|p| u16::try_from(p).ok())).collect())
                    .ok_or("expected an array of port numbers")?
            }
            "denyRead" => self.deny_read = paths(value)?,
            "allowUnixSockets" => self.allow_unix_sockets = paths(value)?,
            "cacheRoots" => {
                self.cache_roots = match value {
                    Value::String(s) if s == "auto" => CacheRoots::Auto,
                    _ => CacheRoots::Listed(paths(value).map_err(|e| format!("{e}, or \"auto\""))?),
                }
            }
            "envFilter" => self.env_filter = value.as_bool().ok_or("expected true or false")?,
            "sessionCommands" => self.session_commands = value.as_bool().ok_or("expected true or false")?,
            "envKeep" => {
                self.env_keep = strings(value).ok_or("expected an array of variable names")?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The option `value` names, or `expected "a", "b" or "c"`.
fn choice<T: Copy>(value: &Value, options: &[(&str, T)]) -> Result<T, String> {
    if let Some(&(_, chosen)) = options.iter().find(|(name, _)| value.as_str() == Some(name)) {
        return Ok(chosen);
    }
    let names: Vec<String> = options.iter().map(|(name, _)| format!("\"{name}\"")).collect();
    let (last, rest) = names.split_last().map_or(("", &[][..]), |(last, rest)| (last.as_str(), rest));
    Err(match rest.is_empty() {
        true => format!("expected {last}"),
        false => format!("expected {} or {last}", rest.join(", ")),
    })
}

fn strings(value: &Value) -> Option<Vec<String>> {
    value.as_array()?.iter().map(|v| v.as_str().map(str::to_owned)).collect()
}

/// Absolute or `~/` paths, no NUL.
fn paths(value: &Value) -> Result<Vec<PathBuf>, String> {
    let expected = "expected an array of absolute or ~/ paths";
    let list = strings(value).ok_or(expected)?;
    list.into_iter()
        .map(|p| match (p.starts_with('/') || p == "~" || p.starts_with("~/")) && !p.contains('\0') {
            true => Ok(PathBuf::from(p)),
            false => Err(format!("{expected}, got {p:?}")),
        })
        .collect()
}
