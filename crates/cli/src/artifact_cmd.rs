//! `bashrt artifact ID`: read an artifact of a session, whole or as a window.

use std::process::ExitCode;

use bashrt_core::{write_window_from, ReadError, SessionName, StateDir, Window, WindowRequest};

use crate::fail;
use crate::visible::Visible;

#[derive(clap::Args)]
pub struct ArtifactArgs {
    /// The artifact: `7` or `artifact://7`.
    id: String,
    /// Session name (default: the session of the current directory).
    #[arg(long)]
    session: Option<String>,
    /// Only the first N lines.
    #[arg(long, group = "window")]
    head: Option<u64>,
    /// Only the last N lines.
    #[arg(long, group = "window")]
    tail: Option<u64>,
    /// Only lines A to B (1-based, inclusive), e.g. 100-200.
    #[arg(long, group = "window", value_name = "A-B")]
    lines: Option<String>,
    /// Only lines matching this regular expression, prefixed with their line numbers.
    #[arg(long, group = "window", value_name = "RE")]
    grep: Option<String>,
}

pub fn run(args: ArtifactArgs) -> ExitCode {
    let window = match window_of(&args) {
        Ok(w) => w,
        Err(e) => return fail(e),
    };
    // Without --session, the session is the current directory's: from another directory a missing
    // artifact must say where it was looked for, and how to look elsewhere.
    let (name, implicit) = match args.session.as_deref() {
        Some(n) => match SessionName::parse(n) {
            Ok(n) => (n, None),
            Err(e) => return fail(e),
        },
        None => match std::env::current_dir() {
            Ok(d) => (SessionName::for_cwd(&d), Some(d)),
            Err(e) => return fail(format!("cannot read the current directory: {e}")),
        },
    };
    let state = match StateDir::from_env() {
        Ok(s) => s,
        Err(_) => return fail(bashrt_core::ArtifactError::NoSession),
    };
    if let Err(e) = state.check() {
        return fail(e);
    }
    let dir = state.session(&name).artifacts();
    let file = match dir.open(&args.id) {
        Ok((_, file)) => file,
        Err(e) => {
            return fail(match implicit {
                Some(cwd) => format!(
                    "{e}. Looked in session {name}, the session of the current directory ({}); run this in the \
                 directory the command ran in, or name its session: --session cwd-work-app for /work/app",
                    cwd.display(),
                    name = name.as_str()
                ),
                None => e.to_string(),
            })
        }
    };
    let stdout = std::io::stdout();
    let terminal = std::io::IsTerminal::is_terminal(&stdout);
    let out = std::io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    // At a terminal, what the command printed must not drive it (see `visible`); piped, exact bytes.
    let mut out: Box<dyn std::io::Write> = if terminal { Box::new(Visible::new(out)) } else { Box::new(out) };
    let written = write_window_from(file, &window, &mut out).and_then(|lines| out.flush().map(|_| lines));
    match written {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(format!("cannot read artifact {}: {e}", args.id)),
    }
}

fn window_of(args: &ArtifactArgs) -> Result<Window, ReadError> {
    WindowRequest { head: args.head, tail: args.tail, lines: args.lines.clone(), grep: args.grep.clone() }.window()
}
