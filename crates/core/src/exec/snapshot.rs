//! Shell snapshot (SPEC 3.2): the user's aliases, functions and shell options as an INTERACTIVE bash sees
//! them after reading `~/.bashrc`, written to a file the driven shell sources, so `ll` and the user's own
//! functions work in agent commands.
//!
//! Promises: capture runs with a deadline and never blocks a call for longer; one broken item never loses
//! the rest (each item is validated on its own); helpers starting with `_` are kept; aliases and functions
//! that shadow common tools are skipped (a model expects `ls`, `grep` to be the real ones); everything
//! skipped is reported; any failure means "no snapshot", never a failed call. Cached per shell and HOME.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use super::{ExecRequest, Executor, Flow, OneShotExecutor};
use crate::cancel::CancelToken;
use crate::outcome::Outcome;

/// How long capturing may take before we give up and run without a snapshot.
pub const CAPTURE_TIMEOUT: Duration = Duration::from_secs(5);

/// Names a snapshot never redefines: a model relies on these being the real tools.
pub const COMMON_TOOLS: &[&str] = &[
    "ls", "dir", "vdir", "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "find", "fd", "locate",
    "sed", "awk", "perl", "cp", "mv", "rm", "mkdir", "rmdir", "touch", "chmod", "chown", "ln", "pwd", "readlink",
    "stat", "cut", "sort", "uniq", "xargs", "tee", "tr", "basename", "dirname", "cd", "echo", "printf", "test",
];

/// `set -o` options never carried over: interactive-only, or ones that change how every command runs.
const SKIPPED_SET_OPTIONS: &[&str] = &[
    "monitor",
    "history",
    "emacs",
    "vi",
    "onecmd",
    "restricted",
    "errexit",
    "noexec",
    "xtrace",
    "verbose",
    "nounset",
    "notify",
    "ignoreeof",
    "privileged",
    "posix",
];

/// `shopt` options bash refuses to set.
const READ_ONLY_SHOPT: &[&str] = &["login_shell", "restricted_shell"];

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("snapshot capture did not finish within {0:?}")]
    TimedOut(Duration),
    #[error("snapshot capture failed: {0}")]
    Failed(String),
    #[error("cannot write snapshot {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

/// A snapshot file younger than this, and newer than the user's rc files, is reused by later processes
/// (`bashrt run` is one process per call; capturing costs an interactive bash start and a validation).
pub const REUSE_FOR: Duration = Duration::from_secs(600);

/// The files whose change makes a cached snapshot stale.
const RC_FILES: &[&str] = &[".bashrc", ".bash_profile", ".bash_login", ".profile", ".bash_aliases"];

/// A captured snapshot on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub path: PathBuf,
    /// Taken from an earlier process's capture: the counts and the skipped list are then unknown (zero).
    pub reused: bool,
    pub functions: usize,
    pub aliases: usize,
    /// `name: reason` for every item left out.
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Function,
    Alias,
    Shopt,
    SetOption,
    Path,
}

#[derive(Debug, Clone)]
struct Item {
    kind: Kind,
    name: String,
    text: String,
}

/// Runs inside `bash -i` after the rc files: prints NUL-terminated records `kind \x1f name \x1f text`.
/// Every word is `\`-escaped so the user's aliases can't replace our builtins.
const CAPTURE_SCRIPT: &str = r#"\builtin set +o history 2>/dev/null; \builtin unset HISTFILE
IFS=$' \t\n'
for __bashrt_n in $(\builtin compgen -A function); do
  \builtin printf 'f\037%s\037%s\0' "$__bashrt_n" "$(\builtin declare -f -- "$__bashrt_n")"
done
for __bashrt_n in $(\builtin compgen -a); do
  \builtin printf 'a\037%s\037%s\0' "$__bashrt_n" "$(\builtin alias -- "$__bashrt_n")"
done
\builtin printf 's\037shopt\037%s\0' "$(\builtin shopt -p)"
\builtin printf 'o\037set\037%s\0' "$(\builtin set +o)"
\builtin printf 'p\037PATH\037%s\0' "$PATH"
"#;

