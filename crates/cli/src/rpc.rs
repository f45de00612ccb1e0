//! RPC mode (`bashrt rpc`): the JSON-lines server of `bashrt-rpc` on stdin/stdout. Stdout carries only
//! protocol lines; diagnostics go to stderr. SIGINT, SIGTERM and SIGHUP end it like the end of stdin:
//! running commands are aborted and answered, leftover processes killed, then it exits 0.

use std::process::ExitCode;

use bashrt_core::Runtime;
use bashrt_rpc::{Server, ServerConfig};

use crate::config::{CommonArgs, Setup};
use crate::fail;

#[derive(clap::Args)]
pub struct RpcArgs {
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: RpcArgs) -> ExitCode {
    let Setup { settings, cwd, session } = match args.common.setup() {
        Ok(setup) => setup,
        Err(e) => return fail(e),
    };
    // Without a state directory tool calls still run (their output just cannot spill).
    let runtime = Runtime::new(settings);
    for w in runtime.warnings() {
        eprintln!("bashrt: warning: {w}");
    }
    let server = Server::new(ServerConfig { runtime, default_session: session, cwd });
    let shutdown = server.shutdown_handle();
    if let Err(e) = crate::signals::on_shutdown_signal(move || shutdown.shutdown()) {
        return fail(format!("cannot install signal handlers: {e}"));
    }
    match server.serve(std::io::stdin(), std::io::stdout()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bashrt: {e}");
            ExitCode::FAILURE
        }
    }
}
