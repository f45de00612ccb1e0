//! Long-lived shells keep state: what one call defines is there in the next call of the same
//! key, and only there; commands run at the shell's top level; the cwd follows the call's mode.

use std::path::Path;

use crate::support::*;
use bashrt_core::{CancelToken, CwdMode, ExecError, Executor, Flow, Outcome, ShellEvent, ShellPool};

const OK: Outcome = Outcome::Exited { code: 0 };

#[test]
fn variables_functions_aliases_and_options_carry_to_the_next_call() {
    let pool = ShellPool::default();
    let (first, _) = in_shell(
        &pool,
        None,
        "v=kept; greet() { echo \"hello $1\"; }; alias say='echo said'; set -o pipefail; shopt -s extglob",
    );
    assert_eq!((first.outcome, first.shell), (OK, ShellEvent::Started));
    let (second, output) = in_shell(
        &pool,
        None,
        "echo $v; greet you; say it; [[ -o pipefail ]] && echo pipefail; shopt -q extglob && echo extglob",
    );
    assert_eq!((second.outcome, second.shell), (OK, ShellEvent::Reused));
    assert_eq!(output, "kept\nhello you\nsaid it\npipefail\nextglob\n");
}

#[test]
fn another_session_or_environment_gets_another_shell() {
    let pool = ShellPool::default();
    in_shell(&pool, Some("a"), "v=from-a");
    assert_eq!(in_shell(&pool, Some("a"), "echo \"[${v-unset}]\"").1, "[from-a]\n");
    assert_eq!(in_shell(&pool, Some("b"), "echo \"[${v-unset}]\"").1, "[unset]\n");
    let mut other_env = shell_request(Some("a"), "echo \"[${v-unset}] $EXTRA\"");
    other_env.env = vec![("EXTRA".into(), "x".into())].into();
    let (execution, output) = run_on(&pool, &other_env);
    assert_eq!((execution.shell, output.as_str()), (ShellEvent::Started, "[unset] x\n"));
}

#[test]
fn commands_run_at_the_top_level_of_the_shell() {
    let pool = ShellPool::default();
    // `declare` makes a global, not a function local.
    in_shell(&pool, None, "declare -i g=41; g+=1");
    assert_eq!(in_shell(&pool, None, "echo $g").1, "42\n");
    // `local` is an error outside functions, as at a prompt.
    let (execution, output) = in_shell(&pool, None, "local x=1; echo \"after $?\"");
    assert!(output.contains("local: can only be used in a function"), "{output}");
    assert!(output.ends_with("after 1\n"), "{output}");
    assert_eq!(execution.outcome, OK);
    // The positional parameters are the shell's own, and `set --` changes them for later calls.
    assert_eq!(in_shell(&pool, None, "echo \"[$1] $#\"; set -- a b").1, "[] 0\n");
    assert_eq!(in_shell(&pool, None, "echo \"[$1] $#\"; set --").1, "[a] 2\n");
}

#[test]
fn return_at_top_level_is_an_error_as_under_bash_c() {
    let pool = ShellPool::default();
    let (execution, output) = in_shell(&pool, None, "echo one; return 7; echo two");
    assert_eq!(execution.outcome, OK);
    assert_eq!(output, "one\nbash: line 1: return: can only `return' from a function or sourced script\ntwo\n");
    let (next, output) = in_shell(&pool, None, "echo three");
    assert_eq!((next.outcome, next.shell, output.as_str()), (OK, ShellEvent::Reused, "three\n"));
}

#[test]
fn the_command_runs_exactly_as_written() {
    let pool = ShellPool::default();
    let script = "cat <<'EOF'\n# a comment with 'quotes' and \"more\" and \\ backslashes $HOME `x`\nEOF\n";
    let (execution, output) = in_shell(&pool, None, script);
    assert_eq!(execution.outcome, OK);
    assert_eq!(output, "# a comment with 'quotes' and \"more\" and \\ backslashes $HOME `x`\n");
}

#[test]
fn a_long_command_runs_whole() {
    let pool = ShellPool::default();
    let script: String = (0..20_000).map(|i| format!("x{i}={i}\n")).collect::<String>() + "echo $x19999";
    assert_eq!(in_shell(&pool, None, &script).1, "19999\n");
}

