//! A runtime's snapshots: one capture per (shell, HOME), reused across processes while fresh, held
//! open for the runtime's life, and failures remembered so that a broken rc costs one deadline.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use super::{capture, write_file, SnapshotError, CAPTURE_TIMEOUT, RC_FILES, REUSE_FOR, VOLATILE_VARS};
use crate::private_dir;

type Cached = Result<Arc<Held>, Arc<SnapshotError>>;

/// A snapshot as the cache hands it out: its file held open for the runtime's life, and sourced by
/// the shells through that descriptor (`/proc/<runtime>/fd/<n>`). What happens to the path later —
/// another process prunes it, a command replaces it with a FIFO that would block the `source` of
/// every new shell — changes nothing for this runtime.
struct Held {
    _file: std::fs::File,
    source: PathBuf,
}

impl Held {
    fn open(path: &Path) -> Result<Self, SnapshotError> {
        let file = private_dir::open_regular(path)
            .map_err(|source| SnapshotError::Write { path: path.to_path_buf(), source })?;
        let source =
            PathBuf::from(format!("/proc/{}/fd/{}", std::process::id(), std::os::fd::AsRawFd::as_raw_fd(&file)));
        Ok(Self { _file: file, source })
    }
}

/// Snapshot files older than this are removed when a capture writes a new one: no process reuses
/// one after [`REUSE_FOR`], and a runtime using one holds it open.
const PRUNE_AFTER: Duration = Duration::from_secs(3600);

/// Removes the snapshot files in `dir` older than [`PRUNE_AFTER`] (a capture's leftovers included), so
/// that environments that come and go (a variable set per job) do not leave one file each forever.
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name.starts_with("snapshot-") || name.starts_with(".snapshot-") || name.starts_with(".names-");
        let old = entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|a| a > PRUNE_AFTER));
        if ours && old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// One capture per (shell, HOME); callers arriving while it runs wait on the slot.
type Slots = HashMap<(PathBuf, PathBuf), Arc<OnceLock<Cached>>>;

/// One runtime's snapshots: one capture per (shell, HOME), failures included (so a broken rc costs one
/// deadline per runtime, and, through a `.failed` file, one per [`REUSE_FOR`] across processes). A
/// caller arriving while a capture runs waits for it.
pub(crate) struct SnapshotCache {
    /// Private; `None` when none could be made (then nothing is captured).
    dir: Option<PathBuf>,
    /// Keeps a temporary directory alive when the runtime has no state directory.
    _temp: Option<tempfile::TempDir>,
    /// Hash of the runtime's environment, minus [`VOLATILE_VARS`]: part of every file name.
    env_hash: u64,
    entries: Mutex<Slots>,
}

impl SnapshotCache {
    /// Snapshots in `dir` (created 0700 and checked: ours, private, not a symlink), or in a new private
    /// temporary directory when `dir` is `None`. A directory that can't be trusted disables snapshots
    /// with a warning; it never fails the runtime.
    pub(crate) fn new(dir: Option<PathBuf>) -> Self {
        let env_hash = environment_hash(std::env::vars_os());
        let (dir, temp) = match dir {
            Some(dir) => match private_dir::ensure(&dir) {
                Ok(()) => (Some(dir), None),
                Err(error) => {
                    tracing::warn!("running without shell snapshots: {error}");
                    (None, None)
                }
            },
            None => match private_dir::temp_dir("bashrt-snapshots-") {
                Ok(temp) => (Some(temp.path().to_path_buf()), Some(temp)),
                Err((parent, error)) => {
                    tracing::warn!(
                        "running without shell snapshots: no private temporary directory in {}: {error}",
                        parent.display()
                    );
                    (None, None)
                }
            },
        };
        Self { dir, _temp: temp, env_hash, entries: Mutex::new(HashMap::new()) }
    }

