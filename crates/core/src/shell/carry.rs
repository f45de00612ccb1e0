//! Carrying a long-lived shell's state into a fresh shell, for a call that cannot have that shell
//! because another call is running in it (a model sends several calls at once).
//!
//! The state is what earlier calls left in the shell: variables (exported or not, and which are
//! exported), functions, aliases and shell options. It is captured by running a script in the shell
//! itself while the shell is idle, off any call's path (the pool's capture thread), and a call that
//! finds the shell busy starts a fresh shell that reads the
//! captured state before its command, through `BASH_ENV`, so the command's lines are still numbered
//! from 1. Each capture records how many calls the shell had run ([`Carried::generation`]); when calls
//! ran since, or the capture failed, the fresh shell's result says what it lacks.
//!
//! What the capture prints is data, never trusted as code: each part comes between marker lines
//! that carry a random nonce drawn for that capture (no value defined before it can hold one), each
//! part is checked for the form bash prints it in, and the restore script runs each part through
//! `eval` of an ANSI-C-quoted string, so that no byte of the state is read as the script's own text
//! and one part that does not parse (a function bash printed in a form it cannot read back) loses
//! only that part.
//!
//! Not carried: traps, the directory stack, `$?`/`$!`/`$_`, bash's own variables (`BASHPID`,
//! `SECONDS`, `PWD`, …), the runtime's (`BASH_ENV`, the marker), and functions a call removed
//! (`unset -f`): the fresh shell still has the snapshot's.

use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;
use std::time::Duration;

use crate::exec::{Flow, OutputConsumer};

/// How long a capture may take (a shell with thousands of functions needs about a second).
pub(crate) const CAPTURE_TIMEOUT: Duration = Duration::from_secs(5);

/// A state larger than this is not kept (a variable holding a whole file, a huge rc): the calls
/// that would need it say so.
pub(crate) const MAX_STATE_BYTES: usize = 4 * 1024 * 1024;

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

/// One capture: its script and how to read what it prints.
pub(crate) struct Capture {
    nonce: String,
    tag: String,
}

impl Capture {
    /// A capture for a shell whose runner variables are named with `tag`; its markers carry a
    /// nonce drawn now.
    pub(crate) fn new(tag: &str) -> Self {
        let nonce = format!("{:016x}", RandomState::new().hash_one(std::time::Instant::now()));
        Self { nonce, tag: tag.to_string() }
    }

    fn marker(&self, part: &str) -> String {
        format!("#bashrt-state-{}-{part}", self.nonce)
    }

    /// The script the shell runs. Every word that could be an alias or a function is escaped or
    /// called through `builtin`; alias expansion is off from its second line (bash expands aliases
    /// even where a reserved word such as `for` stands) and back as it was at the end; names are
    /// listed by prefix expansion (no subshell, no fork). Its stdout is the state, stderr (a trace)
    /// is not. The end marker prints only when every step succeeded (a builtin disabled with
    /// `enable -n` fails). Its variables are the runner's kind (`_<tag>?`), left out and unset.
    pub(crate) fn script(&self) -> String {
        let t = &self.tag;
        let (var, ok, aliases) = (format!("_{t}v"), format!("_{t}k"), format!("_{t}a"));
        let mark = |part: &str| format!("\\builtin printf '%s\\n' '{}'", self.marker(part));
        let mut prefixes = String::new();
        for c in ('A'..='Z').chain('a'..='z').chain(['_']) {
            prefixes.push_str(&format!(" \"${{!{c}@}}\""));
        }
        format!(
            "{ok}=1; {shopt}; \\builtin shopt -p || {ok}=; \\builtin shopt -q expand_aliases && {aliases}=1 || {aliases}=; \
             \\builtin shopt -u expand_aliases\n\
             {vars}; for {var} in{prefixes}; do {each}; \\builtin declare -p -- \"${var}\" 2>/dev/null || {ok}=; done\n\
             {functions}; \\builtin declare -f || {ok}=\n\
             {alias}; \\builtin alias -p || {ok}=\n\
             {set}; \\builtin set +o || {ok}=\n\
             \\builtin test \"${aliases}\" = 1 && \\builtin shopt -s expand_aliases; \
             \\builtin test \"${ok}\" = 1 && {end}; \\builtin unset -v {var} {ok} {aliases}",
            shopt = mark("shopt"),
            vars = mark("vars"),
            each = mark("v"),
            functions = mark("functions"),
            alias = mark("aliases"),
            set = mark("set"),
            end = mark("end"),
        )
    }

