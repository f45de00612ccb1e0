//! The lives of pooled shells: replaced when they exit or die, interrupted like Ctrl-C at a prompt
//! when a command times out or is cancelled (the command's processes killed, what earlier calls left
//! running spared, the shell kept unless it does not come back), never shared by two
//! calls at once, evicted when idle or when room is needed, and all killed at shutdown. Process death
//! is checked by pid (zombies count as dead); pids are learnt from the commands' output.

use std::sync::mpsc;
use std::time::Duration;

use crate::support::*;
use bashrt_core::{CancelToken, Carry, OneShotReason, Outcome, PoolConfig, ReplaceReason, ShellEvent, ShellPool};

const OK: Outcome = Outcome::Exited { code: 0 };
const ONE_SECOND: Duration = Duration::from_secs(1);

#[test]
fn exit_reports_its_status_and_the_next_call_gets_a_fresh_shell() {
    let pool = ShellPool::default();
    let old = first_pid(&in_shell(&pool, None, "echo $$").1);
    let (execution, _) = in_shell(&pool, None, "exit 3");
    assert_eq!(execution.outcome, Outcome::Exited { code: 3 });
    assert!(!is_alive(old));
    let (next, output) = in_shell(&pool, None, "echo $$");
    assert_ne!(first_pid(&output), old);
    assert_eq!(next.shell, ShellEvent::Replaced { reason: ReplaceReason::Exited { code: 3 } });
    assert_eq!(next.shell.to_string(), "the previous shell exited with status 3; started a fresh one");
    assert_eq!(in_shell(&pool, None, "true").0.shell, ShellEvent::Reused);
}

#[test]
fn deadline_kills_the_whole_tree_of_the_command_and_keeps_the_shell_and_its_state() {
    let pool = ShellPool::default();
    let (_, output) = in_shell(&pool, None, "kept=yes; f() { echo function; }; alias al='echo alias'; echo $$");
    let shell = first_pid(&output);
    let script = r#"sleep 100 & echo $!
        setsid sleep 100 & echo $!
        bash -c 'sleep 100 & echo $!; wait' &
        wait; echo not-reached"#;
    let mut req = shell_request(None, script);
    req.timeout = ONE_SECOND;
    let (execution, output) = run_on(&pool, &req);
    assert_eq!(execution.outcome, Outcome::TimedOut);
    assert_eq!(execution.shell, ShellEvent::Reused);
    let pids = pids_in(&output);
    assert_eq!(pids.len(), 3, "{output}");
    assert_all_dead(&pids, &output);
    assert!(!output.contains("not-reached"), "the rest of the command ran after the interrupt: {output}");
    assert!(is_alive(shell), "the shell was killed with its command");
    let (next, output) = in_shell(&pool, None, "echo $$ $kept; f; al");
    assert_eq!((next.outcome, next.shell), (OK, ShellEvent::Reused));
    assert_eq!(output, format!("{shell} yes\nfunction\nalias\n"));
}

#[test]
fn cancel_stops_a_busy_builtin_loop_and_keeps_the_shell() {
    let pool = ShellPool::default();
    let cancel = CancelToken::new().unwrap();
    let req = shell_request(None, "v=before; echo $$; while :; do :; done; v=after");
    let (execution, output) = run_watching(&pool, &req, &cancel, |_| cancel.cancel());
    assert_eq!(execution.outcome, Outcome::Cancelled);
    assert_eq!(execution.shell, ShellEvent::Started);
    let shell = first_pid(&output);
    let (next, output) = in_shell(&pool, None, "echo $$ $v");
    assert_eq!((next.outcome, next.shell), (OK, ShellEvent::Reused));
    assert_eq!(output, format!("{shell} before\n"));
}

#[test]
fn a_shell_that_does_not_come_back_from_an_abort_is_replaced_and_says_so() {
    let pool = ShellPool::default();
    let cancel = CancelToken::new().unwrap();
    let req = shell_request(None, "trap 'echo trapped' INT; echo $$; while :; do :; done");
    let (execution, output) = run_watching(&pool, &req, &cancel, |_| cancel.cancel());
    assert_eq!(execution.outcome, Outcome::Cancelled);
    assert_eq!(execution.shell, ShellEvent::Lost { reason: ReplaceReason::Cancelled });
    assert!(execution.shell.to_string().contains("did not come back"), "{}", execution.shell);
    assert_all_dead(&pids_in(&output), &output);
    let (next, output) = in_shell(&pool, None, "echo fine");
    assert_eq!((next.outcome, output.as_str()), (OK, "fine\n"));
    assert_eq!(next.shell, ShellEvent::Replaced { reason: ReplaceReason::Cancelled });
}

