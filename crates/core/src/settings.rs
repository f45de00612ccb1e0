//! Settings: what a user or an embedding agent can configure, with the reference's dotted keys.
//!
//! Sources, later wins: built-in defaults, the settings file (JSON; nested objects or dotted keys),
//! then single `KEY=VALUE` overrides. A malformed file or a wrong type is an error naming the key; an
//! unknown key is a warning (a newer client may know more keys than we do).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::intercept::{default_rules, Rule};
use crate::signatures::{self, Signature, SignatureSet};
use crate::sink::{SinkConfig, DEFAULT_MAX_BYTES};
use crate::validate::{MAX_TIMEOUT_SECS, MIN_TIMEOUT_SECS};

/// The largest settings file read (a settings file is a few KB; a huge one is a mistake).
const SETTINGS_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Environment variable naming the settings file (overrides the default location).
pub const SETTINGS_ENV: &str = "BASHRT_SETTINGS";

/// Whether the interactive PTY path may be used; print mode, RPC and MCP never use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VirtualTerminal {
    /// Tool calls run in a pseudo-terminal when a UI shows them.
    On,
    /// Tool calls always run with pipes.
    Off,
}

/// What a truncated output looks like to the model (`bash.view`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewMode {
    /// The first lines, the lines that match error signatures, and the tail, in the same byte budget.
    Smart,
    /// The last `bash.maxOutputBytes` only.
    Tail,
}

/// What a user or an embedding agent can configure; see the README for every key and its default.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `bashInterceptor.enabled`: check commands against the rules (a rule still only blocks when its
    /// suggested tool is one the caller has).
    pub interceptor_enabled: bool,
    /// `bashInterceptor.patterns`: the rules; the default rule set unless replaced.
    pub interceptor_rules: Vec<Rule>,
    /// `bashInterceptor.tools`: the tools the caller has, for fronts whose caller cannot name them per
    /// call (`bashrt mcp`); a rule blocks only when its suggested tool is among them. Default: none.
    pub interceptor_tools: Vec<String>,
    /// `bash.virtualTerminal`: `"on"` or `"off"`.
    pub virtual_terminal: VirtualTerminal,
    /// `shellPath`: the shell that runs commands; `None` finds bash (`$SHELL` if it is bash, else PATH).
    pub shell_path: Option<PathBuf>,
    /// `shellCommandPrefix`: prepended to every command as `<prefix> <command>`.
    pub command_prefix: Option<String>,
    /// `bash.defaultTimeout`: seconds, when a call gives none.
    pub default_timeout_secs: f64,
    /// `bash.yieldMs`: how long a tool call of a front that can yield (RPC, MCP, the terminal UI)
    /// waits for its command before returning it as a running job; a call's `yield_ms` overrides it.
    /// `bashrt run` never yields.
    pub yield_ms: u64,
    /// `bash.maxOutputBytes`: size of the model-visible tail.
    pub max_output_bytes: usize,
    /// `bash.maxErrorOutputBytes`: the view's size when the result is an error, for a client that
    /// cuts error results shorter than others (Claude Code: about 11,000 characters). `None`: the
    /// same as `max_output_bytes`; never more than it.
    pub max_error_output_bytes: Option<usize>,
    /// `bash.maxLineChars`: longest single line shown to the model.
    pub max_line_chars: usize,
    /// `bash.killGraceMs`: time between SIGTERM and SIGKILL when a call is timed out or aborted.
    pub kill_grace_ms: u64,
    /// `bash.nonInteractiveEnv`: add pager/editor/prompt hardening variables the user has not set.
    pub non_interactive_env: bool,
    /// `bash.env`: extra environment variables for every command (strings).
    pub env: Vec<(String, String)>,
    /// `bash.snapshot`: load the user's aliases, functions and options (from an interactive bash's view
    /// of `~/.bashrc`) into the shells that run commands.
    pub snapshot: bool,
    /// `artifacts.maxBytes`: the most one artifact keeps; past it, its head and a rolling tail.
    pub max_artifact_bytes: u64,
    /// `state.maxBytes`: the most the whole state directory may hold; the least recently used sessions
    /// (never a live one), then the oldest artifacts, are removed to stay under it.
    pub state_budget_bytes: u64,
    /// `state.keepRecentSecs`: an artifact (or a session) written to in the last this many seconds
    /// is never removed by retention: a result just returned names it, and the model reads it next.
    pub keep_recent_secs: u64,
    /// `bash.view`: the excerpt view or the plain tail for a truncated output.
    pub view: ViewMode,
    /// `bash.errorSignatures` (the base set, default: the built-in one) and
    /// `bash.extraErrorSignatures` (checked first), shared by every call.
    pub error_signatures: Arc<SignatureSet>,
    /// `sandbox.*`: what tool calls' commands may write, read and reach.
    pub sandbox: crate::sandbox::SandboxSettings,
}

