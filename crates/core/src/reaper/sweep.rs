//! The orderly sweep: at a clean shutdown, every live process carrying the runtime's marker gets SIGTERM
//! (an interactive shell, which ignores it, SIGHUP), a grace period, then SIGKILL. Each process is
//! pinned ([`Pinned`]: a pidfd, or its start time where the kernel has none) before it is checked and
//! signalled, so a recycled pid is never hit. The stop → SIGTERM → grace → SIGKILL order is the tree
//! kill's too (`process::tree`); both wait for their processes through `pinned::wait_for_exit`. A process
//! that scrubbed its environment (`env -u BASHRT_RUNTIME …`, `env -i`) escapes on purpose — that is the
//! documented way to keep one running.

use nix::sys::signal::Signal;
use nix::unistd::Pid;

use crate::process::pinned::{self, Pinned};
use crate::process::procfs;
use std::time::{Duration, Instant};

/// Scan rounds go on until this many in a row found nothing new (one quiet round could be a process
/// that forked and exited between two reads of `/proc`), at most [`MAX_ROUNDS`].
const QUIET_ROUNDS: usize = 2;
const MAX_ROUNDS: usize = 200;

/// Kills every live process whose environment holds `MARKER=token` (or `MARKER=token.<call>`, a one-shot
/// call's own marker); returns how many were signalled. Each found process is stopped at once, with
/// its process group when that group has no other leader, so that nothing can fork out of reach
/// while the sweep goes on (a process that forks and exits every millisecond included); then
/// SIGTERM, `grace`, and SIGKILL rounds until no marked process is left.
pub(crate) fn terminate_marked(marker: &str, token: &str, grace: Duration) -> usize {
    let needle = format!("{marker}={token}").into_bytes();
    let mut all: Vec<Pinned> = Vec::new();
    let mut groups: Vec<i32> = Vec::new();
    let mut quiet = 0;
    for _ in 0..MAX_ROUNDS {
        let found = members(&needle, &all);
        if found.is_empty() {
            quiet += 1;
            if quiet >= QUIET_ROUNDS {
                break;
            }
            continue;
        }
        quiet = 0;
        for m in &found {
            m.signal(Signal::SIGSTOP);
        }
        for g in leaderless_groups(&found, &needle) {
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
        signal_groups(&groups, Signal::SIGSTOP);
        all.extend(found);
    }
    let signalled = all.len();
    if signalled == 0 {
        return 0;
    }
    if !grace.is_zero() {
        for m in &all {
            m.signal(Signal::SIGTERM);
            // An interactive shell ignores SIGTERM and would run on through the grace (the snapshot's,
            // reading the user's rc files, would start programs that the SIGKILL then catches
            // mid-work); a hangup ends it, and it passes the hangup on to its jobs.
            if procfs::hangs_up_instead_of_terminating(m.pid) {
                m.signal(Signal::SIGHUP);
            }
            m.signal(Signal::SIGCONT);
        }
        signal_groups(&groups, Signal::SIGTERM);
        signal_groups(&groups, Signal::SIGCONT);
        all = pinned::wait_for_exit(all, Instant::now() + grace);
    }
    let mut quiet = 0;
    for _ in 0..MAX_ROUNDS {
        all.retain(|m| !m.has_exited());
        all.extend(members(&needle, &all));
        if all.is_empty() {
            quiet += 1;
            if quiet >= QUIET_ROUNDS {
                break;
            }
            continue;
        }
        quiet = 0;
        for m in &all {
            m.signal(Signal::SIGKILL);
        }
        signal_groups(&groups, Signal::SIGKILL);
        let before = all.len();
        all = pinned::wait_for_exit(all, Instant::now() + Duration::from_secs(1));
        if all.len() == before {
            // Only processes that cannot die yet (uninterruptible sleep) are left.
            break;
        }
    }
    signalled
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

fn signal_groups(groups: &[i32], signal: Signal) {
    for &g in groups {
        let _ = nix::sys::signal::kill(Pid::from_raw(-g), signal);
    }
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
    let own_group = nix::unistd::getpgrp().as_raw();
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
        let Some(member) = Pinned::open(pid) else { return };
        // Pinned now: check again, the pid may have been recycled since the first look.
        if !has_entry(pid, needle) {
            return;
        }
        member.signal(Signal::SIGSTOP);
        if let Some(stat) = procfs::stat(pid) {
            let g = stat.pgid;
            if g > 1 && g != own_group && g != pid && procfs::stat(g).is_none_or(|leader| !leader.alive) {
                let _ = nix::sys::signal::kill(Pid::from_raw(-g), Signal::SIGSTOP);
            }
        }
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
