//! Carrying a long-lived shell's state into a fresh shell, for a call that cannot have that shell
//! because another call is running in it (a model sends several calls at once).
//!
//! The state is what earlier calls left in the shell: variables (exported or not), functions,
//! aliases and shell options. It is captured by running a script in the shell itself, when the
//! shell is idle and a call comes after a pause ([`CAPTURE_AFTER_IDLE`]): the moment a model's
//! batch of parallel calls starts, and never in the middle of back-to-back calls. A call that finds
//! the shell busy starts a fresh shell that reads the captured state before its command (through
//! `BASH_ENV`, so the command's lines are still numbered from 1). Each capture records how many
//! calls the shell had run ([`Carried::generation`]); when calls ran since, or the capture failed,
//! the fresh shell's result says what it lacks.
//!
//! Not carried: traps, the directory stack, `$?`/`$!`/`$_`, bash's own variables (`BASHPID`,
//! `SECONDS`, `PWD`, …), and the runtime's (`BASH_ENV`, the marker).

use std::sync::Arc;
use std::time::Duration;

use crate::exec::{Flow, OutputConsumer};

/// A call that finds the shell idle for at least this long captures its state first. Calls sent
/// back to back never pay for a capture; a model's pause between turns is far longer.
pub(crate) const CAPTURE_AFTER_IDLE: Duration = Duration::from_millis(500);

/// How long a capture may take (a shell with thousands of functions needs some tens of ms).
pub(crate) const CAPTURE_TIMEOUT: Duration = Duration::from_secs(2);

/// A state larger than this is not kept (a variable holding a whole file, a huge rc): the calls
/// that would need it say so.
pub(crate) const MAX_STATE_BYTES: usize = 4 * 1024 * 1024;

/// The last line of a complete capture: only a capture that ran to its end prints it.
const END: &str = "#bashrt-state-end";

/// Variables bash sets itself (read-only, dynamic, or about this process), and the runtime's own:
/// a fresh shell has its own values.
const NOT_CARRIED: &[&str] = &[
    "BASH",
    "BASHOPTS",
    "BASHPID",
    "BASH_ALIASES",
    "BASH_ARGC",
    "BASH_ARGV",
    "BASH_ARGV0",
    "BASH_CMDS",
    "BASH_COMMAND",
    "BASH_ENV",
    "BASH_EXECUTION_STRING",
    "BASH_LINENO",
    "BASH_MONOSECONDS",
    "BASH_REMATCH",
    "BASH_SOURCE",
    "BASH_SUBSHELL",
    "BASH_TRAPSIG",
    "BASH_VERSINFO",
    "BASH_VERSION",
    "BASHRT_RUNTIME",
    "COLUMNS",
    "COMP_WORDBREAKS",
    "DIRSTACK",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "EUID",
    "FUNCNAME",
    "GROUPS",
    "HISTCMD",
    "HOSTNAME",
    "HOSTTYPE",
    "LINENO",
    "LINES",
    "MACHTYPE",
    "OLDPWD",
    "OPTIND",
    "OSTYPE",
    "PIPESTATUS",
    "PPID",
    "PWD",
    "RANDOM",
    "SECONDS",
    "SHELLOPTS",
    "SHLVL",
    "SRANDOM",
    "UID",
    "_",
];

/// What a fresh shell can carry of a long-lived shell's state.
#[derive(Debug, Clone)]
pub(crate) struct Carried {
    /// How many calls the shell had run when this was captured.
    pub generation: u64,
    /// The script that recreates the state, or why there is none.
    pub state: Result<Arc<[u8]>, String>,
}

impl Carried {
    /// A shell that just started: nothing to carry beyond what every fresh shell reads.
    pub(crate) fn fresh() -> Self {
        Self { generation: 0, state: Ok(Arc::from(&b""[..])) }
    }
}

/// The capture script for a shell whose runner variables are named with `tag` (they are left out,
/// as are the script's own two, which it unsets). Every word that could be an alias or a
/// function is escaped or called through `builtin`; names are listed by prefix expansion (no
/// subshell, no fork). Its stdout is the state; anything on stderr (a trace) is not.
pub(crate) fn capture_script(tag: &str) -> String {
    let (var, ok) = (format!("_{tag}v"), format!("_{tag}k"));
    let mut prefixes = String::new();
    for c in ('A'..='Z').chain('a'..='z').chain(['_']) {
        prefixes.push_str(&format!(" \"${{!{c}@}}\""));
    }
    let skip = NOT_CARRIED.join("|");
    // Every step must succeed (a builtin disabled with `enable -n` fails) for the end line to print.
    format!(
        "{ok}=1; for {var} in{prefixes}; do case ${var} in {skip}|_{tag}?) ;; *) \\builtin declare -p -- \"${var}\" \
2>/dev/null || {ok}=;; esac; done
\\builtin declare -f || {ok}=
\\builtin alias -p || {ok}=
\\builtin shopt -p || {ok}=
\\builtin set +o || {ok}=
case ${ok} in 1) \\builtin printf '%s\\n' '{END}';; esac
\\builtin unset -v {var} {ok}"
    )
}

