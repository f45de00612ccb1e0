//! Helpers for driving the real `bashrt` binary against real bash, shared by the areas of the test
//! binary (`crate::common`).

pub mod npm;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The switch of the slow tests: they run when it is `1` (`.ci/run` and the README's test command set
/// it), and otherwise say that they were skipped, why, and how to run them.
pub const SLOW_TESTS: &str = "BASHRT_SLOW_TESTS";

/// Whether a slow test runs (`BASHRT_SLOW_TESTS=1`); `why` says what makes it slow. A slow test starts
/// with `if !common::slow("…") { return; }`. A test skipped here still counts as passed for libtest,
/// so this says so where it is seen: on the terminal, past libtest's capture of the test's output
/// (which shows it only for a failure), with the test's name and the way to run it.
#[must_use]
pub fn slow(why: &str) -> bool {
    if std::env::var_os(SLOW_TESTS).is_some_and(|v| v == "1") {
        return true;
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a slow test");
    // `std::io::stderr()` itself, not `eprintln!`: libtest captures only the print macros.
    let _ = writeln!(std::io::stderr().lock(), "skipped {test}: slow ({why}); {SLOW_TESTS}=1 runs it");
    false
}

/// An isolated environment: its own state dir, config dir and working directory.
pub struct Env {
    pub root: tempfile::TempDir,
}

impl Default for Env {
    fn default() -> Self {
        Self::new()
    }
}

impl Env {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("work")).unwrap();
        std::fs::create_dir_all(root.path().join("home")).unwrap();
        std::fs::create_dir_all(root.path().join("tmp")).unwrap();
        Self { root }
    }

    /// HOME of the commands: the user's own rc files never leak into a test.
    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    pub fn state(&self) -> PathBuf {
        self.root.path().join("state")
    }

    pub fn cmd(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_bashrt"));
        cmd.current_dir(self.work())
            .env("BASHRT_STATE_DIR", self.state())
            .env("XDG_CONFIG_HOME", self.root.path().join("config"))
            .env("HOME", self.home())
            .env("TMPDIR", self.root.path().join("tmp"))
            .env_remove("BASHRT_SETTINGS")
            .env_remove("BASHRT_LOG");
        cmd
    }

    /// `bashrt run <extra..> -- <command>`
    pub fn run(&self, extra: &[&str], command: &str) -> Output {
        let mut cmd = self.cmd();
        cmd.arg("run").args(extra).arg("--").arg(command);
        cmd.output().unwrap()
    }

    /// `bashrt run --json ...`, parsed.
    pub fn run_json(&self, extra: &[&str], command: &str) -> (Value, i32) {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        let out = self.run(&args, command);
        let text = String::from_utf8(out.stdout).unwrap();
        let value: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text}\nstderr: {}", String::from_utf8_lossy(&out.stderr)));
        (value, out.status.code().unwrap_or(-1))
    }

    pub fn artifact_path(&self, session: &str, id: u64) -> PathBuf {
        self.state().join("sessions").join(session).join("artifacts").join(format!("{id}.bash.log"))
    }

    /// The implicit session of `work()`.
    pub fn session_name(&self) -> String {
        bashrt_core::SessionName::for_cwd(&self.work()).as_str().to_string()
    }
}

pub fn text(v: &Value) -> String {
    v["content"][0]["text"].as_str().unwrap().to_string()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether a process exists and is not a zombie (a zombie is dead; only its parent has not reaped it).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
            !matches!(state, Some('Z') | Some('X') | None)
        }
        Err(_) => false,
    }
}

/// Makes a FIFO the command can write pids to; reading it is how tests learn pids without sleeping.
pub fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    path
}

/// A running `bashrt rpc` server: requests go to its stdin; every stdout line is parsed as JSON (a line
/// that is not JSON fails the test: stdout belongs to the protocol) and kept, in order, in `history`.
pub struct Rpc {
    pub child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Result<(Value, String), String>>,
    /// Every line received so far, in arrival order.
    pub history: Vec<Value>,
    /// The same lines as the server wrote them.
    pub raw: Vec<String>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    /// Gets a message when the server's stderr reached its end (all of it is in `stderr`).
    stderr_done: std::sync::mpsc::Receiver<()>,
    closed: bool,
}

/// Guards against a hang only; no test asserts on time.
const HANG_GUARD: std::time::Duration = std::time::Duration::from_secs(120);

impl Env {
    /// `bashrt rpc <args..>` in `work()`, with `PIDS`/`GATE` style variables from `vars`.
    pub fn rpc(&self, args: &[&str], vars: &[(&str, &Path)]) -> Rpc {
        self.rpc_with(args, vars, |_| {})
    }

    /// [`Env::rpc`], the command adjusted first by `adjust` (how the server is started).
    pub fn rpc_with(&self, args: &[&str], vars: &[(&str, &Path)], adjust: impl FnOnce(&mut Command)) -> Rpc {
        use std::io::{BufRead, Read};
        use std::process::Stdio;
        let mut cmd = self.cmd();
        cmd.arg("rpc").args(args);
        for (name, value) in vars {
            cmd.env(name, value);
        }
        adjust(&mut cmd);
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let parsed = match serde_json::from_str::<Value>(&line) {
                    Ok(value) => Ok((value, line)),
                    Err(e) => Err(format!("not JSON ({e}): {line}")),
                };
                if send.send(parsed).is_err() {
                    break;
                }
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        let (done, stderr_done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            sink.lock().unwrap().push_str(&text);
            let _ = done.send(());
        });
        Rpc { child, stdin, lines, history: Vec::new(), raw: Vec::new(), stderr, stderr_done, closed: false }
    }
}

