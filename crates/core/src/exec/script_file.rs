//! Scripts too large for a command line: Linux caps one argv string at 128 KiB (`MAX_ARG_STRLEN`), so
//! beyond [`ARG_LIMIT`] the script goes to a private temporary file that the shell runs instead.
//! Promises: the file is created fresh under a random name (`O_EXCL`, never following or reusing an
//! existing path), mode 0600, and removed when the value is dropped.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Headroom below the kernel's 128 KiB, so the limit is never met by accident.
pub(crate) const ARG_LIMIT: usize = 100 * 1024;

#[derive(Debug)]
pub(crate) struct ScriptFile {
    file: NamedTempFile,
}

impl ScriptFile {
    /// Writes `script` to a new file in the system's temporary directory. The error carries the path
    /// tried (the directory when no file could be created).
    pub(crate) fn create(script: &str) -> Result<Self, (PathBuf, io::Error)> {
        let dir = std::env::temp_dir();
        let mut file =
            tempfile::Builder::new().prefix("bashrt-script-").suffix(".sh").tempfile_in(&dir).map_err(|e| (dir, e))?;
        match file.write_all(script.as_bytes()).and_then(|()| file.flush()) {
            Ok(()) => Ok(Self { file }),
            Err(e) => Err((file.path().to_path_buf(), e)),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }
}
