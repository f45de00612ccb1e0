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
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionError {
    /// The name is not one safe path component.
    #[error("invalid session name {0:?}: use letters, digits, '.', '_' and '-' (not only dots)")]
    InvalidName(String),
    /// Neither `BASHRT_STATE_DIR`, `XDG_STATE_HOME` nor `HOME` says where state goes.
    #[error("no state directory: set BASHRT_STATE_DIR, XDG_STATE_HOME or HOME")]
    NoStateDir,
    /// Another user controls the state directory or a directory above it.
    #[error("untrusted state directory: {0}")]
    Untrusted(String),
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

    /// The implicit session of a working directory, so that calls made in one directory share a
    /// session: `/work/main` becomes `cwd-work-main`. Two directories never share one: a path
    /// made of letters, digits, `.`, `_` and `/` alone (and not too long) is written out so, `/`
    /// as `-`; any other (`/x/a-b`, which would read as `/x/a/b`; spaces; non-ASCII; longer than
    /// fits) is written `cwdh-<as far as it fits>-<hash of the whole path>`. It never starts with
    /// `-`, so it can be given back as `--session cwd-work-main` without being taken for an option.
    pub fn for_cwd(cwd: &Path) -> Self {
        // Its components, so that `/x/a/`, `/x//a` and `/x/a` are one directory and one session.
        let parts: Vec<&std::ffi::OsStr> = cwd
            .components()
            .filter(|c| !matches!(c, std::path::Component::RootDir | std::path::Component::Prefix(_)))
            .map(|c| c.as_os_str())
            .collect();
        let joined = parts.join(std::ffi::OsStr::new("/"));
        let text = joined.to_string_lossy();
        let mut plain = String::from("cwd-");
        let mut lossless = joined.to_str().is_some();
        for c in text.chars() {
            match c {
                '/' => plain.push('-'),
                c if c.is_ascii_alphanumeric() || matches!(c, '.' | '_') => plain.push(c),
                _ => {
                    plain.push('-');
                    lossless = false;
                }
            }
        }
        if lossless && plain.len() <= 200 {
            return Self(plain);
        }
        // Keep it one path component, told apart by the hash of the whole path.
        let hash = fnv1a(joined.as_encoded_bytes());
        let mut name = String::from("cwdh-");
        name.push_str(&plain["cwd-".len()..]);
        name.truncate(178);
        name.push_str(&format!("-{hash:016x}"));
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

    /// Checks that no other user controls the directory or any above it (see the README's "Private
    /// files"): the error says which and why. A runtime refuses a state directory that fails it.
    pub fn check(&self) -> Result<(), SessionError> {
        crate::private_dir::check_trusted(&self.0).map_err(|e| SessionError::Untrusted(e.to_string()))
    }

    /// The session `name` (nothing is created on disk yet).
    pub fn session(&self, name: &SessionName) -> Session {
        Session { name: name.clone(), dir: self.0.join("sessions").join(name.as_str()), state: self.0.clone() }
    }
}

/// One session: a name and a directory.
#[derive(Debug, Clone)]
pub struct Session {
    name: SessionName,
    dir: PathBuf,
    /// The state directory it is in (whose counter gives its artifact ids).
    state: PathBuf,
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
        ArtifactDir::in_state(self.dir.join("artifacts"), self.state.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_names_are_one_safe_component() {
        assert_eq!(SessionName::for_cwd(Path::new("/work/main")).as_str(), "cwd-work-main");
        assert_eq!(SessionName::for_cwd(Path::new("/")).as_str(), "cwd-");
        for path in ["/a b/ü", "/-x", &"/x".repeat(300)] {
            let name = SessionName::for_cwd(Path::new(path));
            assert!(name.as_str().starts_with("cwdh-"), "{path}: {name:?}");
            assert!(SessionName::parse(name.as_str()).is_ok(), "{path}: {name:?}");
        }
    }

    #[test]
    fn two_directories_never_share_a_session() {
        let names: Vec<SessionName> = ["/x/a/b", "/x/a-b", "/x/a_b", "/x/a b", "/x/a.b", "/x/a/b/", "/x/ab"]
            .iter()
            .map(|p| SessionName::for_cwd(Path::new(p)))
            .collect();
        // `/x/a/b/` is `/x/a/b` (a path's trailing slash names the same directory).
        assert_eq!(names[0], names[5]);
        let mut distinct: Vec<&str> = names.iter().map(SessionName::as_str).collect();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len() - 1, "{names:?}");
        assert_eq!(names[1].as_str().len(), "cwdh-x-a-b-".len() + 16);
    }

    #[test]
    fn names_that_could_escape_are_refused() {
        for bad in ["", "..", ".", "a/b", "../x", "a b"] {
            assert!(SessionName::parse(bad).is_err(), "{bad}");
        }
        assert!(SessionName::parse("ci-run_1.2").is_ok());
    }
}
