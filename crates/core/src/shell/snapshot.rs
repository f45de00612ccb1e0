//! Shell snapshot: the user's aliases and functions as an INTERACTIVE bash sees them after reading
//! `~/.bashrc`, written to a file the driven shells source, so `ll` and the user's own functions work in
//! agent commands.
//!
//! Promises: capture runs with a deadline and never blocks a call for longer; one broken item never loses
//! the rest (items are checked all together, and each on its own when that fails); helpers starting
//! with `_` are kept; aliases and functions that shadow common tools are skipped (a model expects `ls`,
//! `grep` to be the real ones); everything skipped is reported; any failure means "no snapshot", never
//! a failed call.
//!
//! What a snapshot never carries: the environment (`PATH` above all: the caller's environment and
//! `bash.env` always win), and shell options beyond [`CARRIED_OPTIONS`] — a script a model writes must
//! see bash's defaults (`histexpand` off, no `nullglob`), as under `bash -c`.
//!
//! Files live in a directory only the user can enter (created 0700 and checked before use); a snapshot is reused by
//! later processes while it is recent and newer than the rc files, and its name is a hash of everything
//! that changes what a capture would see (shell, home, the runtime's environment).

mod cache;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cancel::CancelToken;
use crate::exec::{ExecRequest, Executor, Flow, OneShotExecutor, OutputConsumer};
use crate::outcome::Outcome;
use crate::process::spawn_gate;

pub(crate) use cache::SnapshotCache;

/// How long capturing may take before we give up and run without a snapshot.
pub const CAPTURE_TIMEOUT: Duration = Duration::from_secs(5);

/// Names a snapshot never redefines: a model relies on these being the real tools.
pub const COMMON_TOOLS: &[&str] = &[
    "ls", "dir", "vdir", "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "find", "fd", "locate",
    "sed", "awk", "perl", "cp", "mv", "rm", "mkdir", "rmdir", "touch", "chmod", "chown", "ln", "pwd", "readlink",
    "stat", "cut", "sort", "uniq", "xargs", "tee", "tr", "basename", "dirname", "cd", "echo", "printf", "test",
];

/// Builtins the long-lived shell's loop calls by name (it reaches every other step through these,
/// `builtin eval`, `command exec`): a function of the user's with one of these names would run in
/// their place, between the runtime and every command.
pub const RUNNER_BUILTINS: &[&str] = &["builtin", "command"];

/// The only `shopt` options a snapshot sets, when the user's interactive shell has them on: the user's
/// functions may need them to parse (`extglob`), and a command written for plain bash means the same
/// with them (`globstar` only adds `**` matching subdirectories, which a user who turned it on
/// expects in their commands). `expand_aliases` is always set last (aliases are the point).
///
/// Deliberately not carried, because they change what a command written for plain bash means:
/// `nullglob` and `failglob` (an unmatched glob stays a word under bash's defaults), `dotglob` and
/// `nocaseglob` (which files a glob names), `nocasematch`, `lastpipe` and `inherit_errexit` (how a
/// script's tests, pipelines and `set -e` behave), and history expansion (`!` in a quoted string).
pub const CARRIED_OPTIONS: &[&str] = &["extglob", "globstar"];

/// Why no snapshot could be made. The call then runs without one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The user's rc files did not finish within the deadline (a prompt, a network call, a lock).
    #[error("the interactive shell did not finish reading its rc files within {0:?}")]
    TimedOut(Duration),
    /// The capture ran but gave nothing usable; the text says why.
    #[error("{0}")]
    Failed(String),
    /// The snapshot file or its directory could not be written or trusted.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// An earlier process failed to capture with the same inputs less than ten minutes ago.
    #[error("{0} (an earlier capture; tried again when an rc file changes or after 10 minutes)")]
    FailedBefore(String),
    /// The capture was cut short from outside: its shell was killed by a signal (the runtime ending
    /// while it ran, say) or the runtime was shutting down. Not a verdict on the rc files, so no
    /// later process takes it for one.
    #[error("the capture was interrupted ({0})")]
    Interrupted(String),
}

