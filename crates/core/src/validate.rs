//! cwd validation and timeout clamp, before anything runs.
//!
//! The error texts are part of the interface; a clamp is never silent: the applied and the requested
//! timeout both travel to the result.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

pub const MIN_TIMEOUT_SECS: f64 = 1.0;
pub const MAX_TIMEOUT_SECS: f64 = 3600.0;

/// Why a call's working directory cannot be used. The path is shown with its control characters
/// escaped (`\u{1b}`): the text reaches terminals (`bashrt run`), which would obey an escape
/// sequence in a directory's name.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum CwdError {
    #[error("Working directory does not exist: {}", shown(.0))]
    Missing(PathBuf),
    #[error("Working directory is not a directory: {}", shown(.0))]
    NotADirectory(PathBuf),
    #[error("Working directory is not accessible: {}: {reason}", shown(.path))]
    Inaccessible { path: PathBuf, reason: String },
}

/// `path` as text, its control characters escaped as Rust writes them (`\n`, `\u{1b}`).
fn shown(path: &Path) -> String {
    path.display()
        .to_string()
        .chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// Why a command cannot be run at all.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommandError {
    /// Nothing but blanks.
    #[error("Command must not be empty")]
    Empty,
    /// bash reads a command as a C string: it would run only the text before the NUL, silently.
    #[error("Not run: the command holds a NUL byte (at byte {0}), which bash cannot run: it would run only the text before it")]
    Nul(usize),
}

/// Checks that `command` (already trimmed) is something bash can run as written.
pub fn check_command(command: &str) -> Result<(), CommandError> {
    if command.is_empty() {
        return Err(CommandError::Empty);
    }
    match command.bytes().position(|b| b == 0) {
        Some(at) => Err(CommandError::Nul(at)),
        None => Ok(()),
    }
}

/// Resolves `requested` against the session cwd and checks it is a directory.
pub fn resolve_cwd(session_cwd: &Path, requested: Option<&str>) -> Result<PathBuf, CwdError> {
    let path = match requested.map(str::trim).filter(|s| !s.is_empty()) {
        None => session_cwd.to_path_buf(),
        Some(r) => {
            let expanded = expand_home(r);
            if expanded.is_absolute() {
                expanded
            } else {
                session_cwd.join(expanded)
            }
        }
    };
    let path = lexically_normal(&path);
    match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => Ok(path),
        Ok(_) => Err(CwdError::NotADirectory(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CwdError::Missing(path)),
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => Err(CwdError::NotADirectory(path)),
        Err(e) => Err(CwdError::Inaccessible { path, reason: e.to_string() }),
    }
}

fn expand_home(p: &str) -> PathBuf {
    if p == "~" || p.starts_with("~/") {
        if let Some(home) = std::env::var_os("HOME") {
            return PathBuf::from(home).join(p.trim_start_matches('~').trim_start_matches('/'));
        }
    }
    PathBuf::from(p)
}

/// Removes `.` and resolves `..` textually, so error messages show the path a person would expect.
fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// The timeout a call asked for and the one it got.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timeout {
    /// Seconds as requested (the default when the call gave none).
    pub requested_secs: f64,
    /// Seconds applied, within [1, 3600].
    pub applied_secs: f64,
    /// The requested value was outside the range, so the applied one differs.
    pub clamped: bool,
    /// The value given, when it was read as milliseconds because it could not be seconds
    /// (`120000`): `requested_secs` is then that value over 1000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub given_ms: Option<f64>,
}

impl Timeout {
    /// `requested` seconds (`default_secs` when none, or NaN) clamped to the allowed range.
    pub fn clamp(requested: Option<f64>, default_secs: f64) -> Self {
        let requested_secs = requested.filter(|v| !v.is_nan()).unwrap_or(default_secs);
        let applied_secs = requested_secs.clamp(MIN_TIMEOUT_SECS, MAX_TIMEOUT_SECS);
        Self { requested_secs, applied_secs, clamped: applied_secs != requested_secs, given_ms: None }
    }

    /// A session command with no deadline: it runs until it ends or is aborted. Kept as a long but
    /// finite value (a day) so that arithmetic on deadlines never overflows.
    pub fn unlimited() -> Self {
        let secs = MAX_TIMEOUT_SECS * 24.0;
        Self { requested_secs: secs, applied_secs: secs, clamped: false, given_ms: None }
    }

    /// The applied timeout, rounded to the millisecond.
    pub fn duration(&self) -> Duration {
        Duration::from_millis((self.applied_secs * 1000.0).round() as u64)
    }

    /// The applied timeout in milliseconds.
    pub fn applied_ms(&self) -> u64 {
        self.duration().as_millis() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_name_cannot_drive_the_terminal_that_shows_the_error() {
        let error = resolve_cwd(Path::new("/"), Some("/nonexistent/\u{1b}]0;title\u{7}x")).unwrap_err();
        assert_eq!(error.to_string(), "Working directory does not exist: /nonexistent/\\u{1b}]0;title\\u{7}x");
    }

    #[test]
    fn cwd_errors_carry_the_absolute_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(
            resolve_cwd(dir.path(), Some("nope")).unwrap_err().to_string(),
            format!("Working directory does not exist: {}", dir.path().join("nope").display())
        );
        assert_eq!(
            resolve_cwd(dir.path(), Some("f")).unwrap_err().to_string(),
            format!("Working directory is not a directory: {}", file.display())
        );
        assert_eq!(resolve_cwd(dir.path(), Some("./")).unwrap(), dir.path());
        assert_eq!(resolve_cwd(dir.path(), None).unwrap(), dir.path());
    }

    #[test]
    fn timeout_is_clamped_visibly() {
        let t = Timeout::clamp(Some(99999.0), 300.0);
        assert_eq!((t.requested_secs, t.applied_secs, t.clamped), (99999.0, 3600.0, true));
        let t = Timeout::clamp(Some(0.0), 300.0);
        assert_eq!((t.applied_secs, t.clamped), (1.0, true));
        let t = Timeout::clamp(None, 300.0);
        assert_eq!((t.applied_ms(), t.clamped), (300_000, false));
    }
}
