//! Scripts too large for a command line: Linux caps one argv string at 128 KiB (`MAX_ARG_STRLEN`), so
//! beyond [`ARG_LIMIT`] the script goes to a private temporary file that the shell runs instead.
//! Promises: the file is created fresh (never follows or reuses an existing path), mode 0600, and
//! removed when the value is dropped.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Headroom below the kernel's 128 KiB, so the limit is never met by accident.
pub(crate) const ARG_LIMIT: usize = 100 * 1024;

/// Names already taken by another process are skipped; this many tries means something is wrong.
const NAME_TRIES: u32 = 16;

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

#[derive(Debug)]
pub(crate) struct ScriptFile {
    path: PathBuf,
}

impl ScriptFile {
    /// Writes `script` to a new file in `std::env::temp_dir()`. The error carries the path tried.
    pub(crate) fn create(script: &str) -> Result<Self, (PathBuf, io::Error)> {
        let dir = std::env::temp_dir();
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let mut last = (dir.clone(), io::Error::from(io::ErrorKind::AlreadyExists));
        for _ in 0..NAME_TRIES {
            let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("bashrt-script-{}-{seq}-{nanos:08x}.sh", std::process::id()));
            let opened = OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path);
            match opened {
                Ok(mut file) => {
                    // From here on, dropping `created` removes the file, also on a write error.
                    let created = Self { path };
                    return match file.write_all(script.as_bytes()) {
                        Ok(()) => Ok(created),
                        Err(e) => Err((created.path.clone(), e)),
                    };
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = (path, e),
                Err(e) => return Err((path, e)),
            }
        }
        Err(last)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScriptFile {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_file(&self.path) {
            tracing::warn!(path = %self.path.display(), %error, "could not remove a script file");
        }
    }
}
