//! What bashrt knows of each agent it serves: the client's profile (`bashrt mcp --client NAME`: the
//! tools its model has, the sizes it passes to its model whole, how it shows a failure), and the
//! setup snippet `bashrt mcp --print-config NAME` prints, with the path of the running binary so
//! that it works whatever the client's PATH.
//!
//! The figures were measured against the clients themselves, driven by a scripted model (the tests
//! in `crates/cli/tests/agents.rs` do so again): Claude Code 2.1, Codex CLI 0.171, Gemini CLI 0.61.

use std::fmt;
use std::path::Path;

use crate::shape::ResultShape;

/// A client whose behaviour and configuration format we know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Client {
    /// Claude Code: `.mcp.json` (project scope) or `claude mcp add`.
    Claude,
    /// Codex CLI: `~/.codex/config.toml`.
    Codex,
    /// Gemini CLI: `~/.gemini/settings.json` or `.gemini/settings.json`.
    Gemini,
}

/// What bashrt does for a client, so that its model gets bashrt's view whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The client's tools as its model knows them, for interception (`--tools`): a command is
    /// blocked only to suggest one of these, by this name.
    pub tools: &'static [&'static str],
    /// `bash.maxOutputBytes`: the largest result the client passes to its model whole, less room
    /// for the notices.
    pub max_output_bytes: usize,
    /// `bash.maxErrorOutputBytes`, for a client that cuts error results shorter.
    pub max_error_output_bytes: Option<usize>,
    /// How results are shaped.
    pub shape: ResultShape,
}

impl Client {
    /// Every client, for help texts.
    pub const ALL: [Client; 3] = [Client::Claude, Client::Codex, Client::Gemini];

    /// `claude`, `codex`, `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }

