//! The setup snippet each MCP client expects, printed by `bashrt mcp --print-config CLIENT` with the
//! path of the running binary, so that it works whatever the client's PATH.

use std::fmt;
use std::path::Path;

/// A client whose configuration format we know.
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

    /// The client named `name`, if known.
    pub fn parse(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The tools the client has that the interceptor's rules suggest (`read`, `grep`, `find`, `edit`,
    /// `write`), as `--tools` names them. Codex has no file-reading or search tool of its own, so
    /// nothing is blocked there.
    fn tools(self) -> Option<&'static str> {
        match self {
            Client::Claude | Client::Gemini => Some("read,grep,find,edit,write"),
            Client::Codex => None,
        }
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The snippet for `client`, running `exe mcp`.
pub fn client_config(client: Client, exe: &Path) -> String {
    let exe = exe.display().to_string();
    let mut args = vec!["mcp".to_string()];
    if let Some(tools) = client.tools() {
        args.extend(["--tools".to_string(), tools.to_string()]);
    }
    let json_args = serde_json::to_string(&args).unwrap_or_default();
    let json_exe = serde_json::to_string(&exe).unwrap_or_default();
    match client {
        Client::Claude => format!(
            "# Claude Code: add this to .mcp.json at the root of your project (or run the command below).\n\
{{\n  \"mcpServers\": {{\n    \"bashrt\": {{\n      \"type\": \"stdio\",\n      \"command\": {json_exe},\n      \"args\": {json_args}\n    }}\n  }}\n}}\n\
\n\
# The same from the command line (--scope project writes .mcp.json, --scope user all projects):\n\
#   claude mcp add --scope user bashrt -- {shell}\n\
# To have Claude use bashrt instead of its own shell tool, deny that tool in .claude/settings.json:\n\
#   {{\"permissions\": {{\"deny\": [\"Bash\"]}}}}\n\
# (or start it with: claude --disallowedTools Bash). bashrt's tools then appear as mcp__bashrt__bash\n\
# and mcp__bashrt__read_output.\n",
            shell = shell_words(&exe, &args),
        ),
        Client::Codex => format!(
            "# Codex CLI: add this to ~/.codex/config.toml.\n\
[mcp_servers.bashrt]\n\
command = {json_exe}\n\
args = {json_args}\n\
# Raise the call timeout for long builds (seconds; bashrt's own default timeout is 300 s):\n\
tool_timeout_sec = 3600\n\
\n\
# The same from the command line:\n\
#   codex mcp add bashrt -- {shell}\n\
# Tell the model to prefer it, e.g. in AGENTS.md: \"Run shell commands with the bashrt bash tool.\"\n",
            shell = shell_words(&exe, &args),
        ),
        Client::Gemini => format!(
            "# Gemini CLI: merge this into ~/.gemini/settings.json (or .gemini/settings.json in a project).\n\
# excludeTools turns off Gemini's own shell tool, so every command goes through bashrt.\n\
{{\n  \"mcpServers\": {{\n    \"bashrt\": {{\n      \"command\": {json_exe},\n      \"args\": {json_args},\n      \"timeout\": 3600000\n    }}\n  }},\n  \"excludeTools\": [\"run_shell_command\"]\n}}\n",
        ),
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
    fn json_snippets_parse_and_run_the_binary() {
        let exe = Path::new("/opt/my tools/bashrt");
        for client in [Client::Claude, Client::Gemini] {
            let text = client_config(client, exe);
            let json: String = text.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n");
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(value["mcpServers"]["bashrt"]["command"], "/opt/my tools/bashrt");
            assert_eq!(value["mcpServers"]["bashrt"]["args"][0], "mcp");
        }
        let codex = client_config(Client::Codex, exe);
        assert!(codex.contains("[mcp_servers.bashrt]\ncommand = \"/opt/my tools/bashrt\"\nargs = [\"mcp\"]\n"));
        assert!(client_config(Client::Claude, exe).contains("-- '/opt/my tools/bashrt' mcp --tools"));
    }
}
