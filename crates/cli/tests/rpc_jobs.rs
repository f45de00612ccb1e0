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
