//! `bashrt rpc`: a tool call that yields — its end event carries the output so far and the job, the
//! `job` tool follows it, `job_end` tells how it ended, `get_state` lists it — and a server that comes
//! back as soon as it listens.

use crate::common::{fifo, release, Env};
use serde_json::{json, Value};

fn call(id: &str, call: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "type": "tool_call", "toolCallId": call, "name": name, "arguments": arguments})
}

fn text(event: &Value) -> String {
    event["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_call_that_yields_ends_with_its_job_and_the_job_tool_follows_it_to_its_end() {
    let env = Env::new();
    let gate = fifo(env.root.path(), "gate");
    let mut rpc = env.rpc(&["--set", "bash.yieldMs=300"], &[("GATE", &gate)]);
    rpc.send(call("c1", "call_1", "bash", json!({"command": "echo first; read x < \"$GATE\"; echo second"})));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    let shown = text(&end);
    assert!(shown.starts_with("first\n\n[Still running as job 1 ("), "{shown}");
    assert_eq!(end["isError"], false);
    assert_eq!(end["result"]["details"]["job"]["id"], 1);
    assert_eq!(end["result"]["details"]["job"]["state"], "running");

    rpc.send(json!({"id": "s1", "type": "get_state"}));
    let state = rpc.response("s1");
    assert_eq!(state["data"]["jobs"][0]["id"], 1, "{state}");
    assert_eq!(state["data"]["runningToolCalls"], json!([]), "a yielded call is a job, not a running call");

    rpc.send(call("w1", "wait_1", "job", json!({"action": "wait", "id": 1})));
    release(&gate);
    let (_, waited) = rpc.tool_event("tool_execution_end", "wait_1");
    assert_eq!(waited["toolName"], "job");
    let shown = text(&waited);
    assert!(shown.starts_with("second\n\n[Job 1 exited with code 0 after "), "{shown}");
    let (_, job_end) = rpc.wait_for("job_end", |v| v["type"] == "job_end");
    assert_eq!((job_end["jobId"].clone(), job_end["toolCallId"].clone()), (json!(1), json!("call_1")));
    assert_eq!(job_end["result"]["content"][0]["text"], "first\nsecond\n");
    assert_eq!(job_end["result"]["details"]["exitCode"], 0);
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_server_comes_back_when_it_listens_and_dies_with_the_rpc_server() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let server = "exec python3 -u -m http.server 0 --bind 127.0.0.1";
    rpc.send(call("c1", "call_1", "bash", json!({"command": server, "yield_ms": 3_000_000})));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    let job = &end["result"]["details"]["job"];
    assert_eq!(job["state"], "listening", "{end}");
    // The first look that found it listening told the client too.
    let (_, state) = rpc.wait_for("job_state", |v| v["type"] == "job_state");
    assert_eq!((state["job"]["id"].clone(), state["job"]["state"].clone()), (json!(1), json!("listening")));
    let address = job["listening"][0].as_str().unwrap().to_string();
    assert!(text(&end).contains(&format!("[Still running as job 1, listening on {address} (")), "{}", text(&end));
    let pid_line = std::net::TcpStream::connect(&address);
    assert!(pid_line.is_ok(), "the server answers at {address}");
    // The RPC server's end kills its jobs: the port closes.
    assert_eq!(rpc.finish(), 0);
    assert!(std::net::TcpStream::connect(&address).is_err(), "{address} still answers");
}

#[test]
fn job_calls_name_the_jobs_and_refuse_bad_arguments() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(call("l1", "list_1", "job", json!({})));
    let (_, listed) = rpc.tool_event("tool_execution_end", "list_1");
    assert_eq!(text(&listed), "(no jobs)");
    rpc.send(call("k1", "kill_1", "job", json!({"action": "kill", "id": 4})));
    let (_, killed) = rpc.tool_event("tool_execution_end", "kill_1");
    assert_eq!(killed["isError"], true);
    assert!(text(&killed).starts_with("No job 4. No job has been started in this session"), "{}", text(&killed));
    rpc.send(call("b1", "bad_1", "job", json!({"action": "wait", "id": 1, "until": "("})));
    let refused = rpc.response("b1");
    assert_eq!(refused["success"], false);
    let error = refused["error"].as_str().unwrap();
    assert!(error.starts_with("Invalid arguments for tool job: `until` is not a valid regular expression"), "{error}");
    assert_eq!(rpc.finish(), 0);
}