#[test]
fn tool_calls_run_in_their_cwd_every_time() {
    let pool = ShellPool::default();
    let dir = tempfile::tempdir().unwrap();
    let mut req = shell_request(None, "cd / && pwd");
    req.cwd = dir.path().to_path_buf();
    let (execution, output) = run_on(&pool, &req);
    assert_eq!((output.as_str(), execution.final_cwd.as_deref()), ("/\n", Some(Path::new("/"))));
    req.script = "pwd".into();
    let (execution, output) = run_on(&pool, &req);
    assert_eq!(output, format!("{}\n", dir.path().display()));
    assert_eq!(execution.final_cwd.as_deref(), Some(dir.path()));
}

#[test]
fn a_session_keeps_the_cwd_its_last_call_ended_in() {
    let pool = ShellPool::default();
    let (dir, mut req) = session_in_sub(&pool);
    req.script = "pwd".into();
    assert_eq!(run_on(&pool, &req).1, format!("{}\n", dir.path().join("sub").display()));
    // `cd -` works across calls, as in a terminal.
    req.script = "cd - >/dev/null; pwd".into();
    assert_eq!(run_on(&pool, &req).1, format!("{}\n", dir.path().display()));
}

#[test]
fn a_session_restarts_in_its_last_cwd_when_its_shell_exits() {
    let pool = ShellPool::default();
    let (dir, mut req) = session_in_sub(&pool);
    req.script = "exit 3".into();
    assert_eq!(run_on(&pool, &req).0.outcome, Outcome::Exited { code: 3 });
    req.script = "pwd".into();
    let (execution, output) = run_on(&pool, &req);
    assert_eq!(output, format!("{}\n", dir.path().join("sub").display()));
    assert!(matches!(execution.shell, ShellEvent::Replaced { .. }), "{execution:?}");
}

#[test]
fn a_session_whose_directory_vanished_restarts_where_it_started() {
    let pool = ShellPool::default();
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let mut req = shell_request(Some("s"), "cd sub");
    req.cwd = dir.path().to_path_buf();
    req.cwd_mode = CwdMode::Persist;
    run_on(&pool, &req);
    req.script = "exit 1".into();
    run_on(&pool, &req);
    std::fs::remove_dir(&sub).unwrap();
    req.script = "pwd".into();
    assert_eq!(run_on(&pool, &req).1, format!("{}\n", dir.path().display()));
}

#[test]
fn final_cwd_survives_newlines_and_colons_in_the_path() {
    let pool = ShellPool::default();
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("a\nb:c 'd'");
    std::fs::create_dir(&odd).unwrap();
    let mut req = shell_request(None, "cd \"$(printf 'a\\nb:c')\"\\ \\'d\\'");
    req.cwd = dir.path().to_path_buf();
    let (execution, _) = run_on(&pool, &req);
    assert_eq!(execution.final_cwd.as_deref(), Some(odd.as_path()));
    // And a tool call can run in such a directory.
    req.cwd = odd.clone();
    req.script = "pwd".into();
    assert_eq!(run_on(&pool, &req).1, format!("{}\n", odd.display()));
}

#[test]
fn a_missing_cwd_is_an_error_and_the_shell_stays_usable() {
    let pool = ShellPool::default();
    in_shell(&pool, None, "v=1");
    let mut req = shell_request(None, "echo never");
    req.cwd = "/nonexistent/bashrt-dir".into();
    let mut output = Vec::new();
    let mut collect = |chunk: &[u8]| {
        output.extend_from_slice(chunk);
        Flow::Continue
    };
    match pool.execute(&req, &mut collect, &CancelToken::new().unwrap()) {
        Err(ExecError::Cwd { cwd, .. }) => assert_eq!(cwd, Path::new("/nonexistent/bashrt-dir")),
        other => panic!("{other:?}"),
    }
    assert!(output.is_empty());
    let (execution, output) = in_shell(&pool, None, "echo $v");
    assert_eq!((execution.shell, output.as_str()), (ShellEvent::Reused, "1\n"));
}

#[test]
fn the_snapshot_is_sourced_when_the_shell_starts() {
    let pool = ShellPool::default();
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("snapshot.sh");
    std::fs::write(&snapshot, "snap_fn() { echo from-snapshot; }\nalias snap_alias='echo aliased'\necho noise\n")
        .unwrap();
    let mut req = shell_request(None, "snap_fn; snap_alias");
    req.snapshot = Some(snapshot);
    let (execution, output) = run_on(&pool, &req);
    assert_eq!((execution.outcome, output.as_str()), (OK, "from-snapshot\naliased\n"));
}
