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

/// What to put in the client's configuration, and where.
pub struct ClientConfig {
    /// The snippet itself, exactly as the file takes it (JSON for Claude Code and Gemini CLI, TOML for
    /// Codex): `bashrt mcp --print-config claude > .mcp.json` works as it is.
    pub snippet: String,
    /// Where it goes, the same from the client's command line, and how to make the agent use bashrt
    /// instead of its built-in shell tool.
    pub hints: String,
}

/// The configuration of `client`, running `exe mcp`.
pub fn client_config(client: Client, exe: &Path) -> ClientConfig {
    let exe = exe.display().to_string();
    let mut args = vec!["mcp".to_string()];
    if let Some(tools) = client.tools() {
        args.extend(["--tools".to_string(), tools.to_string()]);
    }
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
                "Claude Code: put this in .mcp.json at the root of your project, or add it from the command line\n\
(--scope user for every project):\n  claude mcp add --scope user bashrt -- {shell}\n\
To have Claude use bashrt instead of its own Bash tool, deny that tool in .claude/settings.json:\n  \
{{\"permissions\": {{\"deny\": [\"Bash\"]}}}}\n\
or start it with: claude --disallowedTools Bash. bashrt's tools are mcp__bashrt__bash and\n\
mcp__bashrt__read_output.\n"
            ),
        },
        Client::Codex => ClientConfig {
            snippet: format!(
                "[mcp_servers.bashrt]\ncommand = {json_exe}\nargs = {json_args}\n# Long builds: let a call run as long as bashrt allows (3600 s).\ntool_timeout_sec = 3600\n"
            ),
            hints: format!(
                "Codex CLI: add this to ~/.codex/config.toml, or from the command line:\n  codex mcp add bashrt -- {shell}\n\
Tell the model to prefer it, e.g. in AGENTS.md: \"Run shell commands with the bashrt bash tool.\"\n"
            ),
        },
        Client::Gemini => ClientConfig {
            snippet: format!(
                "{{\n  \"mcpServers\": {{\n    \"bashrt\": {{\n      \"command\": {json_exe},\n      \"args\": {json_args},\n      \"timeout\": 3600000\n    }}\n  }},\n  \"excludeTools\": [\"run_shell_command\"]\n}}\n"
            ),
            hints: "Gemini CLI: merge this into ~/.gemini/settings.json (or .gemini/settings.json in a project).\n\
excludeTools turns off Gemini's own shell tool, so that every command goes through bashrt.\n"
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
            assert_eq!(value["mcpServers"]["bashrt"]["args"][0], "mcp");
        }
        let codex = client_config(Client::Codex, exe).snippet;
        assert!(codex.starts_with("[mcp_servers.bashrt]\ncommand = \"/opt/my tools/bashrt\"\nargs = [\"mcp\"]\n"));
        assert!(client_config(Client::Claude, exe).hints.contains("-- '/opt/my tools/bashrt' mcp --tools"));
    }
}
