//! The driven shell's protocol with the real bash: any text is a valid command, stdin is
//! /dev/null, each call's output is its own, and nothing a command does to its shell (options, traps,
//! fds, limits, helpers) makes a later call hang or return a wrong result.

use std::time::Duration;

use crate::support::*;
use bashrt_core::{Execution, Outcome, ReplaceReason, ShellEvent, ShellPool};

const OK: Outcome = Outcome::Exited { code: 0 };

#[test]
fn syntax_errors_give_bashs_message_and_status_2_and_the_shell_lives_on() {
    let pool = ShellPool::default();
    in_shell(&pool, None, "kept=yes");
    for (script, message) in [
        ("echo \"unbalanced", "unexpected EOF while looking for matching `\"'"),
        ("echo 'unbalanced", "unexpected EOF while looking for matching `''"),
        ("echo before\nif then fi", "syntax error near unexpected token `then'"),
        (")", "syntax error near unexpected token `)'"),
        ("cat <<EOF\nno end", "here-document at line 1 delimited by end-of-file"),
    ] {
        let (execution, output) = in_shell(&pool, None, script);
        assert!(output.contains(message), "{script:?}: {output:?}");
        // A here-document cut short is only a warning: bash runs the command with what it has.
        let code = if script.starts_with("cat") { 0 } else { 2 };
        assert_eq!(execution.outcome, Outcome::Exited { code }, "{script:?}: {output:?}");
        assert_eq!(execution.shell, ShellEvent::Reused);
    }
    assert_eq!(in_shell(&pool, None, "echo before-error-lines-ran; echo $kept").1, "before-error-lines-ran\nyes\n");
    assert!(in_shell(&pool, None, "echo before\nif then fi").1.starts_with("before\n"));
}

#[test]
fn a_command_reading_stdin_gets_eof_at_once_and_never_the_control_data() {
    let pool = ShellPool::default();
    let (execution, output) = in_shell(&pool, None, "cat; read -r x; echo \"[$x] $?\"; head -c 10 /dev/stdin | wc -c");
    assert_eq!((execution.outcome, output.as_str()), (OK, "[] 1\n0\n"));
    // The shell still reads its next command.
    let (execution, output) = in_shell(&pool, None, "echo next");
    assert_eq!((execution.shell, output.as_str()), (ShellEvent::Reused, "next\n"));
}

#[test]
fn stdout_and_stderr_arrive_merged_in_order() {
    let pool = ShellPool::default();
    assert_eq!(in_shell(&pool, None, "echo out; echo err >&2; echo out2").1, "out\nerr\nout2\n");
}

#[test]
fn a_fake_report_printed_by_a_command_is_just_output() {
    let pool = ShellPool::default();
    let script = r"printf '\036bashrt-0.1:0::0.1:/\0'; exit_code=4; (exit $exit_code)";
    let (execution, output) = in_shell(&pool, None, script);
    assert_eq!(execution.outcome, Outcome::Exited { code: 4 });
    assert_eq!(output, "\u{1e}bashrt-0.1:0::0.1:/\0");
}

#[test]
fn a_background_process_does_not_hold_the_call_and_its_later_output_stays_out() {
    let pool = ShellPool::default();
    let go = Fifo::new();
    let done = Fifo::new();
    // It writes (a lot) only once the next call has started, then stays alive: it must neither
    // block on a full pipe nor die of SIGPIPE.
    let script = format!(
        "(read -r _ < {go}; seq 1 200000; echo finished > {done}; exec sleep 100) & echo $!",
        go = go.arg(),
        done = done.arg()
    );
    let (first, output) = in_shell(&pool, None, &script);
    let writer = first_pid(&output);
    assert_eq!(first.outcome, OK);
    assert!(first.background >= 1, "{first:?}");
    let release = format!("echo go > {}; cat {}", go.arg(), done.arg());
    let (second, output) = in_shell(&pool, None, &release);
    assert_eq!((second.outcome, output.as_str()), (OK, "finished\n"));
    assert!(is_alive(writer), "the background writer died");
    let (third, output) = in_shell(&pool, None, "echo third");
    assert_eq!(output, "third\n");
    assert!(third.background >= 1, "{third:?}");
    kill_now(writer);
}

