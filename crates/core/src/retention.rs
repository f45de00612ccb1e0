//! The disk budget of the state directory: what is kept, what goes first, and how "in use" is known
//! across processes.
//!
//! Promises: a session some process is using (it holds the session's lock) is never removed whole; the
//! least recently used sessions go first (their artifacts and their log), then — only if that is not
//! enough — the oldest artifacts of sessions in use; a plan can be shown without removing anything
//! (`bashrt gc --dry-run`). Everything outside `sessions/` (the snapshots) counts but is never removed.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

/// The lock file in a session's directory: processes using the session hold a shared lock on it.
pub(crate) const LOCK_FILE: &str = ".live";

/// How long a walk of the state directory is trusted: other processes write to it too.
const WALK_FRESH: Duration = Duration::from_secs(30);

/// One thing a collection removes (or would remove).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Removal {
    /// The file or directory.
    pub path: PathBuf,
    /// Bytes it frees.
    pub bytes: u64,
    /// What it is, for a person: `session build-7 (3 artifacts, log)` or `artifact://4 of session main`.
    pub what: String,
}

/// What a collection found and what it removes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GcPlan {
    /// Bytes under the state directory before.
    pub used_bytes: u64,
    /// The bytes it aimed to stay under.
    pub target_bytes: u64,
    /// In the order they go.
    pub removals: Vec<Removal>,
    /// Sessions in use that were kept whole.
    pub live_sessions: Vec<String>,
}

impl GcPlan {
    /// Bytes the removals free.
    pub fn freed_bytes(&self) -> u64 {
        self.removals.iter().map(|r| r.bytes).sum()
    }
}

struct SessionUsage {
    name: String,
    dir: PathBuf,
    bytes: u64,
    last_used: SystemTime,
    live: bool,
    /// Artifacts, oldest first.
    artifacts: Vec<ArtifactUsage>,
}

/// One artifact file: where, how big, its id (as text), when last written.
type ArtifactUsage = (PathBuf, u64, String, SystemTime);

/// Plans how to bring `state` under `target_bytes`. Reads the tree; removes nothing.
pub fn plan(state: &Path, target_bytes: u64) -> io::Result<GcPlan> {
    let (mut sessions, other_bytes) = usage(state)?;
    let used_bytes = other_bytes + sessions.iter().map(|s| s.bytes).sum::<u64>();
    let mut plan = GcPlan { used_bytes, target_bytes, ..GcPlan::default() };
    plan.live_sessions = sessions.iter().filter(|s| s.live).map(|s| s.name.clone()).collect();
    let mut left = used_bytes;
    sessions.sort_by_key(|s| s.last_used);
    for session in sessions.iter().filter(|s| !s.live) {
        if left <= target_bytes {
            return Ok(plan);
        }
        let what = format!("session {} ({} artifacts, log)", session.name, session.artifacts.len());
        plan.removals.push(Removal { path: session.dir.clone(), bytes: session.bytes, what });
        left = left.saturating_sub(session.bytes);
    }
    let mut live_artifacts: Vec<(&SessionUsage, &ArtifactUsage)> =
        sessions.iter().filter(|s| s.live).flat_map(|s| s.artifacts.iter().map(move |a| (s, a))).collect();
    live_artifacts.sort_by_key(|(_, a)| a.3);
    for (session, (path, bytes, id, _)) in live_artifacts {
        if left <= target_bytes {
            break;
        }
        let what = format!("artifact://{id} of session {}", session.name);
        plan.removals.push(Removal { path: path.clone(), bytes: *bytes, what });
        left = left.saturating_sub(*bytes);
    }
    Ok(plan)
}

/// Carries out `plan`; returns the bytes freed and what could not be removed. A session is removed
/// only while this process holds its lock exclusively, so one that came into use since the plan
/// stays.
pub fn apply(plan: &GcPlan) -> (u64, Vec<String>) {
    let mut freed = 0;
    let mut errors = Vec::new();
    for removal in &plan.removals {
        let result = if removal.path.is_dir() {
            match exclusive_lock(&removal.path) {
                Some(_lock) => std::fs::remove_dir_all(&removal.path),
                None => continue,
            }
        } else {
            std::fs::remove_file(&removal.path)
        };
        match result {
            Ok(()) => freed += removal.bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => errors.push(format!("{}: {e}", removal.path.display())),
        }
    }
    (freed, errors)
}

/// Sessions under `state/sessions`, with their sizes and liveness, and the bytes of everything else.
fn usage(state: &Path) -> io::Result<(Vec<SessionUsage>, u64)> {
    let mut other = 0;
    let mut sessions = Vec::new();
    let entries = match std::fs::read_dir(state) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((sessions, 0)),
        Err(e) => return Err(e),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name() == "sessions" && entry.file_type().is_ok_and(|t| t.is_dir()) {
            for session in std::fs::read_dir(&path)?.flatten() {
                if session.file_type().is_ok_and(|t| t.is_dir()) {
                    sessions.push(session_usage(session.path()));
                } else {
                    other += session.metadata().map_or(0, |m| m.len());
                }
            }
        } else {
            other += tree_bytes(&path);
        }
    }
    Ok((sessions, other))
}

fn session_usage(dir: PathBuf) -> SessionUsage {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut bytes = 0;
    let mut last_used = SystemTime::UNIX_EPOCH;
    let mut artifacts = Vec::new();
    let mut files = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() && entry.file_name() == "artifacts" {
                for artifact in std::fs::read_dir(entry.path()).into_iter().flatten().flatten() {
                    if let Ok(meta) = artifact.metadata() {
                        files.push((artifact.path(), meta, true));
                    }
                }
            } else if meta.is_dir() {
                bytes += tree_bytes(&entry.path());
            } else {
                files.push((entry.path(), meta, false));
            }
        }
    }
    for (path, meta, artifact) in files {
        let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        last_used = last_used.max(modified);
        bytes += meta.len();
        if artifact {
            let id = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.split('.').next()).unwrap_or("?");
            let id = id.to_string();
            artifacts.push((path, meta.len(), id, modified));
        }
    }
    artifacts.sort_by_key(|a| a.3);
    let live = is_live(&dir);
    SessionUsage { name, dir, bytes, last_used, live, artifacts }
}

