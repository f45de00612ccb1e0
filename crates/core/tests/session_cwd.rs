//! A session's directory: deleted from outside or by the session's own command, it never ends the
//! session (the next command runs where the session started, and says why), the result and the
//! session always agree on it, and attributes on `cd`'s variables (`readonly OLDPWD`) change nothing.

use std::sync::Arc;

use bashrt_core::{AgentSession, BashOptions, BashResult, Runtime, SessionName, Settings};

fn runtime(state: &std::path::Path) -> Arc<Runtime> {
    Runtime::builder(Settings { snapshot: false, ..Settings::default() }).state_dir(state).build()
}

fn run(session: &AgentSession, command: &str) -> BashResult {
    let result = session.execute_bash(command, BashOptions::default());
    assert!(result.error.is_none(), "{result:?}");
    result
}

fn session_in(rt: &Arc<Runtime>, start: &std::path::Path) -> AgentSession {
    rt.session(&SessionName::parse("s").unwrap(), start.to_path_buf()).unwrap()
}

#[test]
fn a_cwd_deleted_from_outside_falls_back_to_the_start_with_the_reason() {
    let (state, start) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rt = runtime(state.path());
    let session = session_in(&rt, start.path());
    std::fs::create_dir(start.path().join("sub")).unwrap();
    run(&session, "cd sub");
    std::fs::remove_dir(start.path().join("sub")).unwrap();
    let result = run(&session, "pwd");
    let start_dir = start.path().canonicalize().unwrap();
    assert!(result.output.starts_with(&format!("{}\n", start_dir.display())), "{result:?}");
    assert!(result.text().contains("is gone (No such file or directory"), "{result:?}");
    assert_eq!((result.exit_code, result.cwd.as_str()), (Some(0), start_dir.to_str().unwrap()));
    assert_eq!(run(&session, "cd /tmp && pwd").output, "/tmp\n");
    assert_eq!(session.cwd(), std::path::Path::new("/tmp"));
}

#[test]
fn a_command_that_deletes_its_own_cwd_leaves_the_session_and_result_agreeing() {
    let (state, start) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rt = runtime(state.path());
    let session = session_in(&rt, start.path());
    let result = run(&session, "mkdir gone && cd gone && rmdir ../gone");
    let gone = start.path().canonicalize().unwrap().join("gone");
    assert_eq!(result.cwd, gone.display().to_string());
    assert_eq!(session.cwd(), gone);
    let result = run(&session, "echo next");
    assert!(result.output.starts_with("next\n") && result.text().contains("is gone"), "{result:?}");
    assert_eq!(session.cwd().display().to_string(), result.cwd);
}

#[test]
fn readonly_oldpwd_does_not_make_later_calls_fail() {
    let (state, start) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rt = runtime(state.path());
    let session = session_in(&rt, start.path());
    run(&session, "readonly OLDPWD; mkdir -p a b");
    for dir in ["a", "../b", "/tmp"] {
        let result = run(&session, &format!("cd {dir}; echo ok"));
        assert_eq!(result.exit_code, Some(0), "{result:?}");
    }
    // Tool calls set the directory per call: their shell follows them all the same.
    let tool = rt.tool();
    let call = |command: &str, dir: std::path::PathBuf| {
        let params = bashrt_core::BashParams {
            command: command.into(),
            cwd: Some(dir.display().to_string()),
            ..Default::default()
        };
        let ctx = bashrt_core::CallContext {
            session_cwd: start.path().to_path_buf(),
            artifacts: None,
            tool_names: vec![],
            cancel: bashrt_core::CancelToken::new().unwrap(),
            on_update: None,
        };
        tool.execute(&params, ctx)
    };
    call("readonly OLDPWD", start.path().to_path_buf());
    for dir in ["a", "b"] {
        let result = call("pwd", start.path().join(dir));
        assert!(!result.is_error, "{}", result.text());
        assert!(result.text().trim_end().ends_with(&format!("/{dir}")), "{}", result.text());
        assert!(!result.text().contains("restarted"), "{}", result.text());
    }
}

#[test]
fn a_directory_named_like_a_deleted_one_is_not_taken_for_it() {
    // The kernel names a deleted cwd `<path> (deleted)`; a real directory of that name must not pass
    // for it: the next command runs in the directory the session says it is in.
    let (state, start) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rt = runtime(state.path());
    let session = session_in(&rt, start.path());
    let result = run(&session, r#"mkdir -p d/x "d/x (deleted)" && cd d/x && rmdir "$PWD""#);
    let decoy = start.path().canonicalize().unwrap().join("d/x (deleted)");
    assert_eq!(result.cwd, decoy.display().to_string(), "{result:?}");
    let result = run(&session, "pwd -P");
    assert_eq!((result.exit_code, result.output.as_str()), (Some(0), format!("{}\n", decoy.display()).as_str()));
}
