//! Nothing a command does can hang, break or forge the long-lived shell's runner: traces and traps
//! show only the user's own lines, a forged report is ignored, closed or redirected descriptors are
//! reopened, and a shell broken anyway (stopped, its builtins disabled, `set -n`) is noticed at once,
//! replaced, and the result says so. Messages carry bash's own prefix and line numbers, as under
//! `bash -c`. No call here has a deadline: a hang would hang the test (CI's timeout catches it).

use std::process::Command;

use crate::support::*;
use bashrt_core::{Outcome, ReplaceReason, ShellEvent, ShellPool};

const OK: Outcome = Outcome::Exited { code: 0 };

/// What `bash -c script 2>&1` prints, run in the same directory as the pool's shells.
fn bash_c(script: &str) -> String {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(work_dir())
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    // Error messages only, in order: the scripts below print nothing on stdout but what is checked.
    String::from_utf8(out.stderr).unwrap()
}

/// Runs `hostile`, then `echo ok`; the second call must succeed, in the same shell or a fresh one.
/// Returns the first call and the second call's shell event.
fn then_ok(hostile: &str) -> ((bashrt_core::Execution, String), ShellEvent) {
    let pool = ShellPool::default();
    let first = in_shell(&pool, Some("s"), hostile);
    let (next, output) = in_shell(&pool, Some("s"), "echo ok");
    assert_eq!((next.outcome, output.as_str()), (OK, "ok\n"), "after {hostile:?}: {first:?}");
    (first, next.shell)
}

#[test]
fn set_x_traces_only_the_users_lines_in_this_call_and_the_next() {
    // The command runs through `eval`, which adds one level to the trace prefix (`++`).
    let pool = ShellPool::default();
    let (_, output) = in_shell(&pool, None, "set -x; echo one");
    assert_eq!(output, "++ echo one\none\n");
    let (_, output) = in_shell(&pool, None, "echo two; set +x");
    assert_eq!(output, "++ echo two\ntwo\n++ set +x\n");
    assert_eq!(in_shell(&pool, None, "echo three").1, "three\n");
}

#[test]
fn a_trace_file_of_the_users_gets_none_of_the_runners_reads_or_reports() {
    // `BASH_XTRACEFD` names a file of the user's, where the trace goes whatever the call's output:
    // the runner turns tracing off before it reads the call or writes its report, so neither the
    // secret nor the command's text passes through the trace.
    let pool = ShellPool::default();
    let trace = tempfile::NamedTempFile::new().unwrap();
    let path = trace.path().display().to_string();
    in_shell(&pool, None, &format!("exec 7>{path}; BASH_XTRACEFD=7; set -x; echo one"));
    in_shell(&pool, None, "echo two; set +x");
    assert_eq!(in_shell(&pool, None, "echo three").1, "three\n");
    let text = std::fs::read_to_string(trace.path()).unwrap();
    for user in ["++ echo one\n", "++ echo two\n", "++ set +x\n"] {
        assert!(text.contains(user), "{user:?} in {text}");
    }
    for runner in ["read", "echo -E", "printf", "eval", "three"] {
        assert!(!text.contains(runner), "{runner:?} in {text}");
    }
}

#[test]
fn a_return_trap_never_fires_for_the_runner() {
    let pool = ShellPool::default();
    let (_, output) = in_shell(&pool, None, "trap 'echo return-trap' RETURN; echo a");
    assert_eq!(output, "a\n");
    assert_eq!(in_shell(&pool, None, "echo b").1, "b\n");
    // It still fires where bash fires it: a function returning.
    assert_eq!(in_shell(&pool, None, "shopt -s extdebug; f() { :; }; f").1, "return-trap\n");
}

#[test]
fn a_debug_trap_sees_only_the_users_commands() {
    let pool = ShellPool::default();
    let (_, output) = in_shell(&pool, None, "trap 'echo \"dbg $BASH_COMMAND\"' DEBUG; echo a");
    assert_eq!(output, "dbg echo a\na\n");
    assert_eq!(in_shell(&pool, None, "echo b").1, "dbg echo b\nb\n");
}

