//! The reaper: no process bashrt started survives bashrt, even when bashrt is SIGKILLed.
//!
//! Why a separate process: after a SIGKILL nothing of ours runs, a parent-death signal reaches only direct
//! children, and a process group does not contain children that called `setsid` or double-forked. So at the
//! first command we start one small bash process that only waits for EOF on a pipe whose write end only
//! this runtime holds (close-on-exec). Every command's environment carries `BASHRT_RUNTIME=<token>`, which
//! survives `setsid`, new process groups and double forks. When the pipe closes — the runtime exited or
//! was killed — the reaper SIGKILLs every process whose environment carries the token.

use std::ffi::OsString;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

mod sweep;

/// The environment variable that marks processes started by this runtime.
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

pub struct Reaper {
    token: String,
    /// The write end; dropping it is the signal.
    pipe: Mutex<Option<ChildStdin>>,
    child: Mutex<Option<Child>>,
}

static GLOBAL: OnceLock<Reaper> = OnceLock::new();

impl Reaper {
    /// The runtime's reaper, started on first use. If it can't start, commands still run (with a warning):
    /// only the SIGKILL guarantee is lost.
    pub fn global() -> &'static Reaper {
        GLOBAL.get_or_init(Reaper::start)
    }

    fn start() -> Reaper {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let token = format!("{}-{nanos:x}", std::process::id());
        let bash = crate::tool::resolve_shell(None).unwrap_or_else(|_| "/bin/bash".into());
        let spawned = {
            use std::os::unix::process::CommandExt;
            Command::new(bash)
                .args(["--noprofile", "--norc", "-c", SCRIPT, "bashrt-reaper", &token])
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
                Reaper { token, pipe: Mutex::new(pipe), child: Mutex::new(Some(child)) }
            }
            Err(e) => {
                tracing::warn!("cannot start the reaper; processes may outlive a killed runtime: {e}");
                Reaper { token, pipe: Mutex::new(None), child: Mutex::new(None) }
            }
        }
    }

    /// `BASHRT_RUNTIME=<token>`, for every process the runtime starts.
    pub fn marker(&self) -> (OsString, OsString) {
        (OsString::from(MARKER_VAR), OsString::from(&self.token))
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Stops every live process this runtime started: SIGTERM, `grace`, SIGKILL (several rounds). For an
    /// orderly shutdown; returns how many processes were signalled.
    pub fn terminate_all(&self, grace: Duration) -> usize {
        sweep::terminate_marked(MARKER_VAR, &self.token, grace)
    }

    /// Kills every process this runtime started, now, and waits until the sweep is done. For an orderly
    /// exit (`bashrt run` that left background processes, `bashrt rpc` at EOF). Idempotent.
    pub fn reap_all_and_wait(&self) {
        drop(self.pipe.lock().unwrap_or_else(PoisonError::into_inner).take());
        if let Some(mut child) = self.child.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = child.wait();
        }
    }
}

/// Whether the global reaper has been started (a runtime that never ran a command has none).
pub fn started() -> bool {
    GLOBAL.get().is_some()
}