fn tree_bytes(path: &Path) -> u64 {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            std::fs::read_dir(path).map(|entries| entries.flatten().map(|e| tree_bytes(&e.path())).sum()).unwrap_or(0)
        }
        Ok(meta) => meta.len(),
        Err(_) => 0,
    }
}

/// Whether some process holds the session's lock.
fn is_live(dir: &Path) -> bool {
    let Ok(file) = File::open(dir.join(LOCK_FILE)) else { return false };
    !try_flock(&file, libc::LOCK_EX)
}

/// Holds the session's lock exclusively, or `None` when someone uses it.
fn exclusive_lock(dir: &Path) -> Option<File> {
    match File::open(dir.join(LOCK_FILE)) {
        Ok(file) => try_flock(&file, libc::LOCK_EX).then_some(file),
        // No lock file: never used by a runtime that locks; nothing to race with.
        Err(_) => File::open(dir).ok(),
    }
}

fn try_flock(file: &File, kind: libc::c_int) -> bool {
    // SAFETY: flock(2) on a descriptor we own; no pointers.
    unsafe { libc::flock(file.as_raw_fd(), kind | libc::LOCK_NB) == 0 }
}

/// A runtime's side of the budget: the session locks it holds, and what it knows of the usage.
pub(crate) struct Retention {
    state: PathBuf,
    budget: u64,
    locks: Mutex<HashMap<PathBuf, File>>,
    estimate: Mutex<Estimate>,
}

/// What this runtime believes the state directory holds.
#[derive(Default)]
struct Estimate {
    /// Bytes at the last walk, plus what this runtime wrote or reserved since; `None` before a walk.
    used: Option<u64>,
    walked_at: Option<Instant>,
    /// Room reserved for spills still being written (re-added after a walk, which cannot see it).
    reserved: u64,
}

impl Retention {
    pub(crate) fn new(state: PathBuf, budget: u64) -> Self {
        Self { state, budget, locks: Mutex::new(HashMap::new()), estimate: Mutex::new(Estimate::default()) }
    }

    /// Marks the session in `dir` as in use by this runtime until it is dropped (best effort: a
    /// session that can't be locked may be collected by another process while idle).
    pub(crate) fn hold(&self, session_dir: &Path) {
        let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
        if locks.contains_key(session_dir) {
            return;
        }
        if crate::private_dir::ensure(session_dir).is_err() {
            return;
        }
        let Ok(dir) = crate::private_dir::open_dir(session_dir) else { return };
        let Ok(file) = crate::private_dir::append_in(&dir, LOCK_FILE) else { return };
        if try_flock(&file, libc::LOCK_SH) {
            locks.insert(session_dir.to_path_buf(), file);
        }
    }

    /// Lets go of a session (it ended).
    pub(crate) fn release(&self, session_dir: &Path) {
        self.locks.lock().unwrap_or_else(PoisonError::into_inner).remove(session_dir);
    }

    /// Reserves room for `bytes` more (a spill about to start, at most that large): when the state
    /// directory (as last walked, plus what was written and reserved since) would go over budget,
    /// walks it and removes what the plan says. `Ok` with the plan carried out, if one was needed;
    /// `Err` when even that leaves no room (what remains is in use). Pair with [`Retention::settle`].
    pub(crate) fn reserve(&self, bytes: u64) -> Result<Option<GcPlan>, ()> {
        let mut estimate = self.estimate.lock().unwrap_or_else(PoisonError::into_inner);
        let fresh = estimate.walked_at.is_some_and(|at| at.elapsed() < WALK_FRESH);
        if let (true, Some(used)) = (fresh, estimate.used) {
            if used.saturating_add(bytes) <= self.budget {
                estimate.used = Some(used + bytes);
                estimate.reserved += bytes;
                return Ok(None);
            }
        }
        let target = self.budget.saturating_sub(bytes.saturating_add(estimate.reserved));
        let plan = match plan(&self.state, target) {
            Ok(plan) => plan,
            Err(e) => {
                // Unmeasurable (a vanished directory): let the write find out.
                tracing::warn!("cannot measure the state directory {}: {e}", self.state.display());
                return Ok(None);
            }
        };
        let (freed, errors) = apply(&plan);
        for error in &errors {
            tracing::warn!("cannot remove {error}");
        }
        let used = plan.used_bytes.saturating_sub(freed) + estimate.reserved;
        estimate.walked_at = Some(Instant::now());
        if used.saturating_add(bytes) > self.budget {
            estimate.used = Some(used);
            return Err(());
        }
        estimate.reserved += bytes;
        estimate.used = Some(used + bytes);
        Ok((!plan.removals.is_empty()).then_some(plan))
    }

    /// A spill that reserved `reserved` bytes ended having written `written`.
    pub(crate) fn settle(&self, reserved: u64, written: u64) {
        let mut estimate = self.estimate.lock().unwrap_or_else(PoisonError::into_inner);
        estimate.reserved = estimate.reserved.saturating_sub(reserved);
        if let Some(used) = estimate.used.as_mut() {
            *used = used.saturating_sub(reserved).saturating_add(written);
        }
    }

    pub(crate) fn budget(&self) -> u64 {
        self.budget
    }

    pub(crate) fn state(&self) -> &Path {
        &self.state
    }
}
