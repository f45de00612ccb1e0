//! How processes the runtime ends die, written once: a call's timeout or cancel, a shell's eviction, a
//! Ctrl-C at the prompt and the reaper's sweep all go through [`Doomed`]. Which processes die is the
//! caller's [`Finder`]: a command's process tree ([`super::tree`]), or every process carrying a
//! runtime's marker (the reaper's sweep).
//!
//! The order: each look at `/proc` stops what it finds (a stopped process cannot fork, so each look
//! catches what forked during the previous one, a process that forks and exits every millisecond
//! included), until two looks in a row find nothing new; then SIGTERM (and SIGHUP to an interactive
//! shell, which ignores SIGTERM) with SIGCONT, the grace, and SIGKILL rounds until nothing is left.
//!
//! Every process is signalled through its [`Pinned`] handle: a pidfd, so that a later process that
//! got its pid is never hit; on kernels without pidfds (before 5.3), by pid after checking its start
//! time, which narrows the race to the instant between the check and the signal. Process groups have no
//! handle: a finder names only groups whose every member is doomed (see [`Finder::groups`]), and a
//! group's id is not reused while it has a member.

use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::pinned::{self, Pinned};
use super::procfs::{self, Ignored, ProcEntry};

/// Looks go on until this many in a row found nothing new: one quiet look could be a process that
/// forked and exited between two reads of `/proc` (pid-hopping).
const QUIET_ROUNDS: usize = 2;
/// At most this many looks per phase: a stopped process cannot fork, so a tree stops growing after a
/// few; only a race lost again and again gets this far.
const MAX_ROUNDS: usize = 200;
/// SIGKILL waits for members that do not die (uninterruptible sleep) this many times before giving up
/// on them.
const KILL_ROUNDS: usize = 4;
/// How long SIGKILLed processes get to finish dying; only a process stuck in uninterruptible sleep
/// (`D`, e.g. on a dead NFS mount) takes longer, and waiting for it forever would hang the call.
const KILL_SETTLE: Duration = Duration::from_secs(2);
/// During the grace, how often a member that ignored SIGTERM is looked at again (see
/// [`Doomed::wait_out_grace`]); only such members cost these looks.
const DEAF_RECHECK: Duration = Duration::from_millis(10);

/// Stops `pid` the moment a look meets it: pinned first, so that the signal never reaches a later
/// process with its pid, and only if `belongs(pid)` still holds once it is pinned; then its process
/// group too when that group's leader is gone and `may_stop_group(group)` allows it — one signal stops
/// the rest of a chain that forks and exits every millisecond. Never this process's group, 0 or 1.
/// Returns the process, pinned, with its `/proc` entry read once it was stopped; `None` when it is gone
/// or does not belong.
pub(crate) fn stop_on_sight(
    pid: i32,
    belongs: impl FnOnce(i32) -> bool,
    may_stop_group: impl FnOnce(i32) -> bool,
) -> Option<(Pinned, ProcEntry)> {
    let process = Pinned::open(pid)?;
    if !belongs(pid) {
        return None;
    }
    process.signal(Signal::SIGSTOP);
    let entry = procfs::stat(pid)?;
    let group = entry.pgid;
    let own_group = nix::unistd::getpgrp().as_raw();
    if entry.alive
        && group > 1
        && group != pid
        && group != own_group
        && may_stop_group(group)
        && procfs::stat(group).is_none_or(|leader| !leader.alive)
    {
        let _ = kill(Pid::from_raw(-group), Signal::SIGSTOP);
    }
    Some((process, entry))
}

/// Which processes die.
pub(crate) trait Finder {
    /// Looks again: the members that are not among `known`, each pinned. A finder that must catch a
    /// process at the instant it meets it (one found by its marker may be a pid-hopper's generation
    /// that lives for a millisecond) stops it before returning it.
    fn find(&mut self, known: &[Pinned]) -> Vec<Pinned>;

    /// Process groups signalled as a whole, before the members: that reaches members forked since the
    /// last look. Only groups with nothing in them that must live, never this process's, 0 or 1.
    fn groups(&self) -> Vec<i32>;
}

