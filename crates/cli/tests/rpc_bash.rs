//! `bashrt rpc`: session-level `bash` — results, live output, abort while running, timeouts, sessions
//! and the order of one session's commands.

use crate::common::{alive, fifo, release, Env};
use serde_json::json;

#[test]
fn bash_answers_with_the_result_and_streams_its_output_first() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"echo one; echo two >&2; exit 3"}));
    let at = rpc.response_index("r1");
    let response = rpc.history[at].clone();
    assert_eq!(response["command"], "bash");
    assert_eq!(response["success"], true);
    let data = &response["data"];
    assert_eq!(data["output"], "one\ntwo\n");
    assert_eq!(data["exitCode"], 3);
    assert_eq!(data["cancelled"], false);
    assert_eq!(data["truncated"], false);
    assert_eq!(data["timedOut"], false);
    assert_eq!((data["totalLines"].as_u64(), data["totalBytes"].as_u64()), (Some(2), Some(8)));
    assert_eq!((data["outputLines"].as_u64(), data["outputBytes"].as_u64()), (Some(2), Some(8)));
    assert!(data.get("artifactId").is_none());
    assert_eq!(data["cwd"], env.work().display().to_string());
    // Every live chunk came before the response, and together they are the output.
    let updates: Vec<usize> = (0..rpc.history.len()).filter(|i| rpc.history[*i]["type"] == "bash_update").collect();
    assert!(updates.iter().all(|i| *i < at), "{:#?}", rpc.history);
    assert_eq!(rpc.bash_output("r1"), "one\ntwo\n");
    assert_eq!(rpc.history[updates[0]]["sessionId"], env.session_name());
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn abort_bash_stops_the_running_command_and_both_requests_are_answered() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"echo before; sleep 100 & echo pid:$!; wait"}));
    let pid = rpc.wait_for_number("r1", "pid:");
    assert!(alive(pid));
    rpc.send(json!({"id":"r2","type":"abort_bash"}));
    let abort = rpc.response("r2");
    assert_eq!(abort["command"], "abort_bash");
    assert_eq!(abort["success"], true);
    assert_eq!(abort["data"]["aborted"], 1);
    let data = rpc.response("r1")["data"].clone();
    assert_eq!(data["cancelled"], true);
    assert_eq!(data["timedOut"], false);
    assert_eq!(data["exitCode"], serde_json::Value::Null);
    assert!(data["output"].as_str().unwrap().starts_with(&format!("before\npid:{pid}\n")), "{data}");
    assert!(!alive(pid), "the aborted command's process {pid} survived");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn abort_bash_of_another_session_leaves_the_command_running() {
    let env = Env::new();
    let gate = fifo(env.root.path(), "gate");
    let mut rpc = env.rpc(&[], &[("GATE", &gate)]);
    rpc.send(json!({"id":"r1","type":"bash","command":"read x < \"$GATE\"; echo got $x","sessionId":"one"}));
    rpc.send(json!({"id":"r2","type":"abort_bash","sessionId":"two"}));
    assert_eq!(rpc.response("r2")["data"]["aborted"], 0);
    release(&gate);
    let data = rpc.response("r1")["data"].clone();
    assert_eq!((data["output"].as_str(), data["cancelled"].as_bool()), (Some("got go\n"), Some(false)));
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_timeout_ends_the_command_and_says_so() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"t","type":"bash","command":"echo start; sleep 100 & echo pid:$!; wait","timeout":1}));
    let pid = rpc.wait_for_number("t", "pid:");
    let data = rpc.response("t")["data"].clone();
    assert_eq!((data["timedOut"].as_bool(), data["cancelled"].as_bool()), (Some(true), Some(true)));
    assert!(!alive(pid));
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn one_sessions_commands_run_in_arrival_order_while_other_sessions_go_on() {
    let env = Env::new();
    let gate = fifo(env.root.path(), "gate");
    let mut rpc = env.rpc(&[], &[("GATE", &gate)]);
    rpc.send(json!({"id":"a1","type":"bash","command":"read x < \"$GATE\"; echo first"}));
    rpc.send(json!({"id":"a2","type":"bash","command":"echo second"}));
    rpc.send(json!({"id":"b1","type":"bash","command":"echo other","sessionId":"b"}));
    // The other session is not held up by the blocked command.
    assert_eq!(rpc.response("b1")["data"]["output"], "other\n");
    release(&gate);
    let first = rpc.response_index("a1");
    let second = rpc.response_index("a2");
    assert!(first < second, "{:#?}", rpc.history);
    let early_output = rpc.history[..first].iter().any(|v| v["type"] == "bash_update" && v["id"] == "a2");
    assert!(!early_output, "a2 ran before a1 ended: {:#?}", rpc.history);
    assert_eq!(rpc.history[second]["data"]["output"], "second\n");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn abort_bash_aborts_the_newest_command_and_a_second_one_the_one_before() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"a1","type":"bash","command":"sleep 100 & echo pid:$!; wait"}));
    let pid = rpc.wait_for_number("a1", "pid:");
    rpc.send(json!({"id":"a2","type":"bash","command":"echo never"}));
    rpc.send(json!({"id":"x","type":"abort_bash"}));
    assert_eq!(rpc.response("x")["data"]["aborted"], 1);
    // The newest (waiting) command is aborted: the reference aborts the command it started last.
    let queued = rpc.response("a2")["data"].clone();
    assert_eq!(queued["cancelled"], true);
    assert_eq!(queued["output"], "");
    assert_eq!(queued["notices"], json!(["[Command cancelled]"]));
    assert!(queued.get("exitCode").is_none(), "{queued}");
    assert!(alive(pid), "the older command goes on");
    rpc.send(json!({"id":"y","type":"abort_bash"}));
    assert_eq!(rpc.response("y")["data"]["aborted"], 1);
    assert_eq!(rpc.response("a1")["data"]["cancelled"], true);
    assert!(!alive(pid));
    rpc.send(json!({"id":"z","type":"abort_bash"}));
    assert_eq!(rpc.response("z")["data"]["aborted"], 0);
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn artifact_ids_are_given_once_across_sessions() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let big = "seq 30000";
    rpc.send(json!({"id":"a1","type":"bash","command":big,"sessionId":"alpha"}));
    let a1 = rpc.response("a1")["data"].clone();
    rpc.send(json!({"id":"b1","type":"bash","command":big,"sessionId":"beta"}));
    let b1 = rpc.response("b1")["data"].clone();
    rpc.send(json!({"id":"a2","type":"bash","command":big,"sessionId":"alpha"}));
    let a2 = rpc.response("a2")["data"].clone();
    assert_eq!(
        (a1["artifactId"].as_u64(), b1["artifactId"].as_u64(), a2["artifactId"].as_u64()),
        (Some(1), Some(2), Some(3))
    );
    assert_eq!(a1["truncated"], true);
    // The notice is beside the output, not in it; the artifact's path is given for clients that open it.
    assert!(a1["output"].as_str().unwrap().ends_with("30000\n"), "{}", a1["output"]);
    assert!(a1["notices"][0].as_str().unwrap().ends_with("Full: artifact://1]"), "{}", a1["notices"]);
    assert_eq!(a1["fullOutputPath"], env.artifact_path("alpha", 1).display().to_string());
    assert!(env.artifact_path("alpha", 3).is_file());
    assert!(env.artifact_path("beta", 2).is_file());
    assert!(!env.artifact_path("beta", 1).exists() && !env.artifact_path("alpha", 2).exists());
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn an_invalid_session_id_is_refused() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"echo x","sessionId":"../escape"}));
    let response = rpc.response("r1");
    assert_eq!(response["success"], false);
    assert!(response["error"].as_str().unwrap().starts_with("invalid session name \"../escape\""), "{response}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn the_session_flag_names_the_default_session() {
    let env = Env::new();
    let mut rpc = env.rpc(&["--session", "mine"], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"seq 30000"}));
    assert_eq!(rpc.response("r1")["data"]["artifactId"], 1);
    assert!(env.artifact_path("mine", 1).is_file());
    rpc.send(json!({"id":"s","type":"get_state"}));
    let state = rpc.response("s")["data"].clone();
    assert_eq!((state["sessionId"].as_str(), state["defaultSessionId"].as_str()), (Some("mine"), Some("mine")));
    let bytes = std::fs::metadata(env.artifact_path("mine", 1)).unwrap().len();
    assert_eq!(
        state["artifacts"],
        json!({"count": 1, "ranges": [{"start": 1, "end": 1}], "newest": [{"id": 1, "bytes": bytes}]})
    );
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_command_that_cannot_run_fails_with_the_reason_and_the_result() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    // The session's directory disappears; the next command has nowhere to start.
    rpc.send(json!({"id":"r1","type":"bash","command":"rmdir \"$PWD\""}));
    assert_eq!(rpc.response("r1")["data"]["exitCode"], 0);
    rpc.send(json!({"id":"r2","type":"bash","command":"echo hi"}));
    let response = rpc.response("r2");
    assert_eq!(response["success"], false);
    let want = format!("Working directory does not exist: {}", env.work().display());
    assert_eq!(response["error"], want);
    assert_eq!(response["data"]["error"], want);
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn settings_flags_apply_to_the_server() {
    let env = Env::new();
    let mut rpc = env.rpc(&["--set", "bash.maxOutputBytes=1024"], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"seq 1000"}));
    let data = rpc.response("r1")["data"].clone();
    assert_eq!((data["truncated"].as_bool(), data["totalBytes"].as_u64()), (Some(true), Some(3893)));
    assert!(data["outputBytes"].as_u64().unwrap() <= 1024, "{data}");
    assert_eq!(rpc.finish(), 0);
}