    /// The snapshot to source for `shell`, captured on first use: only for bash, only with a HOME, and
    /// `None` on any failure (the call then runs without one).
    pub(crate) fn for_shell(&self, shell: &Path, marker: impl FnOnce() -> (OsString, OsString)) -> Option<PathBuf> {
        if !shell.file_name().is_some_and(|n| n.to_string_lossy().starts_with("bash")) {
            return None;
        }
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)?;
        self.get_or_create(shell, &home, marker).ok().map(|held| held.source.clone())
    }

    /// Why `shell` runs without a snapshot, when a capture was tried and failed (nothing while one
    /// runs, or when none was tried).
    pub(crate) fn problem(&self, shell: &Path) -> Option<Arc<SnapshotError>> {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)?;
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = entries.get(&(shell.to_path_buf(), home))?;
        slot.get()?.as_ref().err().cloned()
    }

    fn get_or_create(&self, shell: &Path, home: &Path, marker: impl FnOnce() -> (OsString, OsString)) -> Cached {
        let dir = self.dir.as_ref().ok_or_else(|| Arc::new(SnapshotError::Failed("no private directory".into())))?;
        let slot = self
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry((shell.to_path_buf(), home.to_path_buf()))
            .or_default()
            .clone();
        slot.get_or_init(|| {
            let hash = fnv1a(
                shell.as_os_str().as_bytes().iter().chain(&[0]).chain(home.as_os_str().as_bytes()),
                self.env_hash,
            );
            let out = dir.join(format!("snapshot-{hash:016x}.sh"));
            if is_fresh(&out, home) {
                return Held::open(&out).map(Arc::new).map_err(Arc::new);
            }
            // A failure is remembered on disk under the same rule, so an rc that hangs costs one deadline
            // per ten minutes, not one per `bashrt run`.
            let failed = out.with_extension("failed");
            if is_fresh(&failed, home) {
                let mut reason = String::new();
                if let Ok(file) = private_dir::open_regular(&failed) {
                    let _ = std::io::Read::read_to_string(&mut std::io::Read::take(file, 4096), &mut reason);
                }
                let error = SnapshotError::FailedBefore(reason.trim().to_string());
                tracing::warn!("running without a shell snapshot: {error}");
                return Err(Arc::new(error));
            }
            prune(dir);
            let result = capture(shell, home, &out, CAPTURE_TIMEOUT, Some(marker())).and_then(|_| Held::open(&out));
            match &result {
                Ok(_) => {
                    let _ = std::fs::remove_file(&failed);
                }
                Err(e) => {
                    tracing::warn!("running without a shell snapshot: {e}");
                    if e.is_verdict() {
                        let _ = write_file(&failed, e.to_string().as_bytes());
                    }
                }
            }
            result.map(Arc::new).map_err(Arc::new)
        })
        .clone()
    }
}

/// FNV-1a: stable across processes and builds (the file names must be), unlike `DefaultHasher`.
fn fnv1a<'a>(bytes: impl IntoIterator<Item = &'a u8>, seed: u64) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325 ^ seed, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// The environment a capture would inherit, as a hash: sorted, volatile variables left out.
fn environment_hash(vars: impl Iterator<Item = (OsString, OsString)>) -> u64 {
    let mut vars: Vec<(OsString, OsString)> = vars
        .filter(|(k, _)| !VOLATILE_VARS.iter().any(|v| k.as_bytes() == v.as_bytes()))
        .filter(|(k, _)| !k.as_bytes().starts_with(b"BASHRT_"))
        .collect();
    vars.sort();
    let mut bytes = b"snapshot-v2\0".to_vec();
    for (k, v) in vars {
        bytes.extend_from_slice(k.as_bytes());
        bytes.push(b'=');
        bytes.extend_from_slice(v.as_bytes());
        bytes.push(0);
    }
    fnv1a(&bytes, 0)
}

/// Whether a snapshot file can be reused: a regular file of ours, recent, and written after every rc
/// file last changed.
fn is_fresh(snapshot: &Path, home: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(snapshot) else { return false };
    if !private_dir::is_own_regular_file(&meta) {
        return false;
    }
    let Ok(written) = meta.modified() else { return false };
    let recent = written.elapsed().is_ok_and(|age| age < REUSE_FOR);
    recent
        && RC_FILES.iter().all(|rc| match std::fs::metadata(home.join(rc)).and_then(|m| m.modified()) {
            Ok(changed) => changed < written,
            Err(_) => true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