#[test]
fn a_session_killed_by_its_deadline_restarts_in_its_last_cwd() {
    let pool = ShellPool::default();
    let (dir, mut req) = session_in_sub(&pool);
    req.script = "sleep 100".into();
    req.timeout = Duration::from_millis(200);
    assert_eq!(run_on(&pool, &req).0.outcome, Outcome::TimedOut);
    req.script = "pwd".into();
    req.timeout = NO_TIMEOUT;
    assert_eq!(run_on(&pool, &req).1, format!("{}\n", dir.path().join("sub").display()));
}

#[test]
fn a_server_started_by_an_earlier_call_survives_a_cancelled_call_and_dies_at_shutdown() {
    let pool = ShellPool::default();
    let (first, output) = in_shell(&pool, None, "sleep 100 >/dev/null 2>&1 & echo $!");
    let server = first_pid(&output);
    assert_eq!(first.background, 1);
    let cancel = CancelToken::new().unwrap();
    let req = shell_request(None, r#"sleep 100 & echo "$!"; wait"#);
    let (execution, output) = run_watching(&pool, &req, &cancel, |_| cancel.cancel());
    assert_eq!(execution.outcome, Outcome::Cancelled);
    assert_all_dead(&pids_in(&output), &output);
    assert!(is_alive(server), "the earlier call's server was killed");
    assert_eq!(execution.background, 1, "{execution:?}");
    pool.shutdown();
    assert!(!is_alive(server), "shutdown left the server running");
}

#[test]
fn a_shell_killed_during_a_call_ends_the_call_even_if_its_children_hold_every_fd() {
    let pool = ShellPool::default();
    // A background subshell is a fork of the shell: it holds the control socket and the call's pipe.
    let req = shell_request(None, "(trap '' TERM; while :; do sleep 100; done) & echo $!; echo $$; wait");
    let mut pids = Vec::new();
    let (execution, _) = run_watching(&pool, &req, &CancelToken::new().unwrap(), |line| {
        pids.extend(pids_in(line));
        if pids.len() == 2 {
            kill_now(pids[1]);
        }
    });
    assert_eq!(execution.outcome, Outcome::Signalled { signal: 9 });
    assert!(is_alive(pids[0]), "the background subshell is left running");
    let (next, output) = in_shell(&pool, None, "echo fine");
    assert_eq!(output, "fine\n");
    assert_eq!(next.shell, ShellEvent::Replaced { reason: ReplaceReason::Signalled { signal: 9 } });
    drop(pool);
    assert!(!is_alive(pids[0]), "dropping the pool left what the dead shell started");
}

#[test]
fn a_shell_that_died_while_idle_is_replaced_by_the_next_call() {
    let pool = ShellPool::default();
    let shell = first_pid(&in_shell(&pool, None, "echo $$").1);
    kill_now(shell);
    let (next, output) = in_shell(&pool, None, "echo $$");
    assert!(!is_alive(shell));
    assert_ne!(first_pid(&output), shell);
    assert_eq!(next.shell, ShellEvent::Replaced { reason: ReplaceReason::Signalled { signal: 9 } });
}

#[test]
fn a_second_call_on_a_busy_shell_runs_in_a_one_shot_shell() {
    let pool = ShellPool::default();
    let hold = Fifo::new();
    let (started_tx, started_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let busy = scope.spawn(|| {
            let req = shell_request(None, &format!("echo $$; read -r _ < {}; echo released", hold.arg()));
            run_watching(&pool, &req, &CancelToken::new().unwrap(), |line| {
                let _ = started_tx.send(line.to_string());
            })
        });
        let busy_pid: i32 = started_rx.recv().unwrap().parse().unwrap();
        let (second, output) = in_shell(&pool, None, "echo $$; v=lost");
        let carried = Carry::All;
        assert_eq!(second.shell, ShellEvent::OneShot { reason: OneShotReason::ShellBusy { carried } });
        assert_ne!(first_pid(&output), busy_pid);
        hold.release();
        let (first, output) = busy.join().unwrap();
        assert_eq!((first.outcome, first.shell), (OK, ShellEvent::Started));
        assert!(output.ends_with("released\n"), "{output}");
    });
    // The one-shot's state went with it; the pooled shell is free again.
    let (third, output) = in_shell(&pool, None, "echo \"[${v-}]\"");
    assert_eq!((third.shell, output.as_str()), (ShellEvent::Reused, "[]\n"));
}

