//! The command line does what a user means: options are options, the command is the command, messages
//! say where to look, logs are plain text for programs, and the README says how it is used.

use std::io::Read;
use std::process::Stdio;

use crate::common::{self, stdout, Env};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_unknown_option_before_the_command_is_an_error_with_a_suggestion() {
    let env = Env::new();
    let out = env.cmd().args(["run", "--timout", "5", "echo hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "", "nothing ran");
    let err = stderr(&out);
    assert!(err.contains("unexpected argument '--timout'"), "{err}");
    assert!(err.contains("a similar argument exists: '--timeout'"), "{err}");
}

#[test]
fn the_command_starts_at_the_first_word_that_is_not_an_option_or_after_double_dash() {
    let env = Env::new();
    // Options of the command itself are its own.
    let out = env.cmd().args(["run", "--timeout", "5", "echo", "-n", "hi", "--json"]).output().unwrap();
    assert_eq!((out.status.code(), stdout(&out).as_str()), (Some(0), "hi --json\n"));
    // After `--`, a word that looks like an option is the command.
    let out = env.cmd().args(["run", "--", "--version"]).output().unwrap();
    assert_eq!(out.status.code(), Some(127), "{}", stdout(&out));
    assert!(stdout(&out).contains("--version: command not found"), "{}", stdout(&out));
}

/// An rc file that exits makes the snapshot capture fail at once, with a warning.
fn env_with_a_failing_rc() -> Env {
    let env = Env::new();
    std::fs::write(env.home().join(".bashrc"), "exit 3\n").unwrap();
    env
}

#[test]
fn logs_are_plain_text_when_stderr_is_not_a_terminal() {
    let env = env_with_a_failing_rc();
    let out = env.cmd().args(["run", "echo hi"]).output().unwrap();
    assert_eq!(stdout(&out), "hi\n");
    let err = stderr(&out);
    assert!(err.starts_with("bashrt: warning: running without a shell snapshot: "), "{err:?}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    // The detailed log, too, has no escape sequences when stderr is not a terminal.
    let out = env.cmd().env("BASHRT_LOG", "warn").args(["run", "echo hi"]).output().unwrap();
    let err = stderr(&out);
    assert!(err.contains("WARN") && !err.contains('\x1b'), "{err:?}");
}

/// stderr of `bashrt run echo hi` with the detailed log, written to a terminal.
fn log_on_a_terminal(no_color: Option<&str>) -> String {
    let env = env_with_a_failing_rc();
    let pty = nix::pty::openpty(None, None).unwrap();
    let mut cmd = env.cmd();
    cmd.env("BASHRT_LOG", "warn").args(["run", "echo hi"]).stdout(Stdio::null());
    match no_color {
        Some(v) => cmd.env("NO_COLOR", v),
        None => cmd.env_remove("NO_COLOR"),
    };
    let mut child = cmd.stderr(std::fs::File::from(pty.slave)).spawn().unwrap();
    drop(cmd);
    let mut master = std::fs::File::from(pty.master);
    let mut log = Vec::new();
    // The read ends with EIO once the child (the last holder of the terminal) has exited.
    let _ = master.read_to_end(&mut log);
    child.wait().unwrap();
    String::from_utf8_lossy(&log).into_owned()
}

/// Whether `text` sets a colour or a style (an SGR sequence, `ESC [ … m`); moving the cursor (the
/// live progress of a command that runs a while) is not colour.
fn coloured(text: &str) -> bool {
    text.split("\x1b[").skip(1).any(|rest| {
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == ';')).unwrap_or(rest.len());
        rest[end..].starts_with('m')
    })
}

#[test]
fn logs_are_coloured_on_a_terminal_unless_no_color_is_set() {
    assert!(coloured(&log_on_a_terminal(None)));
    let plain = log_on_a_terminal(Some("1"));
    assert!(plain.contains("WARN") && !coloured(&plain), "{plain:?}");
    // An empty NO_COLOR does not count.
    assert!(coloured(&log_on_a_terminal(Some(""))));
}

#[test]
fn default_session_names_never_start_with_a_dash_and_can_be_given_back() {
    let env = Env::new();
    let out = env.cmd().args(["run", "seq 30000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let name = env.session_name();
    assert!(name.starts_with("cwd-"), "{name}");
    assert!(env.artifact_path(&name, 1).is_file());
    // From another directory, the name given as an option value.
    let out = env.cmd().current_dir(env.home()).args(["artifact", "1", "--session", &name, "--tail", "1"]).output();
    assert_eq!(stdout(&out.unwrap()), "30000\n");
}

#[test]
fn an_artifact_looked_up_from_another_directory_says_where_it_looked_and_how_to_name_a_session() {
    let env = Env::new();
    env.cmd().args(["run", "seq 30000"]).output().unwrap();
    let out = env.cmd().current_dir(env.home()).args(["artifact", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let home = env.home().canonicalize().unwrap();
    let session = format!("cwd-{}", home.display().to_string().trim_start_matches('/').replace('/', "-"));
    assert_eq!(
        stderr(&out),
        format!(
            "bashrt: No artifacts directory found. Looked in session {session}, the session of the current directory \
             ({}); run this in the directory the command ran in, or name its session: --session cwd-work-app for \
             /work/app\n",
            home.display()
        )
    );
}

#[test]
fn a_missing_id_is_reported_with_the_ranges_that_exist() {
    let env = Env::new();
    for _ in 0..3 {
        env.cmd().args(["run", "seq 30000"]).output().unwrap();
    }
    let out = env.cmd().args(["artifact", "9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("bashrt: Artifact 9 not found. Available: 1-3. Looked in session cwd-"),
        "{}",
        stderr(&out)
    );
}

/// The README's section `heading`, up to the next heading of the same level.
fn readme_section(heading: &str) -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let level = heading.split(' ').next().unwrap().to_string() + " ";
    let start = readme.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("README has no {heading}"));
    let rest = &readme[start + heading.len() + 2..];
    let end = rest.find(&format!("\n{level}")).unwrap_or(rest.len());
    rest[..end].to_string()
}

#[test]
fn the_readme_lists_every_built_in_rule_with_its_tool() {
    let env = Env::new();
    let out = env.cmd().args(["intercept", "--rules"]).output().unwrap();
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let section = readme_section("### Interception");
    for rule in rules.as_array().unwrap() {
        let row = format!("| `{}` | `{}` |", rule["name"].as_str().unwrap(), rule["tool"].as_str().unwrap());
        assert!(section.contains(&row), "README's rule table lacks {row}");
    }
}

#[test]
fn the_readme_set_up_installs_builds_runs_and_tests_in_two_commands_and_says_what_ci_runs() {
    let setup = readme_section("## Set up");
    let blocks: Vec<&str> = setup.split("```sh\n").skip(1).map(|b| b.split("```").next().unwrap().trim()).collect();
    assert_eq!(blocks.len(), 2, "{setup}");
    assert!(blocks[0].contains("cargo install --locked --path crates/cli"), "{}", blocks[0]);
    assert!(blocks[0].contains("bashrt run "), "{}", blocks[0]);
    // The whole suite: the slow tests too (`common::slow`).
    assert_eq!(blocks[1], format!("{}=1 cargo test --workspace --locked", common::SLOW_TESTS));
    assert!(setup.contains(".ci/run"), "{setup}");
    // CI runs that very command.
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../.ci/run")).unwrap();
    assert!(ci.lines().any(|line| line == blocks[1]), "{ci}");
}

#[test]
fn a_command_not_found_while_the_users_functions_are_missing_says_why() {
    let env = env_with_a_failing_rc();
    let out = env.cmd().args(["run", "my_helper"]).output().unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert!(
        stdout(&out).ends_with(
            "\n[This shell has none of the user's aliases and functions: the interactive shell printed no snapshot]\n\
             Command exited with code 127\n"
        ),
        "{}",
        stdout(&out)
    );
    // Another failure is not about the snapshot.
    let out = env.cmd().args(["run", "false"]).output().unwrap();
    assert_eq!(stdout(&out), "(no output)\n\nCommand exited with code 1\n");
}

#[test]
fn a_server_that_ends_while_it_captures_the_snapshot_does_not_spoil_it_for_later_ones() {
    let env = Env::new();
    // The first capture waits until the server is gone; later ones read the rc through.
    let started = common::fifo(env.root.path(), "started");
    let rc = format!(
        "if [ ! -e \"$HOME/once\" ]; then : > \"$HOME/once\"; echo started > '{}'; sleep 60; fi\nalias hi='echo hi from the rc'\n",
        started.display()
    );
    std::fs::write(env.home().join(".bashrc"), rc).unwrap();
    // `claude mcp list` does this: it starts the server and leaves once it answered.
    let mut server =
        env.cmd().arg("mcp").stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let mut line = String::new();
    std::io::BufReader::new(std::fs::File::open(&started).unwrap()).read_to_string(&mut line).unwrap();
    assert_eq!(line, "started\n");
    drop(server.stdin.take());
    assert!(server.wait().unwrap().success());
    let snapshots = env.state().join("snapshots");
    let failed: Vec<_> = std::fs::read_dir(&snapshots)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".failed"))
        .map(|e| e.file_name())
        .collect();
    assert!(failed.is_empty(), "an interrupted capture was remembered as a failure: {failed:?}");
    let out = env.cmd().args(["run", "hi"]).output().unwrap();
    assert_eq!(stdout(&out), "hi from the rc\n", "{}", stderr(&out));
}

#[test]
fn mcp_help_names_its_own_default_session() {
    let env = Env::new();
    let out = env.cmd().args(["mcp", "--help"]).output().unwrap();
    let help = stdout(&out);
    assert!(help.contains("one session per connection, mcp-<start ms>-<pid>"), "{help}");
    assert!(!help.contains("one session per working directory"), "{help}");
}

#[test]
fn printing_into_a_reader_that_went_away_is_no_error() {
    let env = Env::new();
    for args in [&["schema"][..], &["gc", "--json"], &["mcp", "--print-config", "codex"]] {
        let mut child = env.cmd().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        // The reader is gone before bashrt writes.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}: {}", stderr(&out));
    }
}
