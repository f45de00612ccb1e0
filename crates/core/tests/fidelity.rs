//! What `bashrt run` shows is what `bash -c CMD 2>&1` shows: bash's own messages and line numbers,
//! stderr beside an extracted `| head`/`| tail`, and the late output of the command's own children.
//! Each case runs through the one-shot executor (as `bashrt run` does) and through a plain
//! `bash -c`, in the same scratch directory; the extracted-limit cases also through the long-lived
//! shells (as `bashrt rpc` runs them).

use std::path::Path;
use std::process::{Command, Stdio};

use bashrt_core::{BashParams, CallContext, CancelToken, Runtime, Settings, ToolResult};

struct Env {
    dir: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap(), state: tempfile::tempdir().unwrap() }
    }

    fn run(&self, command: &str) -> ToolResult {
        self.run_with(command, Settings::default())
    }

    fn run_with(&self, command: &str, settings: Settings) -> ToolResult {
        self.run_on(&Runtime::builder(settings).one_shot().state_dir(self.state.path()).build(), command)
    }

    /// A runtime with a pool of long-lived shells, as `bashrt rpc` has.
    fn pooled(&self) -> std::sync::Arc<Runtime> {
        Runtime::builder(Settings::default()).state_dir(self.state.path()).build()
    }

    fn run_on(&self, runtime: &std::sync::Arc<Runtime>, command: &str) -> ToolResult {
        let params = BashParams { command: command.to_string(), timeout: Some(60.0), ..Default::default() };
        let artifacts = runtime.artifacts(&bashrt_core::SessionName::for_cwd(self.dir.path()));
        let ctx = CallContext {
            session_cwd: self.dir.path().to_path_buf(),
            artifacts,
            tool_names: vec![],
            cancel: CancelToken::new().unwrap(),
            on_update: None,
        };
        runtime.tool().execute(&params, ctx)
    }

    fn bash(&self, command: &str) -> String {
        bash_c(command, self.dir.path())
    }
}

