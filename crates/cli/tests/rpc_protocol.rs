//! `bashrt rpc`: the protocol around the commands — malformed input, limits, artifacts, state, and the
//! end of input or a signal while commands run.

use crate::common::{self, alive, fifo, release, Env};
use serde_json::{json, Value};

fn error_of(response: &Value) -> &str {
    assert_eq!(response["success"], false, "{response}");
    response["error"].as_str().unwrap()
}

#[test]
fn malformed_lines_get_error_responses_and_the_server_keeps_serving() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send_raw(b"{not json\n");
    rpc.send_raw(b"[1,2]\n");
    rpc.send_raw(b"\"bash\"\n");
    rpc.send_raw(b"{\"id\":\"u\",\"type\":\"dance\"}\n");
    rpc.send_raw(b"{\"id\":\"m\",\"type\":\"bash\"}\n");
    rpc.send_raw(b"{\"id\":\"t\",\"type\":\"bash\",\"command\":\"ls\",\"timeout\":\"soon\"}\n");
    rpc.send_raw(b"{\"id\":\"n\"}\n");
    // Blank lines are skipped; a CRLF ending is fine.
    rpc.send_raw(b"\n  \r\n");
    rpc.send_raw(b"{\"id\":\"crlf\",\"type\":\"list_sessions\"}\r\n");
    let mut invalid = br#"{"id":"utf","type":"bash","command":"echo "#.to_vec();
    invalid.extend_from_slice(b"\xff\xfe\"}\n");
    rpc.send_raw(&invalid);
    rpc.send(json!({"id":"ok","type":"bash","command":"echo still here"}));
    assert_eq!(rpc.response("ok")["data"]["output"], "still here\n");

    let parse_errors: Vec<Value> =
        rpc.history.iter().filter(|v| v["type"] == "response" && v.get("id").is_none()).cloned().collect();
    assert_eq!(parse_errors.len(), 3, "{parse_errors:#?}");
    assert!(parse_errors.iter().all(|v| v["command"] == "parse"));
    assert!(error_of(&parse_errors[0]).starts_with("Failed to parse command: "));
    assert_eq!(error_of(&parse_errors[1]), "expected a JSON object, got an array");
    assert_eq!(error_of(&parse_errors[2]), "expected a JSON object, got a string");

    let unknown = rpc.response("u");
    assert_eq!((unknown["command"].as_str(), error_of(&unknown)), (Some("dance"), "Unknown command type: dance"));
    let missing = rpc.response("m");
    assert_eq!(
        (missing["command"].as_str(), error_of(&missing)),
        (Some("bash"), "invalid bash command: missing field `command`")
    );
    let mistyped = rpc.response("t");
    assert!(error_of(&mistyped).starts_with("invalid bash command: invalid type: string \"soon\""), "{mistyped}");
    assert_eq!(error_of(&rpc.response("n")), "missing \"type\" field");
    assert_eq!(rpc.response("crlf")["success"], true);
    let utf = rpc.response("utf");
    assert_eq!(
        (utf["command"].as_str(), error_of(&utf)),
        (Some("bash"), "line is not valid UTF-8 (invalid byte at offset 42)")
    );
    assert_eq!(rpc.finish(), 0);
    // Exactly one response per non-blank line.
    assert_eq!(rpc.history.iter().filter(|v| v["type"] == "response").count(), 10, "{:#?}", rpc.history);
}

