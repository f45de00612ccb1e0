//! The disk budget of the state directory: what is kept, what goes first, and how "in use" is known
//! across processes.
//!
//! Promises:
//! - the budget holds across every process sharing the state directory: spills reserve room in one
//!   ledger (`ledger`), not each in a count of its own;
//! - a session some process is using (it holds the session's lock) is never removed whole;
//! - an artifact still being written (its writer holds a shared lock on it) is never removed, nor
//!   anything written in the last `state.keepRecentSecs` (a result just returned names it, and the
//!   model reads it next);
//! - the least recently used sessions go first (their artifacts and their log), then — only if that is
//!   not enough — the oldest artifacts of the sessions that stay;
//! - a plan can be shown without removing anything (`bashrt gc --dry-run`);
//! - everything outside `sessions/` (snapshots, the id counter, the ledger) counts; of it only
//!   snapshots are removed, by their own pruning.

mod ledger;

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use crate::locked_file;

/// The lock file in a session's directory: processes using the session hold a shared lock on it.
pub(crate) const LOCK_FILE: &str = ".live";

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
    /// Artifacts the plan would have removed but keeps: still being written, or written in the last
    /// `state.keepRecentSecs`.
    pub kept_recent: Vec<String>,
}

impl GcPlan {
    /// Bytes the removals free.
    pub fn freed_bytes(&self) -> u64 {
        self.removals.iter().map(|r| r.bytes).sum()
    }
}

