//! A snapshot of the process table from `/proc`: who is whose parent, and in which process group.
//! Promises: processes that vanish while the table is read are skipped, never an error; zombies are
//! listed but marked dead.
//!
//! Which processes: every one this process can see, or, once this process adopts the orphans of what
//! it starts ([`super::children::adopt_orphans`]), its descendants only: everything it started is
//! among them, and a look costs what it started, not what the machine runs.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read};

use super::children;

/// One line of the process table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcEntry {
    pub pid: i32,
    pub ppid: i32,
    pub pgid: i32,
    /// Clock ticks after boot; with the pid, it identifies a process across pid reuse.
    pub start_time: Option<u64>,
    /// False for zombies (`Z`) and dying tasks (`X`): they run no code and need no signal.
    pub alive: bool,
}

/// Every process that may be one this process started (see the module's documentation).
pub(crate) fn processes() -> io::Result<Vec<ProcEntry>> {
    let mut table = Vec::new();
    if children::adopting() {
        visit_descendants(own_pid(), |pid| {
            if let Some(entry) = stat(pid) {
                table.push(entry);
            }
            true
        });
        return Ok(table);
    }
    for entry in std::fs::read_dir("/proc")? {
        let Ok(entry) = entry else { continue };
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if let Some(proc_entry) = stat(pid) {
            table.push(proc_entry);
        }
    }
    Ok(table)
}

/// Calls `visit` with each descendant of `root`, parents before their children, and the children
/// of those for which it returns true (a visitor that stops what it meets meets the children of a
/// stopped process after it stopped: they cannot have forked since). A process that is re-parented
/// while the walk goes on may be missed by this walk, never by the next: callers walk until two
/// walks in a row find nothing new. Costs what `root` runs, not what the machine runs.
pub(crate) fn visit_descendants(root: i32, mut visit: impl FnMut(i32) -> bool) {
    let mut seen = HashSet::new();
    let mut queue = vec![root];
    while let Some(parent) = queue.pop() {
        for child in children_of(parent) {
            if seen.insert(child) && visit(child) {
                queue.push(child);
            }
        }
    }
}

fn own_pid() -> i32 {
    i32::try_from(std::process::id()).unwrap_or(i32::MAX)
}

/// The children of every thread of `pid` (a child belongs to the thread that forked it, an adopted
/// orphan to one of the reaper's threads).
fn children_of(pid: i32) -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return found };
    let mut text = String::new();
    for task in tasks.flatten() {
        let Some(tid) = task.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        text.clear();
        let read = File::open(format!("/proc/{pid}/task/{tid}/children")).and_then(|mut f| f.read_to_string(&mut text));
        if read.is_ok() {
            found.extend(text.split_ascii_whitespace().filter_map(|s| s.parse::<i32>().ok()));
        }
    }
    found
}

/// How many pids below the last one handed out [`visit_pids`] probes first: the newest processes.
const FRONTIER_BEHIND: i32 = 64;
/// Probes of the newest pids per [`visit_pids`] call, at most.
const FRONTIER_ROUNDS: usize = 32;

/// Calls `visit` with every pid `/proc` lists, then with the pids around the one the kernel handed
/// out last while new ones appear there: pids are handed out in increasing order (until they wrap),
/// so a process that forks and exits over and over (its generations living too briefly for one pass
/// over `/proc` to meet them alive) is met there, at its newest. A pid may be visited more than once.
/// Probing a pid that does not exist costs one failed `stat(2)`. Once this process adopts orphans,
/// its descendants instead (see the module's documentation).
pub(crate) fn visit_pids(mut visit: impl FnMut(i32)) {
    if children::adopting() {
        // Orphans come back to this process: each generation of a pid-hopper is met among its
        // descendants, and the machine's other processes need no look.
        visit_descendants(own_pid(), |pid| {
            visit(pid);
            true
        });
        return;
    }
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            if let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) {
                visit(pid);
            }
        }
    }
    let Some(mut last) = last_pid() else { return };
    let mut from = last.saturating_sub(FRONTIER_BEHIND).max(1);
    for _ in 0..FRONTIER_ROUNDS {
        for pid in from..=last {
            if std::fs::metadata(format!("/proc/{pid}")).is_ok() {
                visit(pid);
            }
        }
        match last_pid() {
            Some(now) if now != last => {
                from = if now > last { last + 1 } else { 1 };
                last = now;
            }
            _ => return,
        }
    }
}

/// The pid the kernel handed out last (the fifth field of `/proc/loadavg`).
fn last_pid() -> Option<i32> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().nth(4)?.parse().ok()
}

