//! Shell snapshot against a real `.bashrc` in a fake HOME, loaded by a real interactive bash.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use bashrt_core::shell::snapshot::{capture, SnapshotError};

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
    let snap = capture(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    // Past the `[[ $- != *i* ]] && return` guard: only an interactive read of .bashrc gets there.
    assert_eq!(bash_with(&out, "after_guard"), "guarded\n");
    // A function calling a `_helper` works: helpers are kept.
    assert_eq!(bash_with(&out, "greet bob"), "helper:bob\nhi bob\n");
    assert_eq!(bash_with(&out, "ll"), "LL\n");
    assert_eq!(bash_with(&out, "quote_alias"), "it's\n");
    // Options beyond what functions need to parse stay at bash's defaults, as under `bash -c`.
    assert_eq!(bash_with(&out, "shopt -p globstar"), "shopt -u globstar\n");
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
fn a_hanging_rc_times_out_instead_of_hanging_the_call() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join(".bashrc"), "sleep 100\n").unwrap();
    let out = home.path().join("snap.sh");
    let err = capture(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(1), None).unwrap_err();
    assert!(matches!(err, SnapshotError::TimedOut(_)), "{err}");
    assert!(!out.exists());
}

#[test]
fn no_rc_gives_an_empty_but_valid_snapshot() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("snap.sh");
    let snap = capture(Path::new("/bin/bash"), home.path(), &out, Duration::from_secs(10), None).unwrap();
    assert_eq!(snap.functions, 0);
    assert_eq!(bash_with(&out, "echo ok"), "ok\n");
}
