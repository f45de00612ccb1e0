//! Killing and counting a command's whole process tree: the shell, its process group, every process
//! descending from them by parent links (children that called `setsid`/`setpgid` included) and every
//! group such a descendant leads. Promises: never signals this process or its process group (nor
//! pid/group 0 or 1); signals only processes it identified, never a later process reusing a pid.
//!
//! Not reachable: descendants that were orphaned (their parent died) after leaving the command's
//! process group, e.g. double-forked daemons; finding those needs a subreaper or a cgroup.
//!
//! A long-lived shell's tree also holds what earlier calls left running (a server started with `&`).
//! [`terminate_sparing`] kills the tree but those processes and their descendants; because they share
//! the shell's process group, that group is then signalled member by member, never as a whole.

use std::collections::HashSet;
use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::pidfd;
use super::procfs::{self, ProcEntry};

/// Walk-and-stop rounds before signalling: each round catches what forked during the previous one.
const FREEZE_ROUNDS: usize = 4;
/// Walk-and-kill rounds after the grace: a TERM handler may have started new processes.
const KILL_ROUNDS: usize = 4;
/// How long SIGKILLed processes get to finish dying; only a process stuck in uninterruptible sleep
/// (`D`, e.g. on a dead NFS mount) takes longer, and waiting for it forever would hang the call.
const KILL_SETTLE: Duration = Duration::from_secs(2);
/// Bounds of the re-check interval for processes without a pidfd (old kernels only).
const STAT_POLL_MIN: Duration = Duration::from_millis(1);
const STAT_POLL_MAX: Duration = Duration::from_millis(20);

/// Kills the tree of `root` (the shell) and of its process `group`: stops it so it cannot fork out of
/// reach, sends SIGTERM (and SIGCONT), waits up to `grace` for every member to exit, then SIGKILLs
/// whatever is left, including processes started meanwhile. Returns once all members have exited,
/// or after [`KILL_SETTLE`] for processes that cannot die yet. Does not reap `root`.
pub(crate) fn terminate(root: Pid, group: Pid, grace: Duration) {
    terminate_sparing(root, group, grace, &[]);
}

/// [`terminate`], except for the processes of `spare` that are still the same processes (pid and start
/// time) and for everything descending from them.
pub(crate) fn terminate_sparing(root: Pid, group: Pid, grace: Duration, spare: &[ProcEntry]) {
    kill_tree(Tree::new(root, group, spare), grace);
}

/// [`terminate_sparing`], except for `root` itself: what a long-lived shell's command started, killed
/// while the shell lives on (an abort that keeps the shell, like Ctrl-C at a prompt). The shell's
/// group is then signalled member by member, never as a whole.
pub(crate) fn terminate_descendants(root: Pid, group: Pid, grace: Duration, spare: &[ProcEntry]) {
    let mut tree = Tree::new(root, group, spare);
    tree.spare_root = true;
    tree.shared_groups.insert(group.as_raw());
    kill_tree(tree, grace);
}

/// Sends `signal` once to what `root` (a long-lived shell) currently runs besides itself and `spare`:
/// the first step of an interrupt, as a terminal's Ctrl-C sends SIGINT to the foreground job.
pub(crate) fn signal_descendants(root: Pid, group: Pid, spare: &[ProcEntry], signal: Signal) {
    let mut tree = Tree::new(root, group, spare);
    tree.spare_root = true;
    tree.shared_groups.insert(group.as_raw());
    tree.extend();
    tree.signal(signal);
}

fn kill_tree(mut tree: Tree<'_>, grace: Duration) {
    if !grace.is_zero() {
        for _ in 0..FREEZE_ROUNDS {
            let found = tree.extend();
            tree.signal(Signal::SIGSTOP);
            if found == 0 {
                break;
            }
        }
        tree.signal(Signal::SIGTERM);
        tree.signal(Signal::SIGCONT);
        tree.wait_until_dead(Instant::now() + grace);
    }
    for _ in 0..KILL_ROUNDS {
        tree.forget_dead();
        tree.extend();
        if tree.is_empty() {
            break;
        }
        tree.signal(Signal::SIGKILL);
        tree.wait_until_dead(Instant::now() + KILL_SETTLE);
    }
    tracing::debug!(root = tree.root, "process tree terminated");
}

