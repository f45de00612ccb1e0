//! The processes a server started, found again at shutdown so none outlives it.
//!
//! The executor leaves background processes running when a command ends (a user may start a server on
//! purpose), and the core offers no handle on them. So every command the RPC server runs gets
//! `BASHRT_RPC_SCOPE=<token>` in its environment, which its descendants inherit; at shutdown
//! [`Scope::kill_all`] finds the live processes whose environment holds the token (via `/proc`) and
//! kills them: SIGTERM, a grace period, then SIGKILL. Each process is pinned with a pidfd before it is
//! checked and signalled, so a recycled pid is never hit. A process that scrubbed its environment
//! (`env -u BASHRT_RPC_SCOPE …`, `env -i`) escapes on purpose — that is the documented way to keep one.

use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The variable that marks the processes of one server.
pub const SCOPE_ENV: &str = "BASHRT_RPC_SCOPE";

/// Rounds of scan-and-kill at shutdown (a dying process may still fork once).
const ROUNDS: usize = 3;

#[derive(Debug, Clone)]
pub struct Scope {
    token: String,
}

impl Scope {
    /// A token unique to this process and moment.
    pub fn new() -> Self {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        Self { token: format!("{}-{nanos}", std::process::id()) }
    }

    /// The variable to add to every command's environment.
    pub fn env(&self) -> (String, String) {
        (SCOPE_ENV.to_string(), self.token.clone())
    }

    /// Kills every live process of this scope; returns how many were signalled.
    pub fn kill_all(&self, grace: Duration) -> usize {
        let mut signalled = 0;
        for round in 0..ROUNDS {
            let members = self.members();
            if members.is_empty() {
                break;
            }
            signalled += members.len();
            if round == 0 && !grace.is_zero() {
                for m in &members {
                    m.signal(libc::SIGTERM);
                }
                wait_for_exit(&members, grace);
            }
            for m in &members {
                m.signal(libc::SIGKILL);
            }
            wait_for_exit(&members, Duration::from_secs(1));
        }
        signalled
    }

    /// The live processes whose environment carries this scope's token.
    fn members(&self) -> Vec<Member> {
        let needle = format!("{SCOPE_ENV}={}", self.token).into_bytes();
        let own = std::process::id() as i32;
        let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
        entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| *pid != own && has_entry(*pid, &needle))
            .filter_map(|pid| {
                let member = Member::open(pid)?;
                // Pinned now: check again, the pid may have been recycled since the first look.
                has_entry(pid, &needle).then_some(member)
            })
            .collect()
    }
}

impl Default for Scope {
    fn default() -> Self {
        Self::new()
    }
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
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            // SAFETY: the descriptor was just returned by the kernel and is owned by nobody else.
            return Some(Self { pid, pidfd: Some(unsafe { OwnedFd::from_raw_fd(fd as i32) }) });
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::ESRCH) => None,
            _ => Some(Self { pid, pidfd: None }),
        }
    }

    fn signal(&self, signal: i32) {
        match &self.pidfd {
            // SAFETY: a valid pidfd, a signal number, no siginfo, no flags.
            Some(fd) => unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    fd.as_raw_fd(),
                    signal,
                    std::ptr::null::<libc::siginfo_t>(),
                    0,
                );
            },
            // SAFETY: kill(2) with a pid and a signal number.
            None => unsafe {
                libc::kill(self.pid, signal);
            },
        }
    }

    fn exited(&self) -> bool {
        match &self.pidfd {
            Some(fd) => {
                let mut poll = [libc::pollfd { fd: fd.as_fd().as_raw_fd(), events: libc::POLLIN, revents: 0 }];
                // SAFETY: one valid pollfd, zero timeout.
                let ready = unsafe { libc::poll(poll.as_mut_ptr(), 1, 0) };
                ready > 0
            }
            // SAFETY: signal 0 only checks for existence.
            None => (unsafe { libc::kill(self.pid, 0) }) != 0,
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