impl SnapshotError {
    /// Whether the error says something about the user's rc files, which later processes with the
    /// same inputs would meet too (so it is remembered on disk for [`REUSE_FOR`]).
    fn is_verdict(&self) -> bool {
        !matches!(self, SnapshotError::Interrupted(_) | SnapshotError::FailedBefore(_))
    }
}

/// A snapshot file younger than this, and newer than the user's rc files, is reused by later processes
/// (`bashrt run` is one process per call; capturing costs an interactive bash start and a validation).
pub const REUSE_FOR: Duration = Duration::from_secs(600);

/// The files whose change makes a cached snapshot stale.
const RC_FILES: &[&str] = &[".bashrc", ".bash_profile", ".bash_login", ".profile", ".bash_aliases"];

/// Variables that differ between calls without changing what an rc file does; left out of the key
/// (and so are bashrt's own `BASHRT_*`, which only say where bashrt keeps things).
const VOLATILE_VARS: &[&str] = &["PWD", "OLDPWD", "SHLVL", "_", "BASHRT_RUNTIME"];

/// A captured snapshot on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The file the shells source.
    pub path: PathBuf,
    /// Taken from an earlier process's capture: the counts and the skipped list are then unknown (zero).
    pub reused: bool,
    /// Functions kept.
    pub functions: usize,
    /// Aliases kept.
    pub aliases: usize,
    /// `name: reason` for every item left out.
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Function,
    Alias,
    Shopt,
    /// The last record: proof that the capture ran to its end.
    End,
}

#[derive(Debug, Clone)]
struct Item {
    kind: Kind,
    name: String,
    text: String,
}

/// Runs inside `bash -i` after the rc files: prints NUL-terminated records `kind \x1f name \x1f text`.
/// Every word is `\`-escaped so the user's aliases can't replace our builtins. Each definition is
/// printed where it stands, not through a command substitution: that is a fork per item, and rc
/// frameworks define thousands (600 took 0.44 s that way and 0.02 s printed directly; 14,000 ran
/// out the 5 s deadline). The lists of names go through a private file ([`NAMES_VAR`] names it) and
/// `mapfile`, not a command substitution either: bash 5.2 forks for every `$(…)`, and a fork costs
/// more the more the rc defined (with 600 definitions the capture took 33.1 ms with the two forks
/// and 26.9 ms without; with Debian's `.bashrc`, 6.8 and 7.2 ms). Each list ends with a `.` line,
/// written after the names: only a shell that wrote and read both lists to that line prints the last
/// record, so a list that could not be written (a full disk, the variable unset by the rc) fails the
/// capture instead of losing definitions. `compgen` fails when there is nothing to list:
/// `|| :` keeps an rc's `set -e` from ending the shell there. The first NUL ends whatever the rc
/// files printed on stdout (a greeting), so that it is a record of its own, dropped, and not the
/// start of the first definition's.
const CAPTURE_SCRIPT: &str = r#"\builtin printf '\0'; \builtin set +o history 2>/dev/null; \builtin unset HISTFILE
IFS=$' \t\n'; __bashrt_ok=1
{ \builtin compgen -A function || \builtin :; \builtin printf '.\n'; } >| "$__bashrt_names" || __bashrt_ok=
\builtin mapfile -t __bashrt_f < "$__bashrt_names" || __bashrt_ok=
{ \builtin compgen -a || \builtin :; \builtin printf '.\n'; } >| "$__bashrt_names" || __bashrt_ok=
\builtin mapfile -t __bashrt_a < "$__bashrt_names" || __bashrt_ok=
case ${__bashrt_f[@]: -1}${__bashrt_a[@]: -1} in ..) ;; *) __bashrt_ok=;; esac
\builtin unset '__bashrt_f[-1]' '__bashrt_a[-1]' 2>/dev/null || \builtin :
for __bashrt_n in "${__bashrt_f[@]}"; do
  \builtin printf 'f\037%s\037' "$__bashrt_n"; \builtin declare -f -- "$__bashrt_n"; \builtin printf '\0'