/// A client that stops reading fills the server's output pipe; a call that yields then must still be
/// killed at its own deadline: the yield's end is written by another thread than the command's.
#[test]
fn a_client_that_stops_reading_does_not_hold_a_yielded_job_past_its_deadline() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let env = Env::new();
    let pids = fifo(env.root.path(), "pids");
    let mut server = env.cmd();
    server.arg("rpc").env("PIDS", &pids).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = server.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut send = |request: Value| {
        stdin.write_all(format!("{request}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    // The job first (its acceptance goes out while the pipe has room), then output nobody reads.
    let command = "echo $$ > \"$PIDS\"; exec sleep 300";
    send(call("c1", "call_1", "bash", json!({"command": command, "yield_ms": 1000, "timeout": 3})));
    for n in 0..4 {
        send(call(&format!("f{n}"), &format!("fill_{n}"), "bash", json!({"command": "seq 1 200000"})));
    }
    let mut pid = String::new();
    std::fs::File::open(&pids).unwrap().read_to_string(&mut pid).unwrap();
    let pid: i32 = pid.trim().parse().unwrap();
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    assert!(fd >= 0, "the job's process is there");
    // SAFETY: a descriptor the kernel just returned, owned by nobody else.
    let fd = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd as i32) };
    let mut fds = [nix::poll::PollFd::new(std::os::fd::AsFd::as_fd(&fd), nix::poll::PollFlags::POLLIN)];
    // Generous: the deadline is 3 s; a job held by the blocked write would live its whole 300 s.
    let ready = nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(60_000u16)).unwrap();
    assert_eq!(ready, 1, "the yielded job outlived its deadline while the client did not read");
    drop(stdin);
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    assert!(child.wait().unwrap().success());
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(r#""type":"job_end","jobId":1"#), "the job's end is written once the client reads");
}

#[test]
fn a_terminal_job_answers_a_pager_with_keys_and_job_state_tells_it_waits() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(call("c1", "call_1", "bash", json!({"command": "seq 100 | less", "stdin": "pty", "yield_ms": 3_000_000})));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    let job = &end["result"]["details"]["job"];
    assert_eq!((job["state"].clone(), job["terminal"].clone()), (json!("awaitingInput"), json!(true)), "{end}");
    assert_eq!(job["prompt"]["kind"], "pager", "{end}");
    assert!(text(&end).starts_with("1\n2\n3\n"), "{}", text(&end));
    rpc.send(call("k1", "keys_1", "job", json!({"action": "keys", "id": 1, "keys": ["q"]})));
    let (_, quit) = rpc.tool_event("tool_execution_end", "keys_1");
    assert!(text(&quit).contains("[Job 1 exited with code 0 after "), "{}", text(&quit));
    // A key name bashrt does not know is refused before anything is typed.
    rpc.send(call("k2", "keys_2", "job", json!({"action": "write", "id": 1, "keys": ["Hyper"]})));
    let refused = rpc.response("k2");
    assert_eq!(refused["success"], false, "{refused}");
    assert!(refused["error"].as_str().unwrap_or_default().contains("`keys` has \"Hyper\", not a key"), "{refused}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn an_answer_to_a_secret_prompt_is_in_no_event_and_no_output() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let command = "read -r -s -p 'Code: ' c; echo; echo \"got ${#c}\"";
    rpc.send(call("c1", "call_1", "bash", json!({"command": command, "stdin": "pty", "yield_ms": 3_000_000})));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    assert_eq!(end["result"]["details"]["job"]["prompt"]["secret"], true, "{end}");
    rpc.send(call("w1", "write_1", "job", json!({"action": "write", "id": 1, "input": "hunter2\n"})));
    let (_, start) = rpc.tool_event("tool_execution_start", "write_1");
    assert_eq!(start["args"]["input"], "[secret: not repeated]", "{start}");
    let (_, answered) = rpc.tool_event("tool_execution_end", "write_1");
    assert!(text(&answered).contains("got 7"), "{}", text(&answered));
    rpc.wait_for("the job's end", |v| v["type"] == "job_end");
    assert_eq!(rpc.finish(), 0);
    let leaked: Vec<&String> = rpc.raw.iter().filter(|line| line.contains("hunter2")).collect();
    assert!(leaked.is_empty(), "the secret in events: {leaked:?}");
}
