//! `bashrt run` end to end: what the model sees of big, binary and decorated output, and the artifacts.

use crate::common::{stdout, text, Env};

#[test]
fn large_output_spills_byte_exact_and_shows_a_line_aligned_tail() {
    let env = Env::new();
    // 3001 lines, ~100 KB, mixed with stderr: the artifact holds every raw byte in order.
    let cmd = "for i in $(seq 1 3001); do echo \"line $i of the output, padded to be long enough\"; done";
    let (v, code) = env.run_json(&["--set", "bash.view=tail"], cmd);
    assert_eq!(code, 0);
    let t = text(&v);
    let tr = &v["details"]["meta"]["truncation"];
    assert_eq!(tr["truncatedBy"], "bytes");
    assert_eq!(tr["direction"], "tail");
    assert_eq!(tr["totalLines"], 3001);
    let start = tr["shownRange"]["start"].as_u64().unwrap();
    assert_eq!(tr["shownRange"]["end"], 3001);
    assert!(
        t.ends_with(&format!("[Showing lines {start}-3001 of 3001 (50.0KB limit). Full: artifact://1]")),
        "{}",
        &t[t.len() - 120..]
    );
    // The shown text starts with a whole line: the first shown line is line `start`.
    assert!(t.starts_with(&format!("line {start} of the output")), "{}", &t[..80]);
    assert!(tr["outputBytes"].as_u64().unwrap() <= 50 * 1024);

    let expected: String = (1..=3001).map(|i| format!("line {i} of the output, padded to be long enough\n")).collect();
    let artifact = std::fs::read(env.artifact_path(&env.session_name(), 1)).unwrap();
    assert_eq!(artifact, expected.as_bytes());
    assert_eq!(tr["totalBytes"], expected.len() as u64);
}

#[test]
fn artifact_ids_count_up_and_only_when_output_spills() {
    let env = Env::new();
    env.run(&[], "echo small");
    let (v, _) = env.run_json(&[], "seq 1 30000");
    assert_eq!(v["details"]["meta"]["truncation"]["artifactId"], 1);
    let (v, _) = env.run_json(&[], "seq 1 30000");
    assert_eq!(v["details"]["meta"]["truncation"]["artifactId"], 2);
    // Another session goes on from there: an id is given once per state directory.
    let (v, _) = env.run_json(&["--session", "other"], "seq 1 30000");
    assert_eq!(v["details"]["meta"]["truncation"]["artifactId"], 3);
}

#[test]
fn error_results_keep_truncation_metadata_and_the_artifact_link() {
    let env = Env::new();
    let (v, code) = env.run_json(&[], "seq 1 30000; exit 5");
    assert_eq!(code, 5);
    assert_eq!(v["isError"], true);
    let t = text(&v);
    assert!(
        t.contains("of 30000 (50.0KB limit). Full: artifact://1]\nCommand exited with code 5"),
        "{}",
        &t[t.len() - 150..]
    );
    assert_eq!(v["details"]["meta"]["truncation"]["artifactId"], 1);
}

#[test]
fn invalid_utf8_is_replaced_for_the_model_and_kept_raw_in_the_artifact() {
    let env = Env::new();
    let (v, _) = env.run_json(&[], r"printf 'ok \xff\xfe done\n'");
    assert_eq!(text(&v), "ok \u{fffd}\u{fffd} done\n");
    let (v, _) = env.run_json(&[], r"seq 1 20000; printf 'end \xff\xfe\n'");
    assert!(text(&v).contains("\nend \u{fffd}\u{fffd}\n"));
    let artifact = std::fs::read(env.artifact_path(&env.session_name(), 1)).unwrap();
    assert!(artifact.ends_with(b"\n20000\nend \xff\xfe\n"));
}