done
for __bashrt_n in "${__bashrt_a[@]}"; do
  \builtin printf 'a\037%s\037' "$__bashrt_n"; \builtin alias -- "$__bashrt_n"; \builtin printf '\0'
done
\builtin printf 's\037shopt\037'; \builtin shopt -p; \builtin printf '\0'
case $__bashrt_ok in 1) \builtin printf 'e\037end\037\0';; esac
"#;

/// The variable, in the capture's environment, that names the file it writes the lists of names to:
/// a new file in the snapshot's private directory, removed when the capture is over.
const NAMES_VAR: &str = "__bashrt_names";

/// Captures a snapshot of `shell` for the user whose home is `home` and writes it to `out` (whose
/// directory must exist and be private). `marker` goes into the capture's environment, so that the
/// runtime's reaper knows the interactive shell and what its rc files start.
pub fn capture(
    shell: &Path,
    home: &Path,
    out: &Path,
    timeout: Duration,
    marker: Option<(OsString, OsString)>,
) -> Result<Snapshot, SnapshotError> {
    let cancel = CancelToken::new().map_err(|e| SnapshotError::Failed(e.to_string()))?;
    // The script runs as `<shell> -i -c`, in a session of its own: with no controlling terminal, the
    // interactive shell can neither be stopped by one (SIGTTIN/SIGTTOU when `bashrt` runs in a
    // terminal's background, or before the terminal gave it the foreground) nor read or change it.
    // Started so directly, not through a `bash -c` that runs `setsid`: two programs and a fork
    // fewer, about 5 ms of a first command's wait.
    let mut request = ExecRequest {
        interactive: true,
        // What the rc files print on stderr stays out of the records.
        split_stdout: true,
        ..ExecRequest::new(shell, CAPTURE_SCRIPT, home, timeout)
    };
    let work = out.parent().unwrap_or(Path::new("."));
    // Created here (`O_EXCL`, mode 0600) so that the shell's `>|` writes into a file of ours in a
    // directory only the user can enter; removed when dropped, whatever the capture's end.
    let names = tempfile::Builder::new()
        .prefix(".names-")
        .tempfile_in(work)
        .map_err(|source| SnapshotError::Write { path: work.to_path_buf(), source })?;
    let mut env = vec![
        (OsString::from("HOME"), home.as_os_str().to_owned()),
        (OsString::from("HISTFILE"), OsString::from("/dev/null")),
        (OsString::from(NAMES_VAR), names.path().as_os_str().to_owned()),
    ];
    env.extend(marker.clone());
    request.env = env.into();
    let mut collect = StdoutOnly::default();
    let closing = || marker.as_ref().is_some_and(|(_, token)| spawn_gate::is_closed(token));
    let execution = OneShotExecutor.execute(&request, &mut collect, &cancel).map_err(|e| {
        if closing() {
            SnapshotError::Interrupted(e.to_string())
        } else {
            SnapshotError::Failed(e.to_string())
        }
    })?;
    match execution.outcome {
        Outcome::Exited { .. } => {}
        Outcome::TimedOut => return Err(SnapshotError::TimedOut(timeout)),
        // Killed from outside (the runtime ending, a user's kill): not a verdict on the rc files.
        // A crash (SIGSEGV, SIGABRT, …) is one: the next process would crash the same way.
        Outcome::Signalled { signal }
            if [libc::SIGKILL, libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT].contains(&signal) =>
        {
            return Err(SnapshotError::Interrupted(format!("killed by {}", crate::outcome::signal_name(signal))))
        }
        Outcome::Signalled { signal } => {
            return Err(SnapshotError::Failed(format!(
                "the interactive shell died of {}",
                crate::outcome::signal_name(signal)
            )))
        }
        Outcome::Cancelled => return Err(SnapshotError::Interrupted("cancelled".into())),
        Outcome::Error => return Err(SnapshotError::Failed("the capture ended without an exit status".into())),
    }
    drop(names);
    let items = parse_records(&collect.raw);
    if !items.iter().any(|i| i.kind == Kind::End) {
        return Err(SnapshotError::Failed("the interactive shell printed no snapshot".into()));
    }
    let mut skipped = Vec::new();
    let candidates = select(items, &mut skipped);
    // Options alone need no check (they are `shopt -s` of names this bash printed): a clean bash is
    // started only to try definitions.
    let valid = if candidates.iter().any(|i| matches!(i.kind, Kind::Function | Kind::Alias)) {
        validate(shell, work, candidates, &mut skipped, timeout)?
    } else {
        candidates
    };
    write_snapshot(out, &valid)?;
    Ok(Snapshot {
        path: out.to_path_buf(),
        reused: false,
        functions: valid.iter().filter(|i| i.kind == Kind::Function).count(),
        aliases: valid.iter().filter(|i| i.kind == Kind::Alias).count(),
        skipped,
    })
}

