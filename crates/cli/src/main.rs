//! `bashrt`: the bash tool runtime as a command. Each subcommand is one mode on top of `bashrt-core`;
//! the core knows nothing of them.

mod artifact_cmd;
mod config;
mod gc_cmd;
mod intercept_cmd;
mod log;
mod mcp;
mod print;
mod progress;
mod rpc;
mod signals;
mod tui;
mod visible;

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
    /// Bring the state directory under its budget (`state.maxBytes`), or show what that would remove.
    Gc(gc_cmd::GcArgs),
    /// Say whether commands would be blocked by the interceptor, without running them.
    Intercept(intercept_cmd::InterceptArgs),
    /// Serve JSON-lines requests on stdin, responses and events on stdout (see docs/rpc.md).
    Rpc(rpc::RpcArgs),
    /// Serve the bash tool to an MCP client (Claude Code, Codex, Gemini CLI, …) on stdio (see docs/mcp.md).
    Mcp(mcp::McpArgs),
    /// The terminal UI: typed commands run as tool calls, !cmd in your session (the default at a terminal).
    Tui(tui::TuiArgs),
}

fn main() -> ExitCode {
    limit_allocator_growth();
    log::init();
    // A file-size limit (`ulimit -f`) must make an artifact write fail with EFBIG, which the sink reports,
    // rather than kill bashrt with SIGXFSZ. A handler (unlike SIG_IGN) is reset at exec, so commands
    // still get the signal's default action.
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, Default::default()) {
        eprintln!("bashrt: warning: cannot handle SIGXFSZ: {e}");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_REFUSED } else { 0 });
        }
    };
    if matches!(cli.command, Some(Command::Run(_) | Command::Rpc(_) | Command::Mcp(_))) {
        own_process();
    }
    match cli.command {
        Some(Command::Run(args)) => print::run(args),
        Some(Command::Artifact(args)) => artifact_cmd::run(args),
        Some(Command::Rpc(args)) => rpc::run(args),
        Some(Command::Mcp(args)) => mcp::run(args),
        Some(Command::Gc(args)) => gc_cmd::run(args),
        Some(Command::Intercept(args)) => intercept_cmd::run(args),
        Some(Command::Tui(args)) => tui::run(args),
        Some(Command::Schema) => print_out(&format!("{:#}\n", bashrt_core::params_schema())),
        None if std::io::stdin().is_terminal() => tui::run(tui::TuiArgs::default()),
        None => fail("no command given (at a terminal, bashrt alone starts the terminal UI); see bashrt --help"),
    }
}

/// This process runs commands and spawns its children through bashrt alone, so it takes the process
/// over (see `bashrt_core::adopt_orphans`): a watchdog forked now, while the process has one thread
/// (a fork costs far less than starting a bash on the first command), and the orphans of what it runs
/// come back to it, so that finding what a call left costs what the call started, not what the machine
/// runs. Where either fails, the runtime works as an embedded one does (a bash watchdog; a look over
/// every process): nothing is lost but time.
pub fn own_process() {
    if let Err(e) = bashrt_core::prefork_watchdog() {
        tracing::debug!("no forked watchdog: {e}");
    }
    if let Err(e) = bashrt_core::adopt_orphans() {
        tracing::debug!("orphans go to init: {e}");
    }
}

/// Prints `bashrt: <message>` to stderr and returns the refusal status.
pub fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("bashrt: {message}");
    ExitCode::from(EXIT_REFUSED)
}

/// Writes `text` to stdout and returns the exit status: success, also when the reader went away
/// (`bashrt schema | head -1`), or a refusal naming the problem when stdout cannot be written (closed,
/// a full disk) — never a panic.
pub fn print_out(text: &str) -> ExitCode {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(format!("cannot write to stdout: {e}")),
    }
}

/// glibc's allocator raises its mmap threshold after large buffers are freed and gives every busy
/// thread an arena of its own; under fifty concurrent commands the freed output buffers then stay in
/// the heap, fragmented, and a long-running `bashrt rpc` grows without leaking. A fixed threshold and
/// two arenas keep its memory flat (measured: +27 MiB → +4 MiB over 2,000 calls).
fn limit_allocator_growth() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator parameters; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