/// A server started with SIGINT ignored — what a non-interactive shell does to a job it starts with
/// `&`, so an agent launched from a script — still interrupts a timed-out command and keeps its shell
/// and the shell's state: bash cannot undo a signal ignored when it started, so its shells are started
/// with SIGINT and SIGQUIT back at their defaults.
#[test]
fn a_server_started_with_sigint_ignored_still_interrupts_and_keeps_its_shell() {
    use std::os::unix::process::CommandExt;
    let env = Env::new();
    let mut rpc = env.rpc_with(&[], &[], |cmd| {
        // SAFETY: `signal` is async-signal-safe and touches no memory of the parent's.
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                Ok(())
            });
        }
    });
    rpc.send(json!({"id":"1","type":"bash","command":"export KEPT=yes"}));
    assert_eq!(rpc.response("1")["success"], true);
    // A loop of builtins: only an interrupt of the shell itself ends it without ending the shell.
    rpc.send(json!({"id":"2","type":"bash","command":"while :; do :; done","timeout":1}));
    let data = rpc.response("2")["data"].clone();
    assert_eq!(data["timedOut"], true, "{data}");
    rpc.send(json!({"id":"3","type":"bash","command":"echo $KEPT"}));
    let data = rpc.response("3")["data"].clone();
    assert_eq!(data["output"], "yes\n", "{data}");
    assert_ne!(data["shell"], "started a new shell", "{data}");
    assert_eq!(rpc.finish(), 0);
}
