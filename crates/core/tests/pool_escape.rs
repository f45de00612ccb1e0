//! No process escapes a long-lived shell: what a command orphans (`setsid -f`, `setsid` under
//! `set -m`, each generation of a process that forks and exits every millisecond) stays in the
//! shell's tree (the shell is a child subreaper), so a timeout or an abort kills it while the shell
//! is kept, as after Ctrl-C at a prompt. An orphan left by a call that ended on its own is counted,
//! spared by a later call's kill, and killed at shutdown. Orphans that exit are reaped by the shell.

use std::time::{Duration, Instant};

use crate::support::*;
use bashrt_core::{CancelToken, Outcome, ShellEvent, ShellPool};

const OK: Outcome = Outcome::Exited { code: 0 };

/// The pid of the pool's shell for tool calls (its first call starts it).
fn shell_pid(pool: &ShellPool) -> i32 {
    first_pid(&in_shell(pool, None, "echo $$").1)
}

/// The call after a kill runs in the same shell, which works.
fn assert_shell_kept(pool: &ShellPool, shell: i32) {
    let (next, output) = in_shell(pool, None, "echo $$");
    assert_eq!((next.outcome, &next.shell), (OK, &ShellEvent::Reused), "{output}");
    assert_eq!(first_pid(&output), shell);
    assert_eq!(next.background, 0, "{next:?}");
}

#[test]
fn setsid_f_children_do_not_survive_a_timeout_and_the_shell_is_kept() {
    let pool = ShellPool::default();
    let shell = shell_pid(&pool);
    let script = "setsid -f sh -c 'echo $$; exec sleep 100'; setsid -f sh -c 'echo $$; exec sleep 100' >&2; sleep 100";
    let mut req = shell_request(None, script);
    req.timeout = Duration::from_secs(1);
    let (execution, output) = run_on(&pool, &req);
    assert_eq!(execution.outcome, Outcome::TimedOut, "{output}");
    assert_eq!(execution.shell, ShellEvent::Reused);
    assert_eq!(execution.background, 0, "{execution:?}");
    let pids = pids_in(&output);
    assert_eq!(pids.len(), 2, "{output}");
    assert_all_dead(&pids, &output);
    assert_shell_kept(&pool, shell);
}

#[test]
fn setsid_under_job_control_does_not_survive_an_abort() {
    let pool = ShellPool::default();
    let shell = shell_pid(&pool);
    // With `set -m` the background job leads its own group, so `setsid` forks and its child is
    // orphaned at once.
    let req = shell_request(None, "set -m; setsid sh -c 'echo $$; exec sleep 100' & sleep 100");
    let cancel = CancelToken::new().unwrap();
    let (execution, output) = run_watching(&pool, &req, &cancel, |_| cancel.cancel());
    assert_eq!(execution.outcome, Outcome::Cancelled, "{output}");
    assert_eq!(execution.shell, ShellEvent::Reused);
    assert_eq!(execution.background, 0, "{execution:?}");
    assert_all_dead(&pids_in(&output), &output);
    in_shell(&pool, None, "set +m");
    assert_shell_kept(&pool, shell);
}

#[test]
fn a_pid_hopping_process_does_not_survive_a_timeout() {
    let pool = ShellPool::default();
    let shell = shell_pid(&pool);
    let mut req = shell_request(None, &format!("{HOPPER}; sleep 100"));
    req.timeout = Duration::from_secs(1);
    let (execution, output) = run_on(&pool, &req);
    assert_eq!(execution.outcome, Outcome::TimedOut, "{output}");
    assert!(!still_hopping(first_pid(&output), 3), "{output}");
    assert_shell_kept(&pool, shell);
}

#[test]
fn a_setsid_f_server_of_an_earlier_call_is_counted_spared_by_an_abort_and_killed_at_shutdown() {
    let pool = ShellPool::default();
    // The orphan writes its pid to a file, which the command waits for: printed to the call's output,
    // it could come after the call ended.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pid");
    let script = format!(
        "setsid -f sh -c 'echo $$ > \"$1\"; exec sleep 100' sh '{0}' >/dev/null 2>&1; \
         until [ -s '{0}' ]; do :; done; cat '{0}'",
        file.display()
    );
    let (first, output) = in_shell(&pool, None, &script);
    let server = first_pid(&output);
    assert_eq!((first.outcome, first.background), (OK, 1), "{output}");
    // Its output elsewhere and no `$!`: only the shell's list of children shows it.
    let (second, _) = in_shell(&pool, None, "setsid -f sleep 100 >/dev/null 2>&1 </dev/null");
    assert_eq!(second.background, 2, "{second:?}");
    let cancel = CancelToken::new().unwrap();
    let req = shell_request(None, "setsid -f sh -c 'echo $$; exec sleep 100'; sleep 100");
    let (execution, output) = run_watching(&pool, &req, &cancel, |_| cancel.cancel());
    assert_eq!(execution.outcome, Outcome::Cancelled);
    assert_all_dead(&pids_in(&output), &output);
    assert!(is_alive(server), "the earlier call's server was killed");
    assert_eq!(execution.background, 2, "{execution:?}");
    pool.shutdown();
    assert!(!is_alive(server), "shutdown left the server running");
}

#[test]
fn orphans_that_exit_are_reaped_by_the_shell() {
    let pool = ShellPool::default();
    // Each orphan appends its pid to a file and exits; the command waits for the three lines.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("pids");
    let script = format!(
        "for i in 1 2 3; do setsid -f sh -c 'echo $$ >> \"$1\"' sh '{0}'; done; \
         until [ \"$(wc -l < '{0}')\" = 3 ]; do :; done; cat '{0}'",
        list.display()
    );
    let (execution, output) = in_shell(&pool, None, &script);
    assert_eq!(execution.outcome, OK, "{output}");
    let pids = pids_in(&output);
    assert_eq!(pids.len(), 3, "{output}");
    // Bash reaps adopted children on SIGCHLD, asynchronously: their `/proc` entries go away.
    let until = Instant::now() + Duration::from_secs(30);
    while pids.iter().any(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists()) {
        assert!(Instant::now() < until, "zombies left: {output}");
        std::thread::yield_now();
    }
    assert_eq!(in_shell(&pool, None, "true").0.background, 0);
}
