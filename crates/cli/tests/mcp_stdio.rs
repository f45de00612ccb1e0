//! `bashrt mcp` on the wire, driven by hand where a client library would hide what matters: the
//! protocol versions it negotiates, and that no command outlives the client — at the end of stdin, when
//! stdout breaks, and when the server itself is SIGKILLed (the runtime's reaper ends them then).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

const BASHRT: &str = env!("CARGO_BIN_EXE_bashrt");

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
    _state: tempfile::TempDir,
}

impl Client {
    fn start() -> Self {
        let state = tempfile::tempdir().unwrap();
        let mut child = Command::new(BASHRT)
            .arg("mcp")
            .env("BASHRT_STATE_DIR", state.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().map(BufReader::new);
        Self { child, stdin, stdout, _state: state }
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message; every line on stdout must be one JSON-RPC message.
    fn receive(&mut self) -> Value {
        let mut line = String::new();
        assert!(self.stdout.as_mut().unwrap().read_line(&mut line).unwrap() > 0, "the server closed stdout");
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        message
    }

    fn initialize(&mut self, version: &str) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}));
        let answer = self.receive();
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }

    /// Starts `sleep 60` as a call with a progress token; returns its pid once the output says it.
    fn start_sleep(&mut self, id: u64) -> i32 {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "bash", "arguments": {"command": "sleep 60 & echo pid=$!; wait"},
            "_meta": {"progressToken": format!("p{id}")}}}));
        loop {
            let message = self.receive();
            if message["method"] == "notifications/progress" {
                let text = message["params"]["message"].as_str().unwrap_or("");
                if let Some(pid) = text.strip_prefix("pid=") {
                    return pid.trim().parse().unwrap();
                }
            }
        }
    }

    /// Starts `sleep 120` in the background; returns its pid from the call's answer.
    fn background_sleep(&mut self, id: u64) -> i32 {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "bash", "arguments": {"command": "sleep 120 & echo pid=$!"}}}));
        let answer = self.receive();
        assert_eq!(answer["id"], id, "{answer}");
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("[1 background process still running]"), "{text}");
        text.lines().next().unwrap().strip_prefix("pid=").unwrap().parse().unwrap()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether process `pid` exits within a minute (its pidfd turns readable: an event, not a poll loop).
fn gone(pid: i32) -> bool {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor we close below.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    if fd < 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd; the descriptor is ours.
    let ready = unsafe { libc::poll(&mut poll, 1, 60_000) };
    // SAFETY: closing the descriptor pidfd_open gave us.
    unsafe { libc::close(fd) };
    ready == 1
}

#[test]
fn protocol_versions_2025_06_18_and_2025_11_25_are_negotiated() {
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = Client::start();
        let answer = client.initialize(version);
        assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
        assert_eq!(answer["result"]["serverInfo"]["name"], "bashrt");
        assert_eq!(answer["result"]["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        client.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        assert_eq!(client.receive()["result"]["tools"][0]["name"], "bash");
        client.stdin = None;
        assert!(client.child.wait().unwrap().success());
    }
}

#[test]
fn end_of_stdin_ends_running_commands_and_the_server() {
    let mut client = Client::start();
    client.initialize("2025-11-25");
    let background = client.background_sleep(1);
    let running = client.start_sleep(2);
    client.stdin = None;
    assert!(client.child.wait().unwrap().success());
    assert!(gone(running), "the running command outlived the client");
    assert!(gone(background), "the background process outlived the client");
}

#[test]
fn a_broken_stdout_ends_running_commands_and_the_server() {
    let mut client = Client::start();
    client.initialize("2025-11-25");
    // The command keeps printing, so the server keeps writing progress into the closed pipe.
    client.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "bash", "arguments": {"command": "sleep 60 & echo pid=$!; while :; do echo tick; sleep 0.05; done"},
        "_meta": {"progressToken": "p"}}}));
    let pid = loop {
        let message = client.receive();
        let text = message["params"]["message"].as_str().unwrap_or("").to_string();
        if let Some(pid) = text.lines().find_map(|l| l.strip_prefix("pid=")) {
            break pid.parse::<i32>().unwrap();
        }
    };
    client.stdout = None;
    assert!(client.child.wait().unwrap().success());
    assert!(gone(pid), "the command outlived the client");
}

#[test]
fn sigkill_of_the_server_leaves_no_process() {
    let mut client = Client::start();
    client.initialize("2025-06-18");
    let background = client.background_sleep(1);
    let running = client.start_sleep(2);
    client.child.kill().unwrap();
    client.child.wait().unwrap();
    assert!(gone(running), "the running command outlived the SIGKILLed server");
    assert!(gone(background), "the background process outlived the SIGKILLed server");
}
