//! Shell snapshot against a real `.bashrc` in a fake HOME, loaded by a real interactive bash.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use bashrt_core::testing::{capture_snapshot, SnapshotError};
use bashrt_core::{Outcome, ShellEvent, ShellPool};

use crate::support;

const BASHRC: &str = r#"
alias ll='echo LL'
alias ls='ls --color=always'
grep() { command grep --color=always "$@"; }
_helper() { echo "helper:$1"; }
greet() { _helper "$1"; echo "hi $1"; }
shopt -s globstar extglob
[[ $- != *i* ]] && return
alias after_guard='echo guarded'
quote_alias() { echo "it's"; }
broken() { echo "unterminated ;
}
alias never='echo never'
"#;

fn fake_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join(".bashrc"), BASHRC).unwrap();
    home
}

fn bash_with(snapshot: &Path, script: &str) -> String {
    let script = format!(". '{}'\n{script}", snapshot.display());
    let out = Command::new("bash").arg("--noprofile").arg("--norc").arg("-c").arg(script).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn snapshot_has_what_an_interactive_shell_sees() {
    let home = fake_home();
    let out = home.path().join("snap.sh");
    let snap = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    // Past the `[[ $- != *i* ]] && return` guard: only an interactive read of .bashrc gets there.
    assert_eq!(bash_with(&out, "after_guard"), "guarded\n");
    // A function calling a `_helper` works: helpers are kept.
    assert_eq!(bash_with(&out, "greet bob"), "helper:bob\nhi bob\n");
    assert_eq!(bash_with(&out, "ll"), "LL\n");
    assert_eq!(bash_with(&out, "quote_alias"), "it's\n");
    // The options that keep a command meaning what it means under plain bash come along.
    assert_eq!(bash_with(&out, "shopt -p globstar"), "shopt -s globstar\n");
    assert_eq!(bash_with(&out, "shopt -p extglob"), "shopt -s extglob\n");
    // Tools a model relies on are not shadowed.
    assert_eq!(bash_with(&out, "type -t ls grep"), "file\nfile\n");
    assert!(snap.skipped.iter().any(|s| s == "alias ls: shadows a common tool"), "{:?}", snap.skipped);
    assert!(snap.skipped.iter().any(|s| s == "function grep: shadows a common tool"), "{:?}", snap.skipped);
    // The rc's syntax error ends bash's own reading of it; everything before it is kept.
    assert!(snap.functions >= 3 && snap.aliases >= 2, "{snap:?}");
    assert!(!bash_with(&out, "type never 2>&1").contains("aliased"));
}

#[test]
fn wrappers_of_the_builtins_the_runner_calls_stay_out_of_the_shells() {
    // Wrappers that log or tweak and then call the real builtin: harmless in an interactive shell,
    // but the long-lived shell's loop calls `builtin` and `command` itself. Wrappers of `exec` and
    // `eval` are the user's to keep: the loop never calls those by name.
    let home = tempfile::tempdir().unwrap();
    let rc = "builtin() { local b=$1; shift; \"$b\" \"$@\"; }\ncommand() { \"$@\"; }\n\
              exec() { builtin exec \"$@\"; }\neval() { builtin eval \"$@\"; }\nkept() { echo kept; }\n";
    std::fs::write(home.path().join(".bashrc"), rc).unwrap();
    let out = home.path().join("snap.sh");
    let snap = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    for name in ["builtin", "command"] {
        let note = format!("function {name}: shadows a builtin the shell's loop uses");
        assert!(snap.skipped.contains(&note), "{note} in {:?}", snap.skipped);
    }
    let pool = ShellPool::default();
    let mut req = support::shell_request(None, "kept; type -t builtin command exec eval");
    req.snapshot = Some(out.clone());
    let (first, output) = support::run_on(&pool, &req);
    assert_eq!(
        (first.outcome, output.as_str()),
        (Outcome::Exited { code: 0 }, "kept\nbuiltin\nbuiltin\nfunction\nfunction\n")
    );
    req.script = "echo again".into();
    let (second, output) = support::run_on(&pool, &req);
    assert_eq!((second.shell, output.as_str()), (ShellEvent::Reused, "again\n"));
}

/// At the deadline the interactive shell is hung up on (it ignores SIGTERM), so the rc stops where it
/// was: nothing after the line that hung runs, and the rc's own HUP trap does.
#[test]
fn a_hanging_rc_times_out_instead_of_hanging_the_call() {
    let home = tempfile::tempdir().unwrap();
    let rc = "trap ': > \"$HOME/hung-up\"; exit' HUP\nsleep 100\n: > \"$HOME/read-on\"\n";
    std::fs::write(home.path().join(".bashrc"), rc).unwrap();
    let out = home.path().join("snap.sh");
    let err = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(1), None).unwrap_err();
    assert!(matches!(err, SnapshotError::TimedOut(_)), "{err}");
    assert!(!out.exists());
    assert!(home.path().join("hung-up").exists(), "the interactive shell got no SIGHUP");
    assert!(!home.path().join("read-on").exists(), "the rc went on past the deadline");
}