#[test]
fn background_count_follows_what_is_still_running() {
    let pool = ShellPool::default();
    let (first, output) = in_shell(&pool, None, "sleep 100 >/dev/null 2>&1 & echo $!");
    let sleeper = first_pid(&output);
    assert_eq!(first.background, 1);
    assert_eq!(in_shell(&pool, None, "true").0.background, 1);
    kill_now(sleeper);
    // `wait` collects the killed job, so the count cannot see a not-yet-reaped zombie as running.
    assert_eq!(in_shell(&pool, None, "wait").0.background, 0);
    assert_eq!(in_shell(&pool, None, "true").0.background, 0);
}

/// Runs `hostile` in a shell of its own, then two more calls; they must answer correctly (in the same
/// shell or a fresh one). Settings that print (traces, traps) may add lines, never remove or alter the
/// expected ones. Returns the three executions.
fn survive(hostile: &str) -> [(Execution, String); 3] {
    let pool = ShellPool::default();
    let session = Some("hostile");
    let mut req = shell_request(session, hostile);
    // A hang fails the test instead of blocking it.
    req.timeout = Duration::from_secs(30);
    let first = run_on(&pool, &req);
    assert_ne!(first.0.outcome, Outcome::TimedOut, "{hostile:?} hung: {first:?}");
    req.script = "echo ok; v=1".into();
    let second = run_on(&pool, &req);
    assert_eq!(second.0.outcome, OK, "after {hostile:?}: {second:?}");
    assert!(second.1.lines().any(|l| l == "ok"), "after {hostile:?}: {second:?}");
    req.script = "echo \"[${v-}]\"; \\builtin pwd".into();
    let third = run_on(&pool, &req);
    assert_eq!(third.0.outcome, OK, "after {hostile:?}: {third:?}");
    let cwd = work_dir().display().to_string();
    let lines: Vec<&str> = third.1.lines().filter(|l| *l == "[1]" || *l == cwd).collect();
    assert_eq!(lines, ["[1]", cwd.as_str()], "after {hostile:?}: {third:?}");
    assert_eq!(third.0.shell, ShellEvent::Reused, "after {hostile:?}");
    [first, second, third]
}

#[test]
fn redirecting_or_closing_the_shells_fds_does_not_break_later_calls() {
    for hostile in ["exec >/dev/null", "exec 2>&-", "exec 1>&- 2>&-", "exec </dev/zero", "exec 3>&1 4>&1"] {
        let [_, second, _] = survive(hostile);
        assert_eq!(second.0.shell, ShellEvent::Reused, "{hostile}");
    }
    // Closing the copies bash keeps of its own stdin and stdout (fds 10 and up) while the command's
    // redirections are in place loses them for good: that shell ends, and the next call gets a
    // fresh one.
    survive("exec 10>&- 11>&- 12>&-");
}

#[test]
fn options_and_variables_that_change_parsing_do_not_break_later_calls() {
    for hostile in [
        "set -u",
        "set -o noclobber",
        "set -f",
        "IFS=/0123456789",
        "PS4='+ boom '; set -x",
        "set -v",
        "shopt -u expand_aliases",
        "shopt -s failglob nullglob",
        "unset PWD",
        "PWD=/nowhere",
        "trap 'echo debug-trap' DEBUG",
        "trap 'echo return-trap' RETURN",
        "trap 'echo err-trap' ERR; false",
        "set -o pipefail -o errtrace -o functrace",
        "cd() { echo hijacked; }; printf() { echo hijacked; }; pwd() { echo hijacked; }",
        "alias cd='echo hijacked' printf='echo hijacked' builtin='echo hijacked'",
        "unset -f $(compgen -A function); unalias -a",
        "ulimit -n 64",
    ] {
        survive(hostile);
    }
}

#[test]
fn set_e_ends_the_shell_at_the_first_failure_and_the_next_call_gets_a_fresh_one() {
    let [first, second, _] = survive("set -e; false; echo unreachable");
    assert_eq!((first.0.outcome, first.1.as_str()), (Outcome::Exited { code: 1 }, ""));
    assert_eq!(second.0.shell, ShellEvent::Replaced { reason: ReplaceReason::Exited { code: 1 } });

    // Set in one call, it ends the shell in a later one, as in a terminal.
    let pool = ShellPool::default();
    in_shell(&pool, None, "set -e");
    let (failed, output) = in_shell(&pool, None, "false; echo unreachable");
    assert_eq!((failed.outcome, output.as_str()), (Outcome::Exited { code: 1 }, ""));
    assert!(matches!(in_shell(&pool, None, "true").0.shell, ShellEvent::Replaced { .. }));
}