/// `bash.yieldMs` by default: below the 60 s a client waits for a tool call by default (MCP's).
pub const DEFAULT_YIELD_MS: u64 = 30_000;

/// Default of `artifacts.maxBytes`: enough for any build log a person would read, small enough that a
/// runaway `yes` cannot fill a disk.
pub const DEFAULT_MAX_ARTIFACT_BYTES: u64 = 256 * 1024 * 1024;

/// Default of `state.maxBytes`.
pub const DEFAULT_STATE_BUDGET_BYTES: u64 = 2 * 1024 * 1024 * 1024;

impl Default for Settings {
    fn default() -> Self {
        Self {
            interceptor_enabled: true,
            interceptor_rules: default_rules(),
            interceptor_tools: Vec::new(),
            virtual_terminal: VirtualTerminal::Off,
            shell_path: None,
            command_prefix: None,
            default_timeout_secs: 300.0,
            yield_ms: DEFAULT_YIELD_MS,
            max_output_bytes: DEFAULT_MAX_BYTES,
            max_error_output_bytes: None,
            max_line_chars: 4000,
            kill_grace_ms: 200,
            non_interactive_env: true,
            env: Vec::new(),
            snapshot: true,
            max_artifact_bytes: DEFAULT_MAX_ARTIFACT_BYTES,
            state_budget_bytes: DEFAULT_STATE_BUDGET_BYTES,
            keep_recent_secs: 60,
            view: ViewMode::Smart,
            error_signatures: SignatureSet::defaults(),
            sandbox: crate::sandbox::SandboxSettings::default(),
        }
    }
}

/// Why settings could not be loaded. Each names the file or the key at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// The file could not be read or is not JSON.
    #[error("settings file {path}: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A key has a value of the wrong type or range.
    #[error("setting {key}: {reason}")]
    Value {
        /// The dotted key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// An override is not `KEY=VALUE`.
    #[error("--set expects KEY=VALUE, got {0:?}")]
    Syntax(String),
}

impl Settings {
    /// Defaults, then the file at `$BASHRT_SETTINGS` or `~/.config/bashrt/settings.json` if it exists.
    /// Returns the warnings (unknown keys) beside the settings.
    pub fn load_default_file() -> Result<(Self, Vec<String>), SettingsError> {
        let mut settings = Self::default();
        let mut warnings = Vec::new();
        if let Some(path) = default_settings_path() {
            if path.exists() || std::env::var_os(SETTINGS_ENV).is_some() {
                warnings = settings.apply_file(&path)?;
            }
        }
        Ok((settings, warnings))
    }