/// Live processes in `group` and their descendants. The common case (the group is empty) costs one
/// `kill(-group, 0)`; only a non-empty group makes it read `/proc`.
pub(crate) fn survivors(group: Pid) -> u32 {
    let own = Own::current();
    if !own.may_signal_group(group.as_raw()) || kill(Pid::from_raw(-group.as_raw()), None) == Err(Errno::ESRCH) {
        return 0;
    }
    let Ok(table) = procfs::processes() else {
        return 0;
    };
    let mut groups = HashSet::from([group.as_raw()]);
    let members = closure(&table, &HashSet::new(), &mut groups, own, &HashSet::new());
    u32::try_from(members.len()).unwrap_or(u32::MAX)
}

/// What a long-lived `shell` (the leader of its own process group) has running besides itself: the
/// live members of its group, every process descending from it, and what those lead or start. Reads
/// `/proc`; works after the shell died too (its group outlives it while it has members).
pub(crate) fn background(shell: Pid) -> Vec<ProcEntry> {
    let own = Own::current();
    let Ok(table) = procfs::processes() else {
        return Vec::new();
    };
    let mut groups = HashSet::new();
    if own.may_signal_group(shell.as_raw()) {
        groups.insert(shell.as_raw());
    }
    closure(&table, &HashSet::from([shell.as_raw()]), &mut groups, own, &HashSet::new())
}

/// Kills what a dead long-lived shell left running (its last [`background`]), each process with its
/// own tree and group. Only processes that are still the ones listed (pid and start time) are
/// touched, and a group only while a listed member is alive in it, so that its id cannot have been
/// reused.
pub(crate) fn terminate_orphans(orphans: &[ProcEntry]) {
    for orphan in orphans {
        let Some(now) = procfs::stat(orphan.pid) else { continue };
        if now.alive && now.start_time == orphan.start_time {
            terminate(Pid::from_raw(now.pid), Pid::from_raw(now.pgid), Duration::ZERO);
        }
    }
}

