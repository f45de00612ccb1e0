//! `bashrt run` end to end: normalization, interception, validation, exit codes and notices.

use crate::common::{stdout, text, Env};
use serde_json::Value;

#[test]
fn plain_command_prints_what_the_model_sees_and_exits_with_its_code() {
    let env = Env::new();
    let out = env.run(&[], "echo hello; echo oops >&2");
    assert_eq!(stdout(&out), "hello\noops\n");
    assert_eq!(out.status.code(), Some(0));

    let out = env.run(&[], "echo partial; exit 3");
    assert_eq!(stdout(&out), "partial\n\nCommand exited with code 3\n");
    assert_eq!(out.status.code(), Some(3));
}

/// A command that stopped at a prompt it could not get an answer to (its stdin is `/dev/null`) says so,
/// with how to run it without the prompt; one that failed otherwise, or succeeded, does not.
#[test]
fn a_command_that_wanted_input_is_told_how_to_run_without_a_prompt() {
    let env = Env::new();
    let notice = "[The command wanted input, but its stdin is /dev/null: rerun it with a non-interactive flag \
(--yes, -y, --no-input, …) or with the answer piped in (printf 'y\\n' | cmd); a password is the user's to give]";
    for command in [
        "python3 -c 'input(\"Name: \")'",
        "cat /dev/tty",
        "printf 'Overwrite config.yml? [y/N] '; read -r answer || exit 1",
    ] {
        let (v, code) = env.run_json(&[], command);
        assert_ne!(code, 0, "{command}");
        let text = text(&v);
        assert!(text.contains(notice), "{command}: {text}");
        assert!(text.ends_with(&format!("{notice}\nCommand exited with code {code}")), "{command}: {text}");
        assert_eq!(v["details"]["inputEof"], true, "{command}");
    }
    // A command that gave itself its input and ran out of it was not short of an answer from the call.
    for command in [
        "echo 'EOFError: EOF when reading a line'",
        "echo 'Password:' >&2; exit 2",
        "exit 1",
        "python3 -c 'input(); input()' <<< 'one answer'",
    ] {
        let (v, _) = env.run_json(&[], command);
        assert!(!text(&v).contains("wanted input"), "{command}: {}", text(&v));
        assert_eq!(v["details"].get("inputEof"), None, "{command}");
    }
}

#[test]
fn empty_output_is_marked() {
    let env = Env::new();
    assert_eq!(stdout(&env.run(&[], "true")), "(no output)\n");
}

#[test]
fn json_result_has_the_reference_shape_in_camel_case() {
    let env = Env::new();
    let (v, code) = env.run_json(&[], "echo hi; exit 4");
    assert_eq!(code, 4);
    assert_eq!(v["isError"], Value::Bool(true));
    assert_eq!(v["content"][0]["type"], "text");
    assert_eq!(text(&v), "hi\n\nCommand exited with code 4");
    let d = &v["details"];
    assert_eq!(d["exitCode"], 4);
    assert_eq!(d["signal"], Value::Null);
    assert_eq!(d["timedOut"], false);
    assert_eq!(d["cancelled"], false);
    assert!(d["durationMs"].is_u64());
    assert_eq!(d["cwd"], env.work().display().to_string());
    assert_eq!(d["timeoutMs"], 300_000);
}

#[test]
fn yes_piped_to_head_returns_at_once_with_three_lines() {
    let env = Env::new();
    let (v, code) = env.run_json(&["--timeout", "60"], "yes | head -n 3");
    // The extracted limit says which lines are shown, as an extracted tail does.
    assert_eq!(text(&v), "y\ny\ny\n\n[Showing lines 1-3; head -n 3 stopped the command there]");
    assert_eq!(code, 0);
    assert_eq!(v["details"]["timedOut"], false);
    assert_eq!(v["details"]["normalization"]["extracted"]["kind"], "head");
    assert_eq!(v["details"]["normalization"]["command"], "yes");
}

#[test]
fn head_keeps_the_real_first_lines_of_a_long_output() {
    let env = Env::new();
    let out = env.run(&["--timeout", "60"], "seq 1 1000000 | head -5");
    assert_eq!(stdout(&out), "1\n2\n3\n4\n5\n\n[Showing lines 1-5; head -n 5 stopped the command there]\n");
}