    /// The script a fresh shell reads to take on the captured state, from the capture's stdout; an
    /// error says why there is none.
    pub(crate) fn restore_script(&self, stdout: &[u8]) -> Result<Arc<[u8]>, String> {
        if stdout.len() > MAX_STATE_BYTES {
            return Err(format!(
                "its state is larger than {} MiB (a variable holding a file, say)",
                MAX_STATE_BYTES / (1024 * 1024)
            ));
        }
        let parts = self.parts(stdout).ok_or_else(|| {
            "its state could not be captured (a builtin it needs disabled or redefined, or a trap printing)".to_string()
        })?;
        let mut out = Vec::with_capacity(stdout.len() * 2);
        // The snapshot, read just before, turned alias expansion on: none of the user's aliases
        // reaches this script's own words (the captured options set it back).
        out.extend_from_slice(b"\\builtin shopt -u expand_aliases\n");
        // Variables a call removed are removed here too, before the captured options change `case`;
        // then options that change how the rest parses (extglob) first.
        out.extend_from_slice(&unset_missing(&parts.variables));
        eval_into(&mut out, &parts.shopt);
        for variable in &parts.variables {
            eval_into(&mut out, variable.declaration);
            if !variable.exported {
                out.extend_from_slice(format!("\\builtin export -n {} 2>/dev/null\n", variable.name).as_bytes());
            }
        }
        eval_into(&mut out, parts.functions);
        out.extend_from_slice(b"\\builtin unalias -a 2>/dev/null\n");
        eval_into(&mut out, parts.aliases);
        // Tracing last, so that restoring traces nothing.
        let (traces, rest): (Vec<&[u8]>, Vec<&[u8]>) = parts
            .set
            .iter()
            .partition(|line| line.starts_with(b"set -o xtrace") || line.starts_with(b"set -o verbose"));
        eval_into(&mut out, &rest.concat());
        for line in traces {
            out.extend_from_slice(line);
        }
        Ok(Arc::from(out))
    }

    /// The capture's parts, each checked for the form bash prints it in; `None` when the capture did
    /// not run to its end or printed anything else.
    fn parts<'a>(&self, stdout: &'a [u8]) -> Option<Parts<'a>> {
        let mut rest = stdout;
        let mut take = |part: &str| -> Option<&'a [u8]> {
            let marker = format!("{}\n", self.marker(part));
            let at = find(rest, marker.as_bytes())?;
            let before = &rest[..at];
            rest = &rest[at + marker.len()..];
            Some(before)
        };
        take("shopt")?.is_empty().then_some(())?;
        let shopt = take("vars")?;
        let vars = take("functions")?;
        let functions = take("aliases")?;
        let aliases = take("set")?;
        let set = take("end")?;
        if !rest.is_empty() {
            return None;
        }
        let options = |text: &'a [u8], prefixes: &[&str]| -> Option<Vec<&'a [u8]>> {
            let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
            let plain = |line: &&[u8]| {
                prefixes.iter().any(|p| line.starts_with(p.as_bytes()))
                    && line.iter().all(|b| b.is_ascii_alphanumeric() || b" -+_\n".contains(b))
            };
            lines.iter().all(plain).then_some(lines)
        };
        Some(Parts {
            shopt: options(shopt, &["shopt -s ", "shopt -u "])?.concat(),
            variables: variables(vars, &self.marker("v"), &self.tag)?,
            functions,
            aliases,
            set: options(set, &["set -o ", "set +o "])?,
        })
    }
}

struct Parts<'a> {
    shopt: Vec<u8>,
    variables: Vec<Variable<'a>>,
    functions: &'a [u8],
    aliases: &'a [u8],
    set: Vec<&'a [u8]>,
}

