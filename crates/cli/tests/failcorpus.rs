//! The excerpt on the failing runs of the tools people use, as the tools print them here: ruff,
//! shellcheck, eslint, mypy, jest, valgrind, cmake, git, dpkg and a Rust program's panic, each set up
//! by its case in `bench/failcorpus/cases_fresh.py` (installed pinned from PyPI, npm and Debian) and run
//! through this build's binary by `bench/failcorpus/run.py`, which scores what the model sees against
//! the lines a person needs (rules written before any view was scored) and against the cuts of Codex
//! and Claude Code on the same bytes. Slow: the installs take minutes.

use crate::common;

/// The cases of the tools the error shapes and the current signatures were written for.
const CASES: &[&str] = &[
    "ruff-undefined-name",
    "shellcheck-error-among-infos",
    "eslint-no-undef",
    "mypy-errors-among-notes",
    "jest-one-failing",
    "valgrind-invalid-read",
    "cmake-missing-package",
    "git-merge-conflict",
    "dpkg-overwrite-conflict",
    "rust-worker-panic",
];

#[test]
fn the_first_error_of_real_tools_failing_runs_is_shown_and_no_peer_shows_more() {
    if !common::slow("installs linters, test runners and checkers from PyPI, npm and Debian") {
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let work = tempfile::tempdir().unwrap();
    let results = work.path().join("results.json");
    let mut command = std::process::Command::new("python3");
    command
        .arg(root.join("bench/failcorpus/run.py"))
        .args(["--cases", "fresh", "--bashrt", env!("CARGO_BIN_EXE_bashrt")])
        .arg("--work")
        .arg(work.path())
        .arg("--json")
        .arg(&results);
    for case in CASES {
        command.args(["--only", case]);
    }
    let run = command.output().unwrap();
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "run.py failed:\n{log}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    let rows = json["fresh"].as_array().unwrap();
    let (mut present, mut needed) = (0, 0);
    for case in CASES {
        let row = rows.iter().find(|r| r["name"] == *case).unwrap_or_else(|| panic!("{case} did not run:\n{log}"));
        let view = |k: &str| row[k]["present"].as_u64().unwrap();
        assert_eq!(row["smart"]["first_shown"], true, "{case}: the first error is not in the view: {row:#}");
        assert!(
            view("smart") >= view("codex") && view("smart") >= view("claude"),
            "{case}: a peer shows more: {row:#}"
        );
        present += view("smart");
        needed += row["smart"]["needed"].as_u64().unwrap();
    }
    // 45 of 50 when this was written (ruff's second diagnostic and shellcheck's heading are not kept).
    assert!(present * 100 >= needed * 85, "{present} of {needed} needed lines shown");
}
