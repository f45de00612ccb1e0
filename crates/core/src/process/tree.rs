//! Which processes a command's kill reaches, and counting what it left: the shell, its process group,
//! every process descending from them by parent links (children that called `setsid`/`setpgid`
//! included) and every group such a descendant leads. How they die is [`super::kill`]'s; this module
//! is its [`Finder`] for a tree. Promises: never signals this process or its process group (nor
//! pid/group 0 or 1); signals only processes it identified, never a later process reusing a pid.
//!
//! Orphans (their parent died: `setsid -f`, double-forked daemons) are reached by parent links when
//! the shell is a child subreaper ([`super::subreaper`]) and still alive; a one-shot call's processes
//! also carry a marker in their environment ([`CallMarker`]), which finds them wherever they went.
//! Not reachable: an orphan of a shell that is not a subreaper, with no marker, outside the group.
//!
//! A long-lived shell's tree also holds what earlier calls left running (a server started with `&`).
//! [`terminate_sparing`] kills the tree but those processes and their descendants; because they share
//! the shell's process group, that group is then signalled member by member, never as a whole.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::kill::{stop_on_sight, Doomed, Finder};
use super::marker;
use super::pinned::{self, Pinned};
use super::procfs::{self, ProcEntry};

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
    Doomed::new(Tree::new(root, group, spare)).terminate(grace);
    tracing::debug!(root = root.as_raw(), "process tree terminated");
}

/// [`terminate_sparing`], except for `root` itself: what a long-lived shell's command started, killed
/// while the shell lives on (an abort that keeps the shell, like Ctrl-C at a prompt). The shell's
/// group is then signalled member by member, never as a whole.
pub(crate) fn terminate_descendants(root: Pid, group: Pid, grace: Duration, spare: &[ProcEntry]) {
    let mut tree = Tree::new(root, group, spare);
    tree.spare_root = true;
    tree.shared_groups.insert(group.as_raw());
    Doomed::new(tree).terminate(grace);
}

/// Ctrl-C for what a long-lived shell runs besides itself and `spare`, as a terminal sends SIGINT to
/// the foreground job: each process gets SIGINT once. [`Interrupt::again`] reaches the processes that
/// appeared since: a child the shell forked just after the first round (the shell itself, signalled
/// between two commands, runs its trap only once that child is gone) would otherwise never see it.
pub(crate) struct Interrupt<'a> {
    tree: Doomed<Tree<'a>>,
}

impl<'a> Interrupt<'a> {
    pub(crate) fn start(root: Pid, group: Pid, spare: &'a [ProcEntry]) -> Self {
        let mut tree = Tree::new(root, group, spare);
        tree.spare_root = true;
        tree.freeze = false;
        tree.shared_groups.insert(group.as_raw());
        let mut tree = Doomed::new(tree);
        tree.extend();
        tree.signal(Signal::SIGINT);
        Self { tree }
    }

    /// SIGINT to the processes found since the last round, and to them only: a second SIGINT could
    /// cut short what a program does on the first (a test runner's summary, a traceback).
    pub(crate) fn again(&mut self) {
        let known = self.tree.len();
        self.tree.extend();
        self.tree.signal_members_from(known, Signal::SIGINT);
    }
}

/// [`terminate`] for a one-shot call, whose processes also carry `marker` in their environment:
/// those are killed too wherever they are (a `setsid -f` child orphaned before the kill).
pub(crate) fn terminate_call(root: Pid, group: Pid, grace: Duration, marker: &CallMarker) {
    terminate_sparing_marked(root, group, grace, &[], marker);
}

/// [`terminate_sparing`] for a shell whose processes carry `marker` (a long-lived shell started with
/// its own `BASHRT_RUNTIME=<token>.<n>`): marked processes are killed wherever they are, but the
/// spared ones and their descendants.
pub(crate) fn terminate_sparing_marked(
    root: Pid,
    group: Pid,
    grace: Duration,
    spare: &[ProcEntry],
    marker: &CallMarker,
) {
    let mut tree = Tree::new(root, group, spare);
    tree.marker = Some(marker);
    Doomed::new(tree).terminate(grace);
    tracing::debug!(root = root.as_raw(), "marked processes terminated");
}

/// What marks the processes of one call: an entry of their environment (`BASHRT_RUNTIME=<token>.<n>`,
/// which survives `setsid` and double forks), and the start time of the call's shell: a process that
/// started before cannot be the call's, so only younger ones have their environment read.
#[derive(Debug, Clone)]
pub(crate) struct CallMarker {
    /// `NAME=value`, as in `/proc/<pid>/environ`.
    pub entry: Vec<u8>,
    /// The start time (clock ticks after boot, as in `/proc/<pid>/stat`) of the call's shell.
    pub since: u64,
}

impl CallMarker {
    /// The live processes carrying the marker, besides this one.
    fn members(&self, table: &[ProcEntry], own: Own) -> Vec<ProcEntry> {
        table
            .iter()
            .filter(|e| e.alive && own.may_signal(e.pid) && e.start_time.is_some_and(|t| t >= self.since))
            .filter(|e| marker::has_exact_entry(e.pid, &self.entry))
            .copied()
            .collect()
    }

