//! Command text composition: turns the command the runtime decided to run into the script the shell
//! gets. Promises: the composed script ends with the exit status bash would have reported for the
//! command as the user wrote it, including when the runtime removed a trailing `| head`/`| tail`
//! stage to apply that limit itself.

/// Which exit status the composed script must end with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusMode {
    /// The command's own status.
    AsIs,
    /// The command was the producer of a pipeline whose trailing `head`/`tail` stage the runtime
    /// removed. The status is what bash reports for the original pipeline: 0 (the status of
    /// `head`/`tail`), or the producer's status when `pipefail` is on in that shell (141 when the
    /// producer died of SIGPIPE). The producer runs in a subshell, as a pipeline stage does, so
    /// `exit 3` or `cd` in it do not affect the shell.
    ExtractedLastStage,
}

/// Composes the script for `command`, with the configured `prefix` (`<prefix> <command>`).
///
/// A prefix that ends in a list operator (`;`, `&`, `&&`, `||`, `|` or a newline) is a command of its
/// own and stays outside the producer's subshell, so `set -o pipefail;` still affects the status; any
/// other prefix (`nice -n 5`, `env A=1`) is a word in front of the producer and goes inside.
pub fn compose(command: &str, prefix: Option<&str>, status: StatusMode) -> String {
    let prefix = prefix.filter(|p| !p.trim().is_empty());
    match (status, prefix) {
        (StatusMode::AsIs, None) => command.to_string(),
        (StatusMode::AsIs, Some(prefix)) => format!("{prefix} {command}"),
        (StatusMode::ExtractedLastStage, None) => extracted(command),
        (StatusMode::ExtractedLastStage, Some(prefix)) if is_list_prefix(prefix) => {
            // Braces keep `a && <prefix>`-style operators applying to the whole producer + status line;
            // the producer stays on the prefix's last line, so bash's line numbers are unchanged.
            format!("{prefix} {{ {}\n}}", extracted(command))
        }
        (StatusMode::ExtractedLastStage, Some(prefix)) => extracted(&format!("{prefix} {command}")),
    }
}

/// The producer in a subshell, then its status only when `pipefail` is on.
///
/// The producer starts on the first line of the text, after `( `, so that bash's messages name the
/// line the user wrote (`bash: line 1: …`, as with `bash -c`); the space keeps `((` from reading as
/// arithmetic. The `)` goes on a line of its own, after a comment or a heredoc the producer may end with.
///
/// Inside `case`, `$?` is still the subshell's status. `$SHELLOPTS` rather than `[[ -o pipefail ]]`
/// keeps it valid POSIX sh (no `pipefail` in `$SHELLOPTS` means status 0). The subshell is the left
/// side of `||`, so `set -e` does not end the shell there; the `(exit N)` on the right is the last
/// command, so with `set -e` and `pipefail` the shell ends exactly as with the original pipeline.
/// No `exit`: the same text works in a long-lived shell.
fn extracted(producer: &str) -> String {
    format!("( {producer}\n) || case :$SHELLOPTS: in *:pipefail:*) (exit $?) ;; esac")
}

fn is_list_prefix(prefix: &str) -> bool {
    if prefix.ends_with('\n') {
        return true;
    }
    let trimmed = prefix.trim_end();
    trimmed.ends_with(';') || trimmed.ends_with('&') || trimmed.ends_with('|')
}

/// `script` preceded by sourcing `snapshot` on a line of its own, so that its aliases apply to the
/// script's lines; a fresh shell (one-shot or in a PTY) runs this.
pub(crate) fn sourcing_snapshot<'a>(snapshot: Option<&std::path::Path>, script: &'a str) -> std::borrow::Cow<'a, str> {
    match snapshot {
        Some(snapshot) => {
            format!("\\. {} </dev/null >/dev/null 2>&1\n{script}", quoted(&snapshot.to_string_lossy())).into()
        }
        None => script.into(),
    }
}

