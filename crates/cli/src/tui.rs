//! Terminal UI mode (`bashrt tui`, and `bashrt` alone at a terminal): commands typed run as a model's
//! tool calls, `!cmd` in the user's session, programs that need a terminal in a PTY console. The UI
//! itself is `bashrt-tui`; this module only builds the runtime it runs on.

use std::process::ExitCode;

use bashrt_core::settings::VirtualTerminal;
use bashrt_core::Runtime;
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

pub fn run(args: TuiArgs) -> ExitCode {
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
