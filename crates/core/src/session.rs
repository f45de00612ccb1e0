//! Sessions: where a run's artifacts (and, later, its shell state and log) live.
//!
//! Layout: `<state dir>/sessions/<session name>/artifacts/<id>.bash.log`. The state directory is
//! `$BASHRT_STATE_DIR`, else the XDG state directory (`$XDG_STATE_HOME/bashrt`, `~/.local/state/bashrt`).
//! Nothing is created on disk until an artifact is written.

use std::path::{Path, PathBuf};

use crate::artifact::ArtifactDir;

/// Environment variable that overrides the state directory.
pub const STATE_DIR_ENV: &str = "BASHRT_STATE_DIR";

/// Why a session could not be named or found.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionError {
    /// The name is not one safe path component.
    #[error("invalid session name {0:?}: use letters, digits, '.', '_' and '-' (not only dots)")]
    InvalidName(String),
    /// Neither `BASHRT_STATE_DIR`, `XDG_STATE_HOME` nor `HOME` says where state goes.
    #[error("no state directory: set BASHRT_STATE_DIR, XDG_STATE_HOME or HOME")]
    NoStateDir,
}

/// A session name that is safe as a single path component.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionName(String);

impl SessionName {
    /// Letters, digits, `.`, `_` and `-`, at most 200 bytes, not only dots.
    pub fn parse(name: &str) -> Result<Self, SessionError> {
        let valid = !name.is_empty()
            && name.len() <= 200
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
            && !name.bytes().all(|b| b == b'.');
        if valid {
            Ok(Self(name.to_string()))
        } else {
            Err(SessionError::InvalidName(name.to_string()))
        }
    }

    /// The implicit session of a working directory, so calls made in one directory share artifact ids:
    /// `/work/main` becomes `cwd-work-main`. It never starts with `-`, so it can be given back as
    /// `--session cwd-work-main` without being taken for an option.
    pub fn for_cwd(cwd: &Path) -> Self {
        let mut name = String::from("cwd-");
        let text = cwd.to_string_lossy();
        for c in text.trim_start_matches('/').chars() {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                name.push(c);
            } else {
                name.push('-');
            }
        }
        if name.len() > 200 {
            // Keep it one path component; the hash keeps long paths apart.
            let hash = fnv1a(text.as_bytes());
            name.truncate(180);
            name.push_str(&format!("-{hash:016x}"));
        }
        Self(name)
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// The root of all bashrt state on this machine.
#[derive(Debug, Clone)]
pub struct StateDir(PathBuf);

impl StateDir {
    /// State kept under `path`.
    pub fn new(path: PathBuf) -> Self {
        Self(path)
    }

    /// `$BASHRT_STATE_DIR`, else the XDG state directory.
    pub fn from_env() -> Result<Self, SessionError> {
        if let Some(dir) = std::env::var_os(STATE_DIR_ENV).filter(|v| !v.is_empty()) {
            return Ok(Self(PathBuf::from(dir)));
        }
        if let Some(dir) = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
            return Ok(Self(PathBuf::from(dir).join("bashrt")));
        }
        use etcetera::BaseStrategy;
        let strategy = etcetera::choose_base_strategy().map_err(|_| SessionError::NoStateDir)?;
        let state = strategy.state_dir().unwrap_or_else(|| strategy.data_dir());
        Ok(Self(state.join("bashrt")))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The session `name` (nothing is created on disk yet).
    pub fn session(&self, name: &SessionName) -> Session {
        Session { name: name.clone(), dir: self.0.join("sessions").join(name.as_str()) }
    }
}

/// One session: a name and a directory.
#[derive(Debug, Clone)]
pub struct Session {
    name: SessionName,
    dir: PathBuf,
}

impl Session {
    /// Its name.
    pub fn name(&self) -> &SessionName {
        &self.name
    }

    /// Its directory: `<state>/sessions/<name>`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Its artifact directory.
    pub fn artifacts(&self) -> ArtifactDir {
        ArtifactDir::new(self.dir.join("artifacts"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_names_are_one_safe_component() {
        assert_eq!(SessionName::for_cwd(Path::new("/work/main")).as_str(), "cwd-work-main");
        assert_eq!(SessionName::for_cwd(Path::new("/a b/ü")).as_str(), "cwd-a-b--");
        assert_eq!(SessionName::for_cwd(Path::new("/")).as_str(), "cwd-");
        assert_eq!(SessionName::for_cwd(Path::new("/-x")).as_str(), "cwd--x");
        let long = "/x".repeat(300);
        let name = SessionName::for_cwd(Path::new(&long));
        assert!(SessionName::parse(name.as_str()).is_ok());
    }

    #[test]
    fn names_that_could_escape_are_refused() {
        for bad in ["", "..", ".", "a/b", "../x", "a b"] {
            assert!(SessionName::parse(bad).is_err(), "{bad}");
        }
        assert!(SessionName::parse("ci-run_1.2").is_ok());
    }
}
