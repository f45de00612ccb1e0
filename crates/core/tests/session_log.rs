//! A session's log (`bash.jsonl`) stays open between commands, yet loses no line when its file or its
//! directory is deleted, moved or replaced from outside, never writes through a symbolic link put in
//! its place, and a command whose line could not be written says so in `log_error`.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

use bashrt_core::{AgentSession, BashOptions, BashResult, Runtime, SessionName, Settings};

fn runtime(state: &Path) -> Arc<Runtime> {
    Runtime::builder(Settings { snapshot: false, ..Settings::default() }).state_dir(state).build()
}

fn run(session: &AgentSession, command: &str) -> BashResult {
    let result = session.execute_bash(command, BashOptions::default());
    assert!(result.error.is_none(), "{result:?}");
    result
}

struct Setup {
    state: tempfile::TempDir,
    work: tempfile::TempDir,
    _rt: Arc<Runtime>,
    session: AgentSession,
    /// The session's directory.
    dir: std::path::PathBuf,
}

fn setup() -> Setup {
    let (state, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rt = runtime(state.path());
    let session = rt.session(&SessionName::parse("s").unwrap(), work.path().to_path_buf()).unwrap();
    let dir = state.path().join("sessions/s");
    Setup { state, work, _rt: rt, session, dir }
}

fn logged(session: &AgentSession) -> Vec<String> {
    session.history().into_iter().map(|e| e.command).collect()
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_log_survives_its_directory_or_file_deleted_moved_or_replaced() {
    let Setup { state: _state, work: _work, _rt, session, dir } = setup();
    let log = dir.join("bash.jsonl");

    assert_eq!(run(&session, "echo one").log_error, None);
    assert_eq!(logged(&session), ["echo one"]);

    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(run(&session, "echo two").log_error, None);
    assert_eq!(logged(&session), ["echo two"]);
    assert_eq!((mode(&dir), mode(&log)), (0o700, 0o600));

    // Moved away: the file is still linked, but no longer the session's log.
    std::fs::rename(&log, dir.join("moved.jsonl")).unwrap();
    assert_eq!(run(&session, "echo three").log_error, None);
    assert_eq!(logged(&session), ["echo three"]);

    // Replaced by another file: the next line goes to the file now at the path.
    std::fs::write(dir.join("new.jsonl"), "").unwrap();
    std::fs::rename(dir.join("new.jsonl"), &log).unwrap();
    assert_eq!(run(&session, "echo four").log_error, None);
    assert_eq!(logged(&session), ["echo four"]);
    assert_eq!(std::fs::read_to_string(dir.join("moved.jsonl")).unwrap().lines().count(), 1);
}

#[test]
fn a_link_in_place_of_the_log_is_never_written_through_and_the_failure_is_reported() {
    let Setup { state: _state, work, _rt, session, dir } = setup();
    let log = dir.join("bash.jsonl");
    run(&session, "echo one");

    let target = work.path().join("target");
    std::fs::write(&target, "").unwrap();
    std::fs::remove_file(&log).unwrap();
    std::os::unix::fs::symlink(&target, &log).unwrap();
    let result = run(&session, "echo two");
    let error = result.log_error.unwrap_or_default();
    assert!(error.starts_with("cannot append to the session log"), "{error}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "");

    std::fs::remove_file(&log).unwrap();
    assert_eq!(run(&session, "echo three").log_error, None);
    assert_eq!(logged(&session), ["echo three"]);
}

#[test]
fn a_session_directory_replaced_by_a_file_is_reported_then_recovered_from() {
    let Setup { state: _state, work: _work, _rt, session, dir } = setup();
    run(&session, "echo one");

    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::write(&dir, "not a directory").unwrap();
    let result = run(&session, "echo two");
    assert!(result.log_error.is_some(), "{result:?}");
    assert_eq!(result.output, "two\n");

    std::fs::remove_file(&dir).unwrap();
    assert_eq!(run(&session, "echo three").log_error, None);
    assert_eq!(logged(&session), ["echo three"]);
}
