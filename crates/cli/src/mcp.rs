//! MCP mode (`bashrt mcp`): the stdio MCP server of `bashrt-mcp`. Stdout carries only protocol
//! messages; diagnostics go to stderr. SIGINT, SIGTERM and SIGHUP end it like the end of stdin: running
//! commands are cancelled, leftover processes killed, then it exits 0.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use bashrt_core::session::SessionName;
use bashrt_core::Runtime;
use bashrt_mcp::{client_config, Client, Server, ServerConfig};

use crate::config::{CommonArgs, Setup};
use crate::fail;

#[derive(clap::Args)]
pub struct McpArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// The tools the client has, comma separated (e.g. read,grep,find,edit,write): the interceptor
    /// blocks a command only when the tool it suggests is one of these. Default: the setting
    /// `bashInterceptor.tools`, else none.
    #[arg(long, value_name = "NAMES")]
    tools: Option<String>,
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
    let Setup { settings, cwd, session } = match args.common.setup() {
        Ok(setup) => setup,
        Err(e) => return fail(e),
    };
    // One client connection is one session, unless a session is named.
    let session = match args.common.session {
        Some(_) => session,
        None => match connection_session() {
            Ok(name) => name,
            Err(e) => return fail(e),
        },
    };
    let tool_names = match &args.tools {
        Some(list) => list.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect(),
        None => settings.interceptor_tools.clone(),
    };
    let runtime = Runtime::new(settings);
    for w in runtime.warnings() {
        eprintln!("bashrt: warning: {w}");
    }
    let server = Server::new(ServerConfig { runtime, session, cwd, tool_names });
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
    print!("{}", config.snippet);
    eprint!("{}", config.hints);
    ExitCode::SUCCESS
}
