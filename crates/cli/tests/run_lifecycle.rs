//! `bashrt run` end to end: timeouts, aborts and background processes, checked by pid.

mod common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use common::{alive, fifo, stdout, text, Env};

/// Starts `bashrt run` with a command that reports pids on a FIFO; returns the child and the pids.
fn start_with_pids(env: &Env, extra: &[&str], command: &str, count: usize) -> (std::process::Child, Vec<i32>) {
    let pids = fifo(env.root.path(), "pids");
    let mut cmd = env.cmd();
    cmd.env("PIDS", &pids).arg("run").args(extra).arg("--").arg(command);
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let reader = BufReader::new(std::fs::File::open(&pids).unwrap());
    let got: Vec<i32> = reader.lines().take(count).map(|l| l.unwrap().trim().parse().unwrap()).collect();
    assert_eq!(got.len(), count);
    (child, got)
}

const TREE: &str = "exec 3>\"$PIDS\"; echo started; sleep 100 & echo $! >&3; setsid sleep 100 & echo $! >&3; \
                    (trap '' TERM; sleep 100) & echo $! >&3; echo $$ >&3; exec 3>&-; wait";

#[test]
fn timeout_kills_the_whole_tree_and_reports_it() {
    let env = Env::new();
    let (child, pids) = start_with_pids(&env, &["--json", "--timeout", "1"], TREE, 4);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(124));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["details"]["timedOut"], true);
    assert_eq!(v["details"]["cancelled"], true);
    assert_eq!(v["details"]["exitCode"], serde_json::Value::Null);
    assert_eq!(text(&v), "started\n\n[Command timed out after 1 second]");
    for pid in pids {
        assert!(!alive(pid), "pid {pid} survived the timeout");
    }
}

#[test]
fn interrupt_aborts_the_command_kills_the_tree_and_prints_the_partial_result() {
    let env = Env::new();
    let (child, pids) = start_with_pids(&env, &[], TREE, 4);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert_eq!(stdout(&out), "started\n\n[Command cancelled]\n");
    for pid in pids {
        assert!(!alive(pid), "pid {pid} survived the abort");
    }
}

#[test]
fn background_process_does_not_hold_the_call() {
    let env = Env::new();
    let (v, code) = env.run_json(&["--timeout", "60"], "sleep 30 & echo $!; echo started");
    assert_eq!(code, 0);
    let t = text(&v);
    let pid: i32 = t.lines().next().unwrap().parse().unwrap();
    assert!(t.contains("started\n"), "{t}");
    assert!(t.ends_with("[1 background process still running]"), "{t}");
    assert_eq!(v["details"]["backgroundProcesses"], 1);
    // Nothing bashrt started outlives it.
    assert!(!alive(pid), "background pid {pid} outlived bashrt");
    // And it says so.
    let out = env.run(&["--timeout", "60"], "sleep 30 & echo started");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bashrt: stopped 1 background process on exit"), "{stderr}");
}

#[test]
fn nothing_survives_a_sigkilled_runtime_not_even_setsid_or_double_forked_children() {
    let env = Env::new();
    // Every process below holds fd 3 (the FIFO); EOF on our end means all of them are gone.
    let command = "exec 3>\"$PIDS\"; sleep 100 & echo $! >&3; setsid sleep 100 & echo $! >&3; \
                   (setsid sleep 100 & echo $! >&3) ; echo $$ >&3; sleep 100";
    let (mut child, pids) = start_with_pids(&env, &[], command, 4);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    child.wait().unwrap();
    for pid in &pids {
        common::wait_until_dead(*pid);
    }
}

#[test]
fn a_command_killed_by_a_signal_reports_it() {
    let env = Env::new();
    let (v, code) = env.run_json(&[], "echo before; kill -SEGV $$");
    assert_eq!(code, 128 + 11);
    assert_eq!(v["details"]["signal"], "SIGSEGV");
    assert_eq!(text(&v), "before\n\nCommand failed: missing exit status (killed by SIGSEGV)");
}

#[test]
fn stdin_is_empty() {
    let env = Env::new();
    let mut cmd = env.cmd();
    cmd.args(["run", "--", "read x; echo \"[$x]\"; cat; echo done"]).stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // Our stdin stays open and unwritten: a command reading it would hang; it must get EOF instead.
    let _stdin = child.stdin.take();
    let out = child.wait_with_output().unwrap();
    assert_eq!(stdout(&out), "[]\ndone\n");
}
