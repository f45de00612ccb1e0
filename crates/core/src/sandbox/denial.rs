//! Finding the sandbox's refusals in what a command printed, and telling them from ordinary
//! permission errors.
//!
//! Landlock answers only `EACCES` and seccomp `EPERM`, the same errors a `chmod 000` file or a
//! root-owned directory gives. So a line that reports one (`Permission denied`, `Operation not
//! permitted`, Python's `PermissionError`, Node's `EACCES`) has its paths read out and each checked
//! twice: against the policy that built the ruleset (outside the writable roots, or inside an
//! unreadable path), and against the user's own rights without the sandbox (`faccessat`). Only a
//! path the policy refuses and the user could use is a sandbox denial, with certainty `checked`; an
//! error on a path the user could not write either is left alone. `sudo` says itself that
//! no-new-privileges stopped it. With the network off, a refused socket shows as a failed connect or
//! name lookup: that is reported as `likely`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::paths::{resolve_against, Policy};
use super::settings::{Mode, Network};

/// What the sandbox refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DenialKind {
    /// A write outside the writable roots.
    Write,
    /// A read of an unreadable path (a credential).
    Read,
    /// A network connection.
    Network,
    /// A gain of privilege (`sudo`, set-user-ID programs).
    Privilege,
}

/// How sure bashrt is that it was the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Certainty {
    /// The program said so (`sudo`'s no-new-privileges message).
    Exact,
    /// The path is refused by the policy and the user's own rights would allow it.
    Checked,
    /// The signs of a refused network connection (a failed name lookup: no UDP in the sandbox).
    Likely,
}

/// One refusal, as reported to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Denial {
    /// What was refused.
    pub kind: DenialKind,
    /// The path, as the user knows it (`~/…`), for writes and reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The address, for a connection or bind the network supervisor refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// How sure bashrt is that the sandbox refused it.
    pub certainty: Certainty,
    /// The output line that showed it.
    pub line: String,
}

/// The error texts of a refused open, create or socket.
const SIGNS: &[&str] =
    &["Permission denied", "Operation not permitted", "EACCES", "EPERM", "PermissionError", "Read-only file system"];

/// The signs of a refused connection or name lookup.
const NETWORK_SIGNS: &[&str] = &[
    "Could not resolve host",
    "Couldn't connect to server",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "getaddrinfo",
    "socket: Operation not permitted",
];

/// A refused `socket()` shows only as `Operation not permitted`: counted as a network sign when a
/// line up to this many before it names a socket (a Python traceback's `socket.py`).
const SOCKET_CONTEXT: usize = 3;

/// At most this many denials per call: the rest are counted, not listed.
pub(super) const MAX_DENIALS: usize = 8;

pub(super) fn find(policy: &Policy, text: &str, cwd: &Path) -> Vec<Denial> {
    let mut out: Vec<Denial> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (at, line) in lines.iter().copied().enumerate() {
        let socket_near = || {
            line.contains("Operation not permitted")
                && lines[at.saturating_sub(SOCKET_CONTEXT)..=at].iter().any(|l| l.contains("socket"))
        };
        if out.len() >= MAX_DENIALS {
            break;
        }
        let short = || line.chars().take(300).collect::<String>();
        if line.contains("\"no new privileges\" flag is set") || line.contains("no new privileges flag") {
            out.push(Denial {
                kind: DenialKind::Privilege,
                path: None,
                address: None,
                certainty: Certainty::Exact,
                line: short(),
            });
            continue;
        }
        if policy.network != Network::On && (NETWORK_SIGNS.iter().any(|s| line.contains(s)) || socket_near()) {
            if !out.iter().any(|d| d.kind == DenialKind::Network) {
                out.push(Denial {
                    kind: DenialKind::Network,
                    path: None,
                    address: None,
                    certainty: Certainty::Likely,
                    line: short(),
                });
            }
            continue;
        }
        if !SIGNS.iter().any(|s| line.contains(s)) {
            continue;
        }
        for candidate in candidates(line) {
            let path = resolve_against(&expand(policy, &candidate), cwd);
            let Some(kind) = refused(policy, &path) else { continue };
            let shown = policy.show(&path);
            if !out.iter().any(|d| d.path.as_deref() == Some(shown.as_str())) {
                out.push(Denial {
                    kind,
                    path: Some(shown),
                    address: None,
                    certainty: Certainty::Checked,
                    line: short(),
                });
            }
            break;
        }
    }
    out
}

/// What the policy refuses at `path` that the user's own rights allow.
fn refused(policy: &Policy, path: &Path) -> Option<DenialKind> {
    if policy.unreadable(path) {
        return user_may(path, libc::R_OK).then_some(DenialKind::Read);
    }
    if policy.mode != Mode::Off && !policy.writable(path) {
        return user_may_write(path).then_some(DenialKind::Write);
    }
    None
}

/// The user could write `path`, or create it in its nearest existing directory.
fn user_may_write(path: &Path) -> bool {
    if std::fs::symlink_metadata(path).is_ok() {
        return user_may(path, libc::W_OK);
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        if std::fs::symlink_metadata(d).is_ok() {
            return user_may(d, libc::W_OK | libc::X_OK);
        }
        dir = d.parent();
    }
    false
}

fn user_may(path: &Path, mode: libc::c_int) -> bool {
    nix::unistd::faccessat(
        nix::fcntl::AT_FDCWD,
        path,
        nix::unistd::AccessFlags::from_bits_truncate(mode),
        nix::fcntl::AtFlags::AT_EACCESS,
    )
    .is_ok()
}

/// The paths a line names: quoted ones (`'…'`, `"…"`, `` `…' ``), then words that look like paths.
fn candidates(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    // `bash: line 1: made: Permission denied`, `cp: x: …`: the field before the error is the path,
    // relative or not.
    let fields: Vec<&str> = line.split(": ").collect();
    if let Some(i) = fields.iter().position(|f| SIGNS.iter().any(|s| f.trim_end().starts_with(s))) {
        if let Some(field) = i.checked_sub(1).and_then(|j| fields.get(j)) {
            let field = field.trim();
            if !field.is_empty() && !field.contains(' ') && field.len() < 4096 {
                out.push(field.to_string());
            }
        }
    }
    for (open, close) in [('\'', '\''), ('"', '"'), ('`', '\''), ('‘', '’'), ('“', '”')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            let inner = &after[..end];
            if !inner.is_empty() && inner.len() < 4096 && !inner.contains("://") && !inner.contains('\n') {
                out.push(inner.to_string());
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    // `touch: cannot touch '/x': …` is quoted; `bash: /x: Permission denied` and
    // `mkdir: /x: …` are not: the colon-separated fields.
    for field in line.split(": ") {
        let field = field.trim();
        if looks_like_path(field) && !field.contains(' ') {
            out.push(field.to_string());
        }
    }
    for word in line.split_whitespace() {
        let word = word.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | ':'));
        if looks_like_path(word) {
            out.push(word.to_string());
        }
    }
    out
}

fn looks_like_path(s: &str) -> bool {
    !s.is_empty()
        && s.len() < 4096
        && (s.starts_with('/') || s.starts_with("~/") || s.starts_with("./") || s.starts_with("../"))
        && !s.contains("://")
}

/// `~/x` as the shell would expand it.
fn expand(policy: &Policy, path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), &policy.home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}
