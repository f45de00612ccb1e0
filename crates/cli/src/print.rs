//! Print mode (`bashrt run`): one tool call, printed as the model would see it (or as the whole tool
//! result with `--json`). Ctrl-C aborts the command, kills its process tree and prints the partial result.

use std::io::Write;
use std::process::ExitCode;

use bashrt_core::{BashParams, CallContext, CancelToken, Failure, Outcome, Runtime, ToolResult};

use crate::config::{CommonArgs, Setup};
use crate::{fail, EXIT_REFUSED};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Print the whole tool result as one JSON object.
    #[arg(long)]
    json: bool,
    /// Working directory of the call (relative to the current directory).
    #[arg(long)]
    cwd: Option<String>,
    /// Timeout in seconds (1 to 3600, a longer one is clamped; default 300).
    #[arg(long, value_parser = parse_timeout)]
    timeout: Option<f64>,
    /// Show only the first N lines of output.
    #[arg(long)]
    head: Option<u64>,
    /// Show only the last N lines of output.
    #[arg(long)]
    tail: Option<u64>,
    /// Tools the caller has, comma separated (interception suggests only these).
    #[arg(long, value_delimiter = ',', value_parser = crate::intercept_cmd::tool_name)]
    tools: Vec<String>,
    /// The sandbox for this call: workspace-write (default), read-only or off.
    #[arg(long, value_name = "MODE")]
    sandbox: Option<String>,
    /// Let the command also write PATH (absolute or ~/; repeatable): you grant it by typing it.
    #[arg(long, value_name = "PATH")]
    allow_write: Vec<String>,
    /// Let the command read PATH though it is on the sandbox's unreadable list (repeatable).
    #[arg(long, value_name = "PATH")]
    allow_read: Vec<String>,
    /// Let the command reach the whole network, not only the servers it starts.
    #[arg(long)]
    allow_net: bool,
    /// Let the command reach local PORT on loopback (repeatable).
    #[arg(long, value_name = "PORT")]
    allow_port: Vec<u16>,
    #[command(flatten)]
    common: CommonArgs,
    /// The command; several words are joined with spaces. It starts at the first word that is not an
    /// option (an unknown option is an error, not a command), or after `--`.
    #[arg(required = true, trailing_var_arg = true)]
    command: Vec<String>,
}

/// The sandbox flags: the person typing the command line grants what they name.
fn widen(settings: &mut bashrt_core::Settings, args: &RunArgs) -> Result<(), String> {
    let set = |settings: &mut bashrt_core::Settings, key: &str, value: serde_json::Value| {
        settings.set(key, value).map(drop).map_err(|e| e.to_string())
    };
    if let Some(mode) = &args.sandbox {
        set(settings, "sandbox.mode", serde_json::Value::String(mode.clone()))?;
    }
    let request = bashrt_core::SandboxRequest {
        write: args.allow_write.clone(),
        read: args.allow_read.clone(),
        network: args.allow_net.then_some(bashrt_core::RequestedNetwork::On),
        loopback_ports: args.allow_port.clone(),
        off: false,
        reason: "given on the command line".into(),
    };
    let asked =
        !(request.write.is_empty() && request.read.is_empty() && !args.allow_net && request.loopback_ports.is_empty());
    if asked {
        if let Some(problem) = request.problem() {
            return Err(problem);
        }
        settings.sandbox = request.widened(&settings.sandbox);
    }
    Ok(())
}

pub fn run(args: RunArgs) -> ExitCode {
    let Setup { mut settings, cwd: session_cwd, session: name } = match args.common.setup() {
        Ok(setup) => setup,
        Err(e) => return fail(e),
    };
    if let Err(e) = widen(&mut settings, &args) {
        return fail(e);
    }
    // One call per process: a long-lived shell would be waste, and what the command leaves running
    // ends with the call. Without a state directory the call still runs; its output just cannot
    // spill.
    let grace = std::time::Duration::from_millis(settings.kill_grace_ms);
    let runtime = Runtime::builder(settings).single_call().build();
    for w in runtime.warnings() {
        eprintln!("bashrt: warning: {w}");
    }
    let artifacts = runtime.artifacts(&name);
    let tool = runtime.tool();
    for w in tool.warnings() {
        eprintln!("bashrt: warning: {w}");
    }
    let cancel = match CancelToken::new() {
        Ok(c) => c,
        Err(e) => return fail(format!("cannot create a cancel token: {e}")),
    };
    let interrupted = match watch_signals(&cancel) {
        Ok(flag) => flag,
        Err(e) => return fail(format!("cannot install signal handlers: {e}")),
    };
    let command = args.command.join(" ");
    let progress = crate::progress::Progress::start(&command);
    let mut on_update = |view: &str| {
        if let Some(progress) = &progress {
            progress.update(view);
        }
    };
    let params = BashParams {
        command,
        timeout: args.timeout,
        cwd: args.cwd,
        head: args.head,
        tail: args.tail,
        ..Default::default()
    };
    let result = tool.execute(
        &params,
        CallContext {
            session_cwd,
            artifacts,
            tool_names: crate::intercept_cmd::tool_names(args.tools),
            cancel,
            on_update: progress.is_some().then_some(&mut on_update as &mut dyn FnMut(&str)),
        },
    );
    if let Some(progress) = progress {
        progress.finish();
    }
    // Nothing bashrt started outlives it: what the command left running is stopped now, before the
    // result (which says so) is printed.
    drop(tool);
    runtime.close(grace);
    drop(runtime);
    if let Err(e) = print_result(&result, args.json) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("bashrt: cannot write the result: {e}");
        }
    }
    let _ = interrupted;
    exit_status(&result)
}

/// `--timeout`: seconds, at least 1. Zero or less would end the command before it ran.
fn parse_timeout(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(secs) if (1.0..=f64::MAX).contains(&secs) => Ok(secs),
        Ok(secs) if secs < 1.0 => Err(format!(
            "{text} seconds would end the command at once: give 1 to 3600, or leave --timeout out for the default (300)"
        )),
        _ => Err(format!("{text:?} is not a number of seconds from 1 to 3600")),
    }
}

fn print_result(result: &ToolResult, json: bool) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if json {
        serde_json::to_writer(&mut out, result).map_err(std::io::Error::other)?;
        out.write_all(b"\n")?;
    } else {
        let text = result.text();
        out.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            out.write_all(b"\n")?;
        }
    }
    out.flush()
}

/// The command's exit code; 124 on timeout; 130 when interrupted; 2 when refused; 128+N for a signal.
fn exit_status(result: &ToolResult) -> ExitCode {
    let d = &result.details;
    if d.failure == Some(Failure::Refused) {
        return ExitCode::from(EXIT_REFUSED);
    }
    let code = match d.outcome {
        Some(Outcome::Exited { code }) => code,
        Some(Outcome::Signalled { signal }) => 128 + signal,
        Some(Outcome::TimedOut) => 124,
        Some(Outcome::Cancelled) => 130,
        Some(Outcome::Error) => 1,
        None => i32::from(EXIT_REFUSED),
    };
    ExitCode::from((code & 0xff) as u8)
}

/// SIGINT, SIGTERM and SIGHUP cancel the running call; the result (partial output) is still printed.
fn watch_signals(cancel: &CancelToken) -> std::io::Result<signal_hook::iterator::Handle> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    let handle = signals.handle();
    let cancel = cancel.clone();
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        if signals.forever().next().is_some() {
            cancel.cancel();
        }
    })?;
    Ok(handle)
}
