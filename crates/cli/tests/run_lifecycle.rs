//! `bashrt run` end to end: timeouts, aborts and background processes, checked by pid; its live
//! progress at a terminal (tmux).

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::common::{self, alive, fifo, stdout, text, Env};
use crate::tui_support;

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
    // Nothing bashrt started outlives it, and the result, printed once it is stopped, says so.
    assert!(t.ends_with("[Stopped 1 background process the command left running: nothing outlives this call]"), "{t}");
    assert_eq!(v["details"]["backgroundProcesses"], 1);
    assert!(!alive(pid), "background pid {pid} outlived bashrt");
}

#[test]
fn a_timeout_of_zero_is_refused_not_turned_into_one_second() {
    let env = Env::new();
    let out = env.run(&["--timeout", "0"], "echo never");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("0 seconds would end the command at once: give 1 to 3600, or leave --timeout out"),
        "{stderr}"
    );
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

#[test]
fn at_a_terminal_a_long_command_shows_its_progress_and_the_result_replaces_it() {
    let term = tui_support::Term::new(100, 30);
    let env = &term.env;
    let gate = fifo(env.root.path(), "gate");
    let line = format!(
        "export BASHRT_STATE_DIR='{}' HOME='{}' XDG_CONFIG_HOME='{}'; clear; '{}' run \
         'echo compiling part 1; read -r _ < {}; echo done'; echo \"EXITED:$?\"",
        env.state().display(),
        env.home().display(),
        env.root.path().join("config").display(),
        env!("CARGO_BIN_EXE_bashrt"),
        gate.display()
    );
    term.type_line(&line);
    // While it runs: how long, what, and its last line, on stderr.
    let running = term.wait_for("the progress", |s| s.contains("running ") && s.contains("  compiling part 1"));
    assert!(running.contains("· echo compiling part 1; read -r _"), "{running}");
    common::release(&gate);
    let screen = term.wait_for("the result", |s| s.contains("EXITED:0"));
    // The progress is gone; the result stands as `bashrt run` prints it.
    assert!(!screen.contains("running "), "the progress was left on the screen:\n{screen}");
    assert!(screen.contains("compiling part 1\ndone\nEXITED:0"), "{screen}");
}

#[test]
fn a_pipe_gets_no_progress() {
    let env = Env::new();
    // A second is long enough for the display to start, were stderr a terminal.
    let out = env.run(&[], "sleep 1; echo done");
    assert_eq!(stdout(&out), "done\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
