//! The orderly sweep: at a clean shutdown, every live process carrying the runtime's marker gets SIGTERM,
//! a grace period, then SIGKILL. Each process is pinned with a pidfd before it is checked and signalled,
//! so a recycled pid is never hit. A process that scrubbed its environment (`env -u BASHRT_RUNTIME …`,
//! `env -i`) escapes on purpose — that is the documented way to keep one running.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};

use nix::sys::signal::Signal;
use nix::unistd::Pid;

use crate::process::pidfd;
use std::time::{Duration, Instant};

/// Rounds of scan-and-kill (a dying process may still fork once).
const ROUNDS: usize = 3;

/// Kills every live process whose environment holds `MARKER=token`; returns how many were signalled.
pub(crate) fn terminate_marked(marker: &str, token: &str, grace: Duration) -> usize {
    let needle = format!("{marker}={token}").into_bytes();
    let mut signalled = 0;
    for round in 0..ROUNDS {
        let members = members(&needle);
        if members.is_empty() {
            break;
        }
        signalled += members.len();
        if round == 0 && !grace.is_zero() {
            for m in &members {
                m.signal(Signal::SIGTERM);
            }
            wait_for_exit(&members, grace);
        }
        for m in &members {
            m.signal(Signal::SIGKILL);
        }
        wait_for_exit(&members, Duration::from_secs(1));
    }
    signalled
}

/// The live processes whose environment carries the needle (never ourselves).
fn members(needle: &[u8]) -> Vec<Member> {
    let own = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| *pid != own && has_entry(*pid, needle))
        .filter_map(|pid| {
            let member = Member::open(pid)?;
            // Pinned now: check again, the pid may have been recycled since the first look.
            has_entry(pid, needle).then_some(member)
        })
        .collect()
}

fn has_entry(pid: i32, needle: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| env.split(|b| *b == 0).any(|entry| entry == needle))
}

/// A process pinned by a pidfd (or, on kernels without pidfds, by its pid alone).
struct Member {
    pid: i32,
    pidfd: Option<OwnedFd>,
}

impl Member {
    fn open(pid: i32) -> Option<Self> {
        match pidfd::open(pid) {
            Ok(fd) => Some(Self { pid, pidfd: Some(fd) }),
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => None,
            Err(_) => Some(Self { pid, pidfd: None }),
        }
    }

    fn signal(&self, signal: Signal) {
        match &self.pidfd {
            Some(fd) => {
                let _ = pidfd::send_signal(fd.as_fd(), signal);
            }
            None => {
                let _ = nix::sys::signal::kill(Pid::from_raw(self.pid), signal);
            }
        }
    }

    fn exited(&self) -> bool {
        match &self.pidfd {
            Some(fd) => pidfd::has_exited(fd.as_fd()),
            None => nix::sys::signal::kill(Pid::from_raw(self.pid), None).is_err(),
        }
    }
}

/// Waits until every member has exited or the time is up.
fn wait_for_exit(members: &[Member], limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let alive: Vec<&Member> = members.iter().filter(|m| !m.exited()).collect();
        let now = Instant::now();
        if alive.is_empty() || now >= deadline {
            return;
        }
        let mut fds: Vec<libc::pollfd> = alive
            .iter()
            .filter_map(|m| m.pidfd.as_ref())
            .map(|fd| libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 })
            .collect();
        let mut wait = deadline - now;
        if fds.len() < alive.len() {
            // Some can only be checked by pid: look again soon.
            wait = wait.min(Duration::from_millis(10));
        }
        if fds.is_empty() {
            std::thread::sleep(wait);
        } else {
            // Sleeps until one of them exits (a pidfd turns readable) or the wait is over.
            let millis = i32::try_from(wait.as_millis().max(1)).unwrap_or(i32::MAX);
            // SAFETY: a slice of valid pollfds and its length.
            unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
        }
    }
}