/// The live processes of `spare` that are still the same processes, and all their descendants.
fn spared(table: &[ProcEntry], spare: &[ProcEntry]) -> HashSet<i32> {
    let mut set: HashSet<i32> = table
        .iter()
        .filter(|e| e.alive && spare.iter().any(|s| s.pid == e.pid && s.start_time == e.start_time))
        .map(|e| e.pid)
        .collect();
    if set.is_empty() {
        return set;
    }
    loop {
        let before = set.len();
        for entry in table {
            if entry.alive && set.contains(&entry.ppid) {
                set.insert(entry.pid);
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// This process, which must never be signalled.
#[derive(Debug, Clone, Copy)]
struct Own {
    pid: i32,
    group: i32,
}

impl Own {
    fn current() -> Self {
        Self { pid: nix::unistd::getpid().as_raw(), group: nix::unistd::getpgrp().as_raw() }
    }

    /// `kill(-g)` with g ≤ 1 means "my group" or "everyone".
    fn may_signal_group(self, group: i32) -> bool {
        group > 1 && group != self.group
    }

    fn may_signal(self, pid: i32) -> bool {
        pid > 1 && pid != self.pid
    }
}

/// New members of the tree, given the pids already `known` (seeds included) and the `groups` that
/// belong to it (extended with every group a new member leads): live processes in one of the groups
/// or whose parent is a member, up to a fixed point, never one of `excluded`.
fn closure(
    table: &[ProcEntry],
    known: &HashSet<i32>,
    groups: &mut HashSet<i32>,
    own: Own,
    excluded: &HashSet<i32>,
) -> Vec<ProcEntry> {
    let mut members: HashSet<i32> = known.clone();
    let mut found = Vec::new();
    loop {
        let before = found.len();
        for entry in table {
            if !entry.alive
                || !own.may_signal(entry.pid)
                || members.contains(&entry.pid)
                || excluded.contains(&entry.pid)
            {
                continue;
            }
            if groups.contains(&entry.pgid) || members.contains(&entry.ppid) {
                members.insert(entry.pid);
                if entry.pgid == entry.pid && own.may_signal_group(entry.pgid) {
                    groups.insert(entry.pgid);
                }
                found.push(*entry);
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

/// A member, held so that it can be signalled and awaited without pid-reuse races.
struct Member {
    pid: i32,
    handle: Handle,
}

enum Handle {
    Pidfd(OwnedFd),
    /// No pidfd available: the start time tells this process from a later one with its pid.
    StartTime(Option<u64>),
}

impl Member {
    fn new(entry: &ProcEntry) -> Self {
        let handle = match pidfd::open(entry.pid) {
            Ok(fd) => Handle::Pidfd(fd),
            Err(_) => Handle::StartTime(entry.start_time),
        };
        Self { pid: entry.pid, handle }
    }

    fn has_exited(&self) -> bool {
        match &self.handle {
            Handle::Pidfd(fd) => pidfd::has_exited(fd.as_fd()),
            Handle::StartTime(start) => match procfs::stat(self.pid) {
                Some(now) => !now.alive || now.start_time != *start,
                None => true,
            },
        }
    }

    fn signal(&self, signal: Signal) {
        // Errors mean the process is already gone.
        match &self.handle {
            Handle::Pidfd(fd) => {
                let _ = pidfd::send_signal(fd.as_fd(), signal);
            }
            Handle::StartTime(_) => {
                if !self.has_exited() {
                    let _ = kill(Pid::from_raw(self.pid), signal);
                }
            }
        }
    }
}

struct Tree<'a> {
    own: Own,
    root: i32,
    /// Groups whose members belong to the tree.
    groups: HashSet<i32>,
    members: Vec<Member>,
    spare: &'a [ProcEntry],
    /// Groups with a spared process in them: signalled member by member only.
    shared_groups: HashSet<i32>,
    /// The root itself is not a member (it is seeded, so that its children are).
    spare_root: bool,
}

impl<'a> Tree<'a> {
    fn new(root: Pid, group: Pid, spare: &'a [ProcEntry]) -> Self {
        let own = Own::current();
        let groups =
            if own.may_signal_group(group.as_raw()) { HashSet::from([group.as_raw()]) } else { HashSet::new() };
        Self {
            own,
            root: root.as_raw(),
            groups,
            members: Vec::new(),
            spare,
            shared_groups: HashSet::new(),
            spare_root: false,
        }
    }

    fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Reads `/proc` and adds the members not known yet; returns how many.
    fn extend(&mut self) -> usize {
        let Ok(table) = procfs::processes() else {
            return 0;
        };
        let mut known: HashSet<i32> = self.members.iter().map(|m| m.pid).collect();
        let root_is_new = !known.contains(&self.root) && !self.spare_root;
        // A seed, so that its children count even if it is a zombie by now.
        known.insert(self.root);
        let excluded = spared(&table, self.spare);
        self.shared_groups.extend(table.iter().filter(|e| excluded.contains(&e.pid)).map(|e| e.pgid));
        let mut found = closure(&table, &known, &mut self.groups, self.own, &excluded);
        if root_is_new {
            if let Some(root) = table.iter().find(|e| e.pid == self.root && e.alive) {
                if self.own.may_signal(root.pid) {
                    found.push(*root);
                }
            }
        }
        self.members.extend(found.iter().map(Member::new));
        found.len()
    }

    /// Groups first: that reaches members forked after the last walk too.
    fn signal(&self, signal: Signal) {
        for &group in self.groups.difference(&self.shared_groups) {
            let _ = kill(Pid::from_raw(-group), signal);
        }
        for member in &self.members {
            member.signal(signal);
        }
    }

    fn forget_dead(&mut self) {
        self.members.retain(|m| !m.has_exited());
    }

    /// Until every member has exited or `deadline`; pidfds let `poll` wake at the exit itself.
    fn wait_until_dead(&mut self, deadline: Instant) {
        let mut stat_interval = STAT_POLL_MIN;
        loop {
            self.forget_dead();
            let now = Instant::now();
            if self.members.is_empty() || now >= deadline {
                return;
            }
            let mut wait = deadline - now;
            let pidfds: Vec<PollFd<'_>> = self
                .members
                .iter()
                .filter_map(|m| match &m.handle {
                    Handle::Pidfd(fd) => Some(PollFd::new(fd.as_fd(), PollFlags::POLLIN)),
                    Handle::StartTime(_) => None,
                })
                .collect();
            if pidfds.len() < self.members.len() {
                wait = wait.min(stat_interval);
                stat_interval = (stat_interval * 2).min(STAT_POLL_MAX);
            }
            let mut pidfds = pidfds;
            let timeout = PollTimeout::try_from(wait.as_millis().max(1)).unwrap_or(PollTimeout::MAX);
            if nix::poll::poll(&mut pidfds, timeout).is_err() {
                // EINTR or out of memory: re-check and poll again, still bounded by the deadline.
                continue;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pid: i32, ppid: i32, pgid: i32) -> ProcEntry {
        ProcEntry { pid, ppid, pgid, start_time: None, alive: true }
    }

    const OWN: Own = Own { pid: 10, group: 10 };

    #[test]
    fn closure_follows_parents_groups_and_groups_led_by_members() {
        let table = [
            entry(10, 1, 10),     // us
            entry(100, 10, 100),  // the shell
            entry(101, 100, 100), // child in the group
            entry(102, 100, 102), // setsid child, leads group 102
            entry(103, 1, 102),   // orphan in group 102
            entry(104, 103, 104), // child of that orphan, in its own group
            entry(200, 1, 200),   // unrelated
            entry(201, 10, 10),   // our other child, in our group
        ];
        let mut groups = HashSet::from([100]);
        let found = closure(&table, &HashSet::from([100]), &mut groups, OWN, &HashSet::new());
        let mut pids: Vec<i32> = found.iter().map(|e| e.pid).collect();
        pids.sort();
        assert_eq!(pids, [101, 102, 103, 104]);
        assert!(groups.contains(&102) && groups.contains(&104));
    }

    #[test]
    fn closure_never_includes_this_process_or_its_group() {
        let table = [entry(10, 100, 10), entry(100, 1, 100), entry(101, 100, 10)];
        let mut groups = HashSet::from([100, 10]);
        let found = closure(&table, &HashSet::from([100]), &mut groups, OWN, &HashSet::new());
        assert!(found.iter().all(|e| e.pid != 10));
        assert!(!Own::current().may_signal_group(nix::unistd::getpgrp().as_raw()));
        assert!(!OWN.may_signal_group(1) && !OWN.may_signal_group(0) && !OWN.may_signal(1));
    }

    #[test]
    fn zombies_are_not_members() {
        let mut zombie = entry(101, 100, 100);
        zombie.alive = false;
        let mut groups = HashSet::from([100]);
        assert!(closure(&[zombie], &HashSet::from([100]), &mut groups, OWN, &HashSet::new()).is_empty());
    }

    #[test]
    fn spared_processes_and_their_descendants_are_not_members() {
        let table = [
            entry(100, 10, 100),  // the shell
            entry(101, 100, 100), // a server an earlier call started
            entry(102, 101, 100), // its worker
            entry(103, 1, 100),   // an orphan of the current command, still in the group
            entry(104, 100, 100), // the current command
        ];
        let spare = [entry(101, 100, 100)];
        let excluded = spared(&table, &spare);
        assert_eq!(excluded, HashSet::from([101, 102]));
        let mut groups = HashSet::from([100]);
        let found = closure(&table, &HashSet::from([100]), &mut groups, OWN, &excluded);
        let mut pids: Vec<i32> = found.iter().map(|e| e.pid).collect();
        pids.sort();
        assert_eq!(pids, [103, 104]);
    }

    #[test]
    fn a_pid_reused_by_another_process_is_not_spared() {
        let mut server = entry(101, 100, 100);
        server.start_time = Some(5);
        let mut now = server;
        now.start_time = Some(6);
        assert!(spared(&[now], &[server]).is_empty());
    }
}