/// Captures a snapshot of `shell` for the user whose home is `home` and writes it to `out`.
pub fn capture(shell: &Path, home: &Path, out: &Path, timeout: Duration) -> Result<Snapshot, SnapshotError> {
    let cancel = CancelToken::new().map_err(|e| SnapshotError::Failed(e.to_string()))?;
    let mut request =
        ExecRequest::new(shell, "exec \"$BASH\" -i -c \"$BASHRT_SNAPSHOT_SCRIPT\" 2>/dev/null", home, timeout);
    request.env = vec![
        (OsString::from("HOME"), home.as_os_str().to_owned()),
        (OsString::from("BASHRT_SNAPSHOT_SCRIPT"), OsString::from(CAPTURE_SCRIPT)),
        (OsString::from("HISTFILE"), OsString::from("/dev/null")),
        crate::reaper::Reaper::global().marker(),
    ];
    let mut raw = Vec::new();
    let mut collect = |chunk: &[u8]| {
        if raw.len() < 64 * 1024 * 1024 {
            raw.extend_from_slice(chunk);
        }
        Flow::Continue
    };
    let execution =
        OneShotExecutor.execute(&request, &mut collect, &cancel).map_err(|e| SnapshotError::Failed(e.to_string()))?;
    match execution.outcome {
        Outcome::Exited { .. } => {}
        Outcome::TimedOut => return Err(SnapshotError::TimedOut(timeout)),
        other => return Err(SnapshotError::Failed(format!("capture ended with {other:?}"))),
    }
    let items = parse_records(&raw);
    if !items.iter().any(|i| i.kind == Kind::Path) {
        return Err(SnapshotError::Failed("the interactive shell printed no snapshot".into()));
    }
    let mut skipped = Vec::new();
    let candidates = select(items, &mut skipped);
    let valid = validate(shell, &candidates, &mut skipped, timeout)?;
    write_snapshot(out, &valid)?;
    Ok(Snapshot {
        path: out.to_path_buf(),
        reused: false,
        functions: valid.iter().filter(|i| i.kind == Kind::Function).count(),
        aliases: valid.iter().filter(|i| i.kind == Kind::Alias).count(),
        skipped,
    })
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
                "o" => Kind::SetOption,
                "p" => Kind::Path,
                _ => return None,
            };
            Some(Item { kind, name: parts.next()?.to_string(), text: parts.next()?.to_string() })
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
                for line in item.text.lines().filter(|l| l.starts_with("shopt -")) {
                    let name = line.rsplit(' ').next().unwrap_or_default();
                    if !READ_ONLY_SHOPT.contains(&name) {
                        out.push(Item { kind: Kind::Shopt, name: name.to_string(), text: line.to_string() });
                    }
                }
            }
            Kind::SetOption => {
                for line in item.text.lines().filter(|l| l.starts_with("set -o ")) {
                    let name = line.trim_start_matches("set -o ").trim();
                    if !SKIPPED_SET_OPTIONS.contains(&name) {
                        out.push(Item { kind: Kind::SetOption, name: name.to_string(), text: line.to_string() });
                    }
                }
            }
            Kind::Path => {
                let text = format!("export PATH={}", shell_quote(&item.text));
                out.push(Item { text, ..item });
            }
        }
    }
    // Options first (a function body may need `extglob` to parse), then aliases, then functions.
    out.sort_by_key(|i| match i.kind {
        Kind::Shopt | Kind::SetOption => 0,
        Kind::Path => 1,
        Kind::Alias => 2,
        Kind::Function => 3,
    });
    out
}

