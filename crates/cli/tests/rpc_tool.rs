//! `bashrt rpc`: tool calls — event order, live updates, abort by id, concurrency, interception and
//! argument errors.

use crate::common::{alive, fifo, release, Env};
use serde_json::{json, Value};

fn tool_call(id: &str, call: &str, arguments: Value) -> Value {
    json!({"id": id, "type": "tool_call", "toolCallId": call, "name": "bash", "arguments": arguments})
}

#[test]
fn a_tool_call_is_accepted_then_starts_updates_and_ends() {
    let env = Env::new();
    let gate = fifo(env.root.path(), "gate");
    let mut rpc = env.rpc(&[], &[("GATE", &gate)]);
    let args = json!({"command": "echo first; read x < \"$GATE\"; echo second"});
    rpc.send(tool_call("c1", "call_1", args.clone()));
    let accepted = rpc.response_index("c1");
    assert_eq!(rpc.history[accepted], json!({"id":"c1","type":"response","command":"tool_call","success":true}));
    let (start, start_event) = rpc.tool_event("tool_execution_start", "call_1");
    assert_eq!(start_event, json!({"type":"tool_execution_start","toolCallId":"call_1","toolName":"bash","args":args}));
    let (update, update_event) = rpc.wait_for("an update with the first line", |v| {
        v["type"] == "tool_execution_update" && v["partialResult"]["content"][0]["text"] == "first\n"
    });
    assert_eq!(update_event["toolName"], "bash");
    assert_eq!(update_event["args"], args);
    assert_eq!(update_event["partialResult"]["content"][0]["type"], "text");
    assert_eq!(update_event["partialResult"]["details"], json!({}));
    release(&gate);
    let (end, end_event) = rpc.tool_event("tool_execution_end", "call_1");
    assert!(accepted < start && start < update && update < end, "{:#?}", rpc.history);
    assert_eq!(end_event["isError"], false);
    assert_eq!(end_event["toolName"], "bash");
    assert_eq!(end_event["result"]["isError"], false);
    assert_eq!(end_event["result"]["content"][0]["text"], "first\nsecond\n");
    assert_eq!(end_event["result"]["details"]["exitCode"], 0);
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn abort_ends_one_tool_call_by_id_and_leaves_the_other_running() {
    let env = Env::new();
    let gate = fifo(env.root.path(), "gate");
    let mut rpc = env.rpc(&[], &[("GATE", &gate)]);
    rpc.send(tool_call("c1", "call_1", json!({"command": "sleep 100 & echo pid:$!; wait"})));
    rpc.send(tool_call("c2", "call_2", json!({"command": "read x < \"$GATE\"; echo done $x"})));
    let pid = rpc.wait_for_tool_number("call_1", "pid:");
    assert!(alive(pid));
    rpc.send(json!({"id":"a1","type":"abort","toolCallId":"call_1"}));
    assert_eq!(rpc.response("a1"), json!({"id":"a1","type":"response","command":"abort","success":true}));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    assert_eq!(end["isError"], true);
    assert_eq!(end["result"]["details"]["cancelled"], true);
    assert_eq!(end["result"]["details"]["failure"], "abort");
    assert!(!alive(pid), "the aborted call's process {pid} survived");
    // The id is free once the end event is out: aborting it again is an error.
    rpc.send(json!({"id":"a2","type":"abort","toolCallId":"call_1"}));
    let again = rpc.response("a2");
    assert_eq!(
        (again["success"].as_bool(), again["error"].as_str()),
        (Some(false), Some("no running tool call call_1"))
    );
    release(&gate);
    let (_, end) = rpc.tool_event("tool_execution_end", "call_2");
    assert_eq!(end["isError"], false);
    assert_eq!(end["result"]["content"][0]["text"], "done go\n");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn two_tool_calls_run_at_once_and_end_in_the_order_they_finish() {
    let env = Env::new();
    let (gate1, gate2) = (fifo(env.root.path(), "gate1"), fifo(env.root.path(), "gate2"));
    let mut rpc = env.rpc(&[], &[("GATE1", &gate1), ("GATE2", &gate2)]);
    rpc.send(tool_call("c1", "call_1", json!({"command": "read x < \"$GATE1\"; echo one"})));
    rpc.send(tool_call("c2", "call_2", json!({"command": "read x < \"$GATE2\"; echo two"})));
    // The second call finishes while the first still waits.
    release(&gate2);
    let (second, end2) = rpc.tool_event("tool_execution_end", "call_2");
    assert_eq!(end2["result"]["content"][0]["text"], "two\n");
    release(&gate1);
    let (first, end1) = rpc.tool_event("tool_execution_end", "call_1");
    assert_eq!(end1["result"]["content"][0]["text"], "one\n");
    assert!(second < first);
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_tool_calls_output_spills_into_its_sessions_artifacts() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let mut request = tool_call("c1", "call_1", json!({"command": "seq 30000"}));
    request["sessionId"] = json!("tools");
    rpc.send(request);
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    assert_eq!(end["result"]["details"]["meta"]["truncation"]["artifactId"], 1, "{end}");
    assert!(end["result"]["content"][0]["text"].as_str().unwrap().ends_with("Full: artifact://1]"));
    assert!(env.artifact_path("tools", 1).is_file());
    assert!(!env.artifact_path(&env.session_name(), 1).exists());
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn interception_blocks_cat_when_the_client_has_a_read_tool() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let mut request = tool_call("c1", "call_1", json!({"command": "cat x"}));
    request["toolNames"] = json!(["read"]);
    rpc.send(request);
    assert_eq!(rpc.response("c1")["success"], true);
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    assert_eq!(end["isError"], true);
    assert_eq!(end["result"]["details"]["interception"]["suggestedTool"], "read", "{end}");
    assert!(end["result"]["content"][0]["text"].as_str().unwrap().starts_with("Blocked: Use the `read` tool"));
    // Without a read tool, the same command runs.
    rpc.send(tool_call("c2", "call_2", json!({"command": "cat x"})));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_2");
    assert!(end["result"]["details"].get("interception").is_none(), "{end}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn bad_tool_calls_get_error_responses_naming_the_problem() {
    let env = Env::new();
    let gate = fifo(env.root.path(), "gate");
    let mut rpc = env.rpc(&[], &[("GATE", &gate)]);
    let cases = [
        (
            tool_call("e1", "x1", json!({"timeout": 5})),
            "Invalid arguments for tool bash: `command` is required (the command to run)",
        ),
        (
            tool_call("e2", "x2", json!({"command": 5})),
            "Invalid arguments for tool bash: `command` must be a string, got 5",
        ),
        (
            tool_call("e3", "x3", json!({"command": "ls", "timeout": "soon"})),
            "Invalid arguments for tool bash: `timeout` must be a number of seconds, got \"soon\"",
        ),
        (
            json!({"id":"e4","type":"tool_call","toolCallId":"x4","name":"python","arguments":{"command":"ls"}}),
            "Unknown tool: python (this server runs: bash, job)",
        ),
        (
            json!({"id":"e5","type":"tool_call","name":"bash","arguments":{"command":"ls"}}),
            "invalid tool_call command: missing field `toolCallId`",
        ),
    ];
    for (request, _) in &cases {
        rpc.send(request.clone());
    }
    for (request, error) in &cases {
        let response = rpc.response(request["id"].as_str().unwrap());
        assert_eq!(response["command"], "tool_call");
        assert_eq!(response["success"], false);
        assert!(response["error"].as_str().unwrap().starts_with(error), "{response}");
    }
    // An id that is still running cannot be used twice.
    rpc.send(tool_call("d1", "same", json!({"command": "read x < \"$GATE\""})));
    assert_eq!(rpc.response("d1")["success"], true);
    rpc.send(tool_call("d2", "same", json!({"command": "echo again"})));
    assert_eq!(rpc.response("d2")["error"], "tool call same is already running");
    release(&gate);
    rpc.tool_event("tool_execution_end", "same");
    // None of the refused calls produced events.
    assert!(!rpc.history.iter().any(|v| v["type"] == "tool_execution_start" && v["toolCallId"] != "same"));
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn more_than_the_limit_of_running_commands_is_refused() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    for i in 0..64 {
        rpc.send(tool_call(&format!("c{i}"), &format!("call_{i}"), json!({"command": "sleep 100"})));
    }
    for i in 0..64 {
        assert_eq!(rpc.response(&format!("c{i}"))["success"], true);
    }
    rpc.send(tool_call("over", "call_over", json!({"command": "echo no"})));
    let refused = rpc.response("over");
    assert_eq!(refused["success"], false);
    assert!(refused["error"].as_str().unwrap().starts_with("too many running commands (limit 64)"), "{refused}");
    rpc.send(json!({"id":"b","type":"bash","command":"echo no"}));
    assert_eq!(rpc.response("b")["success"], false);
    // The end of input aborts them all; each still ends.
    assert_eq!(rpc.finish(), 0);
    for i in 0..64 {
        let (_, end) = rpc.tool_event("tool_execution_end", &format!("call_{i}"));
        assert_eq!(end["result"]["details"]["cancelled"], true);
    }
}

#[test]
fn many_quick_commands_sent_at_once_are_each_answered_in_order() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    // Two rounds: the second runs on the worker threads the first one left idle.
    for round in 0..2 {
        for i in 0..20 {
            rpc.send(json!({"id": format!("b{round}-{i}"), "type": "bash", "command": format!("echo {i}")}));
            rpc.send(tool_call(&format!("t{round}-{i}"), &format!("call_{round}_{i}"), json!({"command": "true"})));
        }
        let mut last_bash = 0;
        for i in 0..20 {
            let at = rpc.response_index(&format!("b{round}-{i}"));
            assert!(at > last_bash || i == 0, "bash responses out of order: {:#?}", rpc.history);
            last_bash = at;
            assert_eq!(rpc.history[at]["data"]["output"], format!("{i}\n"));
            let call = format!("call_{round}_{i}");
            let accepted = rpc.response_index(&format!("t{round}-{i}"));
            // The accepted response and the start event are written together.
            let (start, _) = rpc.tool_event("tool_execution_start", &call);
            assert_eq!(start, accepted + 1, "{:#?}", rpc.history);
            let (end, value) = rpc.tool_event("tool_execution_end", &call);
            assert!(end > accepted + 1);
            assert_eq!(value["isError"], false);
        }
    }
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn what_a_timed_out_or_aborted_tool_call_orphaned_dies_with_it_and_the_shell_is_kept() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(tool_call("c0", "call_0", json!({"command": "echo shell:$$"})));
    let shell = rpc.wait_for_tool_number("call_0", "shell:");
    // `setsid -f` orphans its child at once: outside the shell's group, its parent gone.
    let command = "setsid -f sh -c 'echo orphan:$$; exec sleep 100'; sleep 100";
    rpc.send(tool_call("c1", "call_1", json!({"command": command, "timeout": 1})));
    let orphan = rpc.wait_for_tool_number("call_1", "orphan:");
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    assert_eq!(end["result"]["details"]["backgroundProcesses"], 0, "{end}");
    assert!(!alive(orphan), "the timed-out call's setsid -f child {orphan} survived");
    // Under `set -m` the job leads its own group, so `setsid` forks and orphans its child.
    let command = "set -m; setsid sh -c 'echo orphan:$$; exec sleep 100' & sleep 100";
    rpc.send(tool_call("c2", "call_2", json!({"command": command})));
    let orphan = rpc.wait_for_tool_number("call_2", "orphan:");
    rpc.send(json!({"id":"a2","type":"abort","toolCallId":"call_2"}));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_2");
    assert_eq!(end["result"]["details"]["cancelled"], true, "{end}");
    assert_eq!(end["result"]["details"]["backgroundProcesses"], 0, "{end}");
    assert!(!alive(orphan), "the aborted call's setsid child {orphan} survived");
    rpc.send(tool_call("c3", "call_3", json!({"command": "set +m; echo shell:$$"})));
    assert_eq!(rpc.wait_for_tool_number("call_3", "shell:"), shell, "the shell was replaced");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn an_extracted_head_limits_only_the_producers_stdout_in_a_tool_call() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let command = "{ echo e1 >&2; echo e2 >&2; seq 5; } | head -n 2";
    rpc.send(tool_call("c1", "call_1", json!({"command": command})));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    let text = end["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string();
    assert!(text.starts_with("e1\ne2\n1\n2\n"), "{text}");
    assert!(!text.contains("\n3\n"), "{text}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn tool_call_arguments_are_read_the_way_models_send_them() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let arguments =
        json!({"command": "echo hi", "timeout": 120000, "head": "1", "description": "greet", "env": {"A": "1"}});
    rpc.send(tool_call("t1", "call_1", arguments));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_1");
    assert_eq!(
        end["result"]["content"][0]["text"],
        "hi\n\n[Timeout 120000 read as milliseconds (120s): timeout is in seconds]\n[Ignored unknown argument: `env`]"
    );
    let details = &end["result"]["details"];
    assert_eq!(details["ignoredArguments"], json!(["description", "env"]));
    assert_eq!(
        (details["timeout"]["appliedSecs"].clone(), details["timeout"]["givenMs"].clone()),
        (json!(120.0), json!(120000.0))
    );
    // Codex's names, and a command as an argument vector.
    rpc.send(tool_call("t2", "call_2", json!({"command": ["bash", "-lc", "pwd"], "workdir": "/", "timeout_ms": 5000})));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_2");
    assert_eq!(end["result"]["content"][0]["text"], "/\n");
    assert_eq!(end["result"]["details"]["timeout"]["appliedSecs"], 5.0);
    // Claude Code's `run_in_background` starts a job: the call comes back after a short look, and
    // an abort of its id kills the job, which ends as cancelled.
    rpc.send(tool_call("t3", "call_3", json!({"command": "echo up; exec sleep 100", "run_in_background": true})));
    let (_, end) = rpc.tool_event("tool_execution_end", "call_3");
    let text = end["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("up\n\n[Still running as job 1 ("), "{text}");
    assert_eq!(end["result"]["details"]["job"]["state"], "running");
    rpc.send(json!({"id": "a3", "type": "abort", "toolCallId": "call_3"}));
    assert_eq!(rpc.response("a3")["success"], true);
    let (_, job_end) = rpc.wait_for("job_end", |v| v["type"] == "job_end" && v["toolCallId"] == "call_3");
    assert_eq!((job_end["jobId"].clone(), job_end["result"]["details"]["cancelled"].clone()), (json!(1), json!(true)));
    assert_eq!(rpc.finish(), 0);
}