/// The script a fresh shell reads to take on the captured state, from the capture's stdout.
/// Options come last (a `set -o xtrace` must not trace the rest), errors are silenced (an option
/// this bash cannot set, a read-only variable that exists already).
pub(crate) fn restore_script(stdout: &[u8]) -> Result<Arc<[u8]>, String> {
    if stdout.len() > MAX_STATE_BYTES {
        return Err(format!(
            "its state is larger than {} MiB (a variable holding a file, say)",
            MAX_STATE_BYTES / (1024 * 1024)
        ));
    }
    let body = stdout.strip_suffix(b"\n").unwrap_or(stdout);
    let Some(body) = body.strip_suffix(END.as_bytes()) else {
        return Err("capturing its state failed (a builtin it needs was disabled or redefined?)".to_string());
    };
    let mut definitions = Vec::with_capacity(body.len() + 64);
    let mut traces = Vec::new();
    definitions.extend_from_slice(b"{\n");
    for line in body.split_inclusive(|b| *b == b'\n') {
        if line.starts_with(b"set -o xtrace") || line.starts_with(b"set -o verbose") {
            traces.extend_from_slice(line);
        } else {
            definitions.extend_from_slice(line);
        }
    }
    if !definitions.ends_with(b"\n") {
        definitions.push(b'\n');
    }
    definitions.extend_from_slice(b"} 2>/dev/null\n");
    definitions.extend_from_slice(&traces);
    Ok(Arc::from(definitions))
}

/// Collects a capture's stdout, up to one byte more than [`MAX_STATE_BYTES`].
#[derive(Default)]
pub(crate) struct Collect {
    pub stdout: Vec<u8>,
}

impl OutputConsumer for Collect {
    fn consume(&mut self, _stderr: &[u8]) -> Flow {
        Flow::Continue
    }

    fn consume_stdout(&mut self, chunk: &[u8]) -> Flow {
        let room = (MAX_STATE_BYTES + 1).saturating_sub(self.stdout.len());
        self.stdout.extend_from_slice(&chunk[..chunk.len().min(room)]);
        Flow::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the capture in a bash that ran `setup`, then `check` in a fresh bash that read the state:
    /// its stdout and stderr.
    fn carry(setup: &str, check: &str) -> (String, String) {
        let capture = capture_script("zz");
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &format!("{setup}\n{capture}")])
            .output()
            .unwrap();
        let state = restore_script(&out.stdout).unwrap();
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &*state).unwrap();
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", check])
            .env("BASH_ENV", file.path())
            .output()
            .unwrap();
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    }

    #[test]
    fn variables_functions_aliases_and_options_carry() {
        // The long-lived shells expand aliases (the snapshot turns it on).
        let setup = "shopt -s expand_aliases; export VIRTUAL_ENV=/v PATH=/v/bin:$PATH; plain='a b\nc'; declare -A map=([k]=v); \
                     declare -i n=4; f() { echo \"f:$1\"; }; alias ll='echo listed'; shopt -s globstar; set -o pipefail; \
                     _zzs=runner";
        let check =
            "echo \"$VIRTUAL_ENV ${PATH%%:*} $plain ${map[k]} $((n+1))\"; f x; ll; shopt -q globstar && echo gs; \
                     [[ -o pipefail ]] && echo pf; echo \"[${_zzs-}] [${_zzv-}]\"";
        assert_eq!(carry(setup, check), ("/v /v/bin a b\nc v 5\nf:x\nlisted\ngs\npf\n[] []\n".into(), String::new()));
    }

    #[test]
    fn tracing_is_restored_after_the_rest() {
        // Only the command is traced, as in the shell it came from; restoring the rest is not.
        assert_eq!(carry("set -x", "echo hi"), ("hi\n".into(), "+ echo hi\n".into()));
    }

    #[test]
    fn a_capture_with_a_builtin_disabled_is_refused_not_taken_for_an_empty_state() {
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &format!("X=1; enable -n declare\n{}", capture_script("zz"))])
            .output()
            .unwrap();
        assert!(restore_script(&out.stdout).is_err(), "{}", String::from_utf8_lossy(&out.stdout));
    }

    #[test]
    fn a_capture_that_did_not_finish_is_refused() {
        assert!(restore_script(b"declare -- a=\"1\"\n").is_err());
        assert!(restore_script(&vec![b'x'; MAX_STATE_BYTES + 1]).is_err());
    }
}