#[test]
fn an_over_long_line_is_refused_without_stopping_the_server() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let mut line = vec![b'x'; 20 * 1024 * 1024];
    line.push(b'\n');
    rpc.send_raw(&line);
    rpc.send(json!({"id":"after","type":"bash","command":"echo answered"}));
    assert_eq!(rpc.response("after")["data"]["output"], "answered\n");
    let refused = rpc.history.iter().find(|v| v["command"] == "parse").cloned().unwrap();
    assert_eq!(error_of(&refused), "line too long: 20971520 bytes (limit 16777216); it was discarded");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn the_end_of_input_aborts_running_commands_answers_them_and_exits_0() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"sleep 100 & echo pid:$!; wait"}));
    rpc.send(json!({"id":"c1","type":"tool_call","toolCallId":"call_1","name":"bash","arguments":{"command":"sleep 100 & echo pid:$!; wait"}}));
    let bash_pid = rpc.wait_for_number("r1", "pid:");
    let tool_pid = rpc.wait_for_tool_number("call_1", "pid:");
    assert_eq!(rpc.finish(), 0);
    assert_eq!(rpc.response("r1")["data"]["cancelled"], true);
    assert_eq!(rpc.tool_event("tool_execution_end", "call_1").1["result"]["details"]["cancelled"], true);
    assert!(!alive(bash_pid), "the bash command's sleep {bash_pid} survived");
    assert!(!alive(tool_pid), "the tool call's sleep {tool_pid} survived");
}

#[test]
fn the_end_of_input_kills_background_processes_left_by_finished_commands() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"sleep 100 >/dev/null 2>&1 & echo pid:$!"}));
    rpc.send(json!({"id":"r2","type":"bash","command":"setsid sleep 100 >/dev/null 2>&1 & echo pid:$!"}));
    let mut pids = Vec::new();
    for id in ["r1", "r2"] {
        let data = rpc.response(id)["data"].clone();
        assert_eq!(data["exitCode"], 0);
        pids.push(common::number_after(data["output"].as_str().unwrap(), "pid:").unwrap());
    }
    assert!(pids.iter().all(|pid| alive(*pid)));
    assert_eq!(rpc.finish(), 0);
    for pid in pids {
        assert!(!alive(pid), "background process {pid} outlived the server");
    }
}

#[test]
fn sigterm_shuts_down_like_the_end_of_input() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"sleep 100 & echo pid:$!; wait"}));
    let pid = rpc.wait_for_number("r1", "pid:");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(rpc.pid()), nix::sys::signal::Signal::SIGTERM).unwrap();
    assert_eq!(rpc.wait_exit(), 0);
    assert_eq!(rpc.response("r1")["data"]["cancelled"], true);
    assert!(!alive(pid));
}