/// One variable as `declare -p` printed it.
struct Variable<'a> {
    name: &'a str,
    declaration: &'a [u8],
    exported: bool,
}

/// The variables section: one `declare -p` after each marker line. Each must start as bash prints
/// one (`declare -<flags> <name>`); bash's own and the runner's are left out.
fn variables<'a>(section: &'a [u8], marker: &str, tag: &str) -> Option<Vec<Variable<'a>>> {
    let marker = format!("{marker}\n");
    let mut found = Vec::new();
    let mut rest = section.strip_prefix(marker.as_bytes()).or((section.is_empty()).then_some(section))?;
    while !rest.is_empty() {
        let end = find(rest, marker.as_bytes()).unwrap_or(rest.len());
        let declaration = &rest[..end];
        rest = rest.get(end + marker.len()..).unwrap_or(&[]);
        // `declare -<flags> <name>` up to the value (`=`) or the end of the line: ASCII only.
        let head_end = declaration.iter().position(|b| *b == b'=' || *b == b'\n').unwrap_or(declaration.len());
        let head = std::str::from_utf8(&declaration[..head_end]).ok()?;
        let (flags, name) = head.strip_prefix("declare -")?.split_once(' ')?;
        let valid_name = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid_name || !flags.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') {
            return None;
        }
        let runner = name.len() == tag.len() + 2 && name.starts_with('_') && name[1..].starts_with(tag);
        if NOT_CARRIED.contains(&name) || runner {
            continue;
        }
        found.push(Variable { name, declaration, exported: flags.contains('x') });
    }
    Some(found)
}

