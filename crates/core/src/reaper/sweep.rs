//! The orderly sweep: at a clean shutdown (and in the forked watchdog after a SIGKILL of the runtime),
//! every live process carrying the runtime's marker dies the way a call's tree does
//! ([`crate::process::kill`]: stopped where it is found, SIGTERM — SIGHUP to an interactive shell —,
//! the grace, SIGKILL). This module says only which processes: the marked ones, each pinned
//! ([`Pinned`]: a pidfd, or its start time where the kernel has none) before its environment is
//! checked. A process that scrubbed its environment (`env -u BASHRT_RUNTIME …`, `env -i`) escapes on
//! purpose — that is the documented way to keep one running.

use crate::process::kill::{stop_on_sight, Doomed, Finder};
use crate::process::pinned::Pinned;
use crate::process::procfs;
use std::time::Duration;

/// Kills every live process whose environment holds `MARKER=token` (or `MARKER=token.<call>`, a one-shot
/// call's own marker), the way a call's tree dies ([`Doomed::terminate`]): each found process is
/// stopped at once, with its process group when that group has no other leader, so that nothing can
/// fork out of reach while the sweep goes on (a process that forks and exits every millisecond
/// included); then SIGTERM, `grace`, and SIGKILL rounds until no marked process is left. Returns how
/// many were found.
pub(crate) fn terminate_marked(marker: &str, token: &str, grace: Duration) -> usize {
    let needle = format!("{marker}={token}").into_bytes();
    Doomed::new(Marked { needle, groups: Vec::new() }).terminate(grace)
}

/// Which processes the sweep ends: those carrying the marker, and the process groups they have alone.
struct Marked {
    /// `MARKER=token`, as in `/proc/<pid>/environ`.
    needle: Vec<u8>,
    groups: Vec<i32>,
}

impl Finder for Marked {
    fn find(&mut self, known: &[Pinned]) -> Vec<Pinned> {
        let found = members(&self.needle, known);
        for g in leaderless_groups(&found, &self.needle) {
            if !self.groups.contains(&g) {
                self.groups.push(g);
            }
        }
        found
    }

    fn groups(&self) -> Vec<i32> {
        self.groups.clone()
    }
}

/// The process groups of `members` whose leader is gone or is marked too: a group they share with
/// nothing unmarked. Never this process's group, pid 0 or 1.
fn leaderless_groups(members: &[Pinned], needle: &[u8]) -> Vec<i32> {
    let own_group = nix::unistd::getpgrp().as_raw();
    let mut groups = Vec::new();
    for m in members {
        let Some(entry) = procfs::stat(m.pid) else { continue };
        let g = entry.pgid;
        if g <= 1 || g == own_group || groups.contains(&g) {
            continue;
        }
        let leader_alive = procfs::stat(g).is_some_and(|e| e.alive);
        if !leader_alive || has_entry(g, needle) {
            groups.push(g);
        }
    }
    groups
}

/// The live processes whose environment carries the needle (never ourselves), but those in `known`;
/// each is stopped the moment it is found (see [`procfs::visit_pids`]: a process that forks and
/// exits every millisecond is met at its newest), with its group when the group's leader is gone.
///
/// Only processes that started after this one have their environment read: the marker is this
/// process's invention, so an older process cannot carry it (a machine's hundreds of idle processes
/// then cost a `stat` each, not a read of their whole environment).
fn members(needle: &[u8], known: &[Pinned]) -> Vec<Pinned> {
    let own = std::process::id() as i32;
    let since = own_start_time();
    let mut found: Vec<Pinned> = Vec::new();
    procfs::visit_pids(|pid| {
        if pid == own
            || known.iter().chain(found.iter()).any(|m| m.pid == pid && !m.has_exited())
            || procfs::stat(pid).and_then(|e| e.start_time).is_some_and(|t| t < since)
            || !has_entry(pid, needle)
        {
            return;
        }
        // Pinned, then checked again: the pid may have been recycled since the first look.
        let Some((member, _)) = stop_on_sight(pid, |pid| has_entry(pid, needle), |_| true) else { return };
        found.push(member);
    });
    found
}

/// This process's start time (clock ticks after boot, as `/proc/<pid>/stat` gives it); 0 when
/// unknown, which filters nothing.
fn own_start_time() -> u64 {
    static START: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *START.get_or_init(|| procfs::stat(std::process::id() as i32).and_then(|e| e.start_time).unwrap_or(0))
}

use crate::process::marker::has_entry_under as has_entry;