/// `bash -c CMD 2>&1` with stdin from /dev/null, as a user types it.
fn bash_c(command: &str, cwd: &Path) -> String {
    let out = Command::new("bash")
        .args(["-c", "exec bash -c \"$1\" 2>&1", "bash", command])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text without the notices appended after a blank line (and without `(no output)`).
fn body(result: &ToolResult) -> String {
    let text = result.text();
    let is_notice = |line: &str| line.starts_with('[') || line.starts_with("Command ");
    let mut end = text.len();
    while let Some(pos) = text[..end].rfind("\n\n") {
        if text[pos + 2..].lines().all(is_notice) {
            end = pos + 1;
        } else {
            break;
        }
    }
    let body = &text[..end];
    if body == "(no output)" || body == "(no output)\n" {
        return String::new();
    }
    body.to_string()
}

fn notices(result: &ToolResult) -> String {
    let text = result.text();
    text[body(result).len()..].to_string()
}

#[test]
fn bash_messages_carry_bash_c_line_numbers_and_prefix() {
    let env = Env::new();
    for command in [
        "if then",
        "echo $((1/0))",
        "true\necho $((1/0))",
        "true\nif then",
        "no_such_command_bashrt_x",
        "echo ok; ( exit 3 ); no_such_command_bashrt_x",
        "f() { echo $LINENO; }\nf; echo $LINENO",
        "echo $0",
        // Extracted stages keep the producer on the user's line.
        "echo $((1/0)) | head -n 1",
        "true\necho $((1/0)) | tail -n 1",
        "echo $LINENO | tail -n 1",
        "no_such_command_bashrt_x | head -n 3",
    ] {
        let result = env.run(command);
        assert_eq!(body(&result), env.bash(command), "{command:?}: {}", result.text());
    }
}

#[test]
fn stderr_and_status_lines_beside_an_extracted_head_are_whole() {
    let env = Env::new();
    for command in [
        "{ echo e1 >&2; echo e2 >&2; seq 5; } | head -n 2",
        "ls -d / /nonexistent-bashrt | head -n 1",
        "printf 'a\\nb\\n' | xargs -n1 sh -c yes | head -n 3",
        "cat /nonexistent-bashrt | head -n 1",
    ] {
        let result = env.run(command);
        assert_eq!(body(&result), env.bash(command), "{command:?}: {}", result.text());
        assert_eq!(result.details.exit_code, Some(0), "{command:?}");
    }
}

#[test]
fn stderr_beside_an_extracted_limit_is_whole_through_the_long_lived_shells() {
    let env = Env::new();
    std::fs::create_dir(env.dir.path().join("d")).unwrap();
    for (i, size) in [10, 300, 20, 4000, 1].into_iter().enumerate() {
        std::fs::write(env.dir.path().join(format!("d/f{i}")), "x".repeat(size)).unwrap();
    }
    std::fs::write(env.dir.path().join("d/no access"), "").unwrap();
    let runtime = env.pooled();
    for command in [
        "{ echo e1 >&2; echo e2 >&2; seq 5; } | head -n 2",
        "ls -d / /nonexistent-bashrt | head -n 1",
        "ls -d /nonexistent-bashrt /; echo x | head -n 1",
        "printf 'a\\nb\\n' | xargs -n1 sh -c yes | head -n 3",
        "find . -type f | xargs ls -lS | head -n 3",
        "{ echo err >&2; seq 10; } | tail -n 2",
        "cat /nonexistent-bashrt | xargs du -c | tail -n 1",
    ] {
        let result = env.run_on(&runtime, command);
        assert_eq!(body(&result), env.bash(command), "{command:?}: {}", result.text());
        assert_eq!(result.details.exit_code, Some(0), "{command:?}");
    }
    // The same shell after a split call: the next call's output is merged again.
    let result = env.run_on(&runtime, "echo out; echo err >&2");
    assert_eq!(body(&result), "out\nerr\n");
}

#[test]
fn stderr_beside_an_extracted_tail_is_whole() {
    let env = Env::new();
    for command in [
        "{ echo err >&2; seq 10; } | tail -n 2",
        "cat /nonexistent-bashrt | xargs du -c | tail -n 1",
        "{ ls /nonexistent-bashrt; seq 3; } | tail -n 5",
    ] {
        let result = env.run(command);
        assert_eq!(body(&result), env.bash(command), "{command:?}: {}", result.text());
    }
    // Without stderr, the notice gives the exact range of stdout shown.
    let result = env.run("seq 1 100 | tail -n 3");
    assert_eq!(body(&result), "98\n99\n100\n");
    assert!(notices(&result).contains("[Showing lines 98-100 of 100. Full: artifact://"), "{}", result.text());
    let result = env.run("{ echo err >&2; seq 10; } | tail -n 2");
    assert!(
        notices(&result)
            .contains("[Showing the last 2 of 10 lines of stdout and all 1 line of stderr. Full: artifact://"),
        "{}",
        result.text()
    );
}

#[test]
fn an_extracted_head_says_which_lines_are_shown() {
    let env = Env::new();
    let result = env.run("seq 1 100 | head -n 5");
    assert_eq!(body(&result), "1\n2\n3\n4\n5\n");
    assert!(notices(&result).contains("[Showing lines 1-5; head -n 5 stopped the command there]"), "{}", result.text());
    // A producer that ends before the limit is shown whole, with nothing to say.
    let result = env.run("seq 1 3 | head -n 5");
    assert_eq!(result.text(), "1\n2\n3\n");
}

#[test]
fn a_head_limited_view_is_cut_on_a_line_boundary() {
    let env = Env::new();
    let result = env.run("seq 1 100000 | head -n 90000");
    let body = body(&result);
    assert!(body.ends_with('\n'), "partial last line");
    let last: u64 = body.lines().last().unwrap().parse().unwrap();
    let count = body.lines().count() as u64;
    assert_eq!(last, count, "the lines shown are 1..{count}");
    assert!(notices(&result).contains(&format!("[Showing lines 1-{count} of 90000 (")), "{}", notices(&result));
}

#[test]
fn late_output_of_the_commands_children_is_kept() {
    let env = Env::new();
    let result = env.run("echo foo | tee >(sha1sum) >(md5sum)");
    let mut lines: Vec<String> = body(&result).lines().map(str::to_owned).collect();
    lines.sort();
    assert_eq!(
        lines,
        ["d3b07384d113edec49eaa6238ad5ff00  -", "f1d2d2f924e986ac86fdf7b36c94bcdf32beec15  -", "foo"],
        "{}",
        result.text()
    );
    let result = env.run("gzip -d missing-bashrt &");
    assert_eq!(body(&result), "gzip: missing-bashrt.gz: No such file or directory\n", "{}", result.text());
    assert!(!result.details.output_left_open);
}

#[test]
fn a_silent_background_process_does_not_hold_the_call_and_the_result_says_so() {
    let env = Env::new();
    let result = env.run("sleep 30 & echo started");
    assert_eq!(body(&result), "started\n");
    assert_eq!(result.details.exit_code, Some(0));
    assert!(result.details.output_left_open);
    assert!(notices(&result).contains("[Background processes still held the output when the call returned"));
}

#[test]
fn a_clamped_line_keeps_the_full_output_and_says_where() {
    let env = Env::new();
    let result = env.run("printf '%05000d\\n' 7; echo after");
    let notices = notices(&result);
    assert!(body(&result).starts_with(&format!("{} … [1000 chars omitted]\nafter\n", "0".repeat(4000))));
    assert!(notices.contains("[1 long line cut to 4000 chars (bash.maxLineChars). Full: artifact://"), "{notices}");
    let id = result.details.meta.as_ref().map(|m| m.truncation.artifact_id);
    assert!(id.is_none(), "no truncation metadata for a clamp alone");
    let artifacts = env.state.path().join("sessions");
    let full = walk(&artifacts).into_iter().find(|p| p.extension().is_some_and(|e| e == "log")).unwrap();
    assert_eq!(std::fs::read(full).unwrap(), [format!("{:05000}\n", 7).as_bytes(), b"after\n"].concat());
}

#[test]
fn a_line_longer_than_the_view_reports_every_omitted_char_and_its_cut_start() {
    let env = Env::new();
    let result = env.run("head -c 200000 /dev/zero | tr '\\0' x");
    let body = body(&result);
    let (marker, rest) = body.split_once("] ").unwrap();
    let before: u64 = marker.trim_start_matches("… [").trim_end_matches(" chars omitted").parse().unwrap();
    let after: u64 =
        rest.rsplit_once(" … [").unwrap().1.trim_end().trim_end_matches(" chars omitted]").parse().unwrap();
    assert_eq!(before + 4000 + after, 200_000, "{}", &body[..40]);
}

#[test]
fn nul_separated_text_is_shown_with_the_nuls_replaced() {
    let env = Env::new();
    std::fs::write(env.dir.path().join("a"), "").unwrap();
    let result = env.run("find . -name a -print0; printf 'log\\0line\\n'");
    assert_eq!(body(&result), "./a␀log␀line\n");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Deterministic commands of many kinds: the output and the status are bash's own.
#[test]
fn many_commands_show_exactly_what_bash_c_shows() {
    let env = Env::new();
    std::fs::write(env.dir.path().join("f.txt"), "alpha\nbeta\ngamma\nbeta\n").unwrap();
    std::fs::create_dir(env.dir.path().join("d")).unwrap();
    std::fs::write(env.dir.path().join("d/x.rs"), "fn main() {}\n").unwrap();
    let commands = [
        "echo hello",
        "printf 'a\\tb\\n'",
        "echo -n no newline",
        "false",
        "exit 7",
        "( exit 3 )",
        "true && echo yes || echo no",
        "cat f.txt | sort | uniq -c",
        "sort f.txt | uniq | head -n 2",
        "grep -n beta f.txt | tail -n 1",
        "grep -c beta f.txt",
        "wc -l < f.txt",
        "cat missing.txt",
        "cat missing.txt 2>&1 | head -n 1",
        "ls d",
        "ls nope d",
        "find d -name '*.rs'",
        "find . -name '*.rs' | head -n 1",
        "echo $((6 * 7))",
        "echo $((1/0)); echo after",
        "x=5; echo ${x:-unset} ${y:-unset}",
        "set -u; echo $undefined_var_bashrt",
        "set -e; false; echo not reached",
        "set -o pipefail; false | tail -n 1",
        "f() { return 4; }; f; echo $?",
        "for i in 1 2 3; do echo $i; done | tail -n 2",
        "seq 1 50 | head -n 3",
        "seq 1 50 | tail -n 3",
        "seq 1 5 | head -3",
        "seq 1 5 | tail -2",
        "yes | head -n 2",
        "echo a; echo b >&2; echo c",
        "diff <(echo a) <(echo b)",
        "cat <(echo from process substitution)",
        "echo foo | tee >(cat >/dev/null) | wc -c",
        "read -r line; echo \"got [$line]\"",
        "cat",
        "sleep 0.01 & wait; echo waited",
        "{ echo one; echo two; } | tail -n 1",
        "echo 'unterminated",
        "if true; then echo in-if; fi",
        "case x in x) echo matched;; esac",
        "while false; do :; done; echo done",
        "echo $0",
        "echo \"${BASH_SOURCE[0]-none}\"",
        "type cd",
        "command -v no_such_command_bashrt_x || echo absent",
        "no_such_command_bashrt_x 2>&1 | tail -n 1",
        "printf '%s\\n' {1..3}",
        "echo *.txt",
        "shopt -q extglob && echo on || echo off",
        "shopt -q histexpand 2>/dev/null; [[ $- == *H* ]] && echo hist || echo nohist",
        "echo $-",
        "trap 'echo bye' EXIT; echo hi",
        "kill -9 $$",
        "ulimit -n >/dev/null && echo ok",
        "echo $((2**62)) | head -n 1",
        "printf 'no newline at end' | tail -n 1",
        "printf 'l1\\nl2' | head -n 1",
        "head -n 2 f.txt; tail -n 1 f.txt",
        "cd d && pwd | sed 's|.*/||'",
        "eval 'echo evaluated'",
        "eval 'if then'",
        "bash -c 'echo $((1/0))'",
        "(echo sub; exit 2); echo $?",
        "echo $(echo nested $(echo deeper))",
        "arr=(a b c); echo ${#arr[@]} ${arr[1]}",
        "declare -A m; m[k]=v; echo ${m[k]}",
        "local x=1",
        "return 3",
        "echo end; exit 0",
    ];
    let mut mismatches = Vec::new();
    for command in commands {
        let result = env.run(command);
        let expected = env.bash(command);
        let status = Command::new("bash")
            .args(["-c", command])
            .current_dir(env.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        let code = status.code().or_else(|| {
            use std::os::unix::process::ExitStatusExt;
            status.signal().map(|s| 128 + s)
        });
        let got_code = result.details.exit_code.or(result.details.signal.as_ref().map(|_| 137));
        if body(&result) != expected || got_code != code {
            mismatches
                .push(format!("{command:?}: got {:?} ({got_code:?}), bash {expected:?} ({code:?})", body(&result)));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
