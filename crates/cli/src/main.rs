//! `bashrt`: the bash tool runtime as a command. Each subcommand is one mode on top of `bashrt-core`;
//! the core knows nothing of them.

mod artifact_cmd;
mod config;
mod print;
mod rpc;
mod tui;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit status when the call was refused (blocked, bad cwd, bad arguments).
pub const EXIT_REFUSED: u8 = 2;

#[derive(Parser)]
#[command(name = "bashrt", version, about = "The bash tool runtime of a coding agent")]
struct Cli {
    /// With no subcommand at a terminal: the terminal UI (`bashrt tui`).
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run one tool call and print exactly what the model would see.
    Run(print::RunArgs),
    /// Print an artifact (the full output of an earlier call), or a window of it.
    Artifact(artifact_cmd::ArtifactArgs),
    /// Print the JSON Schema of the bash tool's parameters.
    Schema,
    /// Serve JSON-lines requests on stdin, responses and events on stdout (see docs/rpc.md).
    Rpc(rpc::RpcArgs),
    /// The terminal UI: typed commands run as tool calls, !cmd in your session (the default at a terminal).
    Tui(tui::TuiArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("BASHRT_LOG").unwrap_or_else(|_| "warn".into()))
        .init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_REFUSED } else { 0 });
        }
    };
    match cli.command {
        Some(Command::Run(args)) => print::run(args),
        Some(Command::Artifact(args)) => artifact_cmd::run(args),
        Some(Command::Rpc(args)) => rpc::run(args),
        Some(Command::Tui(args)) => tui::run(args),
        Some(Command::Schema) => {
            println!("{:#}", bashrt_core::tool::params_schema());
            ExitCode::SUCCESS
        }
        None if std::io::stdin().is_terminal() => tui::run(tui::TuiArgs::default()),
        None => fail("no command given (at a terminal, bashrt alone starts the terminal UI); see bashrt --help"),
    }
}

/// Prints `bashrt: <message>` to stderr and returns the refusal status.
pub fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("bashrt: {message}");
    ExitCode::from(EXIT_REFUSED)
}