/// The processes a [`Finder`] found, and how they die.
pub(crate) struct Doomed<F> {
    finder: F,
    members: Vec<Pinned>,
}

impl<F: Finder> Doomed<F> {
    pub(crate) fn new(finder: F) -> Self {
        Self { finder, members: Vec::new() }
    }

    /// Looks again and adds what is new; returns how many.
    pub(crate) fn extend(&mut self) -> usize {
        let found = self.finder.find(&self.members);
        let count = found.len();
        self.members.extend(found);
        count
    }

    /// How many members were found so far.
    pub(crate) fn len(&self) -> usize {
        self.members.len()
    }

    /// `signal` to the groups, then to every member.
    pub(crate) fn signal(&self, signal: Signal) {
        self.signal_groups(signal);
        self.signal_members_from(0, signal);
    }

    /// `signal` to the members found since the first `first` (the groups are left alone).
    pub(crate) fn signal_members_from(&self, first: usize, signal: Signal) {
        for member in self.members.iter().skip(first) {
            member.signal(signal);
        }
    }

    fn signal_groups(&self, signal: Signal) {
        for group in self.finder.groups() {
            let _ = kill(Pid::from_raw(-group), signal);
        }
    }

    /// Waits until every member has exited or `deadline` passed; forgets those that exited.
    pub(crate) fn wait_until(&mut self, deadline: Instant) {
        self.members = pinned::wait_for_exit(std::mem::take(&mut self.members), deadline);
    }

    /// Stops them until no look finds more, asks them to end (SIGTERM; SIGHUP to an interactive
    /// shell), gives them `grace` (none when zero), then SIGKILLs them and whatever appeared meanwhile
    /// until nothing is left. Returns how many processes were found before the grace; returns once all
    /// have exited, or after [`KILL_SETTLE`] for each of a few rounds of processes that cannot die yet.
    pub(crate) fn terminate(mut self, grace: Duration) -> usize {
        let mut quiet = 0;
        for _ in 0..MAX_ROUNDS {
            let found = self.extend();
            self.signal(Signal::SIGSTOP);
            quiet = if found == 0 { quiet + 1 } else { 0 };
            if quiet >= QUIET_ROUNDS {
                break;
            }
        }
        let found = self.members.len();
        if found == 0 {
            return 0;
        }
        if !grace.is_zero() {
            // Read after the stop rounds, when the members have been sent SIGSTOP (delivery is
            // asynchronous, so a member may still be on its way to stopping): a disposition that
            // changes later is what `wait_out_grace` watches for.
            let ignored: Vec<(i32, Option<Ignored>)> =
                self.members.iter().map(|m| (m.pid, Ignored::of(m.pid))).collect();
            self.signal(Signal::SIGTERM);
            for (pid, ignored) in &ignored {
                if ignored.is_some_and(Ignored::hangs_up_instead_of_terminating) {
                    self.signal_member(*pid, Signal::SIGHUP);
                }
            }
            self.signal(Signal::SIGCONT);
            let deaf: Vec<i32> = ignored
                .into_iter()
                .filter(|(_, ignored)| ignored.is_some_and(|i| i.has(Signal::SIGTERM)))
                .map(|(pid, _)| pid)
                .collect();
            self.wait_out_grace(Instant::now() + grace, deaf);
        }
        let mut quiet = 0;
        let mut waits = 0;
        for _ in 0..MAX_ROUNDS {
            self.members.retain(|m| !m.has_exited());
            let new = self.extend();
            if self.members.is_empty() {
                quiet += 1;
                if quiet >= QUIET_ROUNDS {
                    break;
                }
                continue;
            }
            quiet = 0;
            self.signal(Signal::SIGKILL);
            if new == 0 {
                // Only known members are left: bound the waits for ones that cannot die yet.
                waits += 1;
                if waits > KILL_ROUNDS {
                    break;
                }
            }
            self.wait_until(Instant::now() + KILL_SETTLE);
        }
        found
    }