/// The clock tick (the unit of a process's start time, after boot) of `ago` before now, less one
/// tick for the clock's rounding; 0 when the clock cannot be read (then every process counts).
pub(crate) fn ticks_before(ago: std::time::Duration) -> u64 {
    // SAFETY: sysconf reads a constant of the system; it has no memory effects.
    let hz = match unsafe { libc::sysconf(libc::_SC_CLK_TCK) } {
        n if n > 0 => n as f64,
        _ => 100.0,
    };
    let uptime = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<f64>().ok());
    match uptime {
        Some(secs) => ((secs - ago.as_secs_f64()) * hz).max(0.0) as u64,
        None => 0,
    }
    .saturating_sub(1)
}

/// `None` when the process is gone (or `/proc` is unreadable).
pub(crate) fn stat(pid: i32) -> Option<ProcEntry> {
    // The fields up to starttime fit easily: a stat line is ~300 bytes with a 15-byte comm.
    let mut buf = [0u8; 1024];
    let mut file = File::open(format!("/proc/{pid}/stat")).ok()?;
    let n = file.read(&mut buf).ok()?;
    parse_stat(&buf[..n])
}

/// The signals a process ignores, as `/proc/<pid>/status` says (`SigIgn:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ignored(u64);

impl Ignored {
    /// What `pid` ignores now; `None` when it is gone (or `/proc` is unreadable).
    pub(crate) fn of(pid: i32) -> Option<Self> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        parse_ignored(&status).map(Self)
    }

    pub(crate) fn has(self, signal: nix::sys::signal::Signal) -> bool {
        self.0 & (1u64 << (signal as i32 - 1)) != 0
    }

    /// SIGTERM ignored but not SIGHUP: an interactive shell (bash sets SIGTERM to ignored, so that
    /// `kill 0` spares it, and exits on SIGHUP, as when its terminal closes, passing the hangup on to
    /// its jobs).
    pub(crate) fn hangs_up_instead_of_terminating(self) -> bool {
        use nix::sys::signal::Signal;
        self.has(Signal::SIGTERM) && !self.has(Signal::SIGHUP)
    }
}

/// The `SigIgn:` mask of a `/proc/<pid>/status` text: bit `n - 1` set when signal `n` is ignored.
fn parse_ignored(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
    u64::from_str_radix(line.trim(), 16).ok()
}

/// Parses `pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
/// stime cutime cstime priority nice threads itrealvalue starttime ...`. The comm may contain spaces
/// and parentheses, so the fields start after the last `)`.
fn parse_stat(line: &[u8]) -> Option<ProcEntry> {
    let open = line.iter().position(|&b| b == b'(')?;
    let close = line.iter().rposition(|&b| b == b')')?;
    let pid = std::str::from_utf8(&line[..open]).ok()?.trim().parse().ok()?;
    let rest = std::str::from_utf8(line.get(close + 1..)?).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    // starttime is field 22 of the line, the 20th after the comm; pgrp was the 3rd.
    let start_time = fields.nth(16).and_then(|s| s.parse().ok());
    Some(ProcEntry { pid, ppid, pgid, start_time, alive: !matches!(state, "Z" | "X" | "x") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_which_signals_are_ignored() {
        // An interactive bash: SIGQUIT (3), SIGTERM (15), SIGTSTP, SIGTTIN, SIGTTOU ignored.
        let status = "Name:\tbash\nSigPnd:\t0000000000000000\nSigIgn:\t0000000000384004\nSigCgt:\t000000004b813efb\n";
        assert_eq!(parse_ignored(status), Some(0x384004));
        assert_eq!(parse_ignored("Name:\tx\n"), None);
    }

    #[test]
    fn an_interactive_shell_hangs_up_and_this_process_does_not() {
        let of = |pid: u32| Ignored::of(pid as i32).is_some_and(Ignored::hangs_up_instead_of_terminating);
        assert!(!of(std::process::id()));
        use std::io::BufRead;
        let mut shell = std::process::Command::new("bash")
            .args(["--norc", "-i", "-c", "echo ready; read -r _"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Bash sets its signals up before it runs the command.
        let mut ready = String::new();
        std::io::BufReader::new(shell.stdout.take().unwrap()).read_line(&mut ready).unwrap();
        assert_eq!(ready, "ready\n");
        assert!(of(shell.id()));
        drop(shell.stdin.take());
        shell.wait().unwrap();
    }

    #[test]
    fn parses_a_comm_with_spaces_and_parentheses() {
        let line = b"4242 (a) b (c) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1 2 3\n";
        let entry = parse_stat(line).unwrap();
        assert_eq!(entry, ProcEntry { pid: 4242, ppid: 17, pgid: 4242, start_time: Some(987654), alive: true });
    }

    #[test]
    fn zombies_are_listed_as_dead() {
        let line = b"7 (sleep) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0\n";
        assert!(!parse_stat(line).unwrap().alive);
    }

    #[test]
    fn reads_its_own_entry() {
        let me = stat(std::process::id() as i32).unwrap();
        assert!(me.alive);
        assert_eq!(me.pgid, nix::unistd::getpgrp().as_raw());
        assert!(me.start_time.is_some());
    }
}