    /// The client named `name` (any case), if known.
    pub fn parse(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(name.trim()))
    }

    /// What bashrt does for this client.
    ///
    /// - Claude Code passes a successful result whole up to 50,000 characters (past that its model
    ///   gets a 2 KB preview and a file name) and an error result up to 11,024 characters (past that
    ///   its first and last 5,000). Its file tools are `Read`, `Grep`, `Glob`, `Edit`, `Write`.
    /// - Codex passes 47,964 bytes of a result to gpt-5.5 (its catalog's 10,000 tokens × 1.2 of
    ///   4 bytes, less its header) and 11,964 to models outside its catalog, unless the tool's
    ///   `output_token_limit` is raised (the printed configuration does). It has no file tools of
    ///   the kinds the rules suggest.
    /// - Gemini CLI passes a successful result whole up to 40,000 characters with its 41-character
    ///   wrapper (past that, 8,000 + 32,000), and shows an error result to its model as one
    ///   JSON-escaped line of the whole result: failures go unflagged, as text.
    pub fn profile(self) -> Profile {
        match self {
            Client::Claude => Profile {
                tools: &["Read", "Grep", "Glob", "Edit", "Write"],
                max_output_bytes: 48_000,
                max_error_output_bytes: Some(10_000),
                shape: ResultShape::default(),
            },
            Client::Codex => Profile {
                tools: &[],
                max_output_bytes: 46_000,
                max_error_output_bytes: None,
                shape: ResultShape::default(),
            },
            Client::Gemini => Profile {
                tools: &["read_file", "grep_search", "glob", "replace", "write_file", "list_directory"],
                max_output_bytes: 38_000,
                max_error_output_bytes: None,
                shape: ResultShape { flag_errors: false, structured: false },
            },
        }
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What to put in the client's configuration, and where.
pub struct ClientConfig {
    /// The snippet itself, exactly as the file takes it (JSON for Claude Code and Gemini CLI, TOML for
    /// Codex): `bashrt mcp --print-config claude > .mcp.json` works as it is.
    pub snippet: String,
    /// Where it goes, the same from the client's command line, and how to make the agent use bashrt
    /// instead of its built-in shell tool.
    pub hints: String,
}

/// The configuration of `client`, running `exe mcp --client NAME`.
pub fn client_config(client: Client, exe: &Path) -> ClientConfig {
    let exe = exe.display().to_string();
    let args = ["mcp".to_string(), "--client".to_string(), client.name().to_string()];
    let json_args = format!(
        "[{}]",
        args.iter().map(|a| serde_json::to_string(a).unwrap_or_default()).collect::<Vec<_>>().join(", ")
    );
    let json_exe = serde_json::to_string(&exe).unwrap_or_default();
    let shell = shell_words(&exe, &args);
    match client {
        Client::Claude => ClientConfig {
            snippet: format!(
                "{{\n  \"mcpServers\": {{\n    \"bashrt\": {{\n      \"type\": \"stdio\",\n      \"command\": {json_exe},\n      \"args\": {json_args}\n    }}\n  }}\n}}\n"
            ),
            hints: format!(
                "Claude Code: put this in .mcp.json at the root of your project, or add it for every project:\n  \
claude mcp add --scope user bashrt -- {shell}\n\
To make bashrt Claude's shell, deny its own Bash tool in .claude/settings.json (Claude then also gets\n\
its Glob and Grep tools):\n  \
{{\"permissions\": {{\"deny\": [\"Bash\"]}}}}\n\
or start it with: claude --disallowedTools Bash. bashrt's tools are mcp__bashrt__bash,\n\
mcp__bashrt__read_output and mcp__bashrt__job; Claude asks before each call unless you allow them, e.g.\n\
in the same file:\n  \
{{\"permissions\": {{\"deny\": [\"Bash\"], \"allow\": [\"mcp__bashrt__bash\", \"mcp__bashrt__read_output\", \"mcp__bashrt__job\"]}}}}\n"
            ),
        },
        Client::Codex => ClientConfig {
            snippet: format!(
                "[mcp_servers.bashrt]\n\
command = {json_exe}\n\
args = {json_args}\n\
# Calls sent at once run at once (each with the session's variables and functions).\n\
supports_parallel_tool_calls = true\n\
# Long builds: let a call run as long as bashrt allows (3600 s), and a little more.\n\
tool_timeout_sec = 3700\n\
\n\
# Pass bashrt's whole view to the model, whatever the model (Codex keeps 12,000 bytes of a tool's\n\
# output for models outside its catalog).\n\
[mcp_servers.bashrt.tools.bash]\n\
output_token_limit = 13000\n\
\n\
[mcp_servers.bashrt.tools.read_output]\n\
output_token_limit = 13000\n\
\n\
[mcp_servers.bashrt.tools.job]\n\
output_token_limit = 13000\n"
            ),
            hints: format!(
                "Codex CLI: add this to ~/.codex/config.toml, or from the command line (without the limits above):\n  \
codex mcp add bashrt -- {shell}\n\
To make bashrt Codex's shell, turn its own shell tool off: codex --disable shell_tool, or in config.toml\n  \
[features]\n  shell_tool = false\n\
Codex asks before each bashrt call (it cannot sandbox it); to run them without asking, add under\n\
[mcp_servers.bashrt.tools.bash]: approval_mode = \"approve\". `codex exec` never asks: there a call needs\n\
that, or --dangerously-bypass-approvals-and-sandbox.\n"
            ),
        },
        Client::Gemini => ClientConfig {
            snippet: format!(
                "{{\n  \"mcpServers\": {{\n    \"bashrt\": {{\n      \"command\": {json_exe},\n      \"args\": {json_args},\n      \"timeout\": 3700000\n    }}\n  }},\n  \"tools\": {{\n    \"exclude\": [\"run_shell_command\"]\n  }}\n}}\n"
            ),
            hints: "Gemini CLI: merge this into ~/.gemini/settings.json (or .gemini/settings.json in a project).\n\
tools.exclude turns off Gemini's own shell tool, so that every command goes through bashrt (Gemini 0.61\n\
warns that the key is deprecated; a policy file does the same silently: ~/.gemini/policies/bashrt.toml\n\
with [[rule]] toolName = \"run_shell_command\" decision = \"deny\" priority = 100).\n\
Gemini asks before each bashrt call unless you add \"trust\": true to the server above or run with --yolo;\n\
without either, `gemini -p` (no one to ask) leaves bashrt's tools out.\n"
                .to_string(),
        },
    }
}

/// `exe` and `args` as a shell would need them typed.
fn shell_words(exe: &str, args: &[String]) -> String {
    std::iter::once(exe)
        .chain(args.iter().map(String::as_str))
        .map(|word| {
            if !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-,=:".contains(&b)) {
                word.to_string()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_the_files_as_they_are() {
        let exe = Path::new("/opt/my tools/bashrt");
        for client in [Client::Claude, Client::Gemini] {
            let config = client_config(client, exe);
            let value: serde_json::Value = serde_json::from_str(&config.snippet).unwrap();
            assert_eq!(value["mcpServers"]["bashrt"]["command"], "/opt/my tools/bashrt");
            assert_eq!(value["mcpServers"]["bashrt"]["args"], serde_json::json!(["mcp", "--client", client.name()]));
        }
        let gemini: serde_json::Value = serde_json::from_str(&client_config(Client::Gemini, exe).snippet).unwrap();
        assert_eq!(gemini["tools"]["exclude"], serde_json::json!(["run_shell_command"]));
        let codex = client_config(Client::Codex, exe).snippet;
        assert!(codex.starts_with(
            "[mcp_servers.bashrt]\ncommand = \"/opt/my tools/bashrt\"\nargs = [\"mcp\", \"--client\", \"codex\"]\n"
        ));
        assert!(client_config(Client::Claude, exe).hints.contains("-- '/opt/my tools/bashrt' mcp --client claude"));
    }

    #[test]
    fn client_names_are_read_in_any_case() {
        assert_eq!(Client::parse("Claude"), Some(Client::Claude));
        assert_eq!(Client::parse("gemini"), Some(Client::Gemini));
        assert_eq!(Client::parse("cursor"), None);
    }
}
