//! What a hostile command can plant, write or declare must not hang, blind or mislead bashrt: FIFOs in
//! the state directory, retention racing spills, ids that would be given twice, budgets shared by
//! several processes. Every run here has a deadline of its own: a hang fails the test, it does not
//! hang the suite.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{self, stdout, tree_bytes, Env};
use serde_json::json;

/// A front that has not answered by then is hung.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs `command` with `input` on stdin to its end, killed past [`DEADLINE`] (then the test fails).
fn finishes(mut command: Command, input: &str) -> Output {
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("bashrt starts");
    let pid = child.id();
    let (done, finished) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let hung = finished.recv_timeout(DEADLINE).is_err();
        if hung {
            // SAFETY: kill(2) on our child, not yet reaped.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
        hung
    });
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let _ = done.send(());
    assert!(!watchdog.join().unwrap(), "hung: killed after {DEADLINE:?}");
    output
}

/// Writes `requests` to a server (`command`) and reads its stdout until `answered` says all it
/// waited for came, then closes its stdin and waits for it to end; the server's lines. A server that
/// does not answer within [`DEADLINE`] is killed, and the test fails.
fn conversation(mut command: Command, requests: &[serde_json::Value], answered: impl Fn(&str) -> bool) -> String {
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("bashrt starts");
    let mut stdin = child.stdin.take().unwrap();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    let (lines, read) = mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut text = String::new();
    let deadline = std::time::Instant::now() + DEADLINE;
    while !answered(&text) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match read.recv_timeout(left) {
            Ok(line) => {
                text.push_str(&line);
                text.push('\n');
            }
            Err(_) => {
                let _ = child.kill();
                panic!("hung: no answer within {DEADLINE:?}; so far:\n{text}");
            }
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let _ = reader.join();
    text
}

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
}

/// A session `s` with a first artifact, and a FIFO planted at `name` in its directory.
fn planted(name: &str) -> Env {
    let env = Env::new();
    let out = env.cmd().args(["run", "--session", "s", "seq 1 100000"]).output().unwrap();
    assert!(stdout(&out).contains("Full: artifact://1]"), "{}", stdout(&out));
    mkfifo(&env.state().join("sessions/s").join(name));
    env
}

const PLANTS: [&str; 2] = [".live", "bash.jsonl"];

#[test]
fn a_fifo_planted_in_a_session_hangs_no_run() {
    for name in PLANTS {
        let env = planted(name);
        let mut command = env.cmd();
        command.args(["run", "--session", "s", "seq 1 100000"]);
        let out = finishes(command, "");
        assert!(stdout(&out).contains("Full: artifact://2]"), "{name}: {}", stdout(&out));
    }
}

#[test]
fn a_fifo_planted_in_a_session_hangs_no_rpc_server() {
    for name in PLANTS {
        let env = planted(name);
        let requests = [
            json!({"id": "b", "type": "bash", "command": "seq 1 100000", "sessionId": "s"}),
            json!({"id": "t", "type": "tool_call", "toolCallId": "c", "name": "bash", "sessionId": "s",
                   "arguments": {"command": "seq 1 100000"}}),
            json!({"id": "h", "type": "get_history", "sessionId": "s"}),
        ];
        let mut command = env.cmd();
        command.arg("rpc");
        let text = conversation(command, &requests, |text| {
            text.contains("\"command\":\"bash\",\"success\"")
                && text.contains("\"type\":\"tool_execution_end\"")
                && text.contains("\"command\":\"get_history\"")
        });
        assert!(text.contains("\"fullOutputPath\""), "{name}: the session command's output was not kept:\n{text}");
        assert!(text.contains("Full: artifact://"), "{name}: the tool call's output was not kept:\n{text}");
    }
}