    /// Applies a JSON settings file on top of these settings.
    pub fn apply_file(&mut self, path: &Path) -> Result<Vec<String>, SettingsError> {
        let file_error = |reason: String| SettingsError::File { path: path.to_path_buf(), reason };
        // Opened as every file bashrt reads: a FIFO in its place is refused, not waited on; and at
        // most SETTINGS_MAX_BYTES of it.
        let file = crate::private_dir::open_regular(path).map_err(|e| file_error(e.to_string()))?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::Read::take(file, SETTINGS_MAX_BYTES + 1), &mut text)
            .map_err(|e| file_error(e.to_string()))?;
        if text.len() as u64 > SETTINGS_MAX_BYTES {
            return Err(file_error(format!("larger than {} MiB", SETTINGS_MAX_BYTES / (1024 * 1024))));
        }
        let value: Value = serde_json::from_str(&text).map_err(|e| file_error(format!("invalid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(file_error("expected a JSON object at the top".into()));
        };
        let mut flat = Vec::new();
        flatten(String::new(), Value::Object(map), &mut flat);
        let mut warnings = Vec::new();
        for (key, value) in flat {
            if let Some(w) = self.set(&key, value).map_err(|e| file_error(e.to_string()))? {
                warnings.push(w);
            }
        }
        Ok(warnings)
    }

    /// Applies `KEY=VALUE`; VALUE is JSON when it parses as JSON, a plain string otherwise.
    pub fn apply_override(&mut self, assignment: &str) -> Result<Option<String>, SettingsError> {
        let Some((key, raw)) = assignment.split_once('=') else {
            return Err(SettingsError::Syntax(assignment.to_string()));
        };
        let value = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()));
        self.set(key.trim(), value)
    }

    /// Sets one dotted key. `Ok(Some(warning))` for a key we do not know.
    pub fn set(&mut self, key: &str, value: Value) -> Result<Option<String>, SettingsError> {
        let bad = |reason: &str| SettingsError::Value { key: key.to_string(), reason: reason.to_string() };
        match key {
            "bashInterceptor.enabled" => {
                self.interceptor_enabled = as_bool(&value).ok_or_else(|| bad("expected true or false"))?
            }
            "bashInterceptor.patterns" => {
                self.interceptor_rules = serde_json::from_value(value)
                    .map_err(|e| bad(&format!("expected an array of {{pattern, tool, message, when?}} rules: {e}")))?
            }
            "bashInterceptor.tools" => {
                self.interceptor_tools = tool_names(&value)
                    .ok_or_else(|| bad("expected an array of tool names or a comma-separated string"))?
            }
            "bash.virtualTerminal" => {
                self.virtual_terminal = match value.as_str() {
                    Some("on") => VirtualTerminal::On,
                    Some("off") => VirtualTerminal::Off,
                    _ => return Err(bad("expected \"on\" or \"off\"")),
                }
            }
            "shellPath" => {
                self.shell_path = as_opt_string(&value).ok_or_else(|| bad("expected a path string"))?.map(PathBuf::from)
            }
            "shellCommandPrefix" => {
                self.command_prefix = as_opt_string(&value).ok_or_else(|| bad("expected a string"))?
            }
            "bash.defaultTimeout" => {
                self.default_timeout_secs =
                    value.as_f64().filter(|v| (MIN_TIMEOUT_SECS..=MAX_TIMEOUT_SECS).contains(v)).ok_or_else(|| {
                        bad(&format!("expected a number of seconds in {MIN_TIMEOUT_SECS}..={MAX_TIMEOUT_SECS}"))
                    })?
            }
            "bash.yieldMs" => self.yield_ms = in_range(&value, YIELD_MS).map_err(|e| bad(&e))?,
            "bash.maxOutputBytes" => {
                self.max_output_bytes = in_range(&value, VIEW_BYTES).map_err(|e| bad(&e))? as usize
            }
            "bash.maxErrorOutputBytes" => {
                self.max_error_output_bytes = match value {
                    Value::Null => None,
                    _ => Some(in_range(&value, VIEW_BYTES).map_err(|e| bad(&e))? as usize),
                }
            }
            "bash.maxLineChars" => self.max_line_chars = in_range(&value, LINE_CHARS).map_err(|e| bad(&e))? as usize,
            "bash.killGraceMs" => self.kill_grace_ms = in_range(&value, KILL_GRACE_MS).map_err(|e| bad(&e))?,
            "bash.nonInteractiveEnv" => {
                self.non_interactive_env = as_bool(&value).ok_or_else(|| bad("expected true or false"))?
            }
            "bash.snapshot" => self.snapshot = as_bool(&value).ok_or_else(|| bad("expected true or false"))?,
            "artifacts.maxBytes" => self.max_artifact_bytes = in_range(&value, ARTIFACT_BYTES).map_err(|e| bad(&e))?,
            "state.maxBytes" => self.state_budget_bytes = in_range(&value, STATE_BYTES).map_err(|e| bad(&e))?,
            "state.keepRecentSecs" => {
                self.keep_recent_secs = in_range(&value, KEEP_RECENT_SECS).map_err(|e| bad(&e))?
            }
            "bash.view" => {
                self.view = match value.as_str() {
                    Some("smart") => ViewMode::Smart,
                    Some("tail") => ViewMode::Tail,
                    _ => return Err(bad("expected \"smart\" or \"tail\"")),
                }
            }
            "bash.errorSignatures" | "bash.extraErrorSignatures" => {
                let list: Vec<Signature> = serde_json::from_value(value).map_err(|e| {
                    bad(&format!("expected an array of {{name, severity, literals, pattern?, before?, after?}}: {e}"))
                })?;
                let (list, warnings) = signatures::validate(list, key);
                let current = &self.error_signatures;
                // A base set of one's own says what an error is: the built-in error shapes go with
                // the built-in signatures.
                self.error_signatures = Arc::new(if key == "bash.errorSignatures" {
                    SignatureSet::new(list, current.extra().to_vec())
                } else {
                    SignatureSet::new(current.base().to_vec(), list).with_shapes(current.shapes())
                });
                return Ok((!warnings.is_empty()).then(|| warnings.join("; ")));
            }
            "bash.env" => {
                let Value::Object(map) = value else { return Err(bad("expected an object of strings")) };
                let mut env = Vec::new();
                for (k, v) in map {
                    let Value::String(v) = v else { return Err(bad("expected an object of strings")) };
                    if k.is_empty() || k.contains('=') || k.contains('\0') || v.contains('\0') {
                        return Err(bad("invalid variable name or value"));
                    }
                    env.push((k, v));
                }
                self.env = env;
            }
            _ => match key.strip_prefix("sandbox.") {
                Some(rest) if self.sandbox.set(rest, &value).map_err(|e| bad(&e))? => {}
                _ => return Ok(Some(format!("unknown setting {key} ignored"))),
            },
        }
        Ok(None)
    }
}