/// The file a fresh bash of `req` reads through `BASH_ENV` before its `-c` text: the snapshot, then a
/// carried state (see `ExecRequest::seed`); `None` when there is neither, or the shell is not bash
/// (which gets [`sourcing_snapshot`] instead). Bash reads it off the script's lines, so that its
/// messages number the command's lines from 1 as `bash -c` does.
pub(crate) fn bash_env_file(req: &super::ExecRequest) -> std::io::Result<Option<BashEnvFile>> {
    if !super::is_bash(&req.shell) || (req.snapshot.is_none() && req.seed.is_none()) {
        return Ok(None);
    }
    let original = req
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "BASH_ENV")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var_os("BASH_ENV"));
    let mut text = snapshot_bash_env(req.snapshot.as_deref(), original.as_deref());
    if let Some(seed) = &req.seed {
        text.extend_from_slice(seed);
    }
    match &req.sandbox {
        // A confined shell cannot open the runtime's descriptors (see `shell::persistent::pipes`): a
        // private file in its sandbox's runner directory (a memory file system), removed with the call.
        Some(sandbox) => {
            let mut file = tempfile::Builder::new().prefix("bash-env-").tempfile_in(sandbox.runner_dir())?;
            std::io::Write::write_all(&mut file, &text)?;
            Ok(Some(BashEnvFile::File(file)))
        }
        None => crate::process::memfile::MemFile::holding("bashrt-bash-env", &text).map(|f| Some(BashEnvFile::Mem(f))),
    }
}

/// The file `BASH_ENV` names: a sealed memfd, or, for a confined shell, a private file.
pub(crate) enum BashEnvFile {
    Mem(crate::process::memfile::MemFile),
    File(tempfile::NamedTempFile),
}

impl BashEnvFile {
    pub(crate) fn path(&self) -> &std::ffi::OsStr {
        match self {
            Self::Mem(file) => file.path().as_ref(),
            Self::File(file) => file.path().as_os_str(),
        }
    }
}

/// What a fresh bash reads through `BASH_ENV` before its `-c` text: the snapshot, then `BASH_ENV` set
/// back to what the caller's environment had (unset when it had none), so that the command's own bash
/// children do not source the snapshot. This keeps the snapshot off the script's lines: bash numbers
/// the command's lines from 1, as under `bash -c`. A caller's own `BASH_ENV` is then read too, as bash
/// would have.
pub(crate) fn snapshot_bash_env(snapshot: Option<&std::path::Path>, original: Option<&std::ffi::OsStr>) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    if let Some(snapshot) = snapshot {
        out.extend_from_slice(b"\\. ");
        quote_into(&mut out, snapshot.as_os_str().as_bytes());
        out.extend_from_slice(b" </dev/null >/dev/null 2>&1\n");
    }
    match original {
        Some(value) => {
            out.extend_from_slice(b"BASH_ENV=");
            quote_into(&mut out, value.as_bytes());
            out.extend_from_slice(b"\nif [ -n \"$BASH_ENV\" ]; then \\. \"$BASH_ENV\"; fi\n");
        }
        None => out.extend_from_slice(b"\\builtin unset BASH_ENV\n"),
    }
    out
}

/// Appends `text` in single quotes, with `'` written as `'\''`: the one quoting bash never expands,
/// whatever the bytes (newlines, `$`, invalid UTF-8). Every path or word bashrt writes into shell
/// text goes through here.
pub(crate) fn quote_into(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'\'');
    for &b in text {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(b);
        }
    }
    out.push(b'\'');
}

/// [`quote_into`] for text that is already a `String`.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 2);
    quote_into(&mut out, text.as_bytes());
    // Only ASCII quotes were added around valid UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_any_text() {
        assert_eq!(quoted("a'b"), r"'a'\''b'");
        let mut out = Vec::new();
        quote_into(&mut out, b"\xff$x\n");
        assert_eq!(out, b"'\xff$x\n'");
    }

    #[test]
    fn as_is_joins_prefix_and_command_with_a_space() {
        assert_eq!(compose("ls", None, StatusMode::AsIs), "ls");
        assert_eq!(compose("ls", Some("nice"), StatusMode::AsIs), "nice ls");
        assert_eq!(compose("ls", Some("  "), StatusMode::AsIs), "ls");
    }

    #[test]
    fn word_prefix_goes_inside_the_producer_subshell() {
        let script = compose("yes", Some("nice -n 5"), StatusMode::ExtractedLastStage);
        assert!(script.starts_with("( nice -n 5 yes\n)"), "{script}");
    }

    #[test]
    fn list_prefix_stays_outside_the_producer_subshell() {
        for prefix in ["set -o pipefail;", "cd /tmp &&", "true ||", "shopt -s extglob\n"] {
            let script = compose("yes", Some(prefix), StatusMode::ExtractedLastStage);
            assert!(script.starts_with(prefix), "{script}");
            assert!(script.contains("{ ( yes\n)"), "{script}");
        }
    }
}
