//! Another local user, or a hostile command, must not be able to make bashrt run their code or read
//! through their links: state lives in directories only the user owns, checked before use, and
//! artifacts are opened without following links.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{self, stdout, Env};

/// The uid the second user runs as (`nobody` on Debian).
const OTHER_UID: &str = "65534";

fn as_other_user(script: &str) {
    let status = Command::new("setpriv")
        .args(["--reuid", OTHER_UID, "--regid", OTHER_UID, "--clear-groups", "--", "bash", "-c", script])
        .status()
        .expect("setpriv (util-linux) runs");
    assert!(status.success(), "the second user's script failed: {script}");
}

fn is_root() -> bool {
    // SAFETY: geteuid(2) cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn snapshot_files(state: &Path) -> Vec<PathBuf> {
    let dir = state.join("snapshots");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "sh"));
    files
}

#[test]
fn a_snapshot_planted_by_another_user_is_never_sourced() {
    if !is_root() {
        eprintln!("SKIPPED a_snapshot_planted_by_another_user_is_never_sourced: acting as a second user needs root");
        return;
    }
    let env = Env::new();
    std::fs::write(env.home().join(".bashrc"), "alias hello='echo real alias'\n").unwrap();
    // A first run learns the snapshot's file name (it depends only on the shell, HOME and environment).
    let first = env.run(&[], "hello");
    assert_eq!(stdout(&first), "real alias\n", "{first:?}");
    let name = snapshot_files(&env.state()).pop().expect("a snapshot was written").file_name().unwrap().to_owned();
    assert_eq!(std::fs::metadata(env.state().join("snapshots")).unwrap().permissions().mode() & 0o777, 0o700);

    // A world-writable place, like /tmp, where the other user prepares the state directory first.
    let shared = env.root.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(env.root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let state = shared.join("state");
    let pwned = shared.join("pwned");
    let snapshot = state.join("snapshots").join(&name);
    as_other_user(&format!(
        "mkdir -p -m 777 '{snapshots}' && printf 'touch {pwned}\\nalias hello=\"echo planted\"\\n' > '{snapshot}' \
         && chmod 666 '{snapshot}'",
        snapshots = state.join("snapshots").display(),
        pwned = pwned.display(),
        snapshot = snapshot.display(),
    ));

    let second = env.cmd().env("BASHRT_STATE_DIR", &state).args(["run", "--", "hello; echo ran"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(!pwned.exists(), "the other user's snapshot was sourced");
    assert!(!stdout(&second).contains("planted"), "{second:?}");
    assert!(stdout(&second).contains("ran"), "{second:?}");
    assert!(stderr.contains("owned by another user"), "the refusal is said: {stderr}");
}

#[test]
fn artifact_reads_never_follow_a_planted_link() {
    let env = Env::new();
    let session = env.session_name();
    let (first, _) = env.run_json(&[], "seq 1 100000");
    assert_eq!(first["details"]["meta"]["truncation"]["artifactId"], 1);
    // A command plants the next artifact as a link to a file it wants read back.
    let secret = env.root.path().join("secret");
    std::fs::write(&secret, "top secret\n").unwrap();
    let plant = format!("ln -s '{}' \"$ARTIFACTS/2.bash.log\"", secret.display());
    env.run(&[], &plant);
    let read = env.cmd().args(["artifact", "2", "--session", &session]).output().unwrap();
    assert!(!stdout(&read).contains("top secret"), "{read:?}");
    assert_eq!(read.status.code(), Some(2), "{read:?}");
    // The next output gets a fresh id instead of writing through the link.
    let (third, _) = env.run_json(&[], "seq 1 100000");
    assert_eq!(third["details"]["meta"]["truncation"]["artifactId"], 3);
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "top secret\n");

    // The whole directory replaced by a link.
    let elsewhere = env.root.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("1.bash.log"), "not an artifact\n").unwrap();
    let swap = format!("mv \"$ARTIFACTS\" \"$ARTIFACTS.real\" && ln -s '{}' \"$ARTIFACTS\"", elsewhere.display());
    env.run(&[], &swap);
    let read = env.cmd().args(["artifact", "1", "--session", &session]).output().unwrap();
    assert!(!stdout(&read).contains("not an artifact"), "{read:?}");
    assert_eq!(read.status.code(), Some(2), "{read:?}");
}

#[test]
fn a_state_directory_another_user_prepared_is_refused_not_served() {
    if !is_root() {
        eprintln!(
            "SKIPPED a_state_directory_another_user_prepared_is_refused_not_served: acting as a second user needs root"
        );
        return;
    }
    let env = Env::new();
    let shared = env.root.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(env.root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    // The other user makes the root, a session and its log, all open to everyone.
    let state = shared.join("state");
    let session = state.join("sessions/s");
    let forged = r#"{"ts":1,"command":"rm -rf / # forged","commandBytes":23,"cwd":"/","exitCode":0,"signal":null,"timedOut":false,"cancelled":false,"durationMs":1,"truncated":false,"artifactId":null}"#;
    as_other_user(&format!(
        "mkdir -p -m 777 '{session}' && chmod 777 '{state}' '{state}/sessions' && printf '%s\\n' '{forged}' > '{session}/bash.jsonl'",
        session = session.display(),
        state = state.display(),
    ));
    let mut rpc = env.rpc(&[], &[("BASHRT_STATE_DIR", &state)]);
    rpc.send(serde_json::json!({"id": "h", "type": "get_history", "sessionId": "s"}));
    let history = rpc.response("h");
    assert!(!history.to_string().contains("forged"), "{history}");
    // A session needs the state directory: refused, saying why.
    rpc.send(serde_json::json!({"id": "b", "type": "bash", "command": "echo ran", "sessionId": "s"}));
    let refused = rpc.response("b");
    assert!(refused["error"].as_str().unwrap().starts_with("untrusted state directory: "), "{refused}");
    // A tool call runs, its output kept nowhere.
    rpc.send(serde_json::json!({"id": "t", "type": "tool_call", "toolCallId": "t", "name": "bash",
                                "arguments": {"command": "seq 1 100000"}}));
    let end = rpc.tool_event("tool_execution_end", "t").1;
    assert_eq!(end["result"]["details"]["exitCode"], 0, "{end}");
    assert!(
        !common::text(&end["result"]).contains("artifact://"),
        "an artifact was written under the other user's tree"
    );
    assert_eq!(rpc.finish(), 0);
    let stderr = rpc.stderr();
    assert!(stderr.contains("untrusted state directory"), "{stderr}");
    assert!(stderr.contains("owned by another user (uid 65534)"), "{stderr}");
    // And a state directory in a place others may write to, whoever made it, is refused too.
    let open = env.root.path().join("open");
    std::fs::create_dir_all(open.join("state")).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = env.cmd().env("BASHRT_STATE_DIR", open.join("state")).args(["artifact", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("writable by other users"), "{out:?}");
}
