//! Helpers shared by the `exec_*` and `shell_*` areas of the test binary (`crate::support`; no tests
//! of its own).

use std::path::{Path, PathBuf};
use std::time::Duration;

use bashrt_core::{CancelToken, CwdMode, ExecRequest, Execution, Executor, Flow, OneShotExecutor, ShellPool};

pub const BASH: &str = "/bin/bash";
/// Long enough never to fire in a test that expects the command to end by itself.
pub const NO_TIMEOUT: Duration = Duration::from_secs(60);

/// Where the commands of these tests run: a directory in the build's own scratch space (which only
/// the user who builds owns), never the shared temp dir.
pub fn work_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("work");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn request(script: &str, timeout: Duration) -> ExecRequest {
    ExecRequest::new(BASH, script, work_dir(), timeout)
}

/// Runs `script` to the end, collecting all output.
pub fn run(script: &str) -> (Execution, String) {
    run_request(&request(script, NO_TIMEOUT))
}

pub fn run_request(req: &ExecRequest) -> (Execution, String) {
    run_on(&OneShotExecutor, req)
}

/// Runs `req` on `executor` to the end, collecting all output.
pub fn run_on(executor: &dyn Executor, req: &ExecRequest) -> (Execution, String) {
    run_watching(executor, req, &CancelToken::new().unwrap(), |_| {})
}

/// Runs `req`, calling `on_line` with each complete line as it arrives: the way a test learns pids
/// and acts (kills, cancels, releases a FIFO) while the command runs.
pub fn run_watching(
    executor: &dyn Executor,
    req: &ExecRequest,
    cancel: &CancelToken,
    mut on_line: impl FnMut(&str),
) -> (Execution, String) {
    let mut output = Vec::new();
    let mut collect = |chunk: &[u8]| {
        let complete_before = output.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        output.extend_from_slice(chunk);
        let complete_now = output.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        for line in String::from_utf8_lossy(&output[complete_before..complete_now]).lines() {
            on_line(line);
        }
        Flow::Continue
    };
    let execution = executor.execute(req, &mut collect, cancel).unwrap();
    (execution, String::from_utf8(output).unwrap())
}

/// A request for the long-lived shells: `session` keys the shell (`None`: the tool calls' shell).
pub fn shell_request(session: Option<&str>, script: &str) -> ExecRequest {
    let mut req = ExecRequest::new(BASH, script, work_dir(), NO_TIMEOUT);
    req.session = session.map(str::to_string);
    req
}

/// Runs `script` in the pool's shell of `session`.
pub fn in_shell(pool: &ShellPool, session: Option<&str>, script: &str) -> (Execution, String) {
    run_on(pool, &shell_request(session, script))
}

/// The first number printed, e.g. a `$$` or `$!`.
pub fn first_pid(output: &str) -> i32 {
    *pids_in(output).first().unwrap_or_else(|| panic!("no pid in {output:?}"))
}

/// A FIFO in a fresh private directory: a test and a command meet on it without timing assumptions.
pub struct Fifo {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Fifo {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fifo");
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
        Self { _dir: dir, path }
    }

    /// Shell-quoted path, for use inside a script.
    pub fn arg(&self) -> String {
        format!("'{}'", self.path.display())
    }

    /// Opens for writing (blocks until the command opens it for reading) and writes a line.
    pub fn release(&self) {
        std::fs::write(&self.path, b"go\n").unwrap();
    }
}

/// Alive = has a `/proc` entry and is not a zombie (a zombie has exited; only its parent or init
/// still has to collect its status).
pub fn is_alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let after_comm = &stat[stat.rfind(')').unwrap() + 1..];
    !matches!(after_comm.split_whitespace().next(), Some("Z" | "X"))
}

/// Every line of `output` that is a number.
pub fn pids_in(output: &str) -> Vec<i32> {
    output.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// Cleanup for processes a test deliberately leaves running.
pub fn kill_now(pid: i32) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
}

/// Every pid is dead (zombies count as dead); `context` says where they came from.
pub fn assert_all_dead(pids: &[i32], context: &str) {
    assert!(!pids.is_empty(), "no pids: {context:?}");
    for &pid in pids {
        assert!(!is_alive(pid), "pid {pid} survived: {context:?}");
    }
}

/// A session (`"s"`, cwd kept between calls) in a fresh directory whose first call was `cd sub`;
/// returns the directory and the request to reuse for the next calls.
pub fn session_in_sub(pool: &ShellPool) -> (tempfile::TempDir, ExecRequest) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let mut req = shell_request(Some("s"), "cd sub");
    req.cwd = dir.path().to_path_buf();
    req.cwd_mode = CwdMode::Persist;
    run_on(pool, &req);
    (dir, req)
}

/// A process that forks and exits about every millisecond, each generation a new pid, in a new
/// session so that no group of the shell holds it. It prints its session id first.
pub const HOPPER: &str = "setsid -f sh -c 'echo $$; f() { (sleep 0.001; f) & }; f'";

/// Every process of session `sid` that `/proc` lists, zombies included: a generation of a hopper
/// lives a few milliseconds, too short to be caught alive by a scan, but it leaves a new pid.
pub fn session_pids(sid: i32) -> std::collections::HashSet<i32> {
    let mut pids = std::collections::HashSet::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 1..].split_whitespace().collect();
        if fields.get(3) == Some(&sid.to_string().as_str()) {
            pids.insert(pid);
        }
    }
    pids
}

/// Whether session `sid` still makes new processes: up to `scans` scans, until one sees a pid the
/// first did not.
pub fn still_hopping(sid: i32, scans: usize) -> bool {
    let first = session_pids(sid);
    (0..scans).any(|_| session_pids(sid).difference(&first).next().is_some())
}

/// The name libtest gives the test function `name` of the module whose `module_path!()` is `module`:
/// the module's path in the test binary without the crate, then the function (`shell_lifecycle::f`).
/// For a test that runs itself again, alone, in a process of its own (`--exact`).
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    }
}