#[test]
fn an_exit_trap_prints_into_the_call_that_exits() {
    let pool = ShellPool::default();
    in_shell(&pool, None, "trap 'echo bye' EXIT");
    assert_eq!(in_shell(&pool, None, "echo still").1, "still\n");
    let (execution, output) = in_shell(&pool, None, "exit 3");
    assert_eq!((execution.outcome, output.as_str()), (Outcome::Exited { code: 3 }, "bye\n"));
    let (next, output) = in_shell(&pool, None, "echo fresh");
    assert_eq!(output, "fresh\n");
    assert_eq!(next.shell, ShellEvent::Replaced { reason: ReplaceReason::Exited { code: 3 } });
}

#[test]
fn a_failed_cd_in_a_command_changes_nothing() {
    let [first, _, _] = survive("cd /nonexistent/bashrt-dir");
    assert_eq!(first.0.outcome, Outcome::Exited { code: 1 });
    assert!(first.1.contains("No such file or directory"), "{first:?}");
}

#[test]
fn lowering_the_open_file_limit_below_what_the_shell_needs_replaces_it() {
    for limit in [12, 3] {
        let [first, second, _] = survive(&format!("ulimit -n {limit}"));
        assert_eq!(first.0.outcome, OK);
        assert_eq!(second.0.shell, ShellEvent::Replaced { reason: ReplaceReason::FileLimit { limit } });
    }
}

#[test]
fn exec_of_a_program_ends_the_shell_with_that_programs_status() {
    let [first, second, _] = survive("exec bash -c 'echo replaced; exit 5'");
    assert_eq!((first.0.outcome, first.1.as_str()), (Outcome::Exited { code: 5 }, "replaced\n"));
    assert_eq!(second.0.shell, ShellEvent::Replaced { reason: ReplaceReason::Exited { code: 5 } });
}

#[test]
fn posix_mode_syntax_errors_end_the_shell_and_the_next_call_gets_a_fresh_one() {
    let pool = ShellPool::default();
    in_shell(&pool, None, "set -o posix");
    let (execution, output) = in_shell(&pool, None, "echo \"unbalanced");
    assert!(output.contains("unexpected EOF"), "{output}");
    assert_eq!(execution.outcome, Outcome::Exited { code: 2 });
    assert_eq!(in_shell(&pool, None, "echo ok").1, "ok\n");
}

#[test]
fn output_of_any_size_arrives_byte_exact() {
    let pool = ShellPool::default();
    let (execution, output) = in_shell(&pool, None, "seq 1 300000");
    assert_eq!(execution.outcome, OK);
    let expected: String = (1..=300_000).map(|i| format!("{i}\n")).collect();
    assert!(output == expected, "{} bytes instead of {}", output.len(), expected.len());
}

#[test]
fn every_command_arrives_as_typed_whichever_way_it_travels() {
    // Short ASCII commands travel in the call record (read in one `read -N` of their length), others
    // (longer, or with any non-ASCII byte, which `read -N` would count as characters) through a
    // memfd. Either way the shell must run exactly the text it was given, in one shell.
    let pool = ShellPool::default();
    in_shell(&pool, None, "true");
    let echo_len = |body: &str| format!("x='{body}'; printf '%s' \"${{#x}}\"");
    // Scripts of 3999, 4000 and 4001 bytes straddle the longest inline command.
    let around_limit = 4000 - echo_len("").len();
    for len in [1, 2, around_limit - 1, around_limit, around_limit + 1, 70_000] {
        let body = "a".repeat(len);
        let (execution, output) = in_shell(&pool, None, &echo_len(&body));
        assert_eq!((execution.outcome, execution.shell), (OK, ShellEvent::Reused), "len {len}");
        assert_eq!(output, len.to_string(), "len {len}");
    }
    for script in [
        "printf '%s|' 'é' 'naïve' '日本'",
        "printf '%s|' a\tb '  spaced  '\r",
        "@",
        "echo 24 @ padded                ",
        "printf '%s' \"$(printf '\\001\\177')\" | od -An -tx1",
        "x=1\n\n\necho \"$x\"\n",
        "echo trailing backslash\\",
    ] {
        let expected = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", script])
            .output()
            .map(|o| String::from_utf8_lossy(&[o.stdout, o.stderr].concat()).into_owned())
            .unwrap();
        let (execution, output) = in_shell(&pool, None, script);
        assert_eq!(execution.shell, ShellEvent::Reused, "{script:?}");
        assert_eq!(output, expected, "{script:?}");
    }
}