#[test]
fn a_fifo_planted_in_a_session_hangs_no_mcp_server_nor_gc() {
    for name in PLANTS {
        let env = planted(name);
        let messages = [
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
                   "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "bash",
                   "arguments": {"command": "seq 1 100000"}}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list"}),
        ];
        let mut command = env.cmd();
        command.args(["mcp", "--session", "s"]);
        let text = conversation(command, &messages, |text| text.contains("\"id\":1,") && text.contains("\"id\":2,"));
        assert!(text.contains("Full: artifact://2]"), "{name}: {text}");
        let mut command = env.cmd();
        command.arg("gc");
        let out = finishes(command, "");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn a_fifo_planted_as_an_artifact_is_refused_not_read() {
    let env = planted("artifacts/2.bash.log");
    let mut command = env.cmd();
    command.args(["artifact", "2", "--session", "s"]);
    let out = finishes(command, "");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2.bash.log is not a regular file"), "{err}");
    // The next spill takes the next id, past the planted one.
    let mut command = env.cmd();
    command.args(["run", "--session", "s", "seq 1 100000"]);
    assert!(stdout(&finishes(command, "")).contains("Full: artifact://3]"));
}

#[test]
fn a_command_holding_a_nul_is_refused_not_cut() {
    let env = Env::new();
    let marker = env.work().join("ran");
    let command = format!("true\0touch {}", marker.display());
    let messages = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
               "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "bash",
               "arguments": {"command": command}}}),
    ];
    let mut mcp = env.cmd();
    mcp.arg("mcp");
    let text = conversation(mcp, &messages, |text| text.contains("\"id\":1,"));
    assert!(text.contains("the command holds a NUL byte (at byte 4), which bash cannot run"), "{text}");
    assert!(text.contains("\"isError\":true"), "{text}");

    let requests = [json!({"id": "b", "type": "bash", "command": command})];
    let mut rpc = env.cmd();
    rpc.arg("rpc");
    let text = conversation(rpc, &requests, |text| text.contains("\"command\":\"bash\""));
    assert!(text.contains("the command holds a NUL byte (at byte 4), which bash cannot run"), "{text}");
    assert!(!marker.exists(), "a part of the command ran");
}

/// About 1.2 MB of output.
const SPILL_1200K: &str = "head -c 1200000 /dev/zero | tr '\\0' y | fold -w 100";

#[test]
fn an_id_once_given_never_names_other_bytes_after_retention_removed_its_session() {
    let env = Env::new();
    let budget = ["--set", "state.maxBytes=2097152", "--set", "state.keepRecentSecs=0"];
    let spill = |session: &str| {
        let (result, code) = env.run_json(&[&budget[..], &["--session", session]].concat(), SPILL_1200K);
        assert_eq!(code, 0, "{result}");
        result["details"]["meta"]["truncation"]["artifactId"].as_u64().unwrap()
    };
    assert_eq!(spill("a"), 1);
    // Each spill needs the room the one before took: retention removes that session.
    assert_eq!(spill("b"), 2);
    assert!(!env.state().join("sessions/a").exists(), "the budget did not remove session a");
    assert_eq!(spill("a"), 3, "an id came back after its artifact was removed");
    let old = env.cmd().args(["artifact", "1", "--session", "a"]).output().unwrap();
    assert_eq!(old.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&old.stderr).contains("Artifact 1 not found. Available: 3"), "{old:?}");
}

