//! The reaper: no process a runtime started survives it, even when the runtime is SIGKILLed.
//!
//! Why a separate process: after a SIGKILL nothing of ours runs, a parent-death signal reaches only direct
//! children, and a process group does not contain children that called `setsid` or double-forked. So at
//! the first command a runtime starts one small bash process (the watchdog) that only waits for EOF on a
//! pipe whose write end only the runtime holds (close-on-exec). Every command's environment carries
//! `BASHRT_RUNTIME=<token>`, which survives `setsid`, new process groups and double forks. When the pipe
//! closes — the runtime was dropped, the process exited or was killed — the watchdog asks every process
//! whose environment carries the token to end (SIGTERM, the grace) and SIGKILLs what is left. Each
//! runtime has its own token and watchdog, so two runtimes in one process never touch each other's
//! processes. See docs/design.md, "Process model".

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use crate::process::child::{Mark, OwnedChild};
use crate::process::{children, spawn_gate};

mod preforked;
mod sweep;

pub use preforked::{prefork_watchdog, PreforkError};

pub use crate::process::marker::MARKER_VAR;

/// Waits for EOF, then ends every marked process (a `swept` line first means the runtime has swept
/// them itself: nothing to do) (`BASHRT_RUNTIME=<token>` or a one-shot call's `<token>.<n>`).
///
/// First it asks: each marked process is stopped where it is found, so that it cannot fork out of
/// reach, then sent SIGTERM (and SIGHUP when it ignores SIGTERM but not SIGHUP: an interactive shell,
/// such as the one reading the user's rc for the snapshot) and SIGCONT, and given the grace (`$2`
/// milliseconds) to end: a background server can shut down cleanly, and a program in the middle of
/// something (a `pyenv rehash` holding its lock) can clean up. Then the SIGKILL rounds: every marked
/// process, with its process group when it leads it or the group's leader is gone (one signal stops a
/// whole chain of a process that forks and exits over and over), until three rounds in a row find
/// nothing, at most 200. `$1` is the token.
const SCRIPT: &str = r#"trap '' INT TERM HUP
while IFS= read -r line; do [[ $line == swept ]] && exit 0; done
self=$BASHPID
read -r st < /proc/self/stat; read -ra f <<< "${st##*) }"; mine=${f[2]}
marked() {
  [[ $1 == "$self" ]] && return 1
  while IFS= read -r -d '' kv; do
    [[ $kv == "BASHRT_RUNTIME=$token" || $kv == "BASHRT_RUNTIME=$token".* ]] && return 0
  done 2>/dev/null < "/proc/$1/environ"
  return 1
}
check() {
  marked "$1" || return
  g=0
  if read -r st 2>/dev/null < "/proc/$1/stat"; then read -ra f <<< "${st##*) }"; g=${f[2]}; fi
  kill -KILL "$1" 2>/dev/null && found=1
  if ((g > 1 && g != mine)) && [[ $g == "$1" || ! -e /proc/$g ]]; then kill -KILL -- "-$g" 2>/dev/null; fi
}
token=$1
grace=${2:-200}
asked=()
declare -A seen
ask() {
  [[ -z ${seen[$1]} ]] && marked "$1" && kill -STOP "$1" 2>/dev/null && { asked+=("$1"); seen[$1]=1; }
}
# Scans until two in a row find nothing new: what forked while a scan went on (a child of a process
# met and stopped later in the same scan) is met by the next one.
for ((round = 0, quiet = 0; round < 200 && quiet < 2; round++)); do
  before=${#asked[@]}
  for d in /proc/[0-9]*; do ask "${d#/proc/}"; done
  if ((${#asked[@]} > before)); then quiet=0; else ((quiet++)); fi
done
for p in "${asked[@]}"; do
  kill -TERM "$p" 2>/dev/null
  ign=0
  while read -r k v; do [[ $k == SigIgn: ]] && { ign=$((16#$v)); break; }; done 2>/dev/null < "/proc/$p/status"
  if (( (ign >> 14) & 1 && !(ign & 1) )); then kill -HUP "$p" 2>/dev/null; fi
  kill -CONT "$p" 2>/dev/null
done
for ((waited = 0; ${#asked[@]} && waited < grace; waited += 10)); do
  left=()
  for p in "${asked[@]}"; do
    if read -r st 2>/dev/null < "/proc/$p/stat"; then read -ra f <<< "${st##*) }"; [[ ${f[0]} == [ZX] ]] || left+=("$p"); fi
  done
  asked=("${left[@]}")
  ((${#asked[@]})) && { sleep 0.01 2>/dev/null || break; }
done
quiet=0
for ((round = 0; round < 200 && quiet < 3; round++)); do
  found=0
  read -r _ _ _ _ last _ < /proc/loadavg
  for d in /proc/[0-9]*; do check "${d#/proc/}"; done
  # Every pid handed out since the scan began, while new ones appear: pids go up (until they wrap),
  # so a process that forks and exits over and over, its generations too brief for one pass over
  # /proc to meet them alive, is met at its newest, however fast other processes fork.
  for ((probe = 0; probe < 32; probe++)); do
    read -r _ _ _ _ now _ < /proc/loadavg
    ((now == last)) && break
    if ((now > last)); then from=$((now - last > 4096 ? now - 64 : last + 1)); else from=1; fi
    for ((p = from; p <= now; p++)); do [[ -e /proc/$p ]] && check "$p"; done
    last=$now
  done
  if ((found)); then quiet=0; else ((quiet++)); fi
done
"#;

/// Tells runtimes of one process apart.
static RUNTIMES: AtomicU64 = AtomicU64::new(0);

/// One runtime's marker, and its watchdog once a command needed one.
pub(crate) struct Reaper {
    token: String,
    /// `None`: no watchdog is ever started (an embedder that reaps by other means, e.g. a cgroup).
    watchdog_shell: Option<PathBuf>,
    /// What the watchdog gives the processes it asked to end before it SIGKILLs them.
    grace: Duration,
    watchdog: OnceLock<Watchdog>,
    /// Set when a marker was handed out: only then can a process of ours exist, and a sweep be needed.
    used: AtomicBool,
}

struct Watchdog {
    /// The write end; dropping it is the signal.
    pipe: Mutex<Option<File>>,
    /// Until it was waited for.
    process: Mutex<Option<OwnedChild>>,
}

impl Reaper {
    /// A new token; with `watchdog_shell`, the watchdog runs in that bash, started on first use, and
    /// gives what it asks to end `grace` before it SIGKILLs it.
    pub(crate) fn new(watchdog_shell: Option<PathBuf>, grace: Duration) -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let seq = RUNTIMES.fetch_add(1, Ordering::Relaxed);
        let token = format!("{}-{nanos:x}-{seq}", std::process::id());
        Self { token, watchdog_shell, grace, watchdog: OnceLock::new(), used: AtomicBool::new(false) }
    }

    /// `BASHRT_RUNTIME=<token>`, for every process the runtime starts; starts the watchdog first.
    pub(crate) fn marker(&self) -> (OsString, OsString) {
        self.used.store(true, Ordering::Relaxed);
        if let Some(shell) = &self.watchdog_shell {
            self.watchdog.get_or_init(|| Watchdog::start(shell, &self.token, self.grace));
        }
        (OsString::from(MARKER_VAR), OsString::from(&self.token))
    }

    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    /// Stops every live process this runtime started: SIGTERM, `grace`, SIGKILL (several rounds), then
    /// lets the watchdog go. Returns how many processes were signalled. Idempotent. No process of any
    /// runtime is spawned meanwhile ([`spawn_gate`]), so none is half-started (forked, not yet marked)
    /// while the sweep looks; with `close`, none of this runtime's is ever spawned again.
    pub(crate) fn terminate_all(&self, grace: Duration, close: bool) -> usize {
        let _gate = spawn_gate::exclusive(close.then_some(self.token.as_str()));
        if !self.was_used() {
            return 0;
        }
        let signalled = sweep::terminate_marked(MARKER_VAR, &self.token, grace);
        if let Some(watchdog) = self.watchdog.get() {
            // The sweep above did the watchdog's work: spare the runtime its rounds over `/proc`.
            watchdog.tell_swept();
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
    /// The forked watchdog when the process has one ([`preforked`]), else a bash running [`SCRIPT`].
    /// If neither can start, commands still run (with a warning): only the SIGKILL guarantee is lost.
    fn start(shell: &std::path::Path, token: &str, grace: Duration) -> Watchdog {
        if let Some(mut forked) = preforked::take() {
            if forked.watch(token, grace).is_ok() {
                match OwnedChild::forked(forked.pid) {
                    Ok(process) => {
                        return Watchdog { pipe: Mutex::new(Some(forked.pipe)), process: Mutex::new(Some(process)) }
                    }
                    // It was killed and reaped: start the bash watchdog instead.
                    Err(e) => tracing::debug!("cannot watch the forked watchdog: {e}"),
                }
                return Self::start_bash(shell, token, grace);
            }
            // A watchdog that cannot be told what to watch is of no use: let it go.
            drop(forked.pipe);
            let _ = children::wait(forked.pid);
        }
        Self::start_bash(shell, token, grace)
    }

    /// A bash running [`SCRIPT`].
    fn start_bash(shell: &std::path::Path, token: &str, grace: Duration) -> Watchdog {
        let mut command = Command::new(shell);
        {
            use std::os::unix::process::CommandExt;
            command
                .args(["--noprofile", "--norc", "-c", SCRIPT, "bashrt-reaper", token])
                .arg(grace.as_millis().to_string())
                .env_remove(MARKER_VAR)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0);
        }
        match OwnedChild::spawn(command, Mark::Unmarked) {
            Ok(mut process) => {
                let pipe = process.take_stdin().map(|stdin| File::from(OwnedFd::from(stdin)));
                Watchdog { pipe: Mutex::new(pipe), process: Mutex::new(Some(process)) }
            }
            Err(e) => {
                tracing::warn!("cannot start the reaper; processes may outlive a killed runtime: {e}");
                Watchdog { pipe: Mutex::new(None), process: Mutex::new(None) }
            }
        }
    }

    /// Tells the watchdog that every marked process is gone; it then exits without sweeping.
    fn tell_swept(&self) {
        use std::io::Write;
        if let Some(pipe) = self.pipe.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            let _ = pipe.write_all(b"swept\n");
        }
    }

    /// Closes the pipe, so the watchdog kills every marked process, and waits until it has.
    fn stop_and_wait(&self) {
        drop(self.pipe.lock().unwrap_or_else(PoisonError::into_inner).take());
        if let Some(mut process) = self.process.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = process.reap();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::io::Read;

    /// Every pid `/proc` lists in session `sid`, zombies included (a generation of a pid-hopper lives
    /// too briefly to be met alive, but leaves a new pid).
    fn session_pids(sid: &str) -> HashSet<i32> {
        let mut pids = HashSet::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
            let Some(close) = stat.rfind(')') else { continue };
            if stat[close + 1..].split_whitespace().nth(3) == Some(sid) {
                pids.insert(pid);
            }
        }
        pids
    }

    fn still_hopping(sid: &str, scans: usize) -> bool {
        let first = session_pids(sid);
        (0..scans).any(|_| session_pids(sid).difference(&first).next().is_some())
    }

    #[test]
    fn the_watchdog_kills_a_pid_hopping_process_when_the_runtime_goes() {
        let reaper = Reaper::new(Some(PathBuf::from("bash")), Duration::from_millis(200));
        let (key, token) = reaper.marker();
        // A marked process that forks and exits every millisecond, in its own session; it prints
        // the session id and keeps going after its starter exits.
        let script = "setsid -f sh -c 'echo $$; f() { (sleep 0.001; f) & }; f' </dev/null";
        let Ok(mut child) = Command::new("bash")
            .args(["-c", script])
            .env(key, format!("{}.7", token.to_string_lossy()))
            .stdout(Stdio::piped())
            .spawn()
        else {
            println!("skipped: bash cannot be started");
            return;
        };
        let mut first_line = String::new();
        if let Some(mut out) = child.stdout.take() {
            let mut byte = [0u8; 1];
            while out.read(&mut byte).is_ok_and(|n| n == 1) && byte[0] != b'\n' {
                first_line.push(char::from(byte[0]));
            }
        }
        let _ = child.wait();
        let sid = first_line.trim().to_string();
        assert!(still_hopping(&sid, 1000), "the hopper runs ({sid:?})");
        // As when the runtime is dropped or killed: the pipe closes, the watchdog sweeps and exits.
        drop(reaper);
        assert!(!still_hopping(&sid, 3), "the hopper outlived the watchdog");
    }
}
