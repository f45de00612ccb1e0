//! The marker of the processes a runtime starts: `BASHRT_RUNTIME=<token>` in their environment (the
//! runtime's own token), or `<token>.<n>` for the processes of one one-shot call. An environment
//! variable survives `setsid`, new process groups and double forks, so the marker finds a runtime's
//! processes wherever they went; the reaper's sweep, a call's tree kill and the spawn gate all read
//! it through this module, and nothing else spells it.

use std::ffi::{OsStr, OsString};
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that marks processes started by a runtime.
pub const MARKER_VAR: &str = "BASHRT_RUNTIME";

/// Numbers the one-shot calls of this process, for their markers.
static CALLS: AtomicU64 = AtomicU64::new(1);

/// The marker's value in a command's environment (the last one wins, as for `execve`).
pub(crate) fn marker_of(env: &[(OsString, OsString)]) -> Option<&OsStr> {
    env.iter().rev().find(|(k, _)| k == MARKER_VAR).map(|(_, v)| v.as_os_str())
}

/// A new call's own marker under the runtime's `token`: `<token>.<n>`, which still starts with the
/// token the reaper looks for.
pub(crate) fn call_marker(token: &OsStr) -> OsString {
    let mut value = token.to_os_string();
    value.push(format!(".{}", CALLS.fetch_add(1, Ordering::Relaxed)));
    value
}

/// `MARKER_VAR=value`, as an entry of `/proc/<pid>/environ` reads.
pub(crate) fn entry(value: &OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut entry = MARKER_VAR.as_bytes().to_vec();
    entry.push(b'=');
    entry.extend_from_slice(value.as_bytes());
    entry
}

/// Whether `text` is `prefix` followed by nothing or by `.`: a marker's value is the runtime's token,
/// or `<token>.<n>` for a one-shot call, and both belong to the runtime (`prefix` is the token, or the
/// whole `BASHRT_RUNTIME=<token>` entry of an environment).
pub(crate) fn marked_by(text: &[u8], prefix: &[u8]) -> bool {
    text.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.first() == Some(&b'.'))
}

/// Whether the environment of `pid` holds exactly `entry` (`NAME=value`).
pub(crate) fn has_exact_entry(pid: i32, entry: &[u8]) -> bool {
    read_environ(pid).is_some_and(|env| env.split(|b| *b == 0).any(|e| e == entry))
}

/// Whether the environment of `pid` holds `needle` (`NAME=token`) exactly or followed by `.<call>`.
pub(crate) fn has_entry_under(pid: i32, needle: &[u8]) -> bool {
    read_environ(pid).is_some_and(|env| env.split(|b| *b == 0).any(|entry| marked_by(entry, needle)))
}

fn read_environ(pid: i32) -> Option<Vec<u8>> {
    std::fs::read(format!("/proc/{pid}/environ")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_belongs_to_its_token_and_to_the_tokens_one_shot_calls_only() {
        assert!(marked_by(b"42-ab", b"42-ab"));
        assert!(marked_by(b"42-ab.7", b"42-ab"));
        assert!(marked_by(b"BASHRT_RUNTIME=42-ab.7", b"BASHRT_RUNTIME=42-ab"));
        assert!(!marked_by(b"42-abc", b"42-ab"), "another runtime's token");
        assert!(!marked_by(b"42-a", b"42-ab"));
        assert!(!marked_by(b"x42-ab", b"42-ab"));
        let call = call_marker(OsStr::new("42-ab"));
        assert!(marked_by(call.as_encoded_bytes(), b"42-ab"));
        assert_eq!(entry(OsStr::new("42-ab.1")), b"BASHRT_RUNTIME=42-ab.1");
    }
}
