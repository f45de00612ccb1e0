//! Spawning and sweeping exclude each other. A runtime finds what it started by a marker in the
//! environment, but between `fork` and `exec` a child's environment is still its parent's, without the
//! marker, and a spawn that begins after a sweep's last look at `/proc` is never looked at: either way a
//! process would outlive the shutdown meant to end it. (Seen: a server ended within milliseconds of its
//! start while its warm-up was spawning the interactive shell of the snapshot, which then read the
//! user's rc to its end with nothing watching it.) So the spawn of a marked process holds a shared
//! permit until `spawn` returns, when the child has called `exec`; a sweep holds the exclusive side;
//! and a key (a runtime's marker token) closed for good, because its runtime is ending, gets no permit
//! again.
//!
//! One gate for the whole process: a sweep delays the spawns of the process's other runtimes by its
//! own length, which is rare (a shutdown) and short.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

static GATE: RwLock<()> = RwLock::new(());
/// Keys closed for good: a few dozen bytes per runtime that ended.
static CLOSED: Mutex<Vec<OsString>> = Mutex::new(Vec::new());

/// Held by a spawn until the child has called `exec`.
pub(crate) struct Permit {
    _shared: RwLockReadGuard<'static, ()>,
}

/// Held by a sweep: no marked process is being spawned meanwhile.
pub(crate) struct Exclusive {
    _guard: RwLockWriteGuard<'static, ()>,
}

/// The key was closed for good: its runtime is ending.
#[derive(Debug, thiserror::Error)]
#[error("the runtime is shutting down")]
pub(crate) struct Closed;

/// A permit to spawn a process marked with `key` (`<key>` or `<key>.<n>`); `None` for an unmarked one.
pub(crate) fn permit(key: Option<&OsStr>) -> Result<Permit, Closed> {
    let shared = GATE.read().unwrap_or_else(PoisonError::into_inner);
    if key.is_some_and(is_closed) {
        return Err(Closed);
    }
    Ok(Permit { _shared: shared })
}

/// Whether `key` (`<key>` or `<key>.<n>`) was closed for good: its runtime is ending.
pub(crate) fn is_closed(key: &OsStr) -> bool {
    let closed = CLOSED.lock().unwrap_or_else(PoisonError::into_inner);
    closed.iter().any(|k| super::marker::marked_by(key.as_bytes(), k.as_bytes()))
}

/// Waits for the spawns under way to finish and keeps new ones waiting while the result lives; with
/// `close`, that key never gets a permit again.
pub(crate) fn exclusive(close: Option<&str>) -> Exclusive {
    let guard = GATE.write().unwrap_or_else(PoisonError::into_inner);
    if let Some(key) = close {
        let mut closed = CLOSED.lock().unwrap_or_else(PoisonError::into_inner);
        if !closed.iter().any(|k| k.as_bytes() == key.as_bytes()) {
            closed.push(OsString::from(key));
        }
    }
    Exclusive { _guard: guard }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_key_gets_no_permit_and_others_still_do() {
        assert!(permit(Some(OsStr::new("gate-test-a"))).is_ok());
        drop(exclusive(Some("gate-test-a")));
        assert!(permit(Some(OsStr::new("gate-test-a"))).is_err());
        assert!(permit(Some(OsStr::new("gate-test-a.7"))).is_err());
        assert!(permit(Some(OsStr::new("gate-test-ab"))).is_ok());
        assert!(permit(None).is_ok());
    }

    #[test]
    fn a_sweep_waits_for_a_spawn_under_way() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let spawned = Arc::new(AtomicBool::new(false));
        let (holding, held) = std::sync::mpsc::channel();
        let (finish, finished) = std::sync::mpsc::channel::<()>();
        let spawner = {
            let spawned = spawned.clone();
            std::thread::spawn(move || {
                let permit = permit(Some(OsStr::new("gate-test-b"))).unwrap();
                holding.send(()).unwrap();
                // The sweep is asked for while the spawn is under way.
                finished.recv().unwrap();
                spawned.store(true, Ordering::SeqCst);
                drop(permit);
            })
        };
        held.recv().unwrap();
        let sweeper = {
            let spawned = spawned.clone();
            std::thread::spawn(move || {
                let gate = exclusive(None);
                let saw = spawned.load(Ordering::SeqCst);
                drop(gate);
                saw
            })
        };
        finish.send(()).unwrap();
        spawner.join().unwrap();
        assert!(sweeper.join().unwrap(), "the sweep began before the spawn under way had ended");
    }
}
