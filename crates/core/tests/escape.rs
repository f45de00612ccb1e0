//! No process escapes: children that left the process group and were orphaned (`setsid -f`,
//! `setsid` under `set -m`), and a process that forks and exits every millisecond (pid-hopping), are
//! killed by a timeout, an abort and the runtime's shutdown, and counted while they run.

use std::ffi::OsString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::support::*;
use bashrt_core::{
    BashParams, CallContext, CancelToken, ExecRequest, Executor, Flow, OneShotExecutor, Outcome, Runtime, Settings,
    MARKER_VAR,
};

/// A marker of this test alone, as the runtime gives every command.
fn marker() -> (OsString, OsString) {
    static N: AtomicU64 = AtomicU64::new(0);
    let token = format!("escape-test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    (MARKER_VAR.into(), token.into())
}

/// Live processes whose environment carries `token` (alone or as a call's `<token>.<n>`).
fn marked(token: &OsString) -> Vec<i32> {
    let needle = format!("{MARKER_VAR}={}", token.to_string_lossy()).into_bytes();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else { continue };
        let carries = env.split(|b| *b == 0).any(|e| {
            e.strip_prefix(needle.as_slice()).is_some_and(|rest| rest.is_empty() || rest.first() == Some(&b'.'))
        });
        if carries && is_alive(pid) {
            pids.push(pid);
        }
    }
    pids
}

/// One tool call on `runtime`, in a scratch directory.
fn run_tool(runtime: &std::sync::Arc<Runtime>, command: &str) -> bashrt_core::ToolResult {
    let dir = tempfile::tempdir().unwrap();
    let params = BashParams { command: command.into(), timeout: Some(60.0), ..Default::default() };
    let ctx = CallContext {
        session_cwd: dir.path().to_path_buf(),
        artifacts: None,
        tool_names: vec![],
        cancel: CancelToken::new().unwrap(),
        on_update: None,
    };
    runtime.tool().execute(&params, ctx)
}

fn marked_request(script: &str, timeout: Duration) -> (ExecRequest, OsString) {
    let (key, token) = marker();
    let mut req = request(script, timeout);
    req.env = vec![(key, token.clone())].into();
    (req, token)
}

#[test]
fn setsid_f_children_do_not_survive_a_timeout() {
    let script = "setsid -f sh -c 'echo $$; exec sleep 100'; setsid -f sleep 100; echo started; sleep 100";
    let (req, token) = marked_request(script, Duration::from_secs(1));
    let (execution, output) = run_request(&req);
    assert_eq!(execution.outcome, Outcome::TimedOut, "{output}");
    assert_all_dead(&pids_in(&output), &output);
    assert_eq!(marked(&token), Vec::<i32>::new(), "{output}");
}

#[test]
fn setsid_under_job_control_does_not_survive_a_cancel() {
    // With `set -m` the background job leads its own group, so `setsid` forks and its child is
    // orphaned at once.
    let script = "set -m; setsid sh -c 'echo $$; exec sleep 100' & sleep 100";
    let (req, token) = marked_request(script, NO_TIMEOUT);
    let cancel = CancelToken::new().unwrap();
    let mut first = true;
    let mut output = Vec::new();
    let mut consumer = |chunk: &[u8]| {
        output.extend_from_slice(chunk);
        if first && output.contains(&b'\n') {
            first = false;
            cancel.cancel();
        }
        Flow::Continue
    };
    let execution = OneShotExecutor.execute(&req, &mut consumer, &cancel).unwrap();
    let output = String::from_utf8_lossy(&output).into_owned();
    assert_eq!(execution.outcome, Outcome::Cancelled);
    assert_eq!(execution.background, 0);
    assert_all_dead(&pids_in(&output), &output);
    assert_eq!(marked(&token), Vec::<i32>::new());
}

#[test]
fn a_pid_hopping_process_does_not_survive_a_timeout() {
    let (req, token) = marked_request(&format!("{HOPPER}; sleep 100"), Duration::from_secs(1));
    let (execution, output) = run_request(&req);
    assert_eq!(execution.outcome, Outcome::TimedOut, "{output}");
    assert!(!still_hopping(first_pid(&output), 3), "{output}");
    assert_eq!(marked(&token), Vec::<i32>::new(), "{output}");
}

#[test]
fn an_orphaned_setsid_child_is_counted_and_the_shutdown_sweep_kills_it() {
    let runtime = Runtime::builder(Settings::default()).one_shot().no_state_dir().build();
    let result = run_tool(&runtime, "setsid -f sh -c 'echo $$; exec sleep 100' >/dev/null; echo done");
    assert_eq!(result.details.background_processes, 1, "{}", result.text());
    let token = OsString::from(runtime.marker_token());
    assert_eq!(marked(&token).len(), 1);
    runtime.shutdown(Duration::from_millis(50));
    assert_eq!(marked(&token), Vec::<i32>::new());
}

#[test]
fn a_pid_hopping_process_does_not_survive_the_shutdown_sweep() {
    let runtime = Runtime::builder(Settings::default()).one_shot().no_state_dir().build();
    let result = run_tool(&runtime, HOPPER);
    assert_eq!(result.details.exit_code, Some(0), "{}", result.text());
    let sid = first_pid(&result.text());
    assert!(still_hopping(sid, 1000), "the hopper runs until the shutdown");
    runtime.shutdown(Duration::ZERO);
    assert!(!still_hopping(sid, 3));
}

/// A runtime closed for good starts nothing more, and says why.
#[test]
fn a_closed_runtime_starts_nothing_and_says_why() {
    for runtime in [
        Runtime::builder(Settings::default()).one_shot().no_state_dir().build(),
        Runtime::builder(Settings::default()).no_state_dir().build(),
    ] {
        let token = OsString::from(runtime.marker_token());
        runtime.close(Duration::ZERO);
        let result = run_tool(&runtime, "echo started");
        assert!(result.text().contains("the runtime is shutting down"), "{}", result.text());
        assert!(!result.text().contains("started\n"), "{}", result.text());
        assert_eq!(marked(&token), Vec::<i32>::new());
    }
}

/// Closing while another thread starts a command: whatever was started is found and killed, or was
/// never started. (A process caught between `fork` and `exec` does not carry the marker yet, and one
/// started after the sweep's last look is never seen; both once outlived a server that ended right
/// after it began.)
#[test]
fn closing_while_a_command_starts_leaves_nothing_behind() {
    for _ in 0..20 {
        let runtime = Runtime::builder(Settings::default()).one_shot().no_state_dir().build();
        let token = OsString::from(runtime.marker_token());
        let caller = {
            let runtime = runtime.clone();
            std::thread::spawn(move || run_tool(&runtime, "sleep 100"))
        };
        runtime.close(Duration::ZERO);
        assert_eq!(marked(&token), Vec::<i32>::new());
        // The call either never started or was killed: it ends either way.
        caller.join().unwrap();
    }
}
