//! Two runtimes in one process, as an embedder (a test harness, an MCP server beside a UI) would make
//! them: their state directories, artifacts, shells and processes never mix, and dropping one ends only
//! what it started.

use std::sync::Arc;

use crate::support::{is_alive, work_dir};
use bashrt_core::{BashOptions, BashResult, Runtime, SessionName, Settings};

fn runtime(state: &std::path::Path) -> Arc<Runtime> {
    Runtime::builder(Settings { snapshot: false, ..Settings::default() }).state_dir(state).build()
}

fn run(session: &bashrt_core::AgentSession, command: &str) -> BashResult {
    let result = session.execute_bash(command, BashOptions::default());
    assert!(result.error.is_none(), "{result:?}");
    result
}

fn pid_in(result: &BashResult) -> i32 {
    result.output.trim().parse().unwrap_or_else(|_| panic!("no pid in {:?}", result.output))
}

#[test]
fn two_runtimes_share_nothing_and_dropping_one_ends_only_its_processes() {
    let (state_a, state_b, work) =
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (runtime(state_a.path()), runtime(state_b.path()));
    assert_ne!(a.marker_token(), b.marker_token());
    // The same session name on both: still two shells.
    let name = SessionName::parse("same").unwrap();
    let session_a = a.session(&name, work.path().to_path_buf()).unwrap();
    let session_b = b.session(&name, work.path().to_path_buf()).unwrap();

    run(&session_a, "X=from-a");
    assert_eq!(run(&session_a, "echo ${X-unset}").output, "from-a\n");
    assert_eq!(run(&session_b, "echo ${X-unset}").output, "unset\n");

    // Artifacts go to each runtime's own state directory, with ids counted there.
    let big = "seq 1 100000";
    assert_eq!(run(&session_a, big).artifact_id.map(|id| id.0), Some(1));
    assert_eq!(run(&session_a, big).artifact_id.map(|id| id.0), Some(2));
    assert_eq!(run(&session_b, big).artifact_id.map(|id| id.0), Some(1));
    assert!(state_a.path().join("sessions/same/artifacts/2.bash.log").is_file());
    assert!(!state_b.path().join("sessions/same/artifacts/2.bash.log").exists());

    // A background process in each, one of them out of the shell's process group.
    let pid_a = pid_in(&run(&session_a, "setsid sleep 1000 >/dev/null 2>&1 & echo $!"));
    let pid_b = pid_in(&run(&session_b, "sleep 1000 >/dev/null 2>&1 & echo $!"));
    assert!(is_alive(pid_a) && is_alive(pid_b));

    drop(session_a);
    drop(a);
    assert!(!is_alive(pid_a), "runtime a's background process outlived it");
    assert!(is_alive(pid_b), "dropping runtime a killed runtime b's process");
    assert_eq!(run(&session_b, "echo still here").output, "still here\n");

    drop(session_b);
    drop(b);
    assert!(!is_alive(pid_b));
}

#[test]
fn a_runtime_without_state_runs_tool_calls_and_refuses_sessions() {
    let runtime = Runtime::builder(Settings { snapshot: false, ..Settings::default() }).no_state_dir().build();
    assert!(runtime.state_dir().is_none());
    let name = SessionName::parse("s").unwrap();
    assert!(runtime.session(&name, work_dir()).is_err());
    assert!(runtime.artifacts(&name).is_none());
}

#[test]
fn close_if_empty_removes_only_a_session_that_kept_nothing() {
    let (state, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rt = runtime(state.path());
    let empty = rt.session(&SessionName::parse("empty").unwrap(), work.path().to_path_buf()).unwrap();
    assert!(state.path().join("sessions/empty").is_dir());
    assert!(empty.close_if_empty());
    assert!(!state.path().join("sessions/empty").exists());

    let kept = rt.session(&SessionName::parse("kept").unwrap(), work.path().to_path_buf()).unwrap();
    run(&kept, "true");
    assert!(!kept.close_if_empty(), "a session with a log is kept");
    assert!(state.path().join("sessions/kept/bash.jsonl").is_file());
}
