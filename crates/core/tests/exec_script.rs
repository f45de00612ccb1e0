//! Composition checked against the real bash: a producer composed with `ExtractedLastStage`, with the
//! removed `head`/`tail` applied to its output by the caller, must end exactly like the original
//! pipeline: same output, same `$?` afterwards, same shell exit status, with and without `pipefail`
//! (given as a flag, through `SHELLOPTS`, or by the prefix) and `errexit`.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ChildStdout, Command, Stdio};

use crate::support::*;
use bashrt_core::{compose, Outcome, StatusMode};

/// The stage the runtime removed and applies itself.
#[derive(Debug, Clone, Copy)]
enum Stage {
    HeadLines(usize),
    HeadBytes(usize),
    TailLines(usize),
}

impl Stage {
    fn shell(self) -> String {
        match self {
            Stage::HeadLines(n) => format!("head -n {n}"),
            Stage::HeadBytes(n) => format!("head -c {n}"),
            Stage::TailLines(n) => format!("tail -n {n}"),
        }
    }

    /// Reads like the stage would, and closes the pipe when the stage would exit.
    fn apply(self, stdout: ChildStdout) -> Vec<u8> {
        let mut reader = BufReader::new(stdout);
        let mut out = Vec::new();
        match self {
            Stage::HeadLines(n) => {
                for _ in 0..n {
                    if reader.read_until(b'\n', &mut out).unwrap() == 0 {
                        break;
                    }
                }
            }
            Stage::HeadBytes(n) => {
                reader.take(n as u64).read_to_end(&mut out).unwrap();
            }
            Stage::TailLines(n) => {
                let mut all = Vec::new();
                reader.read_to_end(&mut all).unwrap();
                let lines: Vec<&[u8]> = all.split_inclusive(|&b| b == b'\n').collect();
                out = lines[lines.len().saturating_sub(n)..].concat();
            }
        }
        out
    }
}

/// How the shell is started and what it runs first.
#[derive(Debug, Clone, Copy)]
struct Setup {
    args: &'static [&'static str],
    env: Option<(&'static str, &'static str)>,
    prefix: Option<&'static str>,
}

const SETUPS: &[Setup] = &[
    Setup { args: &[], env: None, prefix: None },
    Setup { args: &["-o", "pipefail"], env: None, prefix: None },
    Setup { args: &[], env: Some(("SHELLOPTS", "pipefail")), prefix: None },
    Setup { args: &[], env: None, prefix: Some("set -o pipefail;") },
    Setup { args: &["-e"], env: None, prefix: None },
    Setup { args: &["-e", "-o", "pipefail"], env: None, prefix: None },
    Setup { args: &[], env: None, prefix: Some("cd / &&") },
];

/// Producers and stages whose original pipeline ends the same way on every run (no race between the
/// producer's later writes and the stage's exit).
const CASES: &[(&str, Stage)] = &[
    ("yes", Stage::HeadLines(1)),
    ("yes", Stage::HeadLines(3)),
    ("yes", Stage::HeadBytes(5)),
    ("seq 3", Stage::HeadLines(1)),
    ("seq 3", Stage::TailLines(2)),
    ("exit 3", Stage::HeadLines(1)),
    ("exit 3", Stage::TailLines(2)),
    ("false", Stage::HeadLines(1)),
    ("echo a; exit 4", Stage::HeadLines(1)),
    ("echo a; exit 4", Stage::TailLines(5)),
    ("for i in 1 2 3 4; do echo $i; done", Stage::HeadLines(9)),
    ("for i in 1 2 3 4; do echo $i; done", Stage::TailLines(2)),
    ("cat /nonexistent/bashrt", Stage::HeadLines(1)),
    ("pwd; cd /tmp", Stage::HeadLines(1)),
    ("sh -c 'kill -TERM $$'", Stage::HeadLines(1)),
];

/// What a run leaves behind: the stage's output, `$?` right after the pipeline (written to a file by
/// the next command, absent if the shell ended first), and the shell's own exit status.
#[derive(Debug, PartialEq, Eq)]
struct Ending {
    output: String,
    after: Option<String>,
    status: i32,
}

fn run_bash(setup: Setup, script: &str, after: &Path, stage: Option<Stage>) -> Ending {
    let _ = std::fs::remove_file(after);
    let script = format!("{script}\necho \"$? $PWD\" > \"$AFTER\"");
    let mut command = Command::new(BASH);
    command
        .args(setup.args)
        .arg("-c")
        .arg(&script)
        .env("AFTER", after)
        .current_dir(work_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some((k, v)) = setup.env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let output = match stage {
        Some(stage) => stage.apply(stdout),
        None => {
            let mut all = Vec::new();
            BufReader::new(stdout).read_to_end(&mut all).unwrap();
            all
        }
    };
    let status = child.wait().unwrap();
    Ending {
        output: String::from_utf8(output).unwrap(),
        after: std::fs::read_to_string(after).ok(),
        status: status.code().unwrap_or_else(|| 128 + status.signal().unwrap()),
    }
}

#[test]
fn extracted_last_stage_ends_like_the_original_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after");
    let mut checked = 0;
    for setup in SETUPS {
        for &(producer, stage) in CASES {
            let original = match setup.prefix {
                Some(prefix) => format!("{prefix} {producer} | {}", stage.shell()),
                None => format!("{producer} | {}", stage.shell()),
            };
            let expected = run_bash(*setup, &original, &after, None);
            let composed = compose(producer, setup.prefix, StatusMode::ExtractedLastStage);
            let actual = run_bash(*setup, &composed, &after, Some(stage));
            assert_eq!(actual, expected, "setup {setup:?}\noriginal: {original}\ncomposed: {composed}");
            checked += 1;
        }
    }
    assert_eq!(checked, SETUPS.len() * CASES.len());
}

#[test]
fn word_prefix_applies_to_the_producer_like_in_the_original_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after");
    for setup in &SETUPS[..2] {
        for producer in ["yes", "seq 3", "false", "printenv BASHRT_PREFIXED"] {
            let stage = Stage::HeadLines(1);
            let prefix = "env BASHRT_PREFIXED=yes";
            let original = format!("{prefix} {producer} | {}", stage.shell());
            let expected = run_bash(*setup, &original, &after, None);
            let composed = compose(producer, Some(prefix), StatusMode::ExtractedLastStage);
            let actual = run_bash(*setup, &composed, &after, Some(stage));
            assert_eq!(actual, expected, "{setup:?} {original}");
        }
    }
}

#[test]
fn as_is_status_is_the_commands_own() {
    let script = compose("exit 5", Some("true;"), StatusMode::AsIs);
    assert_eq!(run(&script).0.outcome, Outcome::Exited { code: 5 });
}

#[test]
fn extracted_producer_cannot_end_the_shell() {
    let script = compose("exit 3", None, StatusMode::ExtractedLastStage) + "\necho still here";
    let (execution, output) = run(&script);
    assert_eq!(output, "still here\n");
    assert_eq!(execution.outcome, Outcome::Exited { code: 0 });
}