    /// Reads `/proc` and stops each process carrying the marker the moment it is found, with its
    /// process group when that group's leader is gone: a process that forks and exits every
    /// millisecond lives too briefly to be found by one scan and signalled after it, but not to be
    /// stopped right when its environment is read; once stopped it cannot fork, and the group signal
    /// stops the rest of its chain at once. Returns what it stopped.
    fn freeze_members(&self, own: Own, excluded: &HashSet<i32>) -> Vec<ProcEntry> {
        let mut stopped = Vec::new();
        procfs::visit_pids(|pid| {
            let Some(stat) = procfs::stat(pid) else { return };
            if !stat.alive
                || !own.may_signal(pid)
                || excluded.contains(&pid)
                || stat.start_time.is_none_or(|t| t < self.since)
            {
                return;
            }
            let belongs = |pid| marker::has_exact_entry(pid, &self.entry);
            let Some((_, stat)) = stop_on_sight(pid, belongs, |group| own.may_signal_group(group)) else { return };
            if !stopped.iter().any(|e: &ProcEntry| e.pid == pid) {
                stopped.push(stat);
            }
        });
        stopped
    }
}

/// What a finished one-shot call left running: the live members of its process `group` and their
/// descendants, and every process carrying its `marker` (children that called `setsid` and were
/// orphaned when the shell exited), after giving those that are exiting up to `settle` to finish (a
/// process that just closed the output may not have exited yet).
pub(crate) fn call_survivors(group: Pid, marker: &CallMarker, settle: Duration) -> u32 {
    let own = Own::current();
    let Ok(table) = procfs::processes() else {
        return 0;
    };
    let mut groups = HashSet::new();
    if own.may_signal_group(group.as_raw()) {
        groups.insert(group.as_raw());
    }
    let marked = marker.members(&table, own);
    let seeds: HashSet<i32> = marked.iter().map(|e| e.pid).collect();
    let mut members = closure(&table, &seeds, &mut groups, own, &HashSet::new());
    members.extend(marked);
    if members.is_empty() {
        return 0;
    }
    let left = pinned::wait_for_exit(members.iter().map(Pinned::new).collect(), Instant::now() + settle);
    u32::try_from(left.len()).unwrap_or(u32::MAX)
}

/// Live processes in `group` and their descendants. The common case (the group is empty) costs one
/// `kill(-group, 0)`; only a non-empty group makes it read `/proc`.
pub(crate) fn survivors(group: Pid) -> u32 {
    u32::try_from(survivor_entries(group).len()).unwrap_or(u32::MAX)
}

fn survivor_entries(group: Pid) -> Vec<ProcEntry> {
    let own = Own::current();
    if !own.may_signal_group(group.as_raw()) || kill(Pid::from_raw(-group.as_raw()), None) == Err(Errno::ESRCH) {
        return Vec::new();
    }
    let Ok(table) = procfs::processes() else {
        return Vec::new();
    };
    let mut groups = HashSet::from([group.as_raw()]);
    closure(&table, &HashSet::new(), &mut groups, own, &HashSet::new())
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

/// Kills what a finished call left running in a long-lived shell that lives on: each process of
/// `left` that is still the one listed (pid and start time), everything descending from them and
/// the groups they lead — never the group they share with the shell, which is signalled member by
/// member only. All of them at once (one grace for all), however many there are.
pub(crate) fn terminate_left(left: &[ProcEntry], grace: Duration) {
    Doomed::new(Left { own: Own::current(), listed: left, groups: HashSet::new() }).terminate(grace);
    tracing::debug!(processes = left.len(), "left-running processes terminated");
}

/// Which processes [`terminate_left`] reaches (see there).
struct Left<'a> {
    own: Own,
    listed: &'a [ProcEntry],
    /// Groups a member leads, or is in without a live leader.
    groups: HashSet<i32>,
}