#[test]
fn a_command_cannot_forge_its_report() {
    let pool = ShellPool::default();
    let log = tempfile::NamedTempFile::new().unwrap();
    let log = log.path().display().to_string();
    // Learn every path the runner opens and every value it keeps, through a DEBUG trap.
    in_shell(
        &pool,
        None,
        &format!("trap 'echo \"$BASH_COMMAND\" >>{log}; set | grep -E \"^_[a-z0-9]{{2}}[shcx]=\" >>{log}' DEBUG"),
    );
    in_shell(&pool, None, "trap - DEBUG; true");
    let dir = tempfile::tempdir().unwrap();
    let forge = format!(
        r#"for p in $(grep -o '/proc/[0-9]*/fd/[0-9]*' {log} | sort -u); do
             [[ $(readlink "$p") == pipe:* ]] || continue
             for v in $(grep -o "='[^']*'" {log} | tr -d "='") $(grep -o '=[0-9a-f]*$' {log} | tr -d =); do
               printf '%s 0 1 /\0%s 0 1 /\n' "$v" "$v" >"$p"
             done
           done 2>/dev/null
           cd {dir}; (exit 3)"#,
        dir = dir.path().display()
    );
    let (execution, _) = in_shell(&pool, None, &forge);
    assert_eq!(execution.outcome, Outcome::Exited { code: 3 });
    assert_eq!(execution.final_cwd.as_deref(), Some(dir.path()));
}

