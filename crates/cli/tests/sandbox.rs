//! The sandbox, through the real binary on this machine's kernel: what a tool call's command may
//! write, read and reach, what the model is told when it was refused, and that an ordinary
//! permission error is never blamed on the sandbox.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common::{text, Env};

fn is_root() -> bool {
    // SAFETY: geteuid(2) cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A directory outside every writable root (the workspace, `/tmp`, `/dev/shm`, `/var/tmp`, the
/// caches): under `/run` as root, else under the user's real home.
fn outside() -> tempfile::TempDir {
    let parent = match is_root() {
        true => PathBuf::from("/run"),
        false => PathBuf::from(std::env::var_os("HOME").expect("HOME is set")),
    };
    tempfile::tempdir_in(parent).expect("a scratch directory outside the writable roots")
}

/// `bashrt run --json -- script`: as root, as a second user (`nobody`, through `setpriv`) in a
/// workspace and home of theirs outside the writable roots; else as the user in `env`.
fn as_second_user_if_root(env: &Env, script: &str) -> Value {
    if !is_root() {
        return env.run_json(&[], script).0;
    }
    let (work, home) = (outside(), outside());
    for dir in [work.path(), home.path()] {
        let ok = Command::new("chown").args(["-R", "65534:65534"]).arg(dir).status().unwrap().success();
        assert!(ok);
    }
    let out = Command::new("setpriv")
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_bashrt"))
        .args(["run", "--json", "--", script])
        .current_dir(work.path())
        .env("HOME", home.path())
        .env("BASHRT_STATE_DIR", home.path().join("state"))
        .env_remove("BASHRT_SETTINGS")
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn denials(result: &Value) -> Vec<Value> {
    result["details"]["sandbox"]["denials"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_write_outside_the_workspace_is_refused_and_reported_with_its_path() {
    let env = Env::new();
    let out = outside();
    let target = out.path().join("probe");
    let (result, _) = env.run_json(&[], &format!("touch {}", target.display()));
    let text = text(&result);
    assert!(text.contains("Permission denied"), "{text}");
    assert!(!target.exists(), "the file was written");
    let shown = target.display().to_string();
    assert!(
        text.contains(&format!("[Sandbox denied: write to {shown} (outside the writable roots")),
        "no true notice: {text}"
    );
    let found = denials(&result);
    assert_eq!(found.len(), 1, "{result}");
    assert_eq!(found[0]["kind"], "write");
    assert_eq!(found[0]["certainty"], "checked");
    assert_eq!(found[0]["path"], shown.as_str());
}

#[test]
fn ordinary_work_in_the_workspace_and_tmp_runs_without_a_notice() {
    let env = Env::new();
    let script = "touch a && mkdir -p b/c && mv a b/c/ && echo x > /tmp/bashrt-sbx-$$ && rm /tmp/bashrt-sbx-$$ \
                  && f=$(mktemp) && echo \"$f\" && rm -r b && git init -q r && cd r && git -c user.name=t \
                  -c user.email=t@t commit -q --allow-empty -m x && echo committed";
    let (result, code) = env.run_json(&[], script);
    let text = text(&result);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("committed"), "{text}");
    assert!(!text.contains("Sandbox"), "{text}");
    let tmp = text.lines().next().unwrap_or_default();
    assert!(tmp.contains("/bashrt-tmp-"), "mktemp is not in the private TMPDIR: {tmp}");
    assert!(result["details"]["sandbox"].is_null(), "{result}");
}

#[test]
fn read_only_mode_refuses_writes_to_the_workspace_too() {
    let env = Env::new();
    let (result, _) =
        env.run_json(&["--set", "sandbox.mode=read-only"], "echo x > made; cat /etc/hostname >/dev/null && echo read");
    let text = text(&result);
    assert!(!env.work().join("made").exists());
    assert!(text.contains("read"), "{text}");
    assert!(text.contains("(the sandbox is read-only)"), "{text}");
}

#[test]
fn credentials_are_unreadable_but_listable() {
    let env = Env::new();
    let ssh = env.home().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_ed25519"), "SECRET KEY MATERIAL").unwrap();
    let (result, _) = env.run_json(&[], "ls ~/.ssh; cat ~/.ssh/id_ed25519");
    let text = text(&result);
    assert!(text.contains("id_ed25519"), "names are listable: {text}");
    assert!(!text.contains("SECRET KEY MATERIAL"), "{text}");
    assert!(text.contains("[Sandbox denied: read of ~/.ssh/id_ed25519"), "{text}");
    assert_eq!(denials(&result)[0]["kind"], "read");
}

#[test]
fn secret_variables_are_left_out_and_named_never_shown() {
    let env = Env::new();
    let token = "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let out = env
        .cmd()
        .env("OPENAI_API_KEY", "sk-test-value-not-shown")
        .env("SOME_VALUE", token)
        .env("FOO", "1")
        .env("KEYBOARD", "x")
        .args(["run", "--json", "--", "env | sort"])
        .output()
        .unwrap();
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = text(&result);
    assert!(text.contains("FOO=1") && text.contains("KEYBOARD=x"), "{text}");
    assert!(!text.contains("OPENAI_API_KEY=") && !text.contains("sk-test-value-not-shown"), "{text}");
    assert!(!text.contains(token), "{text}");
    assert!(text.contains("left out of the environment: "), "{text}");
    let removed = result["details"]["sandbox"]["envRemoved"].as_array().cloned().unwrap_or_default();
    assert!(removed.contains(&json!("OPENAI_API_KEY")) && removed.contains(&json!("SOME_VALUE")), "{result}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(token));
}

#[test]
fn the_network_off_refuses_ip_sockets_but_not_unix_ones() {
    let env = Env::new();
    let script = "python3 -c \"import socket; socket.create_connection(('127.0.0.1', 9), timeout=2)\"; \
                  python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2).decode())\"";
    let (result, _) = env.run_json(&["--set", "sandbox.network=off"], script);
    let text = text(&result);
    assert!(text.contains("Operation not permitted"), "{text}");
    assert!(text.contains("ok"), "unix sockets still work: {text}");
    assert!(text.contains("the network is off in the sandbox"), "{text}");
    assert_eq!(denials(&result)[0]["kind"], "network");
}

#[test]
fn the_long_lived_shell_is_confined_once_and_keeps_its_state() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let call = |rpc: &mut crate::common::Rpc, id: &str, command: &str| -> Value {
        rpc.send(
            json!({"id": id, "type": "tool_call", "toolCallId": id, "name": "bash", "arguments": {"command": command}}),
        );
        rpc.tool_event("tool_execution_end", id).1["result"].clone()
    };
    let first = call(&mut rpc, "a", "export A=1; grep -E '^(NoNewPrivs|Seccomp):' /proc/$$/status; echo pid=$$");
    let second = call(&mut rpc, "b", "echo A=$A pid=$$; (sleep 0.2; touch ~/../late) & wait");
    let (first, second) = (text(&first), text(&second));
    assert!(first.contains("NoNewPrivs:\t1") && first.contains("Seccomp:\t2"), "{first}");
    let pid = |t: &str| t.split("pid=").nth(1).map(|s| s.trim().to_string());
    assert_eq!(pid(&first), pid(&second), "not the same shell: {first} / {second}");
    assert!(second.contains("A=1"), "{second}");
    assert!(!env.home().join("../late").exists() || env.home().starts_with("/tmp"));
    rpc.finish();
}

#[test]
fn a_kernel_without_landlock_refuses_or_warns_as_configured() {
    let env = Env::new();
    let run = |extra: &[&str]| -> (Value, i32) {
        let out = env
            .cmd()
            .env("BASHRT_SANDBOX_FORCE_ABI", "0")
            .args(["run", "--json"])
            .args(extra)
            .args(["--", "echo ran"])
            .output()
            .unwrap();
        (serde_json::from_slice(&out.stdout).unwrap(), out.status.code().unwrap_or(-1))
    };
    let (refused, _) = run(&[]);
    let text = text(&refused);
    assert!(text.starts_with("Sandbox unavailable: Landlock is not supported here (ABI 0)"), "{text}");
    assert!(!text.contains("ran\n"), "{text}");
    let (warned, code) = run(&["--set", "sandbox.fallback=warn"]);
    let text = crate::common::text(&warned);
    assert_eq!(code, 0);
    assert!(text.starts_with("ran"), "{text}");
    assert!(text.contains("[Ran WITHOUT the sandbox: Landlock is not supported here"), "{text}");
    let (off, _) = run(&["--set", "sandbox.mode=off"]);
    assert_eq!(crate::common::text(&off), "ran\n");
}

#[test]
fn an_ordinary_permission_error_is_not_blamed_on_the_sandbox() {
    let env = Env::new();
    let script = "echo s > f && chmod 000 f && cat f; mkdir -p ro && chmod 555 ro && touch ro/x; echo done";
    // Root reads and writes through modes: as root, act as a second user.
    let result = as_second_user_if_root(&env, script);
    let text = text(&result);
    assert!(text.contains("Permission denied") && text.contains("done"), "{text}");
    assert!(!text.contains("Sandbox"), "blamed: {text}");
    assert!(result["details"]["sandbox"].is_null(), "{result}");
}

fn tool_call(rpc: &mut crate::common::Rpc, id: &str, arguments: Value) -> Value {
    rpc.send(json!({"id": id, "type": "tool_call", "toolCallId": id, "name": "bash", "arguments": arguments}));
    rpc.tool_event("tool_execution_end", id).1["result"].clone()
}

#[test]
fn on_loopback_a_server_the_sandbox_started_is_reachable_and_bound_to_loopback_only() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let server = "exec python3 -u -m http.server 0 --bind 0.0.0.0";
    let started = tool_call(&mut rpc, "s", json!({"command": server, "background": true}));
    let address = started["details"]["job"]["listening"][0].as_str().unwrap_or_default().to_string();
    assert!(address.starts_with("127.0.0.1:"), "the wildcard bind was not narrowed to loopback: {started}");
    let port = address.trim_start_matches("127.0.0.1:");
    let got = tool_call(
        &mut rpc,
        "c",
        json!({"command": format!("curl -s -o /dev/null -w '%{{http_code}}' 127.0.0.1:{port}")}),
    );
    assert_eq!(text(&got), "200", "{got}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn on_loopback_other_addresses_and_local_services_are_refused_exactly() {
    let env = Env::new();
    // A local service bashrt did not start (a database the user runs, say).
    let service = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = service.local_addr().unwrap().port();
    let script = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('reached')\"; \
         python3 -c \"import socket; socket.create_connection(('192.0.2.1', 80), timeout=2)\" 2>&1 | tail -1; \
         python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\" 2>&1 | tail -1"
    );
    let (result, _) = env.run_json(&[], &script);
    let shown = text(&result);
    assert!(!shown.contains("reached"), "{shown}");
    assert!(shown.contains("PermissionError: [Errno 13] Permission denied"), "{shown}");
    assert!(shown.contains("PermissionError: [Errno 1] Operation not permitted"), "UDP: {shown}");
    assert!(
        shown.contains(&format!(
            "[Sandbox denied: connect to 127.0.0.1:{port} by python3 (the network is loopback-only"
        )),
        "{shown}"
    );
    let found = denials(&result);
    let addresses: Vec<&str> = found.iter().filter_map(|d| d["address"].as_str()).collect();
    assert_eq!(addresses, [format!("127.0.0.1:{port}").as_str(), "192.0.2.1:80"], "{result}");
    assert!(found.iter().all(|d| d["kind"] == "network" && d["certainty"] == "exact"), "{result}");
    // Allowed by the user: reached.
    let allow = format!("sandbox.allowLoopbackPorts=[{port}]");
    let (allowed, _) = env.run_json(&["--set", &allow], &script);
    assert!(text(&allowed).starts_with("reached\n"), "{allowed}");
}

#[test]
fn a_write_to_a_git_hook_or_config_is_reported() {
    let env = Env::new();
    let ok = Command::new("git").args(["init", "-q"]).current_dir(env.work()).status().unwrap().success();
    assert!(ok);
    let (result, code) = env.run_json(&[], "echo 'curl x' > .git/hooks/pre-commit && touch notes.txt && echo done");
    let shown = text(&result);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("[Sandbox: changed since the last call: .git/hooks/pre-commit — these run outside the sandbox"),
        "{shown}"
    );
    assert_eq!(result["details"]["sandbox"]["sensitiveWrites"], json!([".git/hooks/pre-commit"]), "{result}");
    // Ordinary files say nothing.
    let (quiet, _) = env.run_json(&[], "touch more.txt && echo done");
    assert_eq!(text(&quiet), "done\n");
}

/// A directory outside the writable roots, and a tool call that writes into it with `sandbox`.
fn escalating(id: &str, dir: &Path, file: &str, ask: bool) -> Value {
    let mut arguments = json!({"command": format!("touch {}/{file} && echo made", dir.display())});
    if ask {
        arguments["sandbox"] = json!({"write": [dir.display().to_string()], "reason": "the test writes there"});
    }
    json!({"id": id, "type": "tool_call", "toolCallId": id, "name": "bash", "arguments": arguments})
}

#[test]
fn over_rpc_the_user_approves_a_request_once_or_for_the_session_or_denies_it() {
    let env = Env::new();
    let out = outside();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id": "cap", "type": "set_capabilities", "approvals": true}));
    assert_eq!(rpc.response("cap")["success"], true);

    // Once: asked, granted, run.
    rpc.send(escalating("a", out.path(), "once", true));
    let (_, asked) = rpc.wait_for("approval_request", |v| v["type"] == "approval_request");
    assert_eq!(asked["toolCallId"], "a");
    assert_eq!(asked["reason"], "the test writes there");
    assert_eq!(asked["summary"], format!("write {}", out.path().display()));
    let approval_id = asked["approvalId"].as_str().unwrap_or_default().to_string();
    rpc.send(json!({"id": "ok1", "type": "approval", "approvalId": approval_id, "decision": "once"}));
    let once = rpc.tool_event("tool_execution_end", "a").1["result"].clone();
    assert!(text(&once).starts_with("made\n"), "{once}");
    assert!(text(&once).contains("[Sandbox widened for this call by the user: write "), "{once}");
    assert_eq!(once["details"]["sandbox"]["grant"]["scope"], "once");
    assert!(out.path().join("once").exists());

    // Once is once: the same write without a request is refused.
    let again = tool_call(&mut rpc, "b", escalating("b", out.path(), "again", false)["arguments"].clone());
    assert!(text(&again).contains("[Sandbox denied: write to "), "{again}");

    // Denied, with the user's words.
    rpc.send(escalating("c", out.path(), "denied", true));
    let (_, asked) = rpc.wait_for("approval_request", |v| v["type"] == "approval_request" && v["toolCallId"] == "c");
    let approval_id = asked["approvalId"].as_str().unwrap_or_default().to_string();
    rpc.send(
        json!({"type": "approval", "approvalId": approval_id, "decision": "deny", "message": "use the workspace"}),
    );
    let denied = rpc.tool_event("tool_execution_end", "c").1["result"].clone();
    assert_eq!(
        text(&denied),
        format!(
            "Blocked: the sandbox does not allow write {}, and the user denied it (\"use the workspace\").",
            out.path().display()
        )
    );
    assert_eq!(denied["isError"], true);
    assert!(!out.path().join("denied").exists());

    // For the session: later calls may write there without asking.
    rpc.send(escalating("d", out.path(), "session", true));
    let (_, asked) = rpc.wait_for("approval_request", |v| v["type"] == "approval_request" && v["toolCallId"] == "d");
    let approval_id = asked["approvalId"].as_str().unwrap_or_default().to_string();
    rpc.send(json!({"type": "approval", "approvalId": approval_id, "decision": "session"}));
    let session = rpc.tool_event("tool_execution_end", "d").1["result"].clone();
    assert!(text(&session).contains("[Sandbox widened for the rest of this session by the user: write "), "{session}");
    let later = tool_call(&mut rpc, "e", escalating("e", out.path(), "later", false)["arguments"].clone());
    assert_eq!(text(&later), "made\n");
    rpc.send(json!({"id": "st", "type": "get_state"}));
    let state = rpc.response("st");
    assert_eq!(state["data"]["sandboxGrants"][0]["write"][0], out.path().display().to_string(), "{state}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_client_that_cannot_approve_gets_a_refusal_at_once() {
    let env = Env::new();
    let out = outside();
    let mut rpc = env.rpc(&[], &[]);
    let refused = tool_call(&mut rpc, "a", escalating("a", out.path(), "x", true)["arguments"].clone());
    let shown = text(&refused);
    assert!(shown.starts_with("Not run: the sandbox does not allow write "), "{shown}");
    assert!(shown.contains("set_capabilities") && shown.contains("sandbox.writableRoots"), "{shown}");
    assert!(!out.path().join("x").exists());
    // And with sandbox.approval = "never", even one that can.
    let mut never = env.rpc(&["--set", "sandbox.approval=never"], &[]);
    never.send(json!({"id": "cap", "type": "set_capabilities", "approvals": true}));
    let refused = tool_call(&mut never, "b", escalating("b", out.path(), "y", true)["arguments"].clone());
    assert!(text(&refused).contains("sandbox.approval is \"never\""), "{refused}");
    assert_eq!(rpc.finish(), 0);
    assert_eq!(never.finish(), 0);
}

#[test]
fn in_the_tui_ctrl_g_allows_what_the_sandbox_refused_for_the_session() {
    let out = outside();
    let term = crate::tui_support::Term::new(140, 30);
    term.start(&[], &[]);
    let command = format!("touch {}/made && echo made-it", out.path().display());
    term.type_line(&command);
    let screen = term.wait_for("the offer", |s| s.contains("ctrl+g allows it for this session"));
    assert!(screen.contains(&format!("the sandbox refused write {}", out.path().display())), "{screen}");
    assert!(!out.path().join("made").exists());
    term.keys(&["C-g"]);
    term.wait_for("the grant", |s| s.contains("sandbox widened for this session: write "));
    term.type_line(&command);
    term.wait_for("the second run", |s| s.contains("✓ exit 0"));
    assert!(out.path().join("made").exists());
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

#[test]
fn a_long_lived_server_watches_the_hooks_and_tells_each_change_once() {
    let env = Env::new();
    let ok = Command::new("git").args(["init", "-q"]).current_dir(env.work()).status().unwrap().success();
    assert!(ok);
    let mut rpc = env.rpc(&[], &[]);
    let first = tool_call(&mut rpc, "a", json!({"command": "echo ok"}));
    assert_eq!(text(&first), "ok\n");
    let hooked = tool_call(
        &mut rpc,
        "b",
        json!({"command": "printf 'curl x\\n' >> .git/hooks/post-checkout; git config core.fsmonitor true; echo done"}),
    );
    let shown = text(&hooked);
    assert!(
        shown.contains("[Sandbox: changed since the last call: .git/hooks/post-checkout, .git/config — "),
        "{shown}"
    );
    let quiet = tool_call(&mut rpc, "c", json!({"command": "echo again"}));
    assert_eq!(text(&quiet), "again\n");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn unix_sockets_outside_the_workspace_are_refused_unless_listed() {
    let env = Env::new();
    // A service's socket outside the workspace (an SSH agent's, a container engine's).
    let out = outside();
    let socket = out.path().join("service.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let reach = |path: &Path| {
        format!(
            "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); print('reached')\" 2>&1 | tail -n 1",
            path.display()
        )
    };
    let (result, _) = env.run_json(&[], &reach(&socket));
    let shown = text(&result);
    assert!(shown.starts_with("PermissionError: [Errno 13] Permission denied"), "{shown}");
    assert!(shown.contains(&format!("[Sandbox denied: connect to {} by python3", socket.display())), "{shown}");
    // Listed: reached.
    let allow = format!("sandbox.allowUnixSockets=[{:?}]", socket.display().to_string());
    let (allowed, _) = env.run_json(&["--set", &allow], &reach(&socket));
    assert!(text(&allowed).starts_with("reached\n"), "{allowed}");
    // A socket of the workspace's own: a server and its client in one command.
    let local = "python3 -c \"import socket; a = socket.socket(socket.AF_UNIX); a.bind('s.sock'); a.listen(); \
                 b = socket.socket(socket.AF_UNIX); b.connect('s.sock'); print('local ok')\"";
    let (result, _) = env.run_json(&[], local);
    assert_eq!(text(&result), "local ok\n");
    drop(listener);
}

#[test]
fn what_a_killed_server_left_is_removed_by_the_next_runtime() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let done = tool_call(&mut rpc, "a", json!({"command": "echo $TMPDIR"}));
    let tmpdir = PathBuf::from(text(&done).trim());
    let pid = rpc.pid();
    assert!(tmpdir.is_dir() && tmpdir.to_string_lossy().contains(&format!("/bashrt-tmp-{pid}-")), "{tmpdir:?}");
    // SAFETY: kill(2) of the server's pid.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    rpc.wait_exit();
    assert!(tmpdir.is_dir(), "a killed server removes nothing itself");
    let (next, _) = env.run_json(&[], "echo next");
    assert_eq!(text(&next), "next\n");
    assert!(!tmpdir.exists(), "{tmpdir:?} was left");
}

/// sudo, installed when missing (a Debian package, as root).
fn ensure_sudo() {
    if Command::new("sh").args(["-c", "command -v sudo"]).output().is_ok_and(|o| o.status.success()) {
        return;
    }
    assert!(is_root(), "the privilege test needs sudo (apt-get install sudo)");
    let ok = Command::new("sh")
        .args(["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sudo"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "could not install sudo");
}

#[test]
fn sudo_gains_nothing_and_the_denial_says_it_was_the_sandbox() {
    if !crate::common::slow("installs sudo when it is missing") {
        return;
    }
    ensure_sudo();
    let script = "sudo -n true; echo status=$?";
    // As root sudo has nothing to gain: ask as a second user.
    let result = as_second_user_if_root(&Env::new(), script);
    let shown = text(&result);
    assert!(shown.contains("\"no new privileges\" flag is set"), "{shown}");
    assert!(shown.contains("[Sandbox denied: a gain of privileges (sudo, set-user-ID programs)"), "{shown}");
    assert_eq!(denials(&result)[0]["kind"], "privilege");
    assert_eq!(denials(&result)[0]["certainty"], "exact");
}
