//! Who reaps this process's children, and where the processes it started are looked for.
//!
//! By default each child is reaped by its owner, by pid ([`wait`]), and what a command orphans goes to
//! init: finding it again takes a look at every process of the machine (`/proc`), by its marker.
//!
//! A program that owns its process (the `bashrt` binary) calls [`adopt_orphans`] first: the process
//! becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`), so whatever a command orphans — a `setsid -f`
//! child, a double-forked daemon, each generation of a process that forks and exits over and over —
//! is re-parented to it rather than to init. Everything the runtime started then stays among its
//! descendants, and [`super::procfs::processes`] walks those instead of the machine: a call costs what
//! it started, not what the machine runs. The orphans must be reaped, and only this process can: a
//! thread (`bashrt-reaper`) reaps every child that exits. The status of a child spawned through
//! [`super::spawn`] is kept for its owner ([`wait`]); the others are the adopted orphans, and their
//! status goes nowhere, as it would under init.
//!
//! The contract that buys: after [`adopt_orphans`], no child of the process may be waited for by pid
//! by anyone else (a `std::process::Child::wait` would find it reaped). The binary spawns every child
//! through this crate; an embedder that spawns its own leaves this off.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use nix::errno::Errno;
use nix::sys::wait::{waitid, waitpid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use crate::outcome::Outcome;

/// Set once the process is a child subreaper with its reaper thread running.
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// The children spawned through this crate, and the status of those the reaper thread reaped and
/// their owner has not collected yet.
static OWNED: Mutex<Owned> = Mutex::new(Owned { statuses: BTreeMap::new(), spawns: 0 });
/// Notified when a status is stored and when a child is spawned.
static CHANGED: Condvar = Condvar::new();

struct Owned {
    /// pid → its status once reaped (`None` until then).
    statuses: BTreeMap<i32, Option<Outcome>>,
    /// Counts spawns, for a reaper thread that found no child to wait for.
    spawns: u64,
}

fn owned() -> MutexGuard<'static, Owned> {
    OWNED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether [`adopt_orphans`] made this process the reaper of everything it starts.
pub(crate) fn adopting() -> bool {
    ADOPTING.load(Ordering::Acquire)
}

/// Why [`adopt_orphans`] did not take effect.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AdoptError {
    /// The kernel refused `PR_SET_CHILD_SUBREAPER` (before Linux 3.4).
    #[error("cannot become a child subreaper: {0}")]
    Subreaper(io::Error),
    /// The kernel does not list a process's children (`/proc/<pid>/task/<tid>/children`, missing
    /// without `CONFIG_PROC_CHILDREN`): the runtime could not find its orphans among its descendants.
    #[error("this kernel does not list a process's children in /proc")]
    NoChildrenList,
    /// The reaper thread could not be started.
    #[error("cannot start the reaper thread: {0}")]
    Thread(io::Error),
}

/// Makes this process the child subreaper of everything it starts, with a thread that reaps its
/// children (see the module's documentation for the contract: no child of the process may be waited
/// for by pid by anyone but this crate). Idempotent. On an error nothing changed: the runtime finds
/// its processes by their marker across the machine, as without it.
pub fn adopt_orphans() -> Result<(), AdoptError> {
    if adopting() {
        return Ok(());
    }
    let own = std::process::id();
    if std::fs::metadata(format!("/proc/{own}/task/{own}/children")).is_err() {
        return Err(AdoptError::NoChildrenList);
    }
    // SAFETY: `prctl(PR_SET_CHILD_SUBREAPER)` takes plain integers and touches no memory.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(AdoptError::Subreaper(io::Error::last_os_error()));
    }
    // Before the thread reaps anything: from now on owners take their statuses from it.
    ADOPTING.store(true, Ordering::Release);
    if let Err(e) = std::thread::Builder::new().name("bashrt-orphans".into()).spawn(reap_forever) {
        // No reaper: orphans must go to init again, and owners wait by pid as before.
        ADOPTING.store(false, Ordering::Release);
        // SAFETY: as above.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) };
        return Err(AdoptError::Thread(e));
    }
    Ok(())
}

/// Held across a spawn, so that the reaper thread, which takes it before reaping, cannot reap the
/// new child before its owner is registered (its status would be taken for an orphan's).
pub(crate) struct SpawnLock {
    guard: MutexGuard<'static, Owned>,
}

/// The lock to hold from just before a child is forked until [`SpawnLock::register`].
pub(crate) fn lock_for_spawn() -> SpawnLock {
    SpawnLock { guard: owned() }
}

impl SpawnLock {
    /// Registers `pid` as a child whose status its owner collects with [`wait`].
    pub(crate) fn register(mut self, pid: Pid) {
        self.guard.statuses.insert(pid.as_raw(), None);
        self.guard.spawns += 1;
        drop(self.guard);
        CHANGED.notify_all();
    }
}