impl Rpc {
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Writes one request line.
    pub fn send(&mut self, request: Value) {
        let mut line = serde_json::to_vec(&request).unwrap();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// Writes raw bytes (no newline added).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the server's stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for one more line; false once stdout is closed.
    pub fn read_one(&mut self) -> bool {
        self.read_line().is_some()
    }

    /// Reads one more line; `None` once stdout is closed.
    fn read_line(&mut self) -> Option<Value> {
        if self.closed {
            return None;
        }
        match self.lines.recv_timeout(HANG_GUARD) {
            Ok(Ok((value, line))) => {
                self.raw.push(line);
                self.history.push(value.clone());
                Some(value)
            }
            Ok(Err(e)) => panic!("{e}"),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                self.closed = true;
                None
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                panic!("no output for {HANG_GUARD:?}; history: {:#?}\nstderr: {}", self.history, self.stderr())
            }
        }
    }

    /// The first line (already received or still to come) that `pred` accepts, with its index in
    /// `history`.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> (usize, Value) {
        if let Some(i) = self.history.iter().position(&pred) {
            return (i, self.history[i].clone());
        }
        loop {
            match self.read_line() {
                Some(value) if pred(&value) => return (self.history.len() - 1, value),
                Some(_) => {}
                None => panic!("output ended before {what}; history: {:#?}\nstderr: {}", self.history, self.stderr()),
            }
        }
    }

    /// The response to request `id`.
    pub fn response(&mut self, id: &str) -> Value {
        self.wait_for(&format!("response {id}"), |v| v["type"] == "response" && v["id"] == id).1
    }

    /// Index in `history` of the response to request `id`.
    pub fn response_index(&mut self, id: &str) -> usize {
        self.wait_for(&format!("response {id}"), |v| v["type"] == "response" && v["id"] == id).0
    }

    /// The tool event `kind` (`tool_execution_end`, ...) of a tool call.
    pub fn tool_event(&mut self, kind: &str, call: &str) -> (usize, Value) {
        self.wait_for(&format!("{kind} of {call}"), |v| v["type"] == kind && v["toolCallId"] == call)
    }

    /// All `bash_update` text of request `id` received so far.
    pub fn bash_output(&self, id: &str) -> String {
        self.history
            .iter()
            .filter(|v| v["type"] == "bash_update" && v["id"] == id)
            .map(|v| v["chunk"].as_str().unwrap())
            .collect()
    }

    /// Waits until the live output of `bash` request `id` has a whole line `<prefix><number>`; returns
    /// the number (a pid the command printed).
    pub fn wait_for_number(&mut self, id: &str, prefix: &str) -> i32 {
        loop {
            let text = self.bash_output(id);
            if let Some(n) = number_after(&text, prefix) {
                return n;
            }
            if self.read_line().is_none() {
                panic!("output ended before {prefix} of {id}; history: {:#?}", self.history);
            }
        }
    }

    /// Waits for a tool call's update showing a whole line `<prefix><number>`; returns the number.
    pub fn wait_for_tool_number(&mut self, call: &str, prefix: &str) -> i32 {
        let (_, update) = self.wait_for(&format!("{prefix} in {call}"), |v| {
            v["type"] == "tool_execution_update"
                && v["toolCallId"] == call
                && number_after(v["partialResult"]["content"][0]["text"].as_str().unwrap_or(""), prefix).is_some()
        });
        number_after(update["partialResult"]["content"][0]["text"].as_str().unwrap(), prefix).unwrap()
    }

    /// Closes stdin, reads stdout to its end and waits for the exit; returns the exit code.
    pub fn finish(&mut self) -> i32 {
        self.close_stdin();
        self.wait_exit()
    }

    /// Reads stdout to its end and waits for the exit; returns the exit code.
    pub fn wait_exit(&mut self) -> i32 {
        while self.read_line().is_some() {}
        let code = self.child.wait().unwrap().code().unwrap_or(-1);
        // The stderr reader may still be taking the last of it in: `stderr()` after this is whole.
        let _ = self.stderr_done.recv_timeout(HANG_GUARD);
        code
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Rpc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The number of the first whole line `<prefix><number>` in `text`.
pub fn number_after(text: &str, prefix: &str) -> Option<i32> {
    let start = text.find(prefix)? + prefix.len();
    let rest = &text[start..];
    let end = rest.find('\n')?;
    rest[..end].trim().parse().ok()
}

/// Opens a FIFO for writing (blocks until the command opens it for reading) and writes one line.
pub fn release(gate: &Path) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().write(true).open(gate).unwrap();
    file.write_all(b"go\n").unwrap();
}

/// Waits for a process that is not our child to die, without sleeping: pidfd_open + poll.
pub fn wait_until_dead(pid: i32) {
    use std::os::fd::{AsFd, FromRawFd, OwnedFd};
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return; // already gone
    }
    // SAFETY: a descriptor the kernel just returned, owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    let mut fds = [nix::poll::PollFd::new(fd.as_fd(), nix::poll::PollFlags::POLLIN)];
    // Bounded only so a regression fails instead of hanging CI; the reaper normally takes milliseconds.
    let ready = nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(60_000u16)).unwrap();
    assert_eq!(ready, 1, "pid {pid} outlived the SIGKILLed runtime");
}

/// Bytes of the files under `path`; what vanishes while it is walked counts as nothing.
pub fn tree_bytes(path: &Path) -> u64 {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            std::fs::read_dir(path).map(|entries| entries.flatten().map(|e| tree_bytes(&e.path())).sum()).unwrap_or(0)
        }
        Ok(meta) => meta.len(),
        Err(_) => 0,
    }
}

/// Whether `condition` came true, checked every few milliseconds, for a state the kernel announces to
/// nobody but the process concerned (a zombie reaped by its parent). Bounded only so that a
/// regression fails instead of hanging CI.
pub fn until(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    condition()
}