impl Finder for Left<'_> {
    fn find(&mut self, known: &[Pinned]) -> Vec<Pinned> {
        let Ok(table) = procfs::processes() else {
            return Vec::new();
        };
        let by_pid: std::collections::HashMap<i32, &ProcEntry> = table.iter().map(|e| (e.pid, e)).collect();
        let mut members: HashSet<i32> = known.iter().map(|m| m.pid).collect();
        let mut found: Vec<ProcEntry> = Vec::new();
        for listed in self.listed {
            let Some(now) = by_pid.get(&listed.pid) else { continue };
            if members.contains(&now.pid) || !now.alive || now.start_time != listed.start_time {
                continue;
            }
            if !self.own.may_signal(now.pid) {
                continue;
            }
            if now.pgid == now.pid && self.own.may_signal_group(now.pgid) {
                self.groups.insert(now.pgid);
            }
            members.insert(now.pid);
            found.push(**now);
        }
        // Their descendants, and the members of the groups they lead.
        let listed_live: HashSet<i32> = self
            .listed
            .iter()
            .filter(|e| by_pid.get(&e.pid).is_some_and(|now| now.start_time == e.start_time))
            .map(|e| e.pid)
            .collect();
        let seeds: HashSet<i32> = members.union(&listed_live).copied().collect();
        found.extend(closure(&table, &seeds, &mut self.groups, self.own, &HashSet::new()));
        found.iter().map(Pinned::new).collect()
    }

    fn groups(&self) -> Vec<i32> {
        self.groups.iter().copied().collect()
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
/// belong to it (extended with every group a new member leads or is in without a live leader): live processes in one of the groups
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
    let alive: HashSet<i32> = table.iter().filter(|e| e.alive).map(|e| e.pid).collect();
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
                // The group it leads, or a group whose leader is gone: what a process that forks
                // and exits over and over (pid-hopping) leaves behind, one group for the whole chain,
                // which one group signal stops at once.
                if (entry.pgid == entry.pid || !alive.contains(&entry.pgid)) && own.may_signal_group(entry.pgid) {
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

/// Which processes a command's tree kill reaches (see the module docs).
struct Tree<'a> {
    own: Own,
    root: i32,
    /// Groups whose members belong to the tree.
    groups: HashSet<i32>,
    spare: &'a [ProcEntry],
    /// Groups with a spared process in them: signalled member by member only.
    shared_groups: HashSet<i32>,
    /// Processes carrying this call's marker are members wherever they are.
    marker: Option<&'a CallMarker>,
    /// The root itself is not a member (it is seeded, so that its children are).
    spare_root: bool,
    /// Each process met by the walk down from the root is stopped at once (a kill); an interrupt
    /// only looks.
    freeze: bool,
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
            spare,
            shared_groups: HashSet::new(),
            marker: None,
            spare_root: false,
            freeze: true,
        }
    }

    /// Walks down from the root (`/proc/<pid>/task/<tid>/children`), never into a process of
    /// `excluded`, and stops each process it meets the moment it meets it, with its process group
    /// when that group's leader is gone. What a command forks and orphans over and over (a process
    /// that forks and exits every millisecond, each generation re-parented to a shell that is a child
    /// subreaper) is met among the root's descendants at its newest, where a look at every process
    /// of the machine, slower than a generation's life, could miss it round after round.
    fn walk_down(&self, excluded: &HashSet<i32>) -> Vec<ProcEntry> {
        let mut met = Vec::new();
        procfs::visit_descendants(self.root, |pid| {
            if excluded.contains(&pid) || !self.own.may_signal(pid) {
                return false;
            }
            let seen = if self.freeze {
                let may_stop_group = |group| self.own.may_signal_group(group) && !self.shared_groups.contains(&group);
                stop_on_sight(pid, |_| true, may_stop_group).map(|(_, stat)| stat)
            } else {
                procfs::stat(pid)
            };
            let Some(stat) = seen else { return false };
            if stat.alive {
                met.push(stat);
            }
            true
        });
        met
    }
}

impl Finder for Tree<'_> {
    /// Reads `/proc`: the processes of the tree not known yet.
    fn find(&mut self, known: &[Pinned]) -> Vec<Pinned> {
        let Ok(table) = procfs::processes() else {
            return Vec::new();
        };
        let mut known: HashSet<i32> = known.iter().map(|m| m.pid).collect();
        let root_is_new = !known.contains(&self.root) && !self.spare_root;
        // A seed, so that its children count even if it is a zombie by now.
        known.insert(self.root);
        let excluded = spared(&table, self.spare);
        self.shared_groups.extend(table.iter().filter(|e| excluded.contains(&e.pid)).map(|e| e.pgid));
        let marked: Vec<ProcEntry> = match self.marker {
            Some(marker) => {
                let mut marked = marker.freeze_members(self.own, &excluded);
                // Those that started after the table was read are in the next round's table.
                marked.retain(|e| !known.contains(&e.pid) && table.iter().any(|t| t.pid == e.pid));
                marked
            }
            None => Vec::new(),
        };
        let mut walked = self.walk_down(&excluded);
        walked.retain(|e| !known.contains(&e.pid) && !marked.iter().any(|m| m.pid == e.pid));
        // Marked and walked processes are seeds: their descendants and the groups they lead, or are
        // in without a leader, belong too.
        known.extend(marked.iter().chain(&walked).map(|e| e.pid));
        for entry in marked.iter().chain(&walked) {
            let leaderless = entry.pgid != entry.pid && !table.iter().any(|t| t.pid == entry.pgid && t.alive);
            if (entry.pgid == entry.pid || leaderless)
                && self.own.may_signal_group(entry.pgid)
                && !self.shared_groups.contains(&entry.pgid)
            {
                self.groups.insert(entry.pgid);
            }
        }
        let mut found = closure(&table, &known, &mut self.groups, self.own, &excluded);
        found.extend(marked);
        found.extend(walked);
        if root_is_new {
            if let Some(root) = table.iter().find(|e| e.pid == self.root && e.alive) {
                if self.own.may_signal(root.pid) {
                    found.push(*root);
                }
            }
        }
        found.iter().map(Pinned::new).collect()
    }

    fn groups(&self) -> Vec<i32> {
        self.groups.difference(&self.shared_groups).copied().collect()
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