#[test]
fn an_rc_with_thousands_of_definitions_is_captured_whole_within_the_deadline() {
    // Frameworks of rc files (bash-it, oh-my-bash) define thousands of functions and aliases. The
    // capture printed each through a command substitution, a fork apiece: past a few thousand it
    // ran out its deadline, and the user got no snapshot at all.
    let home = tempfile::tempdir().unwrap();
    let mut rc = String::new();
    for i in 0..7_000 {
        rc.push_str(&format!("fn_{i}() {{ echo \"f{i} $1\"; }}\nalias al_{i}='echo a{i}'\n"));
    }
    std::fs::write(home.path().join(".bashrc"), rc).unwrap();
    let out = home.path().join("snap.sh");
    let snap = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, bashrt_core::testing::CAPTURE_TIMEOUT, None)
        .unwrap();
    assert_eq!((snap.functions, snap.aliases), (7_000, 7_000), "{:?}", snap.skipped);
    assert_eq!(bash_with(&out, "fn_6999 x\nal_0"), "f6999 x\na0\n");
}

#[test]
fn what_the_rc_prints_loses_no_definition() {
    // A greeting on stdout (without a newline) ran into the first record, which was dropped: the
    // rc's first function went missing from every shell.
    let home = tempfile::tempdir().unwrap();
    let rc = "printf 'Welcome'; printf 'warning' >&2\nfirst() { echo first; }\nalias second='echo second'\n";
    std::fs::write(home.path().join(".bashrc"), rc).unwrap();
    let out = home.path().join("snap.sh");
    let snap = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    assert_eq!((snap.functions, snap.aliases), (1, 1), "{snap:?}");
    assert_eq!(bash_with(&out, "first\nsecond"), "first\nsecond\n");
}

#[test]
fn no_rc_gives_an_empty_but_valid_snapshot() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("snap.sh");
    let snap = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    assert_eq!(snap.functions, 0);
    assert_eq!(bash_with(&out, "echo ok"), "ok\n");
}

/// The lists of names go through a file of the capture's own: removed afterwards, and a capture that
/// could not use it fails (no snapshot, said why) rather than writing one without the definitions.
#[test]
fn the_names_file_is_removed_and_a_capture_that_cannot_use_it_fails() {
    let home = fake_home();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("snap.sh");
    capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["snap.sh"]);

    // The rc takes the file's name away: the lists cannot be written.
    std::fs::write(home.path().join(".bashrc"), "greet() { echo hi; }\nunset __bashrt_names\n").unwrap();
    let err = capture_snapshot(
        Path::new("/bin/bash"),
        home.path(),
        &dir.path().join("two.sh"),
        Duration::from_secs(10),
        None,
    )
    .unwrap_err();
    assert!(matches!(&err, SnapshotError::Failed(text) if text.contains("printed no snapshot")), "{err:?}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["snap.sh"]);
}

/// `set -e` in an rc with nothing to list (`compgen` then fails) still gives a snapshot, and one with
/// definitions keeps them all.
#[test]
fn an_rc_that_sets_errexit_is_captured() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("snap.sh");
    std::fs::write(home.path().join(".bashrc"), "set -e\n").unwrap();
    let snap = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    assert_eq!((snap.functions, snap.aliases), (0, 0));
    std::fs::write(home.path().join(".bashrc"), "set -e\nalias hello='echo hello'\nsay() { echo \"say $1\"; }\n")
        .unwrap();
    let snap = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    assert_eq!((snap.functions, snap.aliases), (1, 1));
    assert_eq!(bash_with(&out, "hello\nsay it"), "hello\nsay it\n");
}