#[test]
fn an_artifact_being_written_or_just_returned_is_never_removed() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    // About 2 MB, twice the budget gc is given below, then a wait while the artifact is open.
    rpc.send(json!({"id":"b","type":"bash","sessionId":"s",
                    "command":"seq 1 300000; echo DONE-WRITING; sleep 600"}));
    rpc.wait_for("the end of the output", |v| {
        v["type"] == "bash_update" && v["chunk"].as_str().is_some_and(|c| c.contains("DONE-WRITING"))
    });
    let artifact = env.artifact_path("s", 1);
    let gc = |keep_recent: &str| {
        let out = env.cmd().args(["gc", "--set", "state.maxBytes=1048576", "--set", keep_recent]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = gc("state.keepRecentSecs=0");
    assert!(text.contains("being written or written in the last 0s, kept: 1 artifact(s)"), "{text}");
    assert!(artifact.is_file(), "gc removed an artifact being written:\n{text}");

    rpc.send(json!({"id":"x","type":"abort_bash","sessionId":"s"}));
    let data = rpc.response("b")["data"].clone();
    assert_eq!(data["artifactId"], 1, "{data}");
    assert!(std::fs::read_to_string(&artifact).unwrap().starts_with("1\n2\n3\n"));
    // Returned a moment ago: kept by the default.
    let text = gc("state.keepRecentSecs=60");
    assert!(text.contains("kept: 1 artifact(s)"), "{text}");
    assert!(artifact.is_file());
    // Neither being written nor recent any more (as if a minute had passed): it may go.
    let text = gc("state.keepRecentSecs=0");
    assert!(text.contains("removed artifact://1 of session s"), "{text}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn the_state_budget_holds_across_processes_spilling_at_once() {
    const BUDGET: u64 = 8 * 1024 * 1024;
    let env = Env::new();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let state = env.state();
    let watch = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut most = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(tree_bytes(&state));
            }
            most
        })
    };
    // Four processes, 30 MB of output each kept as at most 3 MiB (its head and tail, put in order at
    // the end through up to 1.5 MiB more), into an 8 MiB budget: not all can keep theirs at once.
    let runs: Vec<_> = (0..4)
        .map(|i| {
            env.cmd()
                .args(["run", "--json", "--session", &format!("p{i}"), "--set", &format!("state.maxBytes={BUDGET}")])
                .args(["--set", "state.keepRecentSecs=0", "--set", "artifacts.maxBytes=3145728"])
                .args(["--", "head -c 30000000 /dev/zero | tr '\\0' y | fold -w 100"])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let results: Vec<serde_json::Value> =
        runs.into_iter().map(|run| serde_json::from_slice(&run.wait_with_output().unwrap().stdout).unwrap()).collect();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let most = watch.join().unwrap();
    assert!(most <= BUDGET, "the state directory reached {most} bytes, budget {BUDGET}");
    let notices: Vec<String> =
        results.iter().map(|r| common::text(r).lines().last().unwrap_or_default().to_string()).collect();
    let mut ids: Vec<u64> =
        results.iter().filter_map(|r| r["details"]["meta"]["truncation"]["artifactId"].as_u64()).collect();
    // Spills give way newest first: the two that started first fit together, whatever the timing.
    assert!(ids.len() >= 2, "{notices:#?}");
    let given = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), given, "an id was given twice: {notices:#?}");
    for notice in notices.iter().filter(|n| !n.contains("Head and tail: artifact://")) {
        assert!(notice.contains("at its budget (state.maxBytes = 8388608 bytes)"), "{notice}");
    }
}

#[test]
fn a_byte_written_into_the_runtimes_pipes_cancels_no_later_call() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let server = rpc.pid();
    // Every pipe the server holds past its stdio, opened through /proc as any command of the same
    // user can, gets a byte: the cancel pipes of calls, spare ones, the shells' call pipes.
    let command = format!(
        "for f in /proc/{server}/fd/*; do [ \"${{f##*/}}\" -gt 2 ] && [ -p \"$f\" ] && {{ printf x 1<>\"$f\"; }} 2>/dev/null; done; echo wrote"
    );
    let call = |rpc: &mut common::Rpc, id: &str, command: &str| {
        rpc.send(json!({"id": id, "type": "tool_call", "toolCallId": id, "name": "bash",
                        "arguments": {"command": command}}));
        rpc.tool_event("tool_execution_end", id).1
    };
    let end = call(&mut rpc, "c1", &command);
    assert!(common::text(&end["result"]).contains("wrote"), "{end}");
    for i in 2..6 {
        let id = format!("c{i}");
        let end = call(&mut rpc, &id, &format!("echo hello {i}"));
        let text = common::text(&end["result"]);
        assert!(text.starts_with(&format!("hello {i}\n")), "{id}: {text}");
        assert!(!text.contains("cancelled"), "{id}: {text}");
        assert_eq!(end["isError"], false, "{end}");
    }
    assert_eq!(rpc.finish(), 0);
}

/// Runs `command` as a tool call of `rpc` and returns its end event.
fn tool_call(rpc: &mut common::Rpc, id: &str, command: &str) -> serde_json::Value {
    rpc.send(
        json!({"id": id, "type": "tool_call", "toolCallId": id, "name": "bash", "arguments": {"command": command}}),
    );
    rpc.tool_event("tool_execution_end", id).1
}