/// Sources every item on its own in one clean shell; keeps those that load without error.
fn validate(
    shell: &Path,
    items: &[Item],
    skipped: &mut Vec<String>,
    timeout: Duration,
) -> Result<Vec<Item>, SnapshotError> {
    let dir = tempdir()?;
    let mut script = String::from("shopt -s expand_aliases\n");
    for (i, item) in items.iter().enumerate() {
        let file = dir.path.join(format!("{i}.sh"));
        std::fs::write(&file, format!("{}\n", item.text))
            .map_err(|source| SnapshotError::Write { path: file.clone(), source })?;
        // No subshell per item: a syntax error in a sourced file fails that `.` only (bash is not in
        // POSIX mode here), and loading a definition or an option has no other effect.
        script.push_str(&format!(
            "if . {q} >/dev/null 2>&1 </dev/null; then echo {i}; fi\n",
            q = shell_quote(&file.to_string_lossy())
        ));
    }
    let cancel = CancelToken::new().map_err(|e| SnapshotError::Failed(e.to_string()))?;
    let request = ExecRequest::new(shell, script, &dir.path, timeout);
    let mut ok = Vec::new();
    let mut collect = |chunk: &[u8]| {
        ok.extend_from_slice(chunk);
        Flow::Continue
    };
    let execution =
        OneShotExecutor.execute(&request, &mut collect, &cancel).map_err(|e| SnapshotError::Failed(e.to_string()))?;
    if execution.outcome == Outcome::TimedOut {
        return Err(SnapshotError::TimedOut(timeout));
    }
    let passed: std::collections::HashSet<usize> =
        String::from_utf8_lossy(&ok).lines().filter_map(|l| l.trim().parse().ok()).collect();
    let mut valid = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if passed.contains(&i) {
            valid.push(item.clone());
        } else {
            let what = match item.kind {
                Kind::Function => "function",
                Kind::Alias => "alias",
                Kind::Shopt => "shopt",
                Kind::SetOption => "set -o",
                Kind::Path => "PATH",
            };
            skipped.push(format!("{what} {}: does not load in a clean shell", item.name));
        }
    }
    Ok(valid)
}

fn write_snapshot(out: &Path, items: &[Item]) -> Result<(), SnapshotError> {
    let mut text = String::from("# Shell snapshot - generated by bashrt from the user's interactive shell\n");
    for item in items {
        text.push_str(&item.text);
        text.push('\n');
    }
    text.push_str("shopt -s expand_aliases\n");
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|source| SnapshotError::Write { path: out.to_path_buf(), source })?;
    }
    // Write then rename, so a concurrent reader never sources half a file.
    let tmp = out.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|source| SnapshotError::Write { path: tmp.clone(), source })?;
    std::fs::rename(&tmp, out).map_err(|source| SnapshotError::Write { path: out.to_path_buf(), source })
}

/// Single-quotes for bash.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

struct TempDir {
    path: PathBuf,
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn tempdir() -> Result<TempDir, SnapshotError> {
    let base = std::env::temp_dir();
    for n in 0..100u32 {
        let path = base.join(format!("bashrt-snapshot-{}-{n}", std::process::id()));
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok(TempDir { path }),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(SnapshotError::Write { path, source }),
        }
    }
    Err(SnapshotError::Failed("cannot create a temporary directory".into()))
}

type CacheKey = (PathBuf, PathBuf);
type Cached = Result<Arc<Snapshot>, Arc<SnapshotError>>;

