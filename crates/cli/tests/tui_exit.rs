//! Every way out of `bashrt tui` — Ctrl-D, `exit`, an error, a panic, SIGTERM, SIGHUP — restores the
//! terminal (main screen, cursor, cooked mode) and leaves no process behind.

use crate::common;
use crate::tui_support::{unique_sleep, wait_gone, wait_running, Term};

/// Starts the UI with a command running, leaves it by `leave`, checks the status and the terminal.
fn leave_while_running(vars: &[(&str, &str)], leave: impl FnOnce(&Term), status: i32) {
    let term = Term::new(100, 30);
    term.start(&[], vars);
    let sleep = unique_sleep();
    term.type_line(&format!("!{sleep}"));
    wait_running(&sleep);
    leave(&term);
    term.assert_restored(status);
    wait_gone(&sleep);
}

#[test]
fn ctrl_d_leaves_and_ends_the_running_command() {
    leave_while_running(&[], |t| t.keys(&["C-d"]), 0);
}

#[test]
fn exit_typed_leaves_and_bashrt_alone_at_a_terminal_is_the_ui() {
    let term = Term::new(100, 30);
    term.start_bashrt(&[], &[]);
    term.type_line("exit");
    term.assert_restored(0);
}

#[test]
fn without_a_terminal_it_says_so() {
    let env = common::Env::new();
    let out = env.cmd().arg("tui").stdin(std::process::Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the terminal UI needs a terminal"));
    let out = env.cmd().stdin(std::process::Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no command given"));
}

#[test]
fn sigterm_and_sighup_restore_the_terminal() {
    leave_while_running(
        &[],
        |t| {
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(t.bashrt_pid()), nix::sys::signal::Signal::SIGTERM)
                .unwrap()
        },
        143,
    );
    leave_while_running(
        &[],
        |t| {
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(t.bashrt_pid()), nix::sys::signal::Signal::SIGHUP)
                .unwrap()
        },
        129,
    );
}

#[test]
fn an_error_and_a_panic_restore_the_terminal() {
    leave_while_running(&[("BASHRT_TUI_FAULT", "error")], |t| t.type_line(":error"), 1);
    leave_while_running(&[("BASHRT_TUI_FAULT", "panic")], |t| t.type_line(":panic"), 101);
}