#[test]
fn attributes_declared_on_the_runners_variables_change_no_later_command() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    // Every variable of the shell's that is not the user's (the runner's, listed by `compgen -v`;
    // bash's own `$_` aside) gets the attribute; the next command must run as written, in the
    // same shell.
    let every = |attribute: &str| {
        format!(
            "for v in $(compgen -v); do case $v in _) ;; _*) declare {attribute} \"$v\" 2>/dev/null;; esac; done; echo declared"
        )
    };
    for (i, attribute) in ["-l", "-u", "-i", "-x", "-a", "-n HOME"].into_iter().enumerate() {
        // (`declare -i` on the variable holding the running command's own text fails and ends it.)
        let end = tool_call(&mut rpc, &format!("d{i}"), &every(attribute));
        assert!(!common::text(&end["result"]).contains("Shell lost"), "{attribute}: {end}");
        let end =
            tool_call(&mut rpc, &format!("n{i}"), "echo MiXeD Case; echo \"${#HOME}\"; env | grep -c '^_.*declared'");
        let text = common::text(&end["result"]);
        let home = env.home().as_os_str().len();
        assert!(text.starts_with(&format!("MiXeD Case\n{home}\n0\n")), "{attribute}: {text}");
        assert_eq!(end["result"]["details"]["shell"], "reused the shell of earlier calls", "{attribute}: {end}");
    }
    // Read-only cannot be undone: the runner ends, and says why, with the command's own status.
    let end = tool_call(&mut rpc, "r", &every("-r"));
    let text = common::text(&end["result"]);
    assert!(text.contains("[Shell lost: a command disabled or redefined a builtin bashrt needs"), "{text}");
    assert_eq!(end["result"]["details"]["exitCode"], 0, "{end}");
    let end = tool_call(&mut rpc, "after", "echo MiXeD");
    assert!(common::text(&end["result"]).starts_with("MiXeD\n"), "{end}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_sigint_a_command_sends_its_own_shell_is_reported_as_bash_c_reports_it() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    for (i, command) in ["echo a; kill -INT $$; echo b", "for i in 1 2; do kill -INT 0; echo in-loop; done; echo after"]
        .into_iter()
        .enumerate()
    {
        let end = tool_call(&mut rpc, &format!("i{i}"), command);
        let details = &end["result"]["details"];
        assert_eq!(details["signal"], "SIGINT", "{command}: {end}");
        assert_eq!(details["outcome"], json!({"kind": "signalled", "signal": 2}), "{command}: {end}");
        let text = common::text(&end["result"]);
        assert!(!text.contains("continue") && !text.contains("b\n") && !text.contains("in-loop"), "{text}");
        // The shell took it and serves on, with nothing cancelled.
        let end = tool_call(&mut rpc, &format!("o{i}"), "echo ok");
        assert_eq!(common::text(&end["result"]), "ok\n", "{end}");
        assert_eq!(end["result"]["details"]["shell"], "reused the shell of earlier calls", "{end}");
    }
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn two_directories_whose_names_differ_by_a_dash_do_not_share_a_session() {
    let env = Env::new();
    let (nested, dashed) = (env.work().join("a/b"), env.work().join("a-b"));
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::create_dir_all(&dashed).unwrap();
    for (dir, word) in [(&nested, "nested"), (&dashed, "dashed")] {
        let out = env.cmd().current_dir(dir).args(["run", &format!("yes {word} | head -n 20000")]).output().unwrap();
        assert!(stdout(&out).contains("Full: artifact://"), "{}", stdout(&out));
    }
    let artifact =
        |dir: &Path, id: &str| env.cmd().current_dir(dir).args(["artifact", id, "--tail", "1"]).output().unwrap();
    assert_eq!(stdout(&artifact(&nested, "1")), "nested\n");
    assert_eq!(stdout(&artifact(&dashed, "2")), "dashed\n");
    // Each directory's session holds its own artifact only.
    let other = artifact(&dashed, "1");
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("Artifact 1 not found. Available: 2."), "{other:?}");
}

