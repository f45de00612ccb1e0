//! MCP mode (`bashrt mcp`): the stdio MCP server of `bashrt-mcp`. Stdout carries only protocol
//! messages; diagnostics go to stderr. SIGINT, SIGTERM and SIGHUP end it like the end of stdin: running
//! commands are cancelled, leftover processes killed, then it exits 0.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use bashrt_core::{Runtime, SessionName, Settings};
use bashrt_mcp::{client_config, Client, Profile, Server, ServerConfig};

use crate::config::{CommonArgs, Setup};
use crate::fail;

#[derive(clap::Args)]
#[command(mut_arg("session", |arg| arg.help(
    "Session name: connections that name the same one share its artifacts (default: one session per \
     connection, mcp-<start ms>-<pid>, removed when it ends if it kept nothing)"
)))]
pub struct McpArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// The client (claude, codex or gemini): fit results to what it passes to its model and name its
    /// own tools when a command is blocked (see docs/mcp.md). `--tools` and `--set` still win.
    #[arg(long, value_name = "CLIENT", value_parser = parse_client)]
    client: Option<Client>,
    /// The tools the client has, as its model names them, comma separated (e.g. Read,Grep,Glob or
    /// read,grep,find=Glob): the interceptor blocks a command only to suggest one of these. Default:
    /// the client's (--client), else the setting `bashInterceptor.tools`, else none.
    #[arg(long, value_name = "NAMES")]
    tools: Option<String>,
    /// Put each result's details in `structuredContent` and declare the tools' `outputSchema`, for a
    /// client that reads them (Claude Code and Codex then show their model the details only).
    #[arg(long)]
    structured_content: bool,
    /// Answer a failed call as an ordinary result whose text says how the command ended, without
    /// `isError` (for a client that shows error results to its model as something else).
    #[arg(long)]
    errors_as_text: bool,
    /// Print the config snippet of an MCP client (claude, codex or gemini) on stdout, where it goes and
    /// how to use it instead of the client's own shell tool on stderr, and exit.
    #[arg(long, value_name = "CLIENT", value_parser = parse_client)]
    print_config: Option<Client>,
}

fn parse_client(name: &str) -> Result<Client, String> {
    Client::parse(name).ok_or_else(|| {
        let known: Vec<&str> = Client::ALL.iter().map(|c| c.name()).collect();
        format!("unknown client {name:?} (known: {})", known.join(", "))
    })
}

pub fn run(args: McpArgs) -> ExitCode {
    if let Some(client) = args.print_config {
        return print_config(client);
    }
    let Setup { mut settings, cwd, session } = match args.common.setup() {
        Ok(setup) => setup,
        Err(e) => return fail(e),
    };
    let profile = args.client.map(Client::profile);
    if let Some(profile) = &profile {
        apply_profile(&mut settings, profile, &args.common.set);
    }
    // One client connection is one session, unless a session is named.
    let session_per_connection = args.common.session.is_none();
    let session = match args.common.session {
        Some(_) => session,
        None => match connection_session() {
            Ok(name) => name,
            Err(e) => return fail(e),
        },
    };
    let tool_names = match (&args.tools, &profile) {
        (Some(list), _) => list.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect(),
        (None, Some(profile)) if !profile.tools.is_empty() => profile.tools.iter().map(|t| t.to_string()).collect(),
        (None, _) => settings.interceptor_tools.clone(),
    };
    let mut shape = profile.map(|p| p.shape).unwrap_or_default();
    shape.structured |= args.structured_content;
    shape.flag_errors &= !args.errors_as_text;
    let runtime = Runtime::new(settings);
    for w in runtime.warnings() {
        eprintln!("bashrt: warning: {w}");
    }
    let server = Server::new(ServerConfig { runtime, session, cwd, tool_names, session_per_connection, shape });
    let shutdown = server.shutdown_handle();
    if let Err(e) = crate::signals::on_shutdown_signal(move || shutdown.shutdown()) {
        return fail(format!("cannot install signal handlers: {e}"));
    }
    match server.serve_stdio() {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bashrt: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The client's limits, as ceilings on the settings, unless `--set` gives that key itself.
fn apply_profile(settings: &mut Settings, profile: &Profile, overrides: &[String]) {
    let given = |key: &str| overrides.iter().any(|o| o.split_once('=').is_some_and(|(k, _)| k.trim() == key));
    if !given("bash.maxOutputBytes") {
        settings.max_output_bytes = settings.max_output_bytes.min(profile.max_output_bytes);
    }
    if let (false, Some(limit)) = (given("bash.maxErrorOutputBytes"), profile.max_error_output_bytes) {
        settings.max_error_output_bytes = Some(settings.max_error_output_bytes.map_or(limit, |v| v.min(limit)));
    }
}

/// `mcp-<start time in ms>-<pid>`: unique per connection, sorted by start in the state directory.
fn connection_session() -> Result<SessionName, String> {
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
    SessionName::parse(&format!("mcp-{ms}-{}", std::process::id())).map_err(|e| e.to_string())
}

fn print_config(client: Client) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(format!("cannot find the bashrt binary: {e}")),
    };
    let config = client_config(client, &exe);
    // The snippet alone on stdout, so that it can be redirected into the file; the hints beside it.
    eprint!("{}", config.hints);
    crate::print_out(&config.snippet)
}