    /// Waits until every member has exited or `deadline` passed. SIGHUP went to the members that
    /// ignore SIGTERM and not SIGHUP: interactive shells, such as the one that reads the user's rc files
    /// for the snapshot. Sent SIGTERM alone, such a shell would go on through the grace, starting
    /// programs that are then killed without a chance to clean up (a `pyenv rehash` killed so leaves its
    /// lock behind, and every later shell of the user waits for it); on SIGHUP it exits, passing the
    /// hangup on to its jobs, as when its terminal closes.
    ///
    /// `deaf` are the members that ignored the SIGTERM. One that stops ignoring it during the grace is
    /// sent it again: a shell's child caught between its fork and its exec still had the shell's
    /// dispositions, so the signals were lost on it, and the program it then runs (the rc's `sleep`)
    /// would otherwise be asked nothing and live until the SIGKILL — and the shell with it, waiting for
    /// that program before it runs its hangup trap.
    fn wait_out_grace(&mut self, deadline: Instant, mut deaf: Vec<i32>) {
        loop {
            if deaf.is_empty() {
                self.wait_until(deadline);
                return;
            }
            self.wait_until(deadline.min(Instant::now() + DEAF_RECHECK));
            if self.members.is_empty() || Instant::now() >= deadline {
                return;
            }
            deaf.retain(|&pid| {
                let alive = self.members.iter().any(|m| m.pid == pid);
                let hears = Ignored::of(pid).is_none_or(|i| !i.has(Signal::SIGTERM));
                if alive && hears {
                    self.signal_member(pid, Signal::SIGTERM);
                }
                alive && !hears
            });
        }
    }

    /// `signal` to the member with `pid`, if it is one (through its handle, never by pid).
    fn signal_member(&self, pid: i32, signal: Signal) {
        if let Some(member) = self.members.iter().find(|m| m.pid == pid) {
            member.signal(signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The processes of a list, found in two looks: one at first, the rest at the next.
    struct Listed {
        pids: Vec<i32>,
        looks: usize,
    }

    impl Finder for Listed {
        fn find(&mut self, known: &[Pinned]) -> Vec<Pinned> {
            self.looks += 1;
            let take = if self.looks == 1 { 1 } else { self.pids.len() };
            self.pids
                .iter()
                .take(take)
                .filter(|pid| !known.iter().any(|m| m.pid == **pid))
                .filter_map(|pid| Pinned::open(*pid))
                .collect()
        }

        fn groups(&self) -> Vec<i32> {
            Vec::new()
        }
    }

    #[test]
    fn what_ignores_sigterm_is_killed_after_the_grace_and_what_a_later_look_finds_dies_too() {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        // Ready once it said so: its traps are set.
        let spawn = |script: &str| {
            let mut child = Command::new("sh").arg("-c").arg(script).stdout(Stdio::piped()).spawn().unwrap();
            let mut line = String::new();
            std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
            child
        };
        let mut stubborn = spawn("trap '' TERM HUP; echo ready; while :; do sleep 1; done");
        let mut plain = spawn("echo ready; exec sleep 100");
        let pids = vec![stubborn.id() as i32, plain.id() as i32];
        let found = Doomed::new(Listed { pids, looks: 0 }).terminate(Duration::from_millis(50));
        assert_eq!(found, 2);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(stubborn.wait().unwrap().signal(), Some(libc::SIGKILL));
        assert_eq!(plain.wait().unwrap().signal(), Some(libc::SIGTERM));
    }

    #[test]
    fn what_stops_ignoring_sigterm_during_the_grace_is_asked_again() {
        use std::io::BufRead;
        use std::os::unix::process::ExitStatusExt;
        use std::process::{Command, Stdio};
        // Ignores SIGTERM when it is sent and stops ignoring it on the SIGHUP that comes with it: as a
        // shell's child between its fork and its exec does, where the program it then runs never got
        // the SIGTERM. Asked nothing, it would live until the SIGKILL after the grace.
        let script = "trap '' TERM; trap 'trap - TERM' HUP; echo ready; while :; do sleep 0.05; done";
        let mut child = Command::new("bash").arg("-c").arg(script).stdout(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line, "ready\n");
        let pids = vec![child.id() as i32];
        Doomed::new(Listed { pids, looks: 0 }).terminate(Duration::from_secs(60));
        assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGTERM));
    }
}