/// Tool names from `["read", "grep"]` or `"read, grep"`; blanks around names and empty names are
/// dropped.
fn tool_names(value: &Value) -> Option<Vec<String>> {
    let names: Vec<&str> = match value {
        Value::String(list) => list.split(',').collect(),
        Value::Array(items) => items.iter().map(Value::as_str).collect::<Option<_>>()?,
        _ => return None,
    };
    Some(names.into_iter().map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect())
}

impl Settings {
    /// The sink configuration of a call: its budget, the `head` it asked for, and the error index
    /// when the view is [`ViewMode::Smart`].
    pub fn sink_config(&self, head_lines: Option<u64>) -> SinkConfig {
        SinkConfig {
            max_bytes: self.max_output_bytes,
            head_lines,
            signatures: (self.view == ViewMode::Smart).then(|| self.error_signatures.clone()),
            smallest_view: self.max_error_output_bytes,
        }
    }

    /// The view's budget for a result: [`Settings::max_error_output_bytes`] when it is an error,
    /// never more than `bash.maxOutputBytes`.
    pub fn view_budget(&self, error: bool) -> usize {
        match (error, self.max_error_output_bytes) {
            (true, Some(budget)) => budget.min(self.max_output_bytes),
            _ => self.max_output_bytes,
        }
    }
}

/// `$BASHRT_SETTINGS`, else `$XDG_CONFIG_HOME/bashrt/settings.json`, else `~/.config/bashrt/settings.json`.
pub fn default_settings_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(SETTINGS_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if let Some(p) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p).join("bashrt/settings.json"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config/bashrt/settings.json"))
}

/// Nested objects become dotted keys, except the values of keys that are objects by nature.
fn flatten(prefix: String, value: Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) if prefix != "bash.env" => {
            for (k, v) in map {
                let key = if prefix.is_empty() { k } else { format!("{prefix}.{k}") };
                flatten(key, v, out);
            }
        }
        other => out.push((prefix, other)),
    }
}

