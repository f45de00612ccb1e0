//! Terminal UI mode (`bashrt tui`, and `bashrt` alone at a terminal): commands typed run as a model's
//! tool calls, `!cmd` in the user's session, programs that need a terminal in a PTY console. The UI
//! itself is `bashrt-tui`; this module only builds the runtime it runs on.

use std::process::ExitCode;

use bashrt_core::{Runtime, VirtualTerminal};
use bashrt_tui::{Options, TuiError};

use crate::config::{CommonArgs, Setup};
use crate::fail;

#[derive(clap::Args, Default)]
pub struct TuiArgs {
    /// Tools a model would have, comma separated: interception suggests only these.
    #[arg(long, value_delimiter = ',')]
    tools: Vec<String>,
    /// Never run tool calls in a pseudo-terminal, whatever bash.virtualTerminal says (as PI_NO_PTY=1).
    #[arg(long)]
    no_pty: bool,
    #[command(flatten)]
    common: CommonArgs,
}

/// Set in the UI's own process when a session leader relaunched it (see [`relaunch_as_child`]).
const CHILD_ENV: &str = "BASHRT_TUI_CHILD";

pub fn run(args: TuiArgs) -> ExitCode {
    if let Some(code) = relaunch_as_child() {
        return code;
    }
    crate::own_process();
    let Setup { mut settings, cwd, session } = match args.common.setup() {
        Ok(setup) => setup,
        Err(e) => return fail(e),
    };
    if args.no_pty {
        settings.virtual_terminal = VirtualTerminal::Off;
    }
    let runtime = Runtime::new(settings);
    for w in runtime.warnings() {
        eprintln!("bashrt: warning: {w}");
    }
    match bashrt_tui::run(Options { runtime, session, cwd, tool_names: args.tools }) {
        Ok(code) => ExitCode::from(code),
        Err(e @ TuiError::NotATerminal) => fail(e),
        Err(e) => {
            eprintln!("bashrt: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The UI gives up its controlling terminal so that the commands it runs cannot open `/dev/tty`; a
/// session leader (bashrt started directly by a terminal emulator, or by `tmux new bashrt`) cannot do
/// that without hanging up its session. It then runs the UI as its child — in the same process
/// group, so resizes still reach it — forwards SIGTERM, SIGHUP and SIGINT to it, and exits as it did.
/// `None`: this process runs the UI itself.
fn relaunch_as_child() -> Option<ExitCode> {
    if std::env::var_os(CHILD_ENV).is_some() {
        std::env::remove_var(CHILD_ENV);
        return None;
    }
    let pid = nix::unistd::getpid();
    if !nix::unistd::getsid(None).is_ok_and(|sid| sid == pid) {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let mut child =
        std::process::Command::new(exe).args(std::env::args_os().skip(1)).env(CHILD_ENV, "1").spawn().ok()?;
    let child_pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).ok()?);
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT]) {
        let _ = std::thread::Builder::new().name("bashrt-forward".into()).spawn(move || {
            for signal in signals.forever() {
                if let Ok(signal) = nix::sys::signal::Signal::try_from(signal) {
                    let _ = nix::sys::signal::kill(child_pid, signal);
                }
            }
        });
    }
    let status = match child.wait() {
        Ok(status) => status,
        Err(e) => return Some(fail(format!("waiting for the terminal UI: {e}"))),
    };
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    Some(ExitCode::from((code & 0xff) as u8))
}