/// What a plan may not remove.
#[derive(Debug, Clone, Copy)]
pub struct Keep {
    /// Anything written more recently than this long ago.
    pub recent: Duration,
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

/// One artifact file.
struct ArtifactUsage {
    path: PathBuf,
    bytes: u64,
    /// Its id, as text.
    id: String,
    modified: SystemTime,
}

/// Plans how to bring `state` under `target_bytes`, keeping what `keep` says. Reads the tree (and
/// tries the lock of each artifact it would remove); removes nothing.
pub fn plan(state: &Path, target_bytes: u64, keep: Keep) -> io::Result<GcPlan> {
    let (mut sessions, other_bytes) = usage(state)?;
    let used_bytes = other_bytes + sessions.iter().map(|s| s.bytes).sum::<u64>();
    let mut plan = GcPlan { used_bytes, target_bytes, ..GcPlan::default() };
    plan.live_sessions = sessions.iter().filter(|s| s.live).map(|s| s.name.clone()).collect();
    let recent_since = SystemTime::now().checked_sub(keep.recent).unwrap_or(SystemTime::UNIX_EPOCH);
    let mut left = used_bytes;
    sessions.sort_by_key(|s| s.last_used);
    let mut kept_whole = vec![true; sessions.len()];
    for (session, kept) in sessions.iter().zip(kept_whole.iter_mut()) {
        if left <= target_bytes {
            return Ok(plan);
        }
        if session.live || session.last_used > recent_since {
            continue;
        }
        let what = format!("session {} ({} artifacts, log)", session.name, session.artifacts.len());
        plan.removals.push(Removal { path: session.dir.clone(), bytes: session.bytes, what });
        left = left.saturating_sub(session.bytes);
        *kept = false;
    }
    let mut artifacts: Vec<(&SessionUsage, &ArtifactUsage)> = sessions
        .iter()
        .zip(&kept_whole)
        .filter(|(_, kept)| **kept)
        .flat_map(|(s, _)| s.artifacts.iter().map(move |a| (s, a)))
        .collect();
    artifacts.sort_by_key(|(_, a)| a.modified);
    for (session, artifact) in artifacts {
        if left <= target_bytes {
            break;
        }
        let what = format!("artifact://{} of session {}", artifact.id, session.name);
        if artifact.modified > recent_since || being_written(&artifact.path) {
            plan.kept_recent.push(what);
            continue;
        }
        plan.removals.push(Removal { path: artifact.path.clone(), bytes: artifact.bytes, what });
        left = left.saturating_sub(artifact.bytes);
    }
    Ok(plan)
}

/// Whether a writer holds the artifact at `path` (its shared lock). One that cannot be opened as a
/// regular file is not an artifact being written.
fn being_written(path: &Path) -> bool {
    match crate::private_dir::open_regular(path) {
        Ok(file) => !locked_file::try_flock(&file, libc::LOCK_EX),
        Err(_) => false,
    }
}

/// Carries out `plan`; returns the bytes freed and what could not be removed. A session is removed
/// only while this process holds its lock exclusively, so one that came into use since the plan
/// stays; an artifact only while no writer holds it.
pub fn apply(plan: &GcPlan) -> (u64, Vec<String>) {
    let mut freed = 0;
    let mut errors = Vec::new();
    for removal in &plan.removals {
        let result = match std::fs::symlink_metadata(&removal.path) {
            Ok(meta) if meta.is_dir() => match exclusive_lock(&removal.path) {
                Some(_lock) => std::fs::remove_dir_all(&removal.path),
                None => continue,
            },
            Ok(_) if being_written(&removal.path) => continue,
            Ok(_) => std::fs::remove_file(&removal.path),
            Err(e) => Err(e),
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
            artifacts.push(ArtifactUsage { path, bytes: meta.len(), id, modified });
        }
    }
    artifacts.sort_by_key(|a| a.modified);
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

/// Whether some process holds the session's lock. A lock file that is not a regular file (a FIFO
/// planted there would block `open`) counts as held: such a session is never removed.
fn is_live(dir: &Path) -> bool {
    match lock_file(dir) {
        Ok(Some(file)) => !locked_file::try_flock(&file, libc::LOCK_EX),
        Ok(None) => false,
        Err(_) => true,
    }
}

/// Holds the session's lock exclusively, or `None` when someone uses it (or its lock file is not one).
fn exclusive_lock(dir: &Path) -> Option<File> {
    match lock_file(dir) {
        Ok(Some(file)) => locked_file::try_flock(&file, libc::LOCK_EX).then_some(file),
        // No lock file: never used by a runtime that locks; nothing to race with.
        Ok(None) => crate::private_dir::open_dir(dir).ok().map(File::from),
        Err(_) => None,
    }
}

/// The session's lock file, opened without following a link or waiting; `Ok(None)` when there is none.
fn lock_file(dir: &Path) -> io::Result<Option<File>> {
    let dir = crate::private_dir::open_dir(dir)?;
    match crate::private_dir::open_regular_in(&dir, LOCK_FILE) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// How long a spill that found no room waits for newer ones to give theirs back.
const GIVE_WAY_WAIT: Duration = Duration::from_secs(5);
/// How often it looks again meanwhile.
const GIVE_WAY_POLL: Duration = Duration::from_millis(20);

/// What a reservation found.
enum Reserved {
    /// Room, after carrying out this plan if one was needed.
    Room(Option<GcPlan>),
    /// No room; `newer`: spills that started after this one hold some.
    Full { newer: bool },
}

/// A runtime's side of the budget: the session locks it holds, and its reservations in the ledger.
pub(crate) struct Retention {
    state: PathBuf,
    budget: u64,
    keep: Keep,
    locks: Mutex<std::collections::HashMap<PathBuf, File>>,
    /// This process, as the ledger names it.
    me: ledger::Holder,
}

impl Retention {
    pub(crate) fn new(state: PathBuf, budget: u64, keep_recent: Duration) -> Self {
        Self {
            state,
            budget,
            keep: Keep { recent: keep_recent },
            locks: Mutex::new(std::collections::HashMap::new()),
            me: ledger::Holder::this_process(),
        }
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
        if locked_file::try_flock(&file, libc::LOCK_SH) {
            locks.insert(session_dir.to_path_buf(), file);
        }
    }

    /// Lets go of a session (it ended).
    pub(crate) fn release(&self, session_dir: &Path) {
        self.locks.lock().unwrap_or_else(PoisonError::into_inner).remove(session_dir);
    }

    /// Reserves room for `bytes` more in `file` (a spill about to grow by at most that much): when the
    /// state directory (as last walked by any process, plus what was reserved and settled since)
    /// would go over budget, walks it and removes what the plan says. `Ok` with the plan carried out,
    /// if one was needed; `Err` when even that leaves no room (what remains is in use or recent).
    /// Pair with [`Retention::settle`].
    ///
    /// Spills that find no room give way newest first: one that started after another still
    /// in progress fails at once (and gives its room back), one that started before waits up to
    /// [`GIVE_WAY_WAIT`] for those to do so. Otherwise four spills at once could each take a quarter
    /// of the budget and all fail, keeping nothing.
    pub(crate) fn reserve(&self, file: &Path, bytes: u64) -> Result<Option<GcPlan>, ()> {
        let until = Instant::now() + GIVE_WAY_WAIT;
        loop {
            match self.try_reserve(file, bytes) {
                Reserved::Room(plan) => return Ok(plan),
                Reserved::Full { newer: true } if Instant::now() < until => std::thread::sleep(GIVE_WAY_POLL),
                Reserved::Full { .. } => return Err(()),
            }
        }
    }

    fn try_reserve(&self, file: &Path, bytes: u64) -> Reserved {
        let mut ledger = match ledger::Ledger::open(&self.state) {
            Ok(ledger) => ledger,
            Err(e) => {
                // A ledger that cannot be used (planted, or held by a command): this spill is
                // measured alone, by a walk of its own.
                tracing::warn!("the budget ledger in {} is unusable ({e}): walking instead", self.state.display());
                return match self.reserve_by_walk(bytes, 0) {
                    Ok((plan, _)) => Reserved::Room(plan),
                    Err(_) => Reserved::Full { newer: false },
                };
            }
        };
        if ledger.fits(bytes, self.budget) {
            ledger.reserve(self.me, file, bytes);
            ledger.save();
            return Reserved::Room(None);
        }
        let (plan, used) = match self.reserve_by_walk(bytes, ledger.headroom()) {
            Ok(done) => done,
            Err(used) => {
                ledger.walked(used);
                let newer = ledger.newer_than(file);
                ledger.save();
                return Reserved::Full { newer };
            }
        };
        ledger.walked(used);
        ledger.reserve(self.me, file, bytes);
        ledger.save();
        Reserved::Room(plan)
    }

    /// Walks the state directory and removes what it must for `bytes` more beside `headroom`, the
    /// room reserved by spills in progress beyond what they wrote. The plan (if it removed anything)
    /// and the bytes used after it, reservations included; `Err` with the bytes used when there is
    /// no room.
    fn reserve_by_walk(&self, bytes: u64, headroom: u64) -> Result<(Option<GcPlan>, u64), u64> {
        let target = self.budget.saturating_sub(bytes.saturating_add(headroom));
        let plan = match plan(&self.state, target, self.keep) {
            Ok(plan) => plan,
            Err(e) => {
                // Unmeasurable (a vanished directory): let the write find out.
                tracing::warn!("cannot measure the state directory {}: {e}", self.state.display());
                return Ok((None, headroom));
            }
        };
        let (freed, errors) = apply(&plan);
        for error in &errors {
            tracing::warn!("cannot remove {error}");
        }
        let used = plan.used_bytes.saturating_sub(freed).saturating_add(headroom);
        if used.saturating_add(bytes) > self.budget {
            return Err(used);
        }
        Ok(((!plan.removals.is_empty()).then_some(plan), used))
    }

    /// The spill into `file`, which reserved `reserved` bytes, ended having written `written`.
    pub(crate) fn settle(&self, file: &Path, reserved: u64, written: u64) {
        match ledger::Ledger::open(&self.state) {
            Ok(mut ledger) => {
                ledger.settle(self.me, file, reserved, written);
                ledger.save();
            }
            Err(e) => tracing::warn!("cannot settle a spill in the budget ledger: {e}"),
        }
    }

    pub(crate) fn budget(&self) -> u64 {
        self.budget
    }

    pub(crate) fn keep(&self) -> Keep {
        self.keep
    }

    pub(crate) fn state(&self) -> &Path {
        &self.state
    }
}
