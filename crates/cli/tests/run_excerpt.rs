//! The excerpt view end to end, with real tools: a real rustc error among hundreds of warnings, a real
//! Python traceback in the middle of a long log, the plain tail on request, and the same view over
//! RPC's session-level `bash`.

use crate::common::{stdout, text, Env};
use serde_json::json;

/// The rustc binary itself (not a rustup proxy, which needs the user's HOME).
fn rustc() -> std::path::PathBuf {
    let out = std::process::Command::new("rustc").args(["--print", "sysroot"]).output().unwrap();
    std::path::PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()).join("bin/rustc")
}

/// Two crate roots: one with 600 unused variables (one warning each), one with a type error.
fn write_crates(env: &Env) {
    let mut src = String::new();
    for i in 0..600 {
        src.push_str(&format!("pub fn w{i}() {{ let unused_{i} = {i}; }}\n"));
    }
    std::fs::write(env.work().join("noisy.rs"), src + "fn main() {}\n").unwrap();
    let broken = "fn main() {}\npub fn broken() -> u32 {\n    \"not a number\"\n}\n";
    std::fs::write(env.work().join("broken.rs"), broken).unwrap();
}

const PYTHON: &str = r#"
import sys, traceback
for i in range(3000):
    print(f"loading record {i} from the primary store")
def parse(size):
    return int(size)
try:
    parse("12kb")
except ValueError:
    traceback.print_exc(file=sys.stdout)
for i in range(3000):
    print(f"fallback: loading record {i} from the replica")
sys.exit(1)
"#;

#[test]
fn a_rustc_error_between_1200_warnings_is_shown_numbered_with_its_location() {
    let env = Env::new();
    write_crates(&env);
    // Like a build of several crates: a noisy one, the broken one, another noisy one.
    // `-o /dev/null` would make rustc create its temporary directory in `/dev`, which the sandbox refuses.
    let rustc = format!("{} --edition 2021 --color never -o prog", rustc().display());
    let command = format!("{rustc} noisy.rs 2>&1; {rustc} broken.rs 2>&1; {rustc} noisy.rs 2>&1");
    let (v, _) = env.run_json(&[], &command);
    let t = text(&v);
    let tr = &v["details"]["meta"]["truncation"];
    assert_eq!(tr["direction"], "excerpt");
    assert_eq!(tr["errorLines"]["errors"].as_u64().unwrap(), 2, "{tr}");
    assert_eq!(tr["errorLines"]["warnings"].as_u64().unwrap(), 1202, "{tr}");
    // The error, numbered, with its `-->` location as context.
    let error_at = t.find(":error[E0308]: mismatched types\n").expect("the error is shown");
    let number_start = t[..error_at].rfind('\n').unwrap() + 1;
    let number: u64 = t[number_start..error_at].parse().unwrap();
    assert!(t.contains(&format!("\n{}- --> broken.rs:3:5\n", number + 1)), "{}", &t[number_start..number_start + 300]);
    assert!(t.contains(&format!("\n{}:error: aborting due to 1 previous error", number + 8)), "{}", &t[error_at..]);
    // Head first, markers between, the notice lists the parts.
    assert!(t.starts_with("warning: unused variable: `unused_"), "{}", &t[..100]);
    assert!(t.contains("\n… end of matched lines; the output ends with lines "));
    let notice = t.lines().last().unwrap();
    assert!(
        notice.starts_with("[Showing lines 1-")
            && notice.contains(" error and ")
            && notice.contains(" warning lines, "),
        "{notice}"
    );
    assert!(notice.ends_with("(50.0KB limit). Full: artifact://1]"), "{notice}");
    assert!(t.len() <= 50 * 1024 + 200);
    let ranges = tr["shownRanges"].as_array().unwrap();
    assert!(ranges.len() >= 3, "{ranges:?}");
    assert_eq!(tr["shownRange"], ranges[ranges.len() - 1]);
}

#[test]
fn a_python_traceback_in_the_middle_of_a_long_log_is_shown() {
    let env = Env::new();
    std::fs::write(env.work().join("app.py"), PYTHON).unwrap();
    let (v, code) = env.run_json(&[], "python3 app.py");
    assert_eq!(code, 1);
    let t = text(&v);
    assert!(t.contains("3001:Traceback (most recent call last):\n"), "traceback missing");
    assert!(t.contains("-  File \"") && t.contains("\", line 6, in parse\n"), "frame missing");
    assert!(t.contains(":ValueError: invalid literal for int() with base 10: '12kb'\n"));
    assert!(t.contains("fallback: loading record 2999 from the replica\n\n[Showing lines 1-"));
    let tr = &v["details"]["meta"]["truncation"];
    assert_eq!(tr["errorLines"]["found"], 2);
    assert_eq!(tr["errorLines"]["shown"], 2);
    assert!(t.ends_with("Full: artifact://1]\nCommand exited with code 1"));
}

#[test]
fn the_tail_setting_gives_the_plain_tail() {
    let env = Env::new();
    std::fs::write(env.work().join("app.py"), PYTHON).unwrap();
    let (v, _) = env.run_json(&["--set", "bash.view=tail"], "python3 app.py");
    let t = text(&v);
    let tr = &v["details"]["meta"]["truncation"];
    assert_eq!(tr["direction"], "tail");
    assert!(tr.get("errorLines").is_none());
    assert!(!t.contains("Traceback") && !t.contains("\n… "));
    let (start, total) = (tr["shownRange"]["start"].as_u64().unwrap(), tr["totalLines"].as_u64().unwrap());
    assert!(t.contains(&format!("[Showing lines {start}-{total} of {total} (50.0KB limit). Full: artifact://1]")));
}

#[test]
fn rpc_bash_keeps_its_output_and_adds_the_truncation_metadata() {
    let env = Env::new();
    std::fs::write(env.work().join("app.py"), PYTHON).unwrap();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"r1","type":"bash","command":"python3 app.py"}));
    let data = rpc.response("r1")["data"].clone();
    let output = data["output"].as_str().unwrap();
    assert!(output.contains("3001:Traceback (most recent call last):\n"));
    assert!(output.contains(":ValueError: invalid literal for int()"));
    assert_eq!(data["truncated"], true);
    assert_eq!(data["exitCode"], 1);
    let tr = &data["meta"]["truncation"];
    assert_eq!(tr["direction"], "excerpt");
    assert_eq!(tr["errorLines"]["shown"], 2);
    assert_eq!(data["outputLines"], tr["outputLines"]);
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_first_line_too_long_for_the_head_is_said_to_be_cut() {
    let env = Env::new();
    let out =
        env.run(&["--set", "bash.maxLineChars=100000"], "head -c 90000 /dev/zero | tr '\\0' a; echo; seq 2 30000");
    let text = stdout(&out);
    let marker = text.lines().nth(1).unwrap();
    assert_eq!(
        marker,
        "… the rest of line 1 and lines 2-22847 omitted (22846 lines); none of them match error patterns …"
    );
}