/// The capture's stdout, up to 64 MiB; its stderr (what the rc files print) is dropped.
#[derive(Default)]
struct StdoutOnly {
    raw: Vec<u8>,
}

impl OutputConsumer for StdoutOnly {
    fn consume(&mut self, _stderr: &[u8]) -> Flow {
        Flow::Continue
    }

    fn consume_stdout(&mut self, chunk: &[u8]) -> Flow {
        if self.raw.len() < 64 * 1024 * 1024 {
            self.raw.extend_from_slice(chunk);
        }
        Flow::Continue
    }
}

fn parse_records(raw: &[u8]) -> Vec<Item> {
    raw.split(|b| *b == 0)
        .filter_map(|record| {
            let record = String::from_utf8_lossy(record);
            let mut parts = record.splitn(3, '\x1f');
            let kind = match parts.next()?.trim_start_matches('\n') {
                "f" => Kind::Function,
                "a" => Kind::Alias,
                "s" => Kind::Shopt,
                "e" => Kind::End,
                _ => return None,
            };
            let name = parts.next()?.to_string();
            // The definition as printed, without the newline that ends it.
            let text = parts.next()?.trim_end_matches('\n').to_string();
            Some(Item { kind, name, text })
        })
        .collect()
}

/// Drops what must not be carried over, and splits option dumps into one item per option.
fn select(items: Vec<Item>, skipped: &mut Vec<String>) -> Vec<Item> {
    let mut out = Vec::new();
    for item in items {
        match item.kind {
            Kind::Function | Kind::Alias => {
                let what = if item.kind == Kind::Function { "function" } else { "alias" };
                if COMMON_TOOLS.contains(&item.name.as_str()) {
                    skipped.push(format!("{what} {}: shadows a common tool", item.name));
                } else if item.kind == Kind::Function && RUNNER_BUILTINS.contains(&item.name.as_str()) {
                    skipped.push(format!("function {}: shadows a builtin the shell's loop uses", item.name));
                } else if item.name.starts_with("__bashrt") {
                    skipped.push(format!("{what} {}: reserved name", item.name));
                } else if item.kind == Kind::Alias {
                    // `alias NAME='...'` → `alias -- NAME='...'`, so a name starting with `-` stays a name.
                    match item.text.strip_prefix("alias ") {
                        Some(rest) => out.push(Item { text: format!("alias -- {rest}"), ..item }),
                        None => skipped.push(format!("alias {}: unexpected definition", item.name)),
                    }
                } else {
                    out.push(item);
                }
            }
            Kind::Shopt => {
                // Only options that are on and carried; `shopt -p` lists every option as `-s` or `-u`.
                for line in item.text.lines() {
                    let Some(name) = line.strip_prefix("shopt -s ") else { continue };
                    if CARRIED_OPTIONS.contains(&name.trim()) {
                        let name = name.trim().to_string();
                        out.push(Item { kind: Kind::Shopt, text: format!("shopt -s {name}"), name });
                    }
                }
            }
            Kind::End => {}
        }
    }
    // Options first (a function body may need `extglob` to parse), then aliases, then functions.
    out.sort_by_key(|i| match i.kind {
        Kind::Shopt | Kind::End => 0,
        Kind::Alias => 1,
        Kind::Function => 2,
    });
    out
}