#[test]
fn an_artifact_shown_at_a_terminal_cannot_drive_it_and_piped_stays_exact() {
    let env = Env::new();
    let out = env.run(&["--session", "s"], "printf '\\033]52;c;cHduZWQ=\\007\\033]0;title\\007\\n'; seq 1 30000");
    assert!(stdout(&out).contains("Full: artifact://1]"), "{}", stdout(&out));
    let piped = env.cmd().args(["artifact", "1", "--session", "s", "--head", "1"]).output().unwrap();
    assert_eq!(piped.stdout, b"\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07\n");
    // At a terminal (`script` gives the command one).
    let bashrt = env.cmd().get_program().to_owned();
    let line = format!("{} artifact 1 --session s --head 1", bashrt.to_string_lossy());
    let mut at_terminal = Command::new("script");
    at_terminal.args(["-qec", &line, "/dev/null"]);
    for (key, value) in env.cmd().get_envs() {
        match value {
            Some(value) => at_terminal.env(key, value),
            None => at_terminal.env_remove(key),
        };
    }
    let shown = at_terminal.output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.starts_with("^[]52;c;cHduZWQ=^G^[]0;title^G\r\n"), "{text:?}");
    assert!(!shown.stdout.contains(&0x1b), "{text:?}");
}

#[test]
fn a_process_left_running_cannot_rewrite_a_later_command_sent_through_the_command_file() {
    let env = Env::new();
    // Unconfined: a confined shell cannot open the runtime's descriptors, and gets its long
    // commands through a file of its own instead.
    let mut rpc = env.rpc(&["--set", "sandbox.mode=off"], &[]);
    let planted = env.work().join("planted");
    // A non-ASCII command travels through the server's command memfd; a process an earlier call
    // leaves behind rewrites whatever it finds there, over and over.
    tool_call(&mut rpc, "warm", "echo é");
    let writer = format!(
        "for f in /proc/$PPID/fd/*; do [[ $(readlink $f) == /memfd:bashrt-command* ]] && M=$f; done; \
         perl -e 'open(my $f, \"+<\", $ARGV[0]) or die; while (1) {{ seek($f, 0, 0); print $f \"touch {} ; #\\0\"; }}' \"$M\" \
         >/dev/null 2>&1 & echo started",
        planted.display()
    );
    let end = tool_call(&mut rpc, "plant", &writer);
    assert!(common::text(&end["result"]).starts_with("started"), "{end}");
    for i in 0..60 {
        let end = tool_call(&mut rpc, &format!("c{i}"), "echo héllo-AA");
        assert!(common::text(&end["result"]).starts_with("héllo-AA\n"), "call {i}: {end}");
    }
    assert!(!planted.exists(), "a later command was rewritten");
    assert_eq!(rpc.finish(), 0);
}

/// Waits for process `pid` to end (through a pidfd, no polling of `/proc`); false after [`DEADLINE`].
fn ends(pid: i32) -> bool {
    // SAFETY: pidfd_open(2) with a pid and no flags; the result is checked.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    if fd < 0 {
        return true; // already gone
    }
    let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one pollfd we own; then the fd is closed once.
    let ready = unsafe { libc::poll(&mut poll, 1, DEADLINE.as_millis() as i32) };
    unsafe { libc::close(fd) };
    ready == 1
}

#[test]
fn a_client_that_stops_reading_holds_no_tool_call_past_its_deadline() {
    let env = Env::new();
    let pids = common::fifo(&env.work(), "pids");
    let mut server =
        env.cmd().arg("rpc").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = server.stdin.take().unwrap();
    // Output enough to fill the pipe to the client many times over, which the client never reads.
    let command = format!("bash -c 'echo $$ > {}; while :; do seq 1 2000; sleep 0.01; done'", pids.display());
    let request = json!({"id": "t", "type": "tool_call", "toolCallId": "t", "name": "bash",
                         "arguments": {"command": command, "timeout": 2}});
    writeln!(stdin, "{request}").unwrap();
    let pid: i32 = std::fs::read_to_string(&pids).unwrap().trim().parse().unwrap();
    assert!(ends(pid), "the command outlived its 2 s deadline while the client did not read");
    drop(stdin);
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn a_counter_written_to_its_last_id_does_not_stop_every_later_spill() {
    let env = Env::new();
    let out = env.run(&[], "seq 1 30000");
    assert!(stdout(&out).contains("Full: artifact://1]"), "{}", stdout(&out));
    std::fs::write(env.state().join("artifact-ids"), u64::MAX.to_string()).unwrap();
    for next in [2, 3] {
        let out = env.run(&[], "seq 1 30000");
        assert!(stdout(&out).contains(&format!("Full: artifact://{next}]")), "{}", stdout(&out));
    }
}