/// Where [`capture_from_a_terminals_background_job`] asks its child to write what it captured.
const CHILD_OUT: &str = "BASHRT_TEST_CAPTURE_OUT";

/// The child half of [`capture_from_a_terminals_background_job`]: does nothing unless that test
/// started it (inside a terminal, as a background job).
#[test]
fn capture_child() {
    let Some(out) = std::env::var_os(CHILD_OUT) else { return };
    let out = Path::new(&out);
    let home = std::env::var_os("HOME").unwrap();
    let result = capture_snapshot(
        Path::new("/bin/bash"),
        Path::new(&home),
        &out.with_extension("sh"),
        Duration::from_secs(10),
        None,
    );
    std::fs::write(out, format!("{:?}", result.map(|s| s.aliases))).unwrap();
}

/// `bashrt` started from a terminal, in the background or before the terminal gave it the
/// foreground: the interactive shell of the capture must not be stopped by the terminal (SIGTTIN).
#[test]
fn capture_from_a_terminals_background_job() {
    if Command::new("script").arg("--version").output().is_err() {
        println!("skipped: util-linux `script` (a terminal to run in) is not installed");
        return;
    }
    let home = fake_home();
    let result = home.path().join("result");
    let exe = std::env::current_exe().unwrap();
    // `set -m`: the job gets a process group of its own, not the terminal's foreground one.
    let child = support::test_name(module_path!(), "capture_child");
    let job = format!("set -m; '{}' --exact {child} --nocapture --test-threads=1 & wait", exe.display());
    let status = Command::new("script")
        .args(["-qec", &format!("bash -c \"{job}\""), "/dev/null"])
        .env("HOME", home.path())
        .env(CHILD_OUT, &result)
        .stdin(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let captured = std::fs::read_to_string(&result).unwrap();
    assert!(captured.starts_with("Ok(") && captured != "Ok(0)", "{captured}");
}

#[test]
fn a_snapshot_sets_no_option_but_extglob_globstar_and_expand_aliases() {
    let home = fake_home();
    let rc = home.path().join(".bashrc");
    let more = "set -o vi -o histexpand -o noclobber -o nounset; shopt -s nullglob dotglob failglob\n";
    std::fs::write(&rc, format!("{more}{BASHRC}")).unwrap();
    let out = home.path().join("snap.sh");
    let snap = capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    let options = "shopt -p; set +o; echo \"$-\"";
    let with: Vec<String> = bash_with(&snap.path, options).lines().map(str::to_string).collect();
    let plain = Command::new("bash").args(["--noprofile", "--norc", "-c", options]).output().unwrap();
    let plain = String::from_utf8(plain.stdout).unwrap();
    let changed: Vec<&String> = with.iter().filter(|l| !plain.lines().any(|p| p == l.as_str())).collect();
    assert_eq!(changed, ["shopt -s expand_aliases", "shopt -s extglob", "shopt -s globstar"], "{with:?}");
}

#[test]
fn a_capture_whose_shell_is_killed_is_interrupted_not_failed() {
    // The rc says where its shell is, then waits; the test kills that shell, as a runtime that ends
    // during the capture does.
    let home = tempfile::tempdir().unwrap();
    let fifo = home.path().join("started");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let rc = format!("echo $$ > '{}'; sleep 60\nalias hi='echo hi'\n", fifo.display());
    std::fs::write(home.path().join(".bashrc"), rc).unwrap();
    let out = home.path().join("snap.sh");
    std::thread::scope(|scope| {
        let capturing =
            scope.spawn(|| capture_snapshot(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(60), None));
        let pid: i32 = std::fs::read_to_string(&fifo).unwrap().trim().parse().unwrap();
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL).unwrap();
        match capturing.join().unwrap() {
            Err(e @ SnapshotError::Interrupted(_)) => {
                assert_eq!(e.to_string(), "the capture was interrupted (killed by SIGKILL)")
            }
            other => panic!("{other:?}"),
        }
    });
}