#[test]
fn read_artifact_returns_the_whole_artifact_or_a_window() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"seq 30000"}));
    assert_eq!(rpc.response("r1")["data"]["artifactId"], 1);
    let whole: String = (1..=30000).map(|i| format!("{i}\n")).collect();
    let requests = [
        (json!({"artifactId": "1"}), whole.as_str()),
        (json!({"artifactId": 1, "head": 2}), "1\n2\n"),
        (json!({"artifactId": "artifact://1", "tail": 2}), "29999\n30000\n"),
        (json!({"artifactId": 1, "lines": "10-12"}), "10\n11\n12\n"),
        (json!({"artifactId": 1, "grep": "^2999[89]$"}), "29998:29998\n29999:29999\n"),
    ];
    for (i, (fields, want)) in requests.iter().enumerate() {
        let mut request = fields.clone();
        request["id"] = json!(format!("a{i}"));
        request["type"] = json!("read_artifact");
        rpc.send(request);
        let data = rpc.response(&format!("a{i}"))["data"].clone();
        assert_eq!(data["content"].as_str(), Some(*want), "{fields}");
        assert_eq!((data["truncated"].as_bool(), data["artifactId"].as_u64()), (Some(false), Some(1)));
    }
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn read_artifact_errors_are_the_cores_texts() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"none","type":"read_artifact","artifactId":1}));
    assert_eq!(error_of(&rpc.response("none")), "No artifacts directory found");
    rpc.send(json!({"id":"r1","type":"bash","command":"seq 30000"}));
    rpc.response("r1");
    let cases = [
        (json!({"artifactId": "artifact://../x"}), "artifact:// ID must be numeric, got: ../x"),
        (json!({"artifactId": 9}), "Artifact 9 not found. Available: 1"),
        (json!({"artifactId": 1, "head": 1, "tail": 1}), "give at most one of head, tail, lines and grep"),
        (json!({"artifactId": 1, "lines": "5-2"}), "lines expects \"A-B\" with 1 <= A <= B, got \"5-2\""),
        (json!({"artifactId": 1, "grep": "("}), "invalid grep pattern: "),
        (json!({"artifactId": 1, "sessionId": "other"}), "No artifacts directory found"),
        (
            json!({"artifactId": true}),
            "invalid read_artifact command: artifactId must be a string or a non-negative integer",
        ),
    ];
    for (i, (fields, want)) in cases.iter().enumerate() {
        let mut request = fields.clone();
        request["id"] = json!(format!("e{i}"));
        request["type"] = json!("read_artifact");
        rpc.send(request);
        let response = rpc.response(&format!("e{i}"));
        assert_eq!(response["command"], "read_artifact");
        assert!(error_of(&response).starts_with(want), "{fields}: {response}");
    }
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn get_state_and_list_sessions_describe_the_server() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"seq 30000","sessionId":"extra"}));
    rpc.response("r1");
    rpc.send(json!({"id":"s","type":"get_state","sessionId":"extra"}));
    let state = rpc.response("s")["data"].clone();
    assert_eq!(state["sessionId"], "extra");
    assert_eq!(state["defaultSessionId"], env.session_name());
    assert_eq!(state["cwd"], env.work().display().to_string());
    assert_eq!(state["stateDir"], env.state().display().to_string());
    assert_eq!((state["runningBash"].as_u64(), state["runningToolCalls"].clone()), (Some(0), json!([])));
    let bytes = std::fs::metadata(env.artifact_path("extra", 1)).unwrap().len();
    assert_eq!(
        state["artifacts"],
        json!({"count": 1, "ranges": [{"start": 1, "end": 1}], "newest": [{"id": 1, "bytes": bytes}]})
    );
    rpc.send(json!({"id":"l","type":"list_sessions"}));
    let list = rpc.response("l")["data"].clone();
    let names: Vec<&str> =
        list["sessions"].as_array().unwrap().iter().map(|s| s["sessionId"].as_str().unwrap()).collect();
    let mut want = vec![env.session_name(), "extra".to_string()];
    want.sort();
    assert_eq!(names, want);
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn requests_are_read_while_commands_run_one_after_another() {
    // A quick command runs on the thread that read it while a second thread reads on; the two swap
    // roles when a command outlasts the hand-over. Requests must be served during every command, the
    // second and third included (each started with nothing else buffered, as a client waiting for
    // each answer sends them).
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    for round in 0..3 {
        let gate = fifo(env.root.path(), &format!("gate{round}"));
        let id = format!("b{round}");
        let command = format!("echo started; read line < {}; echo got $line", gate.display());
        rpc.send(json!({"id": id, "type": "bash", "command": command}));
        rpc.wait_for("the command's start", |v| v["type"] == "bash_update" && v["id"] == id.as_str());
        rpc.send(json!({"id": format!("s{round}"), "type": "get_state"}));
        let state = rpc.response(&format!("s{round}"))["data"].clone();
        assert_eq!(state["runningBash"], 1, "round {round}: {state}");
        rpc.send(json!({"id": format!("q{round}"), "type": "bash", "command": "echo other", "sessionId": "other"}));
        assert_eq!(rpc.response(&format!("q{round}"))["data"]["output"], "other\n", "round {round}");
        release(&gate);
        assert_eq!(rpc.response(&id)["data"]["output"], "started\ngot go\n", "round {round}");
    }
    assert_eq!(rpc.finish(), 0);
}

