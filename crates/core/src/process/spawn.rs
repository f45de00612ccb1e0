//! Starting a process the runtime owns, written once for the one-shot shell, the PTY session's shell
//! and the long-lived shell: spawned while the spawn gate is held (a shutdown's sweep either sees
//! the child carrying its marker, or the spawn is refused because the runtime is ending), then held
//! as a pid whose exit is watched. Nothing is left behind on the way: a child that cannot be watched
//! is killed with its tree and reaped before the error returns.

use std::ffi::OsStr;
use std::io;
use std::process::{Child, Command};
use std::time::Duration;

use nix::unistd::Pid;

use super::exit_watch::ExitWatch;
use super::{spawn_gate, tree};

/// Why a marked process was not started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpawnError {
    /// The runtime the marker belongs to is ending: it starts nothing more.
    #[error("the runtime is shutting down")]
    Closed,
    /// The kernel refused, or the child could not be watched.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Spawns `command`, whose environment carries `marker` (the runtime's, or a call's), under the spawn
/// gate. The `Command` is dropped before this returns, so that the copies of pipe ends it held are
/// closed (EOF and SIGPIPE need them closed).
pub(crate) fn spawn_marked(mut command: Command, marker: Option<&OsStr>) -> Result<Child, SpawnError> {
    // Held until the child has called `exec`, so that a shutdown's sweep sees it marked.
    let permit = spawn_gate::permit(marker).map_err(|_| SpawnError::Closed)?;
    let spawned = command.spawn();
    drop(permit);
    drop(command);
    Ok(spawned?)
}

/// `child` as a pid with its exit watched (reaping goes through the watch, by pid; the `Child` must
/// hold no pipes). A child that cannot be watched is killed with its process group and reaped.
pub(crate) fn watch(child: Child) -> io::Result<(Pid, ExitWatch)> {
    let pid = Pid::from_raw(i32::try_from(child.id()).map_err(|_| io::Error::other("child pid out of range"))?);
    drop(child);
    match ExitWatch::new(pid) {
        Ok(exit) => Ok((pid, exit)),
        Err(e) => {
            // Without a way to wait, the process cannot be run; do not leave it running.
            tree::terminate(pid, pid, Duration::ZERO);
            let _ = nix::sys::wait::waitpid(pid, None);
            Err(e)
        }
    }
}