/// Removes, in the fresh shell, the variables the captured shell did not have (a call unset them):
/// every variable but bash's own and the captured ones.
fn unset_missing(variables: &[Variable<'_>]) -> Vec<u8> {
    let keep: Vec<&str> = NOT_CARRIED.iter().copied().chain(variables.iter().map(|v| v.name)).collect();
    let mut prefixes = String::new();
    for c in ('A'..='Z').chain('a'..='z') {
        prefixes.push_str(&format!(" \"${{!{c}@}}\""));
    }
    // Names starting with `_` are left alone: the runner's, and ones no environment sets.
    format!(
        "for _bashrt_v in{prefixes}; do case $_bashrt_v in {}) ;; *) \\builtin unset -v \"$_bashrt_v\" 2>/dev/null;; \
         esac; done; \\builtin unset -v _bashrt_v\n",
        keep.join("|")
    )
    .into_bytes()
}

/// Appends `\builtin eval $'<text>' 2>/dev/null`: the text run as bash would read it, its bytes
/// never part of the script's own syntax, its errors (a part that does not parse) silenced.
fn eval_into(out: &mut Vec<u8>, text: &[u8]) {
    if text.is_empty() {
        return;
    }
    out.extend_from_slice(b"\\builtin eval $'");
    for &b in text {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
        }
    }
    out.extend_from_slice(b"' 2>/dev/null\n");
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
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

    /// Runs the capture in a bash that ran `setup` (with the environment `env`), then `check` in a
    /// fresh bash of the same environment that read the state: its stdout and stderr.
    fn carry(setup: &str, check: &str, env: &[(&str, &str)]) -> (String, String) {
        let capture = Capture::new("zz");
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &format!("{setup}\n{}", capture.script())])
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let state = capture.restore_script(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &*state).unwrap();
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", check])
            .envs(env.iter().copied())
            .env("BASH_ENV", file.path())
            .output()
            .unwrap();
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    }

    #[test]
    fn variables_functions_aliases_and_options_carry() {
        // The long-lived shells expand aliases (the snapshot turns it on).
        let setup = "shopt -s expand_aliases; export VIRTUAL_ENV=/v PATH=/v/bin:$PATH; plain='a b\nc'; \
                     declare -A map=([k]=v); declare -i n=4; f() { echo \"f:$1\"; }; alias ll='echo listed'; \
                     shopt -s globstar; set -o pipefail; _zzs=runner";
        let check =
            "echo \"$VIRTUAL_ENV ${PATH%%:*} $plain ${map[k]} $((n+1))\"; f x; ll; shopt -q globstar && echo gs; \
                     [[ -o pipefail ]] && echo pf; echo \"[${_zzs-}] [${_zzv-}]\"";
        assert_eq!(
            carry(setup, check, &[]),
            ("/v /v/bin a b\nc v 5\nf:x\nlisted\ngs\npf\n[] []\n".into(), String::new())
        );
    }

    #[test]
    fn what_a_call_removed_or_stopped_exporting_is_gone_in_the_fresh_shell_too() {
        let env = [("FROM_ENV", "1"), ("ALSO_ENV", "2")];
        let setup = "shopt -s expand_aliases; unset FROM_ENV; export -n ALSO_ENV";
        let check = "echo \"[${FROM_ENV-unset}] [$ALSO_ENV]\"; env | grep -c '^ALSO_ENV=' || true";
        assert_eq!(carry(setup, check, &env).0, "[unset] [2]\n0\n");
    }

    #[test]
    fn tracing_is_restored_after_the_rest() {
        // Only the command is traced, as in the shell it came from; restoring the rest is not.
        assert_eq!(carry("set -x", "echo hi", &[]), ("hi\n".into(), "+ echo hi\n".into()));
    }

    #[test]
    fn the_state_is_data_never_the_restore_scripts_own_text() {
        // A here-document line that looks like an option, a quote, a marker of another capture.
        let setup = "shopt -s expand_aliases\ngen() { cat <<'EOF'\nset -o verbose; echo INJECTED\n'\n#bashrt-state-0-end\nEOF\n}\n\
                     alias al=$'echo one\\nset -o xtrace'";
        let (out, err) = carry(setup, "gen; echo after", &[]);
        assert_eq!(out, "set -o verbose; echo INJECTED\n'\n#bashrt-state-0-end\nafter\n");
        assert_eq!(err, "");
    }

    #[test]
    fn an_extglob_function_parses_and_one_part_that_does_not_loses_only_itself() {
        // The function needs extglob to parse: options come before the functions.
        let setup = "shopt -s expand_aliases extglob\nkeep=1; alias al='echo aliased'\n\
                     f() { case $1 in @(a|b)) echo ab;; esac; }";
        assert_eq!(carry(setup, "f a; echo $keep; al", &[]), ("ab\n1\naliased\n".into(), String::new()));
        // A function bash prints in a form it cannot read back loses the functions, not the rest,
        // and says nothing in the command's output.
        let setup = "shopt -s expand_aliases\nkeep=1; alias al='echo aliased'; function a=b { :; }";
        assert_eq!(carry(setup, "echo $keep; al", &[]), ("1\naliased\n".into(), String::new()));
    }

    #[test]
    fn an_alias_of_a_reserved_word_does_not_change_the_capture() {
        let setup = "shopt -s expand_aliases; alias for='echo INJECTED; for'; alias do='do echo X;'; v=1";
        let (out, _) = carry(setup, "echo \"v=$v\"; shopt -q expand_aliases && echo on", &[]);
        assert_eq!(out, "v=1\non\n");
    }

    #[test]
    fn a_capture_with_a_builtin_disabled_is_refused_not_taken_for_an_empty_state() {
        let capture = Capture::new("zz");
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &format!("X=1; enable -n declare\n{}", capture.script())])
            .output()
            .unwrap();
        assert!(capture.restore_script(&out.stdout).is_err(), "{}", String::from_utf8_lossy(&out.stdout));
    }

    #[test]
    fn a_capture_that_did_not_finish_or_printed_more_is_refused() {
        let capture = Capture::new("zz");
        assert!(capture.restore_script(b"declare -- a=\"1\"\n").is_err());
        assert!(capture.restore_script(&vec![b'x'; MAX_STATE_BYTES + 1]).is_err());
        // A DEBUG trap that prints.
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &format!("trap 'echo noise' DEBUG\n{}", capture.script())])
            .output()
            .unwrap();
        assert!(capture.restore_script(&out.stdout).is_err());
    }
}
