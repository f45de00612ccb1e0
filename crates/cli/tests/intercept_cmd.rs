//! `bashrt intercept` end to end: verdicts for commands on stdin or as arguments, never running them;
//! `--rules`; and `--tools` lists with blanks, here and in `bashrt run`.

use std::io::Write;
use std::process::{Output, Stdio};

use crate::common::{stdout, text, Env};
use serde_json::Value;

fn intercept(env: &Env, args: &[&str], input: &str) -> Output {
    let mut child = env
        .cmd()
        .arg("intercept")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn verdicts(out: &Output) -> Vec<Value> {
    stdout(out).lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn each_line_gets_a_verdict_and_nothing_runs() {
    let env = Env::new();
    let input = concat!(
        "cat README.md\n",
        "touch ran.txt\n",
        "{\"id\": 7, \"command\": \"cat <<EOF > f.txt\\nhello\\nEOF\"}\n",
        "{\"cmd\": \"rm -rf ran-too\"}\n",
        "{ echo braces are a command; }\n",
        "{\"id\": 9}\n",
    );
    let out = intercept(&env, &["--tools", "read,write"], input);
    let v = verdicts(&out);
    assert_eq!(v.len(), 6, "{}", stdout(&out));
    assert_eq!(v[0]["blocked"], true);
    assert_eq!(v[0]["rule"], "file-reader");
    assert_eq!(v[0]["suggestedTool"], "read");
    assert_eq!(v[0]["line"], 1);
    assert_eq!(v[1]["blocked"], false);
    assert_eq!(v[1]["command"], "touch ran.txt");
    assert_eq!((v[2]["id"].clone(), v[2]["rule"].clone()), (Value::from(7), Value::from("redirect-write")));
    assert_eq!(v[3]["command"], "rm -rf ran-too");
    assert_eq!(v[4]["command"], "{ echo braces are a command; }");
    assert_eq!(v[5]["error"], "a JSON line needs a string `command` (or `cmd`)");
    assert_eq!(out.status.code(), Some(2), "a bad line is reported in the exit status");
    assert_eq!(std::fs::read_dir(env.work()).unwrap().count(), 0, "no command was run");
}

#[test]
fn the_exit_status_says_whether_anything_would_be_blocked() {
    let env = Env::new();
    let blocked =
        env.cmd().args(["intercept", "--tools", "grep", "--", "grep", "-rn", "TODO", "src"]).output().unwrap();
    assert_eq!(blocked.status.code(), Some(1));
    assert_eq!(verdicts(&blocked)[0]["rule"], "search-tool");
    let allowed = env.cmd().args(["intercept", "--tools", "grep", "--", "grep -rn TODO src | wc -l"]).output().unwrap();
    assert_eq!(allowed.status.code(), Some(0));
    assert_eq!(verdicts(&allowed)[0]["blocked"], false);
    assert_eq!(intercept(&env, &["--tools", "read"], "ls\n").status.code(), Some(0));
}

#[test]
fn tool_lists_are_trimmed() {
    let env = Env::new();
    let out = intercept(&env, &["--tools", "read, grep ,"], "grep -r foo .\ncat f\n");
    let v = verdicts(&out);
    assert_eq!((v[0]["suggestedTool"].as_str(), v[1]["suggestedTool"].as_str()), (Some("grep"), Some("read")));

    std::fs::write(env.work().join("f.txt"), "content\n").unwrap();
    let (result, code) = env.run_json(&["--tools", "write, read"], "cat f.txt");
    assert_eq!(code, 2);
    assert!(text(&result).starts_with("Blocked: Use the `read` tool"), "{result}");
}

#[test]
fn settings_decide_the_rules_and_rules_prints_them() {
    let env = Env::new();
    let out = env.cmd().args(["intercept", "--rules"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let rules: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let names: Vec<&str> = rules.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "file-reader",
            "search-tool",
            "file-finder",
            "sed-in-place",
            "perl-in-place",
            "directory-lister",
            "redirect-write"
        ]
    );

    let set =
        r#"bashInterceptor.patterns=[{"name": "no-curl", "pattern": "^curl\\s", "tool": "fetch", "message": "m"}]"#;
    let out = intercept(&env, &["--set", set, "--tools", "fetch,read"], "curl x\ncat f\n");
    let v = verdicts(&out);
    assert_eq!((v[0]["rule"].as_str(), v[1]["blocked"].as_bool()), (Some("no-curl"), Some(false)));

    let out = intercept(&env, &["--set", "bashInterceptor.enabled=false", "--tools", "read"], "cat f\n");
    assert_eq!(verdicts(&out)[0]["blocked"], false);
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing is blocked"));
}

#[test]
fn the_rules_can_be_piped_into_a_reader_that_stops_early() {
    let env = Env::new();
    // A pipe whose reader is already gone: every write fails with EPIPE, as after `| head -1` exited.
    let (read, write) = nix::unistd::pipe().unwrap();
    drop(read);
    let out = env.cmd().args(["intercept", "--rules"]).stdout(std::fs::File::from(write)).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