/// Runs `beside` while the pool's shell runs a command held on a FIFO (started after `setup`), and
/// returns the call beside it.
fn beside_a_busy_shell(pool: &ShellPool, setup: &str, beside: &str) -> (bashrt_core::Execution, String) {
    assert_eq!(in_shell(pool, None, setup).0.outcome, OK);
    let hold = Fifo::new();
    let (started_tx, started_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let busy = scope.spawn(|| {
            let req = shell_request(None, &format!("echo started; read -r _ < {}", hold.arg()));
            run_watching(pool, &req, &CancelToken::new().unwrap(), |_| {
                let _ = started_tx.send(());
            })
        });
        started_rx.recv().unwrap();
        let result = in_shell(pool, None, beside);
        hold.release();
        assert_eq!(busy.join().unwrap().0.outcome, OK);
        result
    })
}

#[test]
fn a_call_beside_a_busy_shell_has_the_state_earlier_calls_left() {
    // Every call after any pause captures the shell's state first.
    let pool = ShellPool::new(PoolConfig { capture_after_idle: Duration::ZERO, ..PoolConfig::default() });
    let setup =
        "export VIRTUAL_ENV=/venv; plain='a b'; f() { echo \"f:$1\"; }; alias al='echo aliased'; shopt -s globstar";
    let (beside, output) = beside_a_busy_shell(
        &pool,
        setup,
        "echo \"$VIRTUAL_ENV $plain\"; f x; al; shopt -q globstar && echo gs; v=mine",
    );
    assert_eq!(beside.shell, ShellEvent::OneShot { reason: OneShotReason::ShellBusy { carried: Carry::All } });
    assert_eq!(output, "/venv a b\nf:x\naliased\ngs\n");
    // What the call beside set stays in its own shell.
    assert_eq!(in_shell(&pool, None, "echo \"[${v-}]\"").1, "[]\n");
}

#[test]
fn a_call_beside_a_shell_captured_before_its_last_calls_says_what_it_lacks() {
    // No pause is long enough: the state is never captured after the shell started.
    let pool = ShellPool::new(PoolConfig { capture_after_idle: Duration::from_secs(3600), ..PoolConfig::default() });
    let (beside, output) = beside_a_busy_shell(&pool, "export LATE=1", "echo \"[${LATE-}]\"");
    let carried = Carry::Stale { missing: 1 };
    assert_eq!(beside.shell, ShellEvent::OneShot { reason: OneShotReason::ShellBusy { carried: carried.clone() } });
    assert_eq!(output, "[]\n");
    assert_eq!(
        carried.notice().unwrap(),
        "[Another call was using this session's shell, so this one ran in a new shell without what the last call \
         set there (variables, functions, aliases, options)]"
    );
}

#[test]
fn a_state_that_cannot_be_captured_is_said_and_the_shell_goes_on() {
    let pool = ShellPool::new(PoolConfig { capture_after_idle: Duration::ZERO, ..PoolConfig::default() });
    let (beside, output) = beside_a_busy_shell(&pool, "X=1; enable -n declare", "echo \"[${X-}]\"");
    let ShellEvent::OneShot { reason: OneShotReason::ShellBusy { carried: Carry::Nothing { reason } } } = &beside.shell
    else {
        panic!("{:?}", beside.shell)
    };
    assert!(reason.contains("could not be captured"), "{reason}");
    assert_eq!(output, "[]\n");
    assert_eq!(in_shell(&pool, None, "echo $X").1, "1\n");
}

#[test]
fn a_full_pool_of_busy_shells_runs_a_new_key_one_shot() {
    let pool = ShellPool::new(PoolConfig { max_shells: 1, ..PoolConfig::default() });
    let hold = Fifo::new();
    let (started_tx, started_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let busy = scope.spawn(|| {
            let req = shell_request(Some("a"), &format!("echo started; read -r _ < {}", hold.arg()));
            run_watching(&pool, &req, &CancelToken::new().unwrap(), |_| {
                let _ = started_tx.send(());
            })
        });
        started_rx.recv().unwrap();
        let (other, output) = in_shell(&pool, Some("b"), "echo other");
        assert_eq!(
            (other.shell, output.as_str()),
            (ShellEvent::OneShot { reason: OneShotReason::PoolFull }, "other\n")
        );
        hold.release();
        assert_eq!(busy.join().unwrap().0.outcome, OK);
    });
    assert_eq!(pool.len(), 1);
}