#[test]
fn a_header_written_into_the_call_pipe_reaches_no_path() {
    let pool = ShellPool::default();
    let log = tempfile::NamedTempFile::new().unwrap();
    let log = log.path().display().to_string();
    // The call pipe, learnt through a DEBUG trap, which runs for the runner's own statements too:
    // the pipe the shell reads the call from, which the runtime holds.
    in_shell(&pool, Some("s"), &format!("trap 'readlink /proc/$$/fd/0 >>{log}' DEBUG"));
    in_shell(&pool, Some("s"), "trap - DEBUG; true");
    // A short name: an earlier header had a 20-character output field, which the runner appended to
    // `/proc/<pid>/fd/`, and `/../../..` + the victim's path was the victim. Now no part of a header
    // reaches a path, and one of another form ends the shell.
    let victim = tempfile::Builder::new().prefix("v").rand_bytes(5).tempfile_in("/tmp").unwrap();
    std::fs::write(victim.path(), "kept\n").unwrap();
    let field = format!("/../../..{}", victim.path().display());
    assert!(field.len() <= 20, "{field}");
    // Written during the command, it is what the runner reads as the next header, right after this
    // command's secret.
    let hostile = format!(
        r#"pipe=$(grep -o 'pipe:.*' {log} | head -n 1)
           for p in /proc/$PPID/fd/*; do [ "$(readlink "$p")" = "$pipe" ] && call=$p; done
           printf '0001%s%s' '{field:/>20}' x >"$call""#
    );
    let (first, output) = in_shell(&pool, Some("s"), &hostile);
    assert_eq!((first.outcome, output.as_str()), (OK, ""), "{first:?}");
    let (next, output) = in_shell(&pool, Some("s"), "echo ok");
    assert_eq!((next.outcome, output.as_str()), (OK, "ok\n"));
    // The runner refused the header and ended; a fresh shell ran the next call.
    assert!(matches!(next.shell, ShellEvent::Replaced { .. }), "{next:?}");
    assert_eq!(std::fs::read_to_string(victim.path()).unwrap(), "kept\n");
}

#[test]
fn set_e_does_not_stop_a_command_that_travels_in_the_memfd() {
    // Not ASCII, so not inline: the runner reads it from the memfd, a read that must not fail.
    let pool = ShellPool::default();
    in_shell(&pool, Some("s"), "set -e");
    let (execution, output) = in_shell(&pool, Some("s"), "echo \u{e9}t\u{e9}");
    assert_eq!((execution.outcome, output.as_str()), (OK, "\u{e9}t\u{e9}\n"));
    assert_eq!(execution.shell, ShellEvent::Reused);
}

#[test]
fn an_ifs_of_digits_keeps_the_shell_and_its_state() {
    let pool = ShellPool::default();
    in_shell(&pool, Some("s"), "x=kept; IFS=/0123456789");
    let (execution, output) = in_shell(&pool, Some("s"), "echo \"[$x]\"");
    assert_eq!((execution.outcome, output.as_str(), execution.shell), (OK, "[kept]\n", ShellEvent::Reused));
}

#[test]
fn a_shadowed_builtin_never_runs_the_last_command_again() {
    // With `builtin` a function, the runner's reads do nothing: it must not `eval` the old command
    // again and again until the deadline.
    let pool = ShellPool::default();
    let log = tempfile::NamedTempFile::new().unwrap();
    let script = format!("builtin() {{ :; }}; echo once >>{}", log.path().display());
    let mut req = shell_request(Some("s"), &script);
    req.timeout = std::time::Duration::from_secs(1);
    run_on(&pool, &req);
    assert_eq!(std::fs::read_to_string(log.path()).unwrap(), "once\n");
    let (next, output) = in_shell(&pool, Some("s"), "echo ok");
    assert_eq!((next.outcome, output.as_str()), (OK, "ok\n"));
}

#[test]
fn an_inherited_tmout_does_not_end_an_idle_shell() {
    // `TMOUT` would time out the runner's `read` of the next call: the shell, idle longer than that,
    // must still be there with its state. The wait is the behaviour under test (idle time), not a
    // synchronisation.
    let pool = ShellPool::default();
    let mut req = shell_request(Some("s"), "x=kept");
    req.env = vec![("TMOUT".into(), "1".into())].into();
    run_on(&pool, &req);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    req.script = "echo \"[$x] [${TMOUT-unset}]\"".into();
    let (execution, output) = run_on(&pool, &req);
    assert_eq!((execution.outcome, output.as_str(), execution.shell), (OK, "[kept] [unset]\n", ShellEvent::Reused));
}

#[test]
fn a_tmout_a_command_sets_does_not_end_the_idle_shell() {
    // A hardened profile sourced by a command (`readonly TMOUT=900`): the runner's wait for the next
    // call times out every TMOUT seconds and waits again, the shell and its state kept. The wait is
    // the behaviour under test (idle time), not a synchronisation.
    let pool = ShellPool::default();
    in_shell(&pool, Some("t"), "x=kept; readonly TMOUT=1");
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let (execution, output) = in_shell(&pool, Some("t"), "echo \"[$x] [$TMOUT]\"");
    assert_eq!((execution.outcome, output.as_str(), execution.shell), (OK, "[kept] [1]\n", ShellEvent::Reused));
}

#[test]
fn closing_the_runners_descriptors_keeps_the_report_out_of_the_output() {
    // Whatever the descriptors bash might keep (copies of saved ones, its own input): closing them
    // changes nothing, and the shell holds none of the runner's files for the command to close.
    let (first, next) = then_ok("exec 10>&- 11>&- 12>&- 13>&- 255>&-; echo x");
    assert_eq!(first.1, "x\n", "{first:?}");
    assert_eq!((first.0.outcome, next), (OK, ShellEvent::Reused));
}

#[test]
fn disabling_echo_or_printf_is_survived_and_disabling_every_way_to_report_is_noticed() {
    // The report is `echo`ed, and `printf`ed where `echo` was disabled (`enable -n echo`, to get
    // `/bin/echo`): either alone is survived.
    for one in ["enable -n printf", "enable -n echo"] {
        let (first, next) = then_ok(one);
        assert_eq!((first.0.outcome, next), (OK, ShellEvent::Reused), "{one}");
    }

    let (first, next) = then_ok("enable -n printf echo");
    assert_eq!(first.0.outcome, Outcome::Error, "{first:?}");
    assert_eq!(first.0.shell, ShellEvent::Lost { reason: ReplaceReason::Unresponsive });
    assert!(first.0.shell.to_string().contains("stopped answering"), "{}", first.0.shell);
    assert_eq!(next, ShellEvent::Replaced { reason: ReplaceReason::Unresponsive });
}

#[test]
fn redefining_or_disabling_what_the_runner_calls_ends_the_shell_at_once_with_the_commands_status() {
    // The runner reaches `read`, `echo` and `eval` through `builtin`, past functions of the user's
    // with those names. A function named `builtin`, or it (or `read`) disabled, left it looping
    // without ever waiting for the next call: the call never returned. The shell ends instead, the
    // command's own status is kept, and both this call and the next say why.
    for (hostile, code) in [
        ("builtin() { :; }", 0),
        ("builtin() { echo hijacked; }; (exit 3)", 3),
        ("enable -n builtin", 0),
        ("enable -n read", 0),
    ] {
        let (first, next) = then_ok(hostile);
        assert_eq!(first.0.outcome, Outcome::Exited { code }, "{hostile}: {first:?}");
        assert_eq!(first.1, "", "{hostile}");
        assert_eq!(first.0.shell, ShellEvent::Lost { reason: ReplaceReason::RunnerBroken }, "{hostile}");
        assert_eq!(next, ShellEvent::Replaced { reason: ReplaceReason::RunnerBroken }, "{hostile}");
    }
}

#[test]
fn the_runner_serves_on_without_command_or_exec() {
    // `command exec` only closes, after a command that failed, what an interrupted one might have
    // left open: a function named `command` or `exec`, or either disabled, used to end the shell (or
    // take the runner's files from it), and now changes nothing a call can see.
    for hostile in ["command() { :; }", "enable -n command", "enable -n exec", "exec() { :; }"] {
        let pool = ShellPool::default();
        let (first, _) = in_shell(&pool, Some("s"), hostile);
        assert_eq!((first.outcome, first.shell), (OK, ShellEvent::Started), "{hostile}");
        let (failed, output) = in_shell(&pool, Some("s"), "echo a; (exit 4)");
        assert_eq!(
            (failed.outcome, output.as_str(), failed.shell),
            (Outcome::Exited { code: 4 }, "a\n", ShellEvent::Reused),
            "{hostile}"
        );
        let (next, output) = in_shell(&pool, Some("s"), "echo b >&2");
        assert_eq!((next.outcome, output.as_str(), next.shell), (OK, "b\n", ShellEvent::Reused), "{hostile}");
    }
}

#[test]
fn a_disabled_eval_ends_the_shell_at_the_next_call_which_says_its_command_did_not_run() {
    // `enable -n eval` itself succeeds; every later command failed, in the same shell, for good.
    let pool = ShellPool::default();
    let (first, _) = in_shell(&pool, Some("s"), "enable -n eval");
    assert_eq!((first.outcome, first.shell), (OK, ShellEvent::Started));
    let (second, output) = in_shell(&pool, Some("s"), "echo unreachable");
    assert_eq!(second.outcome, Outcome::Exited { code: 1 });
    assert!(output.contains("eval: not a shell builtin") && !output.contains("unreachable"), "{output}");
    assert_eq!(second.shell, ShellEvent::Lost { reason: ReplaceReason::RunnerBroken });
    assert!(second.shell.to_string().contains("disabled or redefined"), "{}", second.shell);
    let (third, output) = in_shell(&pool, Some("s"), "echo ok");
    let replaced = ShellEvent::Replaced { reason: ReplaceReason::RunnerBroken };
    assert_eq!((third.outcome, output.as_str(), third.shell), (OK, "ok\n", replaced));
}

#[test]
fn set_n_and_a_debug_trap_that_skips_commands_end_the_shell_and_the_next_call_runs() {
    for hostile in ["set -n", "shopt -s extdebug; trap false DEBUG", "shopt -s extdebug; trap 'return 1' DEBUG"] {
        let (_, next) = then_ok(hostile);
        assert!(matches!(next, ShellEvent::Replaced { .. }), "{hostile}: {next:?}");
    }
}

#[test]
fn a_shell_that_stops_itself_is_noticed_killed_and_replaced() {
    let pool = ShellPool::default();
    let (execution, output) = in_shell(&pool, Some("s"), "echo $$; kill -STOP $$; echo unreachable");
    assert_eq!(execution.outcome, Outcome::Error);
    assert_eq!(execution.shell, ShellEvent::Lost { reason: ReplaceReason::Stopped });
    assert_all_dead(&pids_in(&output), &output);
    let (next, output) = in_shell(&pool, Some("s"), "echo ok");
    assert_eq!((next.outcome, output.as_str()), (OK, "ok\n"));
    assert_eq!(next.shell, ShellEvent::Replaced { reason: ReplaceReason::Stopped });
}

#[test]
fn a_shell_held_by_a_debugger_is_waited_for_not_replaced() {
    // A tracer's stop (`t` in /proc) is not the shell stopping itself: a debugger (or `strace`,
    // between two system calls) holds it and lets it go. The call waits and runs in the same shell.
    let pool = ShellPool::default();
    let (_, pid) = in_shell(&pool, Some("s"), "echo $$");
    let pid: libc::pid_t = pid.trim().parse().unwrap();
    let (held_tx, held_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    // Every ptrace request comes from the thread that attached.
    let tracer = std::thread::spawn(move || {
        // SAFETY: ptrace requests on a process this test started, with null address and data.
        unsafe {
            assert_eq!(libc::ptrace(libc::PTRACE_SEIZE, pid, 0, 0), 0, "{}", std::io::Error::last_os_error());
            assert_eq!(libc::ptrace(libc::PTRACE_INTERRUPT, pid, 0, 0), 0);
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, libc::__WALL), pid);
        }
        held_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        // SAFETY: as above; detaching resumes the shell (it fails when the shell was killed meanwhile,
        // which the call's result below shows).
        unsafe { libc::ptrace(libc::PTRACE_DETACH, pid, 0, 0) };
    });
    held_rx.recv().unwrap();
    let call = std::thread::spawn(move || in_shell(&pool, Some("s"), "echo after"));
    // The debugger holds the shell for a while: not a wait for anything (the call must end the same
    // way however long the hold), but long enough to span several of the runtime's checks (one per
    // 100 ms), which is when a tracer's stop used to be taken for the shell stopping itself.
    std::thread::sleep(std::time::Duration::from_millis(600));
    release_tx.send(()).unwrap();
    tracer.join().unwrap();
    let (execution, output) = call.join().unwrap();
    assert_eq!((execution.outcome, execution.shell, output.as_str()), (OK, ShellEvent::Reused, "after\n"));
}

#[test]
fn aliases_of_reserved_words_and_builtins_do_not_reach_the_runner() {
    let hostile = "shopt -s expand_aliases; alias '{'='echo hijacked' until='echo hijacked' \
                   eval='echo hijacked' builtin='echo hijacked' exec='echo hijacked' read='echo hijacked'";
    let (first, next) = then_ok(hostile);
    assert_eq!((first.0.outcome, next), (OK, ShellEvent::Reused));
}

#[test]
fn attributes_on_the_runners_variables_do_not_hang_a_call() {
    for attribute in ["declare -i", "readonly", "declare -a", "declare -u"] {
        let hostile =
            format!("for v in $(compgen -v _ | grep -E \"^_[a-z0-9]{{2}}[shcx]$\"); do {attribute} \"$v\"; done");
        then_ok(&hostile);
    }
}

#[test]
fn error_messages_have_bashs_prefix_and_line_numbers() {
    let pool = ShellPool::default();
    in_shell(&pool, None, "true");
    for script in [
        "echo $((1/0))",
        "true\nnosuch-bashrt-command",
        "x=(\n)\ncd /nonexistent-bashrt",
        "f() {\nreturn 1\n}\nset -u; echo $unset_bashrt",
    ] {
        let expected = bash_c(script);
        assert!(expected.starts_with("bash: line "), "{expected}");
        let (_, output) = in_shell(&pool, None, script);
        assert_eq!(output, expected, "{script:?}");
    }
}

#[test]
fn parse_errors_read_as_under_bash_c() {
    let pool = ShellPool::default();
    for script in ["if then", "true\nfi", "echo \"unbalanced", "x=$((1 +", "true\ncase x in\nesac)"] {
        let expected = bash_c(script);
        assert!(expected.starts_with("bash: -c: line "), "{expected}");
        let (execution, output) = in_shell(&pool, None, script);
        assert_eq!(output, expected, "{script:?}");
        assert_eq!(execution.shell, if script == "if then" { ShellEvent::Started } else { ShellEvent::Reused });
    }
}

#[test]
fn set_u_carries_over_to_the_users_commands_and_never_to_the_runners_steps() {
    // `set -uo pipefail` left on by a command: it holds for the next commands, as under `bash -c`,
    // and the runner, which reads `$!` before any background job has run, keeps serving in the same
    // shell.
    let pool = ShellPool::default();
    let (first, _) = in_shell(&pool, Some("s"), "set -uo pipefail");
    assert_eq!((first.outcome, first.shell), (OK, ShellEvent::Started));
    for _ in 0..2 {
        let (next, output) = in_shell(&pool, Some("s"), "echo \"$- ${unset_bashrt_var-default}\"");
        assert_eq!((next.outcome, next.shell), (OK, ShellEvent::Reused));
        assert!(output.ends_with(" default\n") && output.contains('u'), "{output}");
    }
    let (unset, output) = in_shell(&pool, Some("s"), "echo \"$unset_bashrt_var\"; echo unreachable");
    assert_eq!(
        (unset.outcome, output),
        (Outcome::Exited { code: 1 }, bash_c("set -u; echo \"$unset_bashrt_var\"; echo unreachable"))
    );
}

#[test]
fn allexport_exports_the_users_variables_and_none_of_the_runners() {
    // `set -a; . ./.env` left on for later calls: what the runner assigns must not reach the
    // environment of the commands (the command's text would, and past 128 KiB no program could start).
    let pool = ShellPool::default();
    in_shell(&pool, None, "set -a");
    let (_, output) = in_shell(&pool, None, "v=1; env | grep -cE '^_[a-z0-9]{2}[shcx]='; env | grep -c '^v=1$'");
    assert_eq!(output, "0\n1\n");
    let long = format!("/bin/echo started # {}", "x".repeat(200_000));
    let (execution, output) = in_shell(&pool, None, &long);
    assert_eq!((execution.outcome, output.as_str()), (OK, "started\n"));
    // With tracing too: both come back for the command, and neither shows in the trace (whose
    // `++` is the `eval` the command runs in).
    in_shell(&pool, None, "set -x");
    let (execution, output) = in_shell(&pool, None, "w=3; printenv w; set +x");
    assert_eq!((execution.outcome, output.as_str()), (OK, "++ w=3\n++ printenv w\n3\n++ set +x\n"));
}

#[test]
fn functions_named_eval_or_exec_are_the_users_and_not_the_runners() {
    // A helper script that defines `eval` (an ML repo's evaluation step) or `exec` (a container
    // helper): every later command must still run, and the functions stay for the user to call.
    let pool = ShellPool::default();
    let (execution, _) = in_shell(&pool, None, "eval() { echo \"evaluating $*\"; }; exec() { echo \"exec $*\"; }");
    assert_eq!(execution.outcome, OK);
    let (execution, output) = in_shell(&pool, None, "echo ran; eval model-1; exec shell");
    assert_eq!(
        (execution.outcome, execution.shell, output.as_str()),
        (OK, ShellEvent::Reused, "ran\nevaluating model-1\nexec shell\n")
    );
    let (execution, output) = in_shell(&pool, None, "unset -f eval exec; eval echo real");
    assert_eq!((execution.shell, output.as_str()), (ShellEvent::Reused, "real\n"));
}

/// The output of a command that printed `before` and then ran `statement` (`break` or `continue`)
/// past its own loops: bash's own message for it, and that the rest did not run. Exact text.
fn left_loops(before: &str, statement: &str) -> String {
    format!(
        "{before}bash: {statement}: only meaningful in a `for', `while', or `until' loop\n\
         bash: the rest of the command did not run: its `{statement}` left the command's loops\n"
    )
}

#[test]
fn a_break_outside_the_commands_loops_is_reported_not_hidden() {
    // `eval` keeps bash's loop count, so a `break` past the command's own loops leaves the runner's
    // inner loop and the rest of the command does not run. `bash -c` would print an error and go on:
    // the output says what bash says and that the rest did not run, and the shell stays.
    let pool = ShellPool::default();
    in_shell(&pool, None, "v=kept");
    let (execution, output) = in_shell(&pool, None, "for i in 1 2; do echo $i; break 2; done; echo after");
    assert_eq!((execution.outcome, output), (Outcome::Exited { code: 1 }, left_loops("1\n", "break")));
    let (execution, output) = in_shell(&pool, None, "echo \"v=$v\"");
    assert_eq!((execution.shell, output.as_str()), (ShellEvent::Reused, "v=kept\n"));
    // A function's `break` never reaches a loop outside it, as in `bash -c`.
    let (_, output) = in_shell(&pool, None, "f() { break; }; f 2>/dev/null; echo on");
    assert_eq!(output, "on\n");
}

#[test]
fn a_continue_outside_the_commands_loops_is_reported_not_hidden() {
    // Like a stray `break`, a `continue` past the command's own loops goes back to the runner's loop,
    // and the rest of the command does not run: the output says so, with bash's own message, the
    // status is 1 (not the last command's), and the shell stays.
    let pool = ShellPool::default();
    in_shell(&pool, None, "v=kept");
    let (execution, output) = in_shell(&pool, None, "echo one; continue; echo after");
    assert_eq!((execution.outcome, output), (Outcome::Exited { code: 1 }, left_loops("one\n", "continue")));
    let (execution, output) = in_shell(&pool, None, "for i in 1 2; do echo $i; continue 2; done; echo after");
    assert_eq!((execution.outcome, output.lines().count()), (Outcome::Exited { code: 1 }, 3), "{output}");
    let (execution, output) = in_shell(&pool, None, "echo \"v=$v\"; (exit 3)");
    assert_eq!(
        (execution.shell, execution.outcome, output.as_str()),
        (ShellEvent::Reused, Outcome::Exited { code: 3 }, "v=kept\n")
    );
    // Within its own loops, and in a function, `continue` is the command's as in `bash -c`.
    let (_, output) = in_shell(&pool, None, "for i in 1 2; do continue; echo no; done; echo on");
    assert_eq!(output, "on\n");
}