/// Keeps the items that load without error in a clean shell: all of them when they load together
/// without a word on stderr (one here-document, the common case), or else each tried on its own.
fn validate(
    shell: &Path,
    work: &Path,
    items: Vec<Item>,
    skipped: &mut Vec<String>,
    timeout: Duration,
) -> Result<Vec<Item>, SnapshotError> {
    let started = std::time::Instant::now();
    // The here-documents' delimiter is drawn per capture; an item with a line equal to it (it cannot
    // happen by chance) is left out.
    let delimiter = format!(
        "__BASHRT_ITEM_{:016x}__",
        std::hash::BuildHasher::hash_one(&std::hash::RandomState::new(), items.len())
    );
    let fits = |item: &Item| !item.text.lines().any(|line| line == delimiter);
    // All together first: one `.` of one here-document. Loading a definition prints nothing, so
    // any output at all (a syntax error, an alias name bash refuses, an item that ends inside a
    // quote and takes the rest with it) sends every item to the check of its own below. Trying each
    // item on its own costs a here-document and a `.` per item, about four times as long: 26 against
    // 6.5 ms for 600 definitions.
    if items.iter().all(fits) {
        let mut script = format!("shopt -s expand_aliases\n\\builtin . /dev/stdin 2>&1 <<'{delimiter}'\n");
        for item in &items {
            script.push_str(&item.text);
            script.push('\n');
        }
        script.push_str(&format!("{delimiter}\n\\builtin echo {ALL_LOADED}\n"));
        if run_check(shell, work, script, timeout)? == format!("{ALL_LOADED}\n").as_bytes() {
            return Ok(items);
        }
    }
    // Each item on its own, from a here-document of its own: a syntax error in it fails that `.`
    // only (bash is not in POSIX mode here), and loading a definition or an option has no other
    // effect, so one shell, no subshell per item. Not `eval`: in bash 5.2 a string that ends inside
    // a quote leaves the parser broken for the lines after it. Not a file per item: thousands of
    // them cost seconds to create.
    let mut script = String::from("shopt -s expand_aliases\n");
    for (i, item) in items.iter().enumerate().filter(|(_, item)| fits(item)) {
        script.push_str(&format!(
            "if \\builtin . /dev/stdin >/dev/null 2>&1 <<'{delimiter}'; then \\builtin echo {i}; fi\n{}\n{delimiter}\n",
            item.text
        ));
    }
    let ok = run_check(shell, work, script, timeout.saturating_sub(started.elapsed()))?;
    let passed: std::collections::HashSet<usize> =
        String::from_utf8_lossy(&ok).lines().filter_map(|l| l.trim().parse().ok()).collect();
    let mut valid = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        if passed.contains(&i) {
            valid.push(item);
        } else {
            let what = match item.kind {
                Kind::Function => "function",
                Kind::Alias => "alias",
                Kind::Shopt | Kind::End => "shopt",
            };
            skipped.push(format!("{what} {}: does not load in a clean shell", item.name));
        }
    }
    Ok(valid)
}

/// What the clean shell's check printed when every item loaded together.
const ALL_LOADED: &str = "__BASHRT_ALL_LOADED__";

