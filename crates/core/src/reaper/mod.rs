//! The reaper: no process a runtime started survives it, even when the runtime is SIGKILLed.
//!
//! Why a separate process: after a SIGKILL nothing of ours runs, a parent-death signal reaches only direct
//! children, and a process group does not contain children that called `setsid` or double-forked. So at
//! the first command a runtime starts one small bash process (the watchdog) that only waits for EOF on a
//! pipe whose write end only the runtime holds (close-on-exec). Every command's environment carries
//! `BASHRT_RUNTIME=<token>`, which survives `setsid`, new process groups and double forks. When the pipe
//! closes — the runtime was dropped, the process exited or was killed — the watchdog SIGKILLs every
//! process whose environment carries the token. Each runtime has its own token and watchdog, so two
//! runtimes in one process never touch each other's processes. See docs/design.md, "Process model".

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

mod sweep;

/// The environment variable that marks processes started by a runtime.
pub const MARKER_VAR: &str = "BASHRT_RUNTIME";

/// Waits for EOF, then kills every marked process; repeats while it finds any (a process may fork
/// while the first sweep runs). `$1` is the token.
const SCRIPT: &str = r#"trap '' INT TERM HUP
while IFS= read -r _; do :; done
self=$BASHPID
for round in 1 2 3 4 5; do
  found=0
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [[ $p == "$self" ]] && continue
    while IFS= read -r -d '' kv; do
      if [[ $kv == "BASHRT_RUNTIME=$1" ]]; then kill -KILL "$p" 2>/dev/null && found=1; break; fi
    done 2>/dev/null < "$d/environ"
  done
  [[ $found == 0 ]] && break
done
"#;

/// Tells runtimes of one process apart.
static RUNTIMES: AtomicU64 = AtomicU64::new(0);

/// One runtime's marker, and its watchdog once a command needed one.
pub(crate) struct Reaper {
    token: String,
    /// `None`: no watchdog is ever started (an embedder that reaps by other means, e.g. a cgroup).
    watchdog_shell: Option<PathBuf>,
    watchdog: OnceLock<Watchdog>,
    /// Set when a marker was handed out: only then can a process of ours exist, and a sweep be needed.
    used: AtomicBool,
}

struct Watchdog {
    /// The write end; dropping it is the signal.
    pipe: Mutex<Option<ChildStdin>>,
    child: Mutex<Option<Child>>,
}

impl Reaper {
    /// A new token; with `watchdog_shell`, the watchdog runs in that bash, started on first use.
    pub(crate) fn new(watchdog_shell: Option<PathBuf>) -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let seq = RUNTIMES.fetch_add(1, Ordering::Relaxed);
        let token = format!("{}-{nanos:x}-{seq}", std::process::id());
        Self { token, watchdog_shell, watchdog: OnceLock::new(), used: AtomicBool::new(false) }
    }

    /// `BASHRT_RUNTIME=<token>`, for every process the runtime starts; starts the watchdog first.
    pub(crate) fn marker(&self) -> (OsString, OsString) {
        self.used.store(true, Ordering::Relaxed);
        if let Some(shell) = &self.watchdog_shell {
            self.watchdog.get_or_init(|| Watchdog::start(shell, &self.token));
        }
        (OsString::from(MARKER_VAR), OsString::from(&self.token))
    }

    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    /// Stops every live process this runtime started: SIGTERM, `grace`, SIGKILL (several rounds), then
    /// lets the watchdog go. Returns how many processes were signalled. Idempotent.
    pub(crate) fn terminate_all(&self, grace: Duration) -> usize {
        let signalled = sweep::terminate_marked(MARKER_VAR, &self.token, grace);
        if let Some(watchdog) = self.watchdog.get() {
            watchdog.stop_and_wait();
        }
        signalled
    }

    /// Whether a marker was ever handed out (a runtime that never ran a command started nothing).
    pub(crate) fn was_used(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        // The watchdog kills what is left when its pipe closes; closing it here rather than at process
        // exit is what makes dropping a runtime end its processes.
        if let Some(watchdog) = self.watchdog.get() {
            watchdog.stop_and_wait();
        }
    }
}

impl Watchdog {
    /// If it can't start, commands still run (with a warning): only the SIGKILL guarantee is lost.
    fn start(shell: &std::path::Path, token: &str) -> Watchdog {
        let spawned = {
            use std::os::unix::process::CommandExt;
            Command::new(shell)
                .args(["--noprofile", "--norc", "-c", SCRIPT, "bashrt-reaper", token])
                .env_remove(MARKER_VAR)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
        };
        match spawned {
            Ok(mut child) => {
                let pipe = child.stdin.take();
                Watchdog { pipe: Mutex::new(pipe), child: Mutex::new(Some(child)) }
            }
            Err(e) => {
                tracing::warn!("cannot start the reaper; processes may outlive a killed runtime: {e}");
                Watchdog { pipe: Mutex::new(None), child: Mutex::new(None) }
            }
        }
    }

    /// Closes the pipe, so the watchdog kills every marked process, and waits until it has.
    fn stop_and_wait(&self) {
        drop(self.pipe.lock().unwrap_or_else(PoisonError::into_inner).take());
        if let Some(mut child) = self.child.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = child.wait();
        }
    }
}