/// The server captures the snapshot when it starts, in an interactive bash reading the user's rc.
/// An interactive shell ignores SIGTERM: at the end of input, that shell gets SIGHUP (what a closed
/// terminal sends), so the rc stops where it was and what it started is asked to end too. Sent
/// SIGTERM alone, it read on through the grace, starting programs that the SIGKILL then caught
/// mid-work: a `pyenv rehash` killed so leaves its lock behind, and every later shell of the user
/// waits a minute for it.
#[test]
fn the_end_of_input_hangs_up_the_snapshots_interactive_shell() {
    let env = Env::new();
    let ready = fifo(env.root.path(), "ready");
    let hung_up = env.root.path().join("hung-up");
    let read_on = env.root.path().join("read-on");
    let quote = |p: &std::path::Path| format!("'{}'", p.display());
    let rc = format!(
        "trap ': > {hung}; exit' HUP\necho ready > {ready}\nsleep 1000\n: > {on}\n",
        hung = quote(&hung_up),
        ready = quote(&ready),
        on = quote(&read_on)
    );
    std::fs::write(env.home().join(".bashrc"), rc).unwrap();
    // A grace far longer than the trap needs: the sweep waits only until the shell has exited, and a
    // machine busy with other tests may take longer than the default 200 ms to run the trap.
    let mut rpc = env.rpc(&["--set", "bash.killGraceMs=60000"], &[]);
    // The rc runs (its `sleep` is what the shutdown interrupts).
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(std::fs::File::open(&ready).unwrap()), &mut line).unwrap();
    assert_eq!(line, "ready\n");
    assert_eq!(rpc.finish(), 0, "{}", rpc.stderr());
    assert!(hung_up.exists(), "the interactive shell got no SIGHUP; stderr: {}", rpc.stderr());
    assert!(!read_on.exists(), "the rc went on after the shutdown began");
}

/// When the server itself is SIGKILLed, its watchdog first asks what the server started to end
/// (SIGTERM, the grace) and SIGKILLs only what is left: a background server of the user's (its
/// output in a file: the server's pipes are gone with it) gets to shut down cleanly, as at an
/// orderly end.
#[test]
fn a_sigkilled_servers_processes_get_sigterm_before_sigkill() {
    let env = Env::new();
    let pids = fifo(env.root.path(), "pids");
    let termed = env.root.path().join("termed");
    let mut rpc = env.rpc(&[], &[("PIDS", &pids), ("TERMED", &termed)]);
    rpc.send(json!({"id": "1", "type": "bash",
        "command": "bash -c 'trap \": > \\\"$TERMED\\\"; exit\" TERM; echo $$ > \"$PIDS\"; \
                    while :; do sleep 1; done' >/dev/null 2>&1 &"}));
    // The process writes its pid once its trap is set: killed earlier, it could not have caught
    // the SIGTERM, whatever the watchdog sent.
    let pid: i32 = std::fs::read_to_string(&pids).unwrap().trim().parse().unwrap();
    assert_eq!(rpc.response("1")["success"], true);
    rpc.child.kill().unwrap();
    rpc.child.wait().unwrap();
    common::wait_until_dead(pid);
    assert!(termed.exists(), "the background process (pid {pid}) got no SIGTERM before it died");
}

/// The server adopts what its commands orphan (it is their child subreaper): when a call's shell
/// exits, what it left running comes back to the server, and the server reaps it once it exits, so
/// that no zombie piles up in a server that runs for days.
#[test]
fn what_an_exited_shell_left_comes_back_to_the_server_which_reaps_it() {
    let env = Env::new();
    let pids = fifo(env.root.path(), "pids");
    let go = fifo(env.root.path(), "go");
    let mut rpc = env.rpc(&[], &[("PIDS", &pids), ("GO", &go)]);
    rpc.send(json!({"id": "1", "type": "bash",
        "command": "( sh -c 'echo $$ > \"$PIDS\"; read x < \"$GO\"' >/dev/null 2>&1 & ); exit 3"}));
    let pid: i32 = std::fs::read_to_string(&pids).unwrap().trim().parse().unwrap();
    let response = rpc.response("1");
    assert_eq!(response["success"], true, "{response}");
    let parent = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rfind(')').and_then(|i| stat[i + 2..].split(' ').nth(1)?.parse::<u32>().ok())
    };
    // The shell is gone (its exit is the call's end): its orphan is the server's child now.
    assert!(common::until(|| parent() == Some(rpc.child.id())), "not adopted by the server: parent {:?}", parent());
    std::fs::write(&go, "\n").unwrap();
    common::wait_until_dead(pid);
    // Exited; a zombie keeps its /proc entry until its parent reaps it.
    assert!(common::until(|| !std::path::Path::new(&format!("/proc/{pid}")).exists()), "the server left a zombie");
    assert_eq!(rpc.finish(), 0);
}