fn as_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s == "true" || s == "on" => Some(true),
        Value::String(s) if s == "false" || s == "off" => Some(false),
        _ => None,
    }
}

/// Every numeric setting has bounds: a value past them is a mistake (or hostile: a 2^64 − 1 byte
/// view), refused with the range rather than clamped in silence.
type Range = (u64, u64);
/// `bash.maxOutputBytes`, `bash.maxErrorOutputBytes`: a view of 1 KiB to 16 MiB (the view is held
/// in memory and sent whole to the model).
const VIEW_BYTES: Range = (1024, 16 * 1024 * 1024);
/// `bash.maxLineChars`.
const LINE_CHARS: Range = (16, 1024 * 1024);
/// `bash.killGraceMs`: at most a minute between SIGTERM and SIGKILL.
const KILL_GRACE_MS: Range = (0, 60_000);
/// `bash.yieldMs`: 100 ms to an hour (the longest timeout).
const YIELD_MS: Range = (100, 3_600_000);
/// `artifacts.maxBytes`: 4 KiB to 1 TiB.
const ARTIFACT_BYTES: Range = (4096, 1 << 40);
/// `state.maxBytes`: 1 MiB to 1 PiB.
const STATE_BYTES: Range = (1024 * 1024, 1 << 50);
/// `state.keepRecentSecs`: up to an hour.
const KEEP_RECENT_SECS: Range = (0, 3600);

/// An integer within `range`, or the error text that says the range.
fn in_range(v: &Value, (low, high): Range) -> Result<u64, String> {
    v.as_u64().filter(|n| (low..=high).contains(n)).ok_or_else(|| format!("expected an integer in {low}..={high}"))
}

fn as_opt_string(v: &Value) -> Option<Option<String>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) if s.is_empty() => Some(None),
        Value::String(s) => Some(Some(s.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_and_dotted_keys_both_apply() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(
            &path,
            r#"{"bashInterceptor": {"enabled": false}, "bash.defaultTimeout": 12, "bash": {"env": {"A": "1"}}, "zzz": 1}"#,
        )
        .unwrap();
        let mut s = Settings::default();
        let warnings = s.apply_file(&path).unwrap();
        assert!(!s.interceptor_enabled);
        assert_eq!(s.default_timeout_secs, 12.0);
        assert_eq!(s.env, vec![("A".to_string(), "1".to_string())]);
        assert_eq!(warnings, vec!["unknown setting zzz ignored".to_string()]);
    }

    #[test]
    fn interceptor_tools_take_a_list_or_a_comma_separated_string() {
        let mut s = Settings::default();
        assert!(s.interceptor_tools.is_empty());
        s.apply_override(r#"bashInterceptor.tools=["read", " grep ", ""]"#).unwrap();
        assert_eq!(s.interceptor_tools, ["read", "grep"]);
        s.apply_override("bashInterceptor.tools=edit, write,").unwrap();
        assert_eq!(s.interceptor_tools, ["edit", "write"]);
        assert!(s.apply_override("bashInterceptor.tools=[1]").is_err());
    }

    #[test]
    fn wrong_types_and_bad_json_name_the_problem() {
        let mut s = Settings::default();
        let err = s.apply_override("bash.virtualTerminal=maybe").unwrap_err();
        assert_eq!(err.to_string(), "setting bash.virtualTerminal: expected \"on\" or \"off\"");
        assert!(matches!(s.apply_override("novalue"), Err(SettingsError::Syntax(_))));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, "{oops").unwrap();
        let err = s.apply_file(&path).unwrap_err().to_string();
        assert!(err.contains("invalid JSON"), "{err}");
    }

    #[test]
    fn overrides_parse_json_or_fall_back_to_strings() {
        let mut s = Settings::default();
        s.apply_override("shellPath=/bin/bash").unwrap();
        s.apply_override("bashInterceptor.enabled=false").unwrap();
        assert_eq!(s.shell_path, Some(PathBuf::from("/bin/bash")));
        assert!(!s.interceptor_enabled);
    }
}
