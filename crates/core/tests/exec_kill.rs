//! Ending a command early with the real bash: deadline, cancel from another thread, and a consumer
//! that stops reading. After a timeout or cancel, every process of the tree is dead when the call
//! returns (the call reaps the shell and waits for the tree, so the tests need no waiting).

use std::ffi::OsString;
use std::sync::mpsc;
use std::time::Duration;

use bashrt_core::{compose, CancelToken, ExecRequest, Executor, Flow, OneShotExecutor, Outcome, StatusMode};

use crate::support::*;

const ONE_SECOND: Duration = Duration::from_secs(1);

#[test]
fn deadline_kills_the_command_and_reports_timed_out() {
    let (execution, output) = run_request(&request("sleep 100 & echo $!; wait", ONE_SECOND));
    assert_eq!(execution.outcome, Outcome::TimedOut);
    assert_eq!(execution.background, 0);
    assert_all_dead(&pids_in(&output), &output);
}

#[test]
fn deadline_kills_the_shell_itself_when_it_became_the_program() {
    let (execution, output) = run_request(&request("echo $$; exec sleep 100", ONE_SECOND));
    assert_eq!(execution.outcome, Outcome::TimedOut);
    assert_all_dead(&pids_in(&output), &output);
}

#[test]
fn deadline_kills_nested_shells_and_children_that_left_the_process_group() {
    let script = r#"
        bash -c 'sleep 100 & echo $!; sleep 100 & echo $!; wait' & echo $!
        setsid sleep 100 & echo $!
        setsid bash -c 'sleep 100 & echo $!; wait' & echo $!
        wait"#;
    let (execution, output) = run_request(&request(script, ONE_SECOND));
    assert_eq!(execution.outcome, Outcome::TimedOut);
    let pids = pids_in(&output);
    assert_eq!(pids.len(), 6, "{output}");
    assert_all_dead(&pids, &output);
}

#[test]
fn child_ignoring_sigterm_dies_by_sigkill_after_the_grace() {
    let mut req = request("trap '' TERM; sleep 100 & echo $!; wait", ONE_SECOND);
    req.kill_grace = Duration::from_millis(50);
    let (execution, output) = run_request(&req);
    assert_eq!(execution.outcome, Outcome::TimedOut);
    assert_all_dead(&pids_in(&output), &output);
}

#[test]
fn stopped_child_is_killed_too() {
    let (execution, output) = run_request(&request("sleep 100 & echo $!; kill -STOP $!; wait", ONE_SECOND));
    assert_eq!(execution.outcome, Outcome::TimedOut);
    assert_all_dead(&pids_in(&output), &output);
}

#[test]
fn deadline_fires_while_output_keeps_flowing() {
    let mut bytes = 0usize;
    let mut count = |chunk: &[u8]| {
        bytes += chunk.len();
        Flow::Continue
    };
    let execution =
        OneShotExecutor.execute(&request("yes", ONE_SECOND), &mut count, &CancelToken::new().unwrap()).unwrap();
    assert_eq!(execution.outcome, Outcome::TimedOut);
    assert!(bytes > 0);
}

/// Runs `req` on this thread and cancels from another one once the first line has arrived.
fn run_and_cancel_after_first_line(req: &ExecRequest) -> (Outcome, String) {
    let cancel = CancelToken::new().unwrap();
    let (first_line_tx, first_line_rx) = mpsc::channel::<()>();
    let canceller = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            if first_line_rx.recv().is_ok() {
                cancel.cancel();
            }
        })
    };
    let mut output = Vec::new();
    let mut consumer = |chunk: &[u8]| {
        output.extend_from_slice(chunk);
        if output.contains(&b'\n') {
            let _ = first_line_tx.send(());
        }
        Flow::Continue
    };
    let execution = OneShotExecutor.execute(req, &mut consumer, &cancel).unwrap();
    drop(first_line_tx); // so that the canceller ends even if no line came
    canceller.join().unwrap();
    (execution.outcome, String::from_utf8(output).unwrap())
}

#[test]
fn cancel_from_another_thread_kills_the_tree_and_keeps_partial_output() {
    let script = r#"sleep 100 & a=$!; setsid sleep 100 & echo "$a $!"; wait"#;
    let (outcome, output) = run_and_cancel_after_first_line(&request(script, NO_TIMEOUT));
    assert_eq!(outcome, Outcome::Cancelled);
    let first_line = output.lines().next().unwrap();
    let pids: Vec<i32> = first_line.split_whitespace().map(|p| p.parse().unwrap()).collect();
    assert_eq!(pids.len(), 2, "{output}");
    assert_all_dead(&pids, &output);
}

#[test]
fn output_printed_by_a_sigterm_handler_is_kept() {
    let script = r#"trap 'echo cleanup; exit 0' TERM; echo ready; sleep 100 & wait"#;
    let mut req = request(script, NO_TIMEOUT);
    // Generous: the wait ends as soon as the tree is gone, the grace only bounds it.
    req.kill_grace = Duration::from_secs(30);
    let (outcome, output) = run_and_cancel_after_first_line(&req);
    assert_eq!(outcome, Outcome::Cancelled);
    assert_eq!(output, "ready\ncleanup\n");
}

/// Returns Stop once `lines` newlines have arrived, like `head -n <lines>`.
fn run_until_lines(req: &ExecRequest, lines: usize) -> (Outcome, usize) {
    let mut seen = 0;
    let mut head = |chunk: &[u8]| {
        seen += chunk.iter().filter(|&&b| b == b'\n').count();
        if seen >= lines {
            Flow::Stop
        } else {
            Flow::Continue
        }
    };
    let execution = OneShotExecutor.execute(req, &mut head, &CancelToken::new().unwrap()).unwrap();
    (execution.outcome, seen)
}

#[test]
fn consumer_stop_ends_an_endless_producer_like_head_does() {
    let script = compose("yes", None, StatusMode::ExtractedLastStage);
    let (outcome, seen) = run_until_lines(&request(&script, NO_TIMEOUT), 3);
    assert_eq!(outcome, Outcome::Exited { code: 0 });
    assert!(seen >= 3);
}

#[test]
fn consumer_stop_with_pipefail_reports_the_producers_sigpipe() {
    let script = compose("yes", None, StatusMode::ExtractedLastStage);
    let mut req = request(&script, NO_TIMEOUT);
    req.env = vec![(OsString::from("SHELLOPTS"), OsString::from("pipefail"))].into();
    assert_eq!(run_until_lines(&req, 3).0, Outcome::Exited { code: 141 });
}

#[test]
fn consumer_stop_still_honours_the_deadline() {
    let (outcome, _) = run_until_lines(&request("echo one; exec sleep 100", ONE_SECOND), 1);
    assert_eq!(outcome, Outcome::TimedOut);
}

#[test]
fn panicking_consumer_leaves_no_process_behind() {
    let mut output = Vec::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut consumer = |chunk: &[u8]| {
            output.extend_from_slice(chunk);
            if output.contains(&b'\n') {
                panic!("consumer gave up");
            }
            Flow::Continue
        };
        let req = request("sleep 100 & echo $!; wait", NO_TIMEOUT);
        let _ = OneShotExecutor.execute(&req, &mut consumer, &CancelToken::new().unwrap());
    }));
    assert!(result.is_err());
    let output = String::from_utf8(output).unwrap();
    assert_all_dead(&pids_in(&output), &output);
}
