//! Helpers shared by the `exec_*` integration tests (included with `#[path]`; no tests of its own).
#![allow(dead_code)]

use std::time::Duration;

use bashrt_core::exec::{ExecRequest, Execution, Executor, Flow, OneShotExecutor};
use bashrt_core::CancelToken;

pub const BASH: &str = "/bin/bash";
/// Long enough never to fire in a test that expects the command to end by itself.
pub const NO_TIMEOUT: Duration = Duration::from_secs(60);

pub fn request(script: &str, timeout: Duration) -> ExecRequest {
    ExecRequest::new(BASH, script, std::env::temp_dir(), timeout)
}

/// Runs `script` to the end, collecting all output.
pub fn run(script: &str) -> (Execution, String) {
    run_request(&request(script, NO_TIMEOUT))
}

pub fn run_request(req: &ExecRequest) -> (Execution, String) {
    let mut output = Vec::new();
    let mut collect = |chunk: &[u8]| {
        output.extend_from_slice(chunk);
        Flow::Continue
    };
    let cancel = CancelToken::new().unwrap();
    let execution = OneShotExecutor.execute(req, &mut collect, &cancel).unwrap();
    (execution, String::from_utf8(output).unwrap())
}

/// Alive = has a `/proc` entry and is not a zombie (a zombie has exited; only its parent or init
/// still has to collect its status).
pub fn is_alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let after_comm = &stat[stat.rfind(')').unwrap() + 1..];
    !matches!(after_comm.split_whitespace().next(), Some("Z" | "X"))
}

/// Every line of `output` that is a number.
pub fn pids_in(output: &str) -> Vec<i32> {
    output.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// Cleanup for processes a test deliberately leaves running.
pub fn kill_now(pid: i32) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
}