/// Process-wide cache: one capture per (shell, HOME), failures included (so a broken rc costs one
/// timeout per process, not one per call). A caller arriving while a capture runs waits for it.
pub fn get_or_create(shell: &Path, home: &Path, dir: &Path) -> Cached {
    static CACHE: OnceLock<Mutex<HashMap<CacheKey, Arc<OnceLock<Cached>>>>> = OnceLock::new();
    let key = (shell.to_path_buf(), home.to_path_buf());
    let slot = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key)
        .or_default()
        .clone();
    slot.get_or_init(|| {
        let hash = shell
            .to_string_lossy()
            .bytes()
            .chain([0])
            .chain(home.to_string_lossy().bytes())
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        let out = dir.join(format!("snapshot-{hash:016x}.sh"));
        if is_fresh(&out, home) {
            return Ok(Arc::new(Snapshot { path: out, reused: true, functions: 0, aliases: 0, skipped: Vec::new() }));
        }
        // A failure is remembered on disk under the same rule, so an rc that hangs costs one deadline
        // per ten minutes, not one per `bashrt run`.
        let failed = out.with_extension("failed");
        if is_fresh(&failed, home) {
            let reason = std::fs::read_to_string(&failed).unwrap_or_default();
            let error = SnapshotError::Failed(format!("an earlier capture failed: {}", reason.trim()));
            tracing::warn!("running without a shell snapshot: {error}");
            return Err(Arc::new(error));
        }
        let result = capture(shell, home, &out, CAPTURE_TIMEOUT).map(Arc::new).map_err(Arc::new);
        match &result {
            Ok(_) => {
                let _ = std::fs::remove_file(&failed);
            }
            Err(e) => {
                tracing::warn!("running without a shell snapshot: {e}");
                if std::fs::create_dir_all(dir).is_ok() {
                    let _ = std::fs::write(&failed, e.to_string());
                }
            }
        }
        result
    })
    .clone()
}

/// Whether a snapshot file can be reused: recent, and written after every rc file last changed.
fn is_fresh(snapshot: &Path, home: &Path) -> bool {
    let Ok(written) = std::fs::metadata(snapshot).and_then(|m| m.modified()) else { return false };
    let recent = written.elapsed().is_ok_and(|age| age < REUSE_FOR);
    recent
        && RC_FILES.iter().all(|rc| match std::fs::metadata(home.join(rc)).and_then(|m| m.modified()) {
            Ok(changed) => changed < written,
            Err(_) => true,
        })
}

/// The snapshot to source for `shell`, captured on first use: only for bash, only with a HOME, and
/// `None` on any failure (the call then runs without one).
pub fn for_shell(shell: &Path) -> Option<PathBuf> {
    if !shell.file_name().is_some_and(|n| n.to_string_lossy().starts_with("bash")) {
        return None;
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)?;
    // SAFETY: getuid(2) cannot fail.
    let uid = unsafe { libc::getuid() };
    let dir = std::env::temp_dir().join(format!("bashrt-snapshots-{uid}"));
    get_or_create(shell, &home, &dir).ok().map(|s| s.path.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_broken_item_does_not_lose_the_others() {
        let items = vec![
            Item { kind: Kind::Function, name: "good".into(), text: "good () { echo good; }".into() },
            Item { kind: Kind::Function, name: "bad".into(), text: "bad () { echo \"unterminated; }".into() },
            Item { kind: Kind::Alias, name: "ll".into(), text: "alias -- ll='ls -l'".into() },
        ];
        let mut skipped = Vec::new();
        let valid = validate(Path::new("/bin/bash"), &items, &mut skipped, Duration::from_secs(10)).unwrap();
        let names: Vec<_> = valid.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["good", "ll"]);
        assert_eq!(skipped, ["function bad: does not load in a clean shell"]);
    }

    #[test]
    fn a_snapshot_is_reused_only_while_recent_and_newer_than_the_rc_files() {
        let home = tempfile::tempdir().unwrap();
        let snap = home.path().join("snap.sh");
        let set_age = |path: &Path, secs: u64| {
            let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            file.set_modified(std::time::SystemTime::now() - Duration::from_secs(secs)).unwrap();
        };
        assert!(!is_fresh(&snap, home.path()), "missing");
        std::fs::write(&snap, "").unwrap();
        assert!(is_fresh(&snap, home.path()), "new, no rc files");
        std::fs::write(home.path().join(".bashrc"), "").unwrap();
        set_age(&snap, 60);
        assert!(!is_fresh(&snap, home.path()), ".bashrc changed after the snapshot");
        set_age(&home.path().join(".bashrc"), 120);
        assert!(is_fresh(&snap, home.path()));
        set_age(&snap, REUSE_FOR.as_secs() + 1);
        set_age(&home.path().join(".bashrc"), REUSE_FOR.as_secs() + 60);
        assert!(!is_fresh(&snap, home.path()), "too old");
    }

    #[test]
    fn quoting_survives_any_text() {
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
    }
}
