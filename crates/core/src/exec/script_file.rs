//! Scripts too large for a command line: Linux caps one argv string at 128 KiB (`MAX_ARG_STRLEN`), so
//! beyond [`ARG_LIMIT`] the script goes to a private temporary file that the shell runs instead.
//! Promises: the file lives in a fresh directory of its own (random name, mode 0700, so only the user
//! can even list it) — under the user's runtime directory (`$XDG_RUNTIME_DIR`) when there is one,
//! else under the system's temporary directory — is created there with `O_EXCL` (never following or
//! reusing an existing path), mode 0600, and both are removed when the value is dropped.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::{NamedTempFile, TempDir};

/// Headroom below the kernel's 128 KiB, so the limit is never met by accident.
pub(crate) const ARG_LIMIT: usize = 100 * 1024;

#[derive(Debug)]
pub(crate) struct ScriptFile {
    // Field order: the file is removed before its directory.
    file: NamedTempFile,
    _dir: TempDir,
}

impl ScriptFile {
    /// Writes `script` to a new file in a new private directory. The error carries the path tried
    /// (the parent directory when no directory could be made there).
    pub(crate) fn create(script: &str) -> Result<Self, (PathBuf, io::Error)> {
        let dir = crate::private_dir::temp_dir("bashrt-")?;
        let mut file = tempfile::Builder::new()
            .prefix("script-")
            .suffix(".sh")
            .tempfile_in(dir.path())
            .map_err(|e| (dir.path().to_path_buf(), e))?;
        match file.write_all(script.as_bytes()).and_then(|()| file.flush()) {
            Ok(()) => Ok(Self { file, _dir: dir }),
            Err(e) => Err((file.path().to_path_buf(), e)),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }
}