#[test]
fn starting_one_shell_too_many_evicts_the_least_recently_used_idle_one() {
    let pool = ShellPool::new(PoolConfig { max_shells: 2, ..PoolConfig::default() });
    let a = first_pid(&in_shell(&pool, Some("a"), "echo $$").1);
    let b = first_pid(&in_shell(&pool, Some("b"), "sleep 100 & echo $$").1);
    let b_child = pids_in(&in_shell(&pool, Some("b"), "echo $!").1)[0];
    in_shell(&pool, Some("a"), "true");
    in_shell(&pool, Some("c"), "true");
    assert_eq!(pool.len(), 2);
    assert!(is_alive(a), "the recently used shell was evicted");
    assert!(!is_alive(b), "the least recently used shell was kept");
    // Its background process belongs to the session, not to the shell: it lives until shutdown.
    assert!(is_alive(b_child), "evicting a shell killed its background process");
    let (again, _) = in_shell(&pool, Some("b"), "true");
    assert_eq!(again.shell, ShellEvent::Replaced { reason: ReplaceReason::Evicted });
    pool.shutdown();
    assert_all_dead(&[b_child], "shutdown left what an evicted shell started");
}

#[test]
fn idle_shells_past_their_time_are_evicted_on_the_next_call() {
    let pool = ShellPool::new(PoolConfig { idle_timeout: Duration::ZERO, ..PoolConfig::default() });
    let a = first_pid(&in_shell(&pool, Some("a"), "echo $$").1);
    let server = first_pid(&in_shell(&pool, Some("a"), "setsid sleep 100 >/dev/null 2>&1 & echo $!").1);
    in_shell(&pool, Some("b"), "true");
    assert!(!is_alive(a));
    assert!(is_alive(server), "evicting an idle shell killed the session's server");
    assert_eq!(in_shell(&pool, Some("a"), "true").0.shell, ShellEvent::Replaced { reason: ReplaceReason::Evicted });
    drop(pool);
    assert_all_dead(&[server], "dropping the pool left what an evicted shell started");
}

#[test]
fn shutdown_kills_every_shell_its_background_and_what_dead_shells_left() {
    let pool = ShellPool::default();
    let shell = first_pid(&in_shell(&pool, Some("a"), "echo $$").1);
    let background = first_pid(&in_shell(&pool, Some("a"), "setsid sleep 100 & echo $!").1);
    let orphan = first_pid(&in_shell(&pool, Some("b"), "sleep 100 >/dev/null 2>&1 & echo $!").1);
    assert_eq!(in_shell(&pool, Some("b"), "exit 0").0.outcome, OK);
    assert!(is_alive(orphan) && is_alive(background) && is_alive(shell));
    pool.shutdown();
    assert_all_dead(&[shell, background, orphan], "after shutdown");
    assert_eq!(pool.len(), 0);
    let (late, output) = in_shell(&pool, Some("a"), "echo late");
    assert_eq!((late.shell, output.as_str()), (ShellEvent::OneShot { reason: OneShotReason::PoolShutDown }, "late\n"));
}

#[test]
fn shutdown_during_a_call_ends_it() {
    let pool = ShellPool::default();
    let (pid_tx, pid_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let running = scope.spawn(|| {
            let req = shell_request(None, "echo $$; sleep 100 & echo $!; wait");
            run_watching(&pool, &req, &CancelToken::new().unwrap(), |line| {
                let _ = pid_tx.send(first_pid(line));
            })
        });
        let pids = [pid_rx.recv().unwrap(), pid_rx.recv().unwrap()];
        pool.shutdown();
        let (execution, _) = running.join().unwrap();
        assert_eq!(execution.outcome, Outcome::Signalled { signal: 9 });
        assert_all_dead(&pids, "after shutdown");
    });
}

#[test]
fn other_shells_run_one_shot() {
    let pool = ShellPool::default();
    let mut req = shell_request(None, "echo sh");
    req.shell = "/bin/sh".into();
    let (execution, output) = run_on(&pool, &req);
    assert_eq!((execution.shell, output.as_str()), (ShellEvent::OneShot { reason: OneShotReason::NotBash }, "sh\n"));
}

