//! Which shell binary runs commands: the `shellPath` setting, else `$SHELL` when it is bash, else bash
//! on `PATH` (or in the usual places). Resolved once per runtime and kept until a call fails to start.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// Why no shell could be found. The texts are part of the interface: a model reads them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShellError {
    /// The configured `shellPath` is missing or not executable.
    #[error("Custom shell path not found: {}", .0.display())]
    CustomNotFound(PathBuf),
    /// No setting, and no bash in `$SHELL`, on `PATH` or in `/bin`, `/usr/bin`, `/usr/local/bin`.
    #[error("No bash found: set shellPath, or install bash on PATH")]
    NoBash,
}

/// Finds the shell: `setting` (the `shellPath` setting), else `$SHELL` if it is bash, else bash on PATH.
pub fn resolve_shell(setting: Option<&Path>) -> Result<PathBuf, ShellError> {
    if let Some(path) = setting {
        return if is_executable(path) {
            Ok(path.to_path_buf())
        } else {
            Err(ShellError::CustomNotFound(path.to_path_buf()))
        };
    }
    if let Some(shell) = std::env::var_os("SHELL").map(PathBuf::from) {
        if shell.file_name().is_some_and(|n| n == "bash") && is_executable(&shell) {
            return Ok(shell);
        }
    }
    let path_dirs = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    path_dirs
        .into_iter()
        .chain(["/bin", "/usr/bin", "/usr/local/bin"].map(PathBuf::from))
        .map(|d| d.join("bash"))
        .find(|p| is_executable(p))
        .ok_or(ShellError::NoBash)
}

/// [`resolve_shell`]'s answer, kept for the next calls.
///
/// Resolving stats a few files per call (`$SHELL`, then `bash` in each `PATH` directory). The answer
/// changes only when the shell is installed or removed, or the runtime changes its own `SHELL`/`PATH`
/// (bashrt does not after start-up), so a found shell is kept, and forgotten when a call fails to run
/// ([`ShellResolver::forget`]; a shell that vanished fails to spawn), so that the next call resolves
/// again. A failure to resolve is not kept: every call retries and reports it.
#[derive(Debug)]
pub(crate) struct ShellResolver {
    setting: Option<PathBuf>,
    resolved: Mutex<Option<PathBuf>>,
}

impl ShellResolver {
    pub(crate) fn new(setting: Option<PathBuf>) -> Self {
        Self { setting, resolved: Mutex::new(None) }
    }

    /// The kept shell, or a fresh [`resolve_shell`].
    pub(crate) fn get(&self) -> Result<PathBuf, ShellError> {
        let mut resolved = self.resolved.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(shell) = &*resolved {
            return Ok(shell.clone());
        }
        let shell = resolve_shell(self.setting.as_deref())?;
        *resolved = Some(shell.clone());
        Ok(shell)
    }

    /// Resolve again on the next call.
    pub(crate) fn forget(&self) {
        *self.resolved.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether `shell` is bash by its name (`bash`, `bash5`, `/usr/local/bin/bash-5.2`): it reads
/// `BASH_ENV` before `-c`, and speaks the long-lived shell's protocol.
pub(crate) fn is_bash(shell: &Path) -> bool {
    shell.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("bash"))
}