/// Runs one check script in a clean shell and returns what it printed (stdout and stderr).
fn run_check(shell: &Path, work: &Path, script: String, timeout: Duration) -> Result<Vec<u8>, SnapshotError> {
    let cancel = CancelToken::new().map_err(|e| SnapshotError::Failed(e.to_string()))?;
    let request = ExecRequest::new(shell, script, work, timeout);
    let mut printed = Vec::new();
    let mut collect = |chunk: &[u8]| {
        printed.extend_from_slice(chunk);
        Flow::Continue
    };
    let execution =
        OneShotExecutor.execute(&request, &mut collect, &cancel).map_err(|e| SnapshotError::Failed(e.to_string()))?;
    if execution.outcome == Outcome::TimedOut {
        return Err(SnapshotError::TimedOut(timeout));
    }
    Ok(printed)
}

fn write_snapshot(out: &Path, items: &[Item]) -> Result<(), SnapshotError> {
    let mut text = String::from("# Shell snapshot - generated by bashrt from the user's interactive shell\n");
    for item in items {
        text.push_str(&item.text);
        text.push('\n');
    }
    text.push_str("shopt -s expand_aliases\n");
    write_file(out, text.as_bytes())
}

/// Writes a new file beside `out` (created with `O_EXCL`, mode 0600) and renames it over `out`, so a
/// concurrent reader never sees half a file and no existing path (a planted symlink) is followed.
fn write_file(out: &Path, bytes: &[u8]) -> Result<(), SnapshotError> {
    let error = |source| SnapshotError::Write { path: out.to_path_buf(), source };
    let dir = out.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::Builder::new().prefix(".snapshot-").tempfile_in(dir).map_err(error)?;
    file.write_all(bytes).map_err(error)?;
    file.persist(out).map_err(|e| error(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the items a clean bash keeps, and what was left out.
    fn check(items: Vec<Item>) -> (Vec<String>, Vec<String>) {
        let mut skipped = Vec::new();
        let work = tempfile::tempdir().unwrap();
        let valid =
            validate(Path::new("/bin/bash"), work.path(), items, &mut skipped, Duration::from_secs(10)).unwrap();
        (valid.into_iter().map(|i| i.name).collect(), skipped)
    }

    #[test]
    fn one_broken_item_does_not_lose_the_others() {
        let items = vec![
            Item { kind: Kind::Function, name: "good".into(), text: "good () { echo good; }".into() },
            Item { kind: Kind::Function, name: "bad".into(), text: "bad () { echo \"unterminated; }".into() },
            Item { kind: Kind::Alias, name: "ll".into(), text: "alias -- ll='ls -l'".into() },
        ];
        let (names, skipped) = check(items);
        assert_eq!(names, ["good", "ll"]);
        assert_eq!(skipped, ["function bad: does not load in a clean shell"]);
    }

    #[test]
    fn items_that_load_together_are_all_kept_and_an_alias_shapes_the_functions_after_it() {
        let items = vec![
            Item { kind: Kind::Alias, name: "say".into(), text: "alias -- say='echo said'".into() },
            // Parsed after the alias above is defined, as when the snapshot is sourced.
            Item { kind: Kind::Function, name: "greet".into(), text: "greet () { say hello; }".into() },
            Item { kind: Kind::Function, name: "_helper".into(), text: "_helper () {\n  local x=$1\n}".into() },
        ];
        let (names, skipped) = check(items);
        assert_eq!(names, ["say", "greet", "_helper"]);
        assert!(skipped.is_empty(), "{skipped:?}");
    }

    #[test]
    fn an_alias_bash_refuses_is_left_out_and_the_rest_kept() {
        let items = vec![
            Item { kind: Kind::Alias, name: "ok".into(), text: "alias -- ok='true'".into() },
            Item { kind: Kind::Alias, name: "a/b".into(), text: "alias -- 'a/b'='true'".into() },
            Item { kind: Kind::Function, name: "f".into(), text: "f () { ok; }".into() },
        ];
        let (names, skipped) = check(items);
        assert_eq!(names, ["ok", "f"]);
        assert_eq!(skipped, ["alias a/b: does not load in a clean shell"]);
    }
}