#[test]
fn a_panicking_consumer_leaves_no_process_and_the_key_usable() {
    let pool = ShellPool::default();
    let mut output = Vec::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut consumer = |chunk: &[u8]| {
            output.extend_from_slice(chunk);
            if output.contains(&b'\n') {
                panic!("consumer gave up");
            }
            bashrt_core::Flow::Continue
        };
        let req = shell_request(None, r#"sleep 100 & echo "$$ $!"; wait"#);
        let _ = bashrt_core::Executor::execute(&pool, &req, &mut consumer, &CancelToken::new().unwrap());
    }));
    assert!(result.is_err());
    let output = String::from_utf8(output).unwrap();
    let pids: Vec<i32> = output.split_whitespace().map(|p| p.parse().unwrap()).collect();
    assert_all_dead(&pids, &output);
    let (next, output) = in_shell(&pool, None, "echo fine");
    assert_eq!(output, "fine\n");
    assert_eq!(next.shell, ShellEvent::Replaced { reason: ReplaceReason::CallFailed });
}

/// Set in the child that `shells_die_with_the_process_that_owns_the_pool` starts.
const POOL_OWNER: &str = "BASHRT_TEST_POOL_OWNER";

#[test]
fn shells_die_with_the_process_that_owns_the_pool() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Command, Stdio};
    const NAME: &str = "shells_die_with_the_process_that_owns_the_pool";
    if std::env::var_os(POOL_OWNER).is_some() {
        // The owner: start a shell from this (short-lived) test thread, report it, wait to be killed.
        let pool = ShellPool::default();
        let shell = first_pid(&in_shell(&pool, None, "echo $$").1);
        println!("\nowned shell: {shell}");
        std::io::stdout().flush().unwrap();
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        return;
    }
    let mut owner = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &test_name(module_path!(), NAME), "--nocapture", "--test-threads=1"])
        .env(POOL_OWNER, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(owner.stdout.take().unwrap());
    let shell: i32 = stdout
        .lines()
        .map(Result::unwrap)
        // libtest may print the test's name on the same line.
        .find_map(|line| line.split_once("owned shell: ").map(|(_, pid)| pid.trim().parse().unwrap()))
        .expect("the owner printed no shell pid");
    // Opened before the owner dies, so that it refers to this shell and no later process.
    // SAFETY: pidfd_open has no pointer arguments.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, shell, 0) };
    assert!(fd >= 0, "the shell is not running");
    owner.kill().unwrap();
    owner.wait().unwrap();
    // Readable once the shell exited; the bound only keeps a failing test from hanging.
    let mut poll = [libc::pollfd { fd: fd as i32, events: libc::POLLIN, revents: 0 }];
    // SAFETY: one valid pollfd in a live array.
    let ready = unsafe { libc::poll(poll.as_mut_ptr(), 1, 30_000) };
    assert_eq!(ready, 1, "the shell outlived the process that owned the pool");
    assert!(!is_alive(shell));
}

/// Set in the child that `a_process_started_with_sigint_ignored_still_interrupts_its_shells` starts.
const SIGINT_IGNORED: &str = "BASHRT_TEST_SIGINT_IGNORED";

/// A process started with SIGINT ignored — what a non-interactive shell does to a job it starts with
/// `&` — still interrupts a busy shell and keeps it: bash cannot undo a signal ignored when it
/// started, so the pool starts its shells with SIGINT and SIGQUIT back at their defaults.
#[test]
fn a_process_started_with_sigint_ignored_still_interrupts_its_shells() {
    use std::os::unix::process::CommandExt;
    use std::process::Command;
    const NAME: &str = "a_process_started_with_sigint_ignored_still_interrupts_its_shells";
    if std::env::var_os(SIGINT_IGNORED).is_some() {
        let pool = ShellPool::default();
        let shell = first_pid(&in_shell(&pool, None, "v=kept; echo $$").1);
        let mut req = shell_request(None, "while :; do :; done");
        req.timeout = ONE_SECOND;
        assert_eq!(run_on(&pool, &req).0.outcome, Outcome::TimedOut);
        let (next, output) = in_shell(&pool, None, "echo $$ $v");
        assert_eq!((next.shell, output), (ShellEvent::Reused, format!("{shell} kept\n")));
        return;
    }
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", &test_name(module_path!(), NAME), "--nocapture", "--test-threads=1"]);
    command.env(SIGINT_IGNORED, "1");
    // SAFETY: `signal` is async-signal-safe and touches no memory of the parent's.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    let out = command.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("1 passed"), "{text}{}", String::from_utf8_lossy(&out.stderr));
}