/// Blocks until the child `pid` (spawned through this crate, unreaped) has exited, and returns its
/// status. Stops are not reported.
pub(crate) fn wait(pid: Pid) -> io::Result<Outcome> {
    if adopting() {
        let mut guard = owned();
        loop {
            match guard.statuses.get(&pid.as_raw()) {
                Some(Some(outcome)) => {
                    let outcome = *outcome;
                    guard.statuses.remove(&pid.as_raw());
                    return Ok(outcome);
                }
                Some(None) => guard = CHANGED.wait(guard).unwrap_or_else(PoisonError::into_inner),
                None => return Err(io::Error::other(format!("process {pid} is not a child bashrt spawned"))),
            }
        }
    }
    let result = loop {
        match waitpid(pid, None) {
            Ok(WaitStatus::Exited(_, code)) => break Ok(Outcome::Exited { code }),
            Ok(WaitStatus::Signaled(_, signal, _)) => break Ok(Outcome::Signalled { signal: signal as i32 }),
            Ok(_) | Err(Errno::EINTR) => continue,
            // ECHILD: someone else reaped it (SIGCHLD set to SIG_IGN in this process, or a stray
            // waitpid(-1)); the status is lost.
            Err(e) => break Err(io::Error::from(e)),
        }
    };
    forget(pid);
    result
}

/// The owner of `pid` will not wait for it (it was reaped another way, or the owner is gone).
pub(crate) fn forget(pid: Pid) {
    owned().statuses.remove(&pid.as_raw());
}

/// The reaper thread: waits for any child to exit, without reaping it (`WNOWAIT`), then takes the
/// lock (so that a spawn under way has registered its child) and reaps it by pid.
fn reap_forever() {
    loop {
        // Read before the look: a spawn after it is one the look may have missed.
        let spawns = owned().spawns;
        let exited = match waitid(Id::All, WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Ok(status) => status.pid(),
            Err(Errno::EINTR) => continue,
            Err(_) => {
                // No child at all (ECHILD): wait for the next spawn, which orphans can only come from.
                let mut guard = owned();
                while guard.spawns == spawns {
                    guard = CHANGED.wait(guard).unwrap_or_else(PoisonError::into_inner);
                }
                continue;
            }
        };
        let Some(pid) = exited else { continue };
        let mut guard = owned();
        // `WNOHANG`: a failed spawn's child was reaped by the spawn itself while this thread waited
        // for the lock, and its pid may be no child any more.
        let outcome = match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG) {
            Ok(WaitStatus::Exited(_, code)) => Outcome::Exited { code },
            Ok(WaitStatus::Signaled(_, signal, _)) => Outcome::Signalled { signal: signal as i32 },
            _ => continue,
        };
        if let Some(slot) = guard.statuses.get_mut(&pid.as_raw()) {
            *slot = Some(outcome);
            drop(guard);
            CHANGED.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    const ALONE: &str = "BASHRT_TEST_ADOPTING_ALONE";

    /// Adopting changes the whole process (every child becomes the reaper thread's): the test runs
    /// itself again, alone, in a child process of its own.
    #[test]
    fn an_adopting_process_keeps_its_childrens_statuses_and_reaps_their_orphans() {
        if std::env::var_os(ALONE).is_none() {
            let exe = std::env::current_exe().unwrap();
            let name =
                "process::children::tests::an_adopting_process_keeps_its_childrens_statuses_and_reaps_their_orphans";
            let out = Command::new(exe).args(["--exact", name, "--nocapture"]).env(ALONE, "1").output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && text.contains("1 passed"),
                "{text}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        // No child yet: the reaper thread starts with nothing to wait for, and must still see the
        // children spawned after it.
        adopt_orphans().unwrap();
        assert!(adopting());
        // A shell that leaves an orphan (reading the pipe this test holds: a background job reads
        // /dev/null unless told otherwise; telling its pid on another) and exits with 7.
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let (told, tell) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let mut command = Command::new("bash");
        command.args(["-c", "sh -c 'echo $$; read x' <&0 & exit 7"]).stdin(Stdio::from(read)).stdout(Stdio::from(tell));
        let owner = lock_for_spawn();
        let child = command.spawn().unwrap();
        let pid = Pid::from_raw(child.id() as i32);
        owner.register(pid);
        drop(command);
        drop(child);
        assert_eq!(wait(pid).unwrap(), Outcome::Exited { code: 7 });
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(std::fs::File::from(told)), &mut line).unwrap();
        let orphan: i32 = line.trim().parse().unwrap();
        // The orphan came back to this process.
        let stat = std::fs::read_to_string(format!("/proc/{orphan}/stat")).unwrap();
        let ppid: u32 = stat[stat.rfind(')').unwrap() + 2..].split(' ').nth(1).unwrap().parse().unwrap();
        assert_eq!(ppid, std::process::id(), "the orphan is a child of this process");
        drop(write);
        // It exits on EOF; a zombie keeps its /proc entry until this process reaps it.
        let gone = (0..12_000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(5));
            std::fs::metadata(format!("/proc/{orphan}")).is_err()
        });
        assert!(gone, "the orphan {orphan} was not reaped");
    }
}
