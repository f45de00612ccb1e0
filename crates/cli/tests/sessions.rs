//! Session semantics end to end: what persists between calls, for which surface, and when a shell is
//! replaced — through `bashrt rpc` (long-lived shells) and `bashrt run` (the snapshot).

use crate::common::{self, stdout, Env};
use serde_json::json;

#[test]
fn session_level_bash_keeps_cwd_and_shell_state_between_calls() {
    let env = Env::new();
    std::fs::create_dir(env.work().join("sub")).unwrap();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"1","type":"bash","command":"cd sub && X=42 && f() { echo f:$1; }"}));
    let first = rpc.response("1")["data"].clone();
    assert_eq!(first["cwd"], env.work().join("sub").display().to_string());
    rpc.send(json!({"id":"2","type":"bash","command":"pwd; echo $X; f a"}));
    let second = rpc.response("2")["data"].clone();
    assert_eq!(second["output"], format!("{}\n42\nf:a\n", env.work().join("sub").display()));
    assert_eq!(second["shell"], "reused the shell of earlier calls");
    // Another session shares nothing.
    rpc.send(json!({"id":"3","type":"bash","command":"pwd; echo \"[$X]\"","sessionId":"other"}));
    let other = rpc.response("3")["data"].clone();
    assert_eq!(other["output"], format!("{}\n[]\n", env.work().display()));
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_session_shell_that_exits_is_replaced_and_the_call_says_so() {
    let env = Env::new();
    std::fs::create_dir(env.work().join("sub")).unwrap();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"0","type":"bash","command":"cd sub"}));
    rpc.response("0");
    rpc.send(json!({"id":"1","type":"bash","command":"Y=1; exit 3"}));
    assert_eq!(rpc.response("1")["data"]["exitCode"], 3);
    rpc.send(json!({"id":"2","type":"bash","command":"pwd; echo \"[$Y]\""}));
    let data = rpc.response("2")["data"].clone();
    let output = data["output"].as_str().unwrap().to_string();
    // The fresh shell starts where the session was; the variables of the dead shell are gone, and said so.
    assert!(output.starts_with(&format!("{}\n[]\n", env.work().join("sub").display())), "{output}");
    assert_eq!(
        data["notices"],
        serde_json::json!(["[Shell restarted: the previous shell exited with status 3; started a fresh one]"])
    );
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn tool_calls_run_in_their_cwd_every_time_but_keep_shell_state() {
    let env = Env::new();
    std::fs::create_dir(env.work().join("sub")).unwrap();
    let mut rpc = env.rpc(&[], &[]);
    let call = |id: &str, command: &str| json!({"id":id,"type":"tool_call","toolCallId":id,"name":"bash","arguments":{"command":command}});
    rpc.send(call("t1", "cd sub; export Z=7; pwd"));
    let (_, end) = rpc.tool_event("tool_execution_end", "t1");
    assert_eq!(end["result"]["content"][0]["text"], format!("{}\n", env.work().join("sub").display()));
    rpc.send(call("t2", "pwd; echo $Z"));
    let (_, end) = rpc.tool_event("tool_execution_end", "t2");
    assert_eq!(end["result"]["content"][0]["text"], format!("{}\n7\n", env.work().display()));
    assert_eq!(end["result"]["details"]["shell"], "reused the shell of earlier calls");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn aliases_and_functions_from_the_users_bashrc_work_in_commands() {
    let env = Env::new();
    std::fs::write(
        env.home().join(".bashrc"),
        "[[ $- != *i* ]] && return\nalias hello='echo hello from rc'\n_h() { echo \"h:$1\"; }\nuse_h() { _h \"$1\"; }\n",
    )
    .unwrap();
    assert_eq!(stdout(&env.run(&[], "hello; use_h x")), "hello from rc\nh:x\n");
    let out = env.run(&["--set", "bash.snapshot=false"], "type hello >/dev/null 2>&1 || echo no alias");
    assert_eq!(stdout(&out), "no alias\n");
}

#[test]
fn a_restarted_server_lists_what_ran_in_the_session() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"1","type":"bash","command":"echo one"}));
    rpc.response("1");
    rpc.send(json!({"id":"2","type":"bash","command":"exit 4"}));
    rpc.response("2");
    assert_eq!(rpc.finish(), 0);

    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"h","type":"get_history"}));
    let entries = rpc.response("h")["data"]["entries"].clone();
    assert_eq!(entries[0]["command"], "echo one");
    assert_eq!(entries[0]["exitCode"], 0);
    assert_eq!(entries[1]["command"], "exit 4");
    assert_eq!(entries[1]["exitCode"], 4);
    assert_eq!(entries[1]["cwd"], env.work().display().to_string());
    assert!(entries[1]["startedMs"].as_u64().unwrap() >= entries[0]["startedMs"].as_u64().unwrap());
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn nothing_survives_a_sigkilled_rpc_server() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    // A long-lived shell, a background job of an earlier call, a setsid child, and a command still running.
    rpc.send(json!({"id":"1","type":"bash","command":"sleep 100 & echo pid:$!"}));
    let background = rpc.wait_for_number("1", "pid:");
    rpc.response("1");
    rpc.send(json!({"id":"2","type":"bash","command":"setsid sleep 100 & echo escaped:$!; echo shell:$$; sleep 100"}));
    let escaped = rpc.wait_for_number("2", "escaped:");
    let shell = rpc.wait_for_number("2", "shell:");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(rpc.pid()), nix::sys::signal::Signal::SIGKILL).unwrap();
    rpc.wait_exit();
    for pid in [background, escaped, shell] {
        common::wait_until_dead(pid);
    }
}

#[test]
fn a_hanging_rc_costs_one_deadline_then_runs_are_not_held_up() {
    let env = Env::new();
    std::fs::write(env.home().join(".bashrc"), "sleep 100\n").unwrap();
    let first = env.run(&[], "echo one");
    assert_eq!(stdout(&first), "one\n");
    assert!(
        String::from_utf8_lossy(&first.stderr).contains(
            "running without a shell snapshot: the interactive shell did not finish reading its rc files within 5s"
        ),
        "{first:?}"
    );
    // The next process remembers the failure instead of waiting for the rc again.
    let second = env.run(&[], "echo two");
    assert_eq!(stdout(&second), "two\n");
    // One plain line (stderr is not a terminal): no colour, no timestamp, the reason once.
    assert_eq!(
        String::from_utf8_lossy(&second.stderr),
        "bashrt: warning: running without a shell snapshot: the interactive shell did not finish reading its \
         rc files within 5s (an earlier capture; tried again when an rc file changes or after 10 minutes)\n",
    );
}