#[test]
fn extracted_tail_keeps_bash_exit_status() {
    let env = Env::new();
    // The last stage's status is the pipeline's: `false | tail -n 1` succeeds...
    let out = env.run(&[], "false | tail -n 1");
    assert_eq!(out.status.code(), Some(0));
    // ...unless pipefail is on in that shell.
    let out = env.run(&["--set", r#"bash.env={"SHELLOPTS":"pipefail"}"#], "false | tail -n 1");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn extracted_tail_shows_last_lines_and_keeps_the_rest_in_an_artifact() {
    let env = Env::new();
    let (v, _) = env.run_json(&[], "seq 1 100 | tail -n 2");
    assert_eq!(text(&v), "99\n100\n\n[Showing lines 99-100 of 100. Full: artifact://1]");
    let t = &v["details"]["meta"]["truncation"];
    assert_eq!(t["truncatedBy"], "lines");
    assert_eq!(t["direction"], "tail");
    assert_eq!(t["shownRange"]["start"], 99);
    assert_eq!(t["artifactId"], 1);
    let artifact = std::fs::read_to_string(env.artifact_path(&env.session_name(), 1)).unwrap();
    assert_eq!(artifact, (1..=100).map(|i| format!("{i}\n")).collect::<String>());
}

#[test]
fn explicit_parameters_win_over_the_extracted_stage() {
    let env = Env::new();
    // --tail 1 is explicit: the `| tail -n 5` stage stays in the command, and 1 line is shown of its 5.
    let out = env.run(&["--tail", "1"], "seq 1 10 | tail -n 5");
    assert!(stdout(&out).starts_with("10\n\n[Showing lines 5-5 of 5."), "{}", stdout(&out));
}

#[test]
fn commands_that_are_not_one_pipeline_are_left_alone() {
    let env = Env::new();
    for (cmd, expected) in [
        ("echo a; seq 1 3 | head -2", "a\n1\n2\n"),
        ("echo \"x | head -5\"", "x | head -5\n"),
        ("printf 'abcdefgh' | head -c 5", "abcde"),
        ("cat <<EOF | head -n 1\nfirst\nsecond | head -5\nEOF", "first\n"),
    ] {
        let (v, code) = env.run_json(&[], cmd);
        assert_eq!(code, 0, "{cmd}");
        assert_eq!(text(&v), expected, "{cmd}");
        if !cmd.starts_with("cat <<") {
            assert!(v["details"].get("normalization").is_none(), "{cmd}");
        }
    }
}

#[test]
fn blocked_command_is_refused_with_structured_details() {
    let env = Env::new();
    let (v, code) = env.run_json(&["--tools", "read,grep"], "cd src && cat main.rs");
    assert_eq!(code, 2);
    assert_eq!(v["isError"], true);
    let t = text(&v);
    assert!(t.starts_with("Blocked: "), "{t}");
    assert!(t.contains("cd src && cat main.rs"), "{t}");
    assert_eq!(v["details"]["interception"]["suggestedTool"], "read");
    assert!(v["details"]["interception"]["rule"].is_string());
    assert!(v["details"]["interception"]["message"].is_string());
}

#[test]
fn blocking_needs_the_suggested_tool() {
    let env = Env::new();
    std::fs::write(env.work().join("f.txt"), "content\n").unwrap();
    let out = env.run(&["--tools", "grep"], "cat f.txt");
    assert_eq!(stdout(&out), "content\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn interception_can_be_switched_off() {
    let env = Env::new();
    std::fs::write(env.work().join("f.txt"), "content\n").unwrap();
    let out = env.run(&["--tools", "read", "--set", "bashInterceptor.enabled=false"], "cat f.txt");
    assert_eq!(stdout(&out), "content\n");
}

#[test]
fn invalid_rule_in_settings_is_skipped_with_a_warning() {
    let env = Env::new();
    let settings = env.root.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"bashInterceptor": {"patterns": [
            {"pattern": "(", "tool": "read", "message": "broken"},
            {"name": "no-curl", "pattern": "^curl\\s", "tool": "fetch", "message": "Use the fetch tool."}
        ]}}"#,
    )
    .unwrap();
    let s = settings.to_str().unwrap();
    let out = env.run(&["--settings", s, "--tools", "fetch"], "curl http://127.0.0.1:1/");
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).starts_with("Blocked: Use the fetch tool."), "{}", stdout(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning") && stderr.contains("skipped"), "{stderr}");
}

#[test]
fn malformed_settings_file_is_a_clear_error() {
    let env = Env::new();
    let settings = env.root.path().join("bad.json");
    std::fs::write(&settings, "{not json").unwrap();
    let out = env.run(&["--settings", settings.to_str().unwrap()], "echo hi");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid JSON"), "{stderr}");
}

#[test]
fn missing_cwd_and_file_cwd_are_refused_with_exact_messages() {
    let env = Env::new();
    let out = env.run(&["--cwd", "nope"], "pwd");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), format!("Working directory does not exist: {}\n", env.work().join("nope").display()));
    std::fs::write(env.work().join("file"), "").unwrap();
    let out = env.run(&["--cwd", "file"], "pwd");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), format!("Working directory is not a directory: {}\n", env.work().join("file").display()));
}

#[test]
fn cwd_is_resolved_against_the_session_cwd() {
    let env = Env::new();
    std::fs::create_dir(env.work().join("sub")).unwrap();
    assert_eq!(stdout(&env.run(&["--cwd", "sub"], "pwd")), format!("{}\n", env.work().join("sub").display()));
}

#[test]
fn clamped_timeout_is_visible() {
    let env = Env::new();
    let (v, _) = env.run_json(&["--timeout", "99999"], "echo ok");
    let t = &v["details"]["timeout"];
    assert_eq!(t["requestedSecs"], 99999.0);
    assert_eq!(t["appliedSecs"], 3600.0);
    assert_eq!(t["clamped"], true);
    assert_eq!(v["details"]["timeoutMs"], 3_600_000);
    assert_eq!(text(&v), "ok\n\n[Timeout clamped to 3600s (requested 99999s)]");
}

#[test]
fn bad_arguments_exit_2() {
    let env = Env::new();
    let out = env.cmd().args(["run", "--timeout", "soon", "--", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = env.run(&["--session", "../escape"], "true");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_custom_shell_is_refused() {
    let env = Env::new();
    let out = env.run(&["--set", "shellPath=/nonexistent/bash"], "true");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "Custom shell path not found: /nonexistent/bash\n");
}

#[test]
fn non_interactive_environment_is_applied_and_user_values_win() {
    let env = Env::new();
    let out = env
        .cmd()
        .env("PAGER", "less")
        .args(["run", "--", "echo $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"])
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "less cat 0\n");
}

#[test]
fn schema_lists_the_parameters() {
    let env = Env::new();
    let out = env.cmd().arg("schema").output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for p in ["command", "timeout", "cwd", "head", "tail"] {
        assert!(v["properties"].get(p).is_some(), "{p}");
    }
    assert_eq!(v["required"], serde_json::json!(["command"]));
}
