//! `bashrt mcp` on the wire, driven by hand where a client library would hide what matters: the
//! protocol versions it negotiates; that no command outlives the client — at the end of stdin, when
//! stdout breaks, when the client never reads stdout again, and when the server itself is SIGKILLed
//! (the runtime's reaper ends them then); and what a hostile client cannot do — get no answer with a
//! line that is not a message, or make the server hold answers it never reads without bound.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

const BASHRT: &str = env!("CARGO_BIN_EXE_bashrt");

/// How long a test waits for an event before it fails: far more than any of them takes, so that a
/// server that never does the thing fails the test rather than hanging it.
const DEADLINE: Duration = Duration::from_secs(120);

/// When a server still running is killed ([`watchdog`]): after any test's own deadline.
const WATCHDOG: Duration = Duration::from_secs(300);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
    _state: tempfile::TempDir,
}

impl Client {
    fn start() -> Self {
        Self::start_with(|_, _| {})
    }

    /// Starts `bashrt mcp` after `configure` saw its command and its state directory.
    fn start_with(configure: impl FnOnce(&mut Command, &std::path::Path)) -> Self {
        let state = tempfile::tempdir().unwrap();
        let mut command = Command::new(BASHRT);
        command
            .arg("mcp")
            .env("BASHRT_STATE_DIR", state.path())
            .env("HOME", state.path())
            .env_remove("BASHRT_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        configure(&mut command, state.path());
        let mut child = command.spawn().unwrap();
        watchdog(child.id());
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().map(BufReader::new);
        Self { child, stdin, stdout, _state: state }
    }

    fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// Writes `line` and a newline, whatever the bytes.
    fn send_raw(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
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
        assert!(text.contains("[1 background process still running, followed as job "), "{text}");
        text.lines().next().unwrap().strip_prefix("pid=").unwrap().parse().unwrap()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The deadline of a test: SIGKILLs the server `pid` if it still runs after [`WATCHDOG`], so that a
/// test waiting for an answer that never comes fails (the server closed stdout) instead of hanging.
/// Through a pidfd, so a reaped pid reused by another process is never hit.
fn watchdog(pid: u32) {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor the thread closes.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    assert!(fd >= 0, "pidfd_open: {}", std::io::Error::last_os_error());
    std::thread::spawn(move || {
        let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        let timeout = i32::try_from(WATCHDOG.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd; the descriptor is ours.
        if unsafe { libc::poll(&mut poll, 1, timeout) } == 0 {
            eprintln!("the server outlived the test's deadline: killing it");
            // SAFETY: the descriptor is ours; no siginfo, no flags.
            unsafe { libc::syscall(libc::SYS_pidfd_send_signal, fd, libc::SIGKILL, std::ptr::null::<u8>(), 0) };
        }
        // SAFETY: closing the descriptor pidfd_open gave us.
        unsafe { libc::close(fd) };
    });
}

/// Whether process `pid` exits within a minute (its pidfd turns readable: an event, not a poll loop).
fn gone(pid: i32) -> bool {
    exits_within(pid, Duration::from_secs(60))
}

/// Whether process `pid` exits (or is a zombie) within `deadline`, waiting on its pidfd.
fn exits_within(pid: i32, deadline: Duration) -> bool {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor we close below.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    if fd < 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    let timeout = i32::try_from(deadline.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: one valid pollfd; the descriptor is ours.
    let ready = unsafe { libc::poll(&mut poll, 1, timeout) };
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
        // The connection's own session kept nothing, so it left nothing behind.
        let sessions = client._state.path().join("sessions");
        assert_eq!(std::fs::read_dir(sessions).unwrap().count(), 0);
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

/// An error answer's `id`, `code` and `message`; the `id` member must be there (`null` when the
/// request's could not be read).
fn error_of(answer: &Value) -> (Value, i64, String) {
    assert!(answer.as_object().is_some_and(|a| a.contains_key("id")), "no id member: {answer}");
    let error = &answer["error"];
    (answer["id"].clone(), error["code"].as_i64().unwrap_or(0), error["message"].as_str().unwrap_or("").to_string())
}

#[test]
fn lines_that_are_not_messages_are_answered_with_their_id_and_the_server_keeps_serving() {
    let mut client = Client::start();
    client.initialize("2025-11-25");
    let request =
        |id: &str, params: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#);
    let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let deep = request("2", &format!(r#"{{"name":"bash","arguments":{{"command":"true","x":{nested}}}}}"#));
    let mut long = request("44", r#"{"name":"bash","arguments":{"command":"echo "}}"#);
    long.insert_str(long.len() - 4, &"x".repeat(bashrt_mcp::MAX_LINE_BYTES));
    let cases: Vec<(Vec<u8>, Value, i64, &str)> = vec![
        (
            request("1", r#"{"name":"bash","arguments":{"command":"true","timeout":1e999}}"#).into(),
            json!(1),
            -32700,
            "Parse error: number out of range at line 1 column 115",
        ),
        (
            request(r#""six""#, r#"{"name":"bash","arguments":{"command":"true","timeout":1e309}}"#).into(),
            json!("six"),
            -32700,
            "Parse error: number out of range at line 1 column 119",
        ),
        (deep.into(), json!(2), -32700, "Parse error: recursion limit exceeded at line 1 column 229"),
        (
            br#"{"jsonrpc":"2.0","id":3,"id":3,"method":"tools/list"}"#.to_vec(),
            json!(3),
            -32600,
            "Invalid request: unrecognized JSON-RPC message",
        ),
        (
            br#"{"jsonrpc":"2.0","id":3,"id":4,"method":"tools/list"}"#.to_vec(),
            Value::Null,
            -32600,
            "Invalid request: unrecognized JSON-RPC message",
        ),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","method":"tools/call"}"#.to_vec(),
            json!(7),
            -32600,
            "Invalid request: unrecognized JSON-RPC message",
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\"}}".to_vec(),
            json!(5),
            -32700,
            "Parse error: invalid unicode code point at line 1 column 62",
        ),
        (b"garbage".to_vec(), Value::Null, -32700, "Parse error: expected value at line 1 column 1"),
        (long.into(), json!(44), -32600, "Invalid request: longer than 16777216 bytes, the most one message may be"),
    ];
    for (line, id, code, message) in cases {
        client.send_raw(&line);
        let answer = client.receive();
        assert_eq!(
            error_of(&answer),
            (id, code, message.to_string()),
            "{}",
            String::from_utf8_lossy(&line[..line.len().min(200)])
        );
    }
    // A notification that is not one the server reads gets no answer (JSON-RPC answers none): the next
    // answer is the next request's, and the server still serves.
    client.send_raw(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#);
    client.send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "bash", "arguments": {"command": "echo still serving"}}}));
    let answer = client.receive();
    assert_eq!(answer["id"], 9, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "still serving\n");
    client.stdin = None;
    assert!(client.child.wait().unwrap().success());
}

/// A session directory holding artifact 1: 2 MiB of text, so that a `resources/read` of it answers
/// 1 MiB (the most one read answers).
fn with_large_artifact(command: &mut Command, state: &std::path::Path) {
    let artifacts = state.join("sessions/hostile/artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join("1.bash.log"), "0123456789abcde\n".repeat(128 * 1024)).unwrap();
    command.args(["--session", "hostile"]);
}

fn read_request(id: usize, pad: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
        "params": {"uri": "artifact://1", "_meta": {"pad": pad}}})
}

/// The server's peak resident memory (KiB) and its threads, from `/proc`.
fn peak_and_threads(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| -> u64 {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    (field("VmHWM:"), field("Threads:"))
}

enum Event {
    Log(String),
    AllWritten,
}

/// The most the server may hold at its peak while a client sends 200 reads of 1 MiB and reads none:
/// far below the 200 MiB that holding every answer takes, far above what the pending limits allow
/// (about 30 MiB in a debug build).
const PEAK_KIB: u64 = 128 * 1024;

/// The most threads: the runtime's, the reads allowed at once, a few more (about 12).
const THREADS: u64 = 32;

#[test]
fn a_client_that_never_reads_makes_the_server_hold_a_bounded_number_of_answers() {
    const REQUESTS: usize = 200;
    let mut client = Client::start_with(|command, state| {
        with_large_artifact(command, state);
        command.env("BASHRT_LOG", "bashrt_mcp=info").stderr(Stdio::piped());
    });
    let pid = client.child.id();
    let stderr = client.child.stderr.take().unwrap();
    client.initialize("2025-11-25");
    let (events, happened) = mpsc::channel();
    {
        let events = events.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = events.send(Event::Log(line));
            }
        });
    }
    // The requests, from a thread of their own: a server that stops reading them leaves it blocked on
    // the full pipe. 2 KB each, so that all of them are many times what the pipe holds.
    let mut stdin = client.stdin.take().unwrap();
    let pad = "p".repeat(2000);
    let writer = std::thread::spawn(move || {
        for id in 0..REQUESTS {
            writeln!(stdin, "{}", read_request(100 + id, &pad)).ok()?;
        }
        let _ = events.send(Event::AllWritten);
        Some(stdin)
    });
    // The server says it stopped reading; a server that reads every request although none of their
    // answers was read fails.
    loop {
        match happened.recv_timeout(DEADLINE) {
            Ok(Event::Log(line)) if line.contains("reading no more requests until it reads some") => break,
            Ok(Event::Log(_)) => {}
            Ok(Event::AllWritten) => {
                panic!("the server read all {REQUESTS} requests although the client read none of their answers")
            }
            Err(e) => panic!("the server neither stopped reading nor read everything: {e}"),
        }
    }
    let (peak, threads) = peak_and_threads(pid);
    assert!(peak < PEAK_KIB, "the server holds {peak} KiB for answers the client does not read");
    assert!(threads < THREADS, "the server runs {threads} threads for answers the client does not read");
    // The client reads after all: every answer comes, once, whole.
    let mut answered = [false; REQUESTS];
    for _ in 0..REQUESTS {
        let answer = client.receive();
        let id = answer["id"].as_u64().and_then(|id| usize::try_from(id).ok()).unwrap_or(0);
        assert!((100..100 + REQUESTS).contains(&id), "{}", &answer.to_string()[..200.min(answer.to_string().len())]);
        assert!(!std::mem::replace(&mut answered[id - 100], true), "answered twice: {id}");
        let contents = &answer["result"]["contents"][0];
        assert_eq!(contents["text"].as_str().map(str::len), Some(1024 * 1024), "answer {id}");
        assert_eq!(contents["_meta"]["truncated"], true, "answer {id}");
    }
    let stdin = writer.join().unwrap().expect("every request was written");
    let (peak, threads) = peak_and_threads(pid);
    assert!(peak < PEAK_KIB, "the server held {peak} KiB at its peak");
    assert!(threads < THREADS, "the server runs {threads} threads");
    drop(stdin);
    assert!(client.child.wait().unwrap().success());
}

#[test]
fn the_end_of_stdin_ends_the_server_even_when_stdout_is_never_read_again() {
    let mut client = Client::start_with(with_large_artifact);
    client.initialize("2025-11-25");
    let background = client.background_sleep(1);
    let running = client.start_sleep(2);
    // Answers the client never reads: more than the stdout pipe holds, and more reads than the server
    // takes before it waits for the client to read (the rest wait in the stdin pipe, before its end).
    // The client reads the start of the first answer and no more, so the server is writing when the
    // input ends, blocked on the full pipe.
    for id in 10..30 {
        client.send(read_request(id, ""));
    }
    let mut start = [0u8; 16];
    client.stdout.as_mut().unwrap().read_exact(&mut start).unwrap();
    assert_eq!(&start, br#"{"jsonrpc":"2.0""#);
    client.stdin = None;
    let pid = client.child.id() as i32;
    assert!(exits_within(pid, DEADLINE), "the server still runs after the end of its input, its stdout unread");
    assert!(client.child.wait().unwrap().success());
    assert!(gone(running), "the running command outlived the server");
    assert!(gone(background), "the background process outlived the server");
    // The client's end of stdout stayed open, unread, to the end.
    assert!(client.stdout.is_some());
}