#[test]
fn binary_output_is_reported_by_size_with_the_raw_bytes_in_an_artifact() {
    let env = Env::new();
    let (v, _) = env.run_json(&[], "head -c 4096 /dev/urandom; printf '\\0\\0\\0'");
    let t = text(&v);
    assert!(t.starts_with("[Binary output (4.0KB) not shown. Full: artifact://1]"), "{t}");
    let artifact = std::fs::read(env.artifact_path(&env.session_name(), 1)).unwrap();
    assert_eq!(artifact.len(), 4099);
}

#[test]
fn ansi_colours_are_removed_and_progress_redraws_collapse() {
    let env = Env::new();
    let out = env.run(&[], r"printf '\033[31mred\033[0m plain\n'; printf '10%%\r50%%\r100%%\n'");
    assert_eq!(stdout(&out), "red plain\n100%\n");
}

#[test]
fn very_long_lines_are_clamped_for_the_model() {
    let env = Env::new();
    let out = env.run(&[], "head -c 5000 /dev/zero | tr '\\0' a; echo");
    let s = stdout(&out);
    assert!(s.starts_with(&"a".repeat(4000)), "{}", &s[..50]);
    assert!(s.contains("1000 chars omitted"), "{}", &s[3990..]);
}

#[test]
fn artifact_command_reads_whole_and_windows() {
    let env = Env::new();
    env.run(&[], "seq 1 30000");
    let read = |args: &[&str]| {
        let out = env.cmd().arg("artifact").args(args).output().unwrap();
        (stdout(&out), out.status.code())
    };
    let (whole, code) = read(&["1"]);
    assert_eq!(code, Some(0));
    assert_eq!(whole.lines().count(), 30000);
    assert_eq!(read(&["artifact://1", "--head", "2"]).0, "1\n2\n");
    assert_eq!(read(&["1", "--tail", "2"]).0, "29999\n30000\n");
    assert_eq!(read(&["1", "--lines", "10-12"]).0, "10\n11\n12\n");
    assert_eq!(read(&["1", "--grep", "^2999[0-2]$"]).0, "29990:29990\n29991:29991\n29992:29992\n");
}

#[test]
fn artifact_errors_are_clear_and_never_escape_the_directory() {
    let env = Env::new();
    let err = |args: &[&str]| {
        let out = env.cmd().arg("artifact").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(err(&["1"]).contains("No artifacts directory found"));
    env.run(&[], "seq 1 30000");
    assert!(err(&["artifact://../x"]).contains("artifact:// ID must be numeric, got: ../x"));
    assert!(err(&["artifact://"]).contains("artifact:// URL requires a numeric ID"));
    assert!(err(&["9"]).contains("Artifact 9 not found. Available: 1"));
    assert!(err(&["1", "--grep", "("]).contains("invalid grep pattern"));
    assert!(err(&["1", "--lines", "5-2"]).contains("lines expects \"A-B\""));
}

#[test]
fn artifact_failure_is_not_fatal_and_is_said_in_the_result() {
    let env = Env::new();
    // A file where the state directory should be: nothing can be created under it.
    std::fs::write(env.state(), "not a directory").unwrap();
    let (v, code) = env.run_json(&[], "seq 1 30000");
    assert_eq!(code, 0);
    assert_eq!(v["isError"], false);
    let t = text(&v);
    let last = t.lines().last().unwrap();
    assert!(
        last.starts_with("[Showing lines ")
            && last.contains("(50.0KB limit). Full output could not be kept: cannot create artifact directory"),
        "{last}"
    );
    // The excerpt: the first lines, then the last.
    assert!(t.starts_with("1\n2\n"), "{}", &t[..20]);
    assert!(t.contains(&format!("\n{}\n", v["details"]["meta"]["truncation"]["shownRange"]["start"])));
    assert!(v["details"]["artifactError"].as_str().unwrap().contains("cannot create artifact directory"));
    assert_eq!(v["details"]["meta"]["truncation"]["artifactId"], serde_json::Value::Null);
}
