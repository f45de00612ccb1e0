//! `BashTool::execute` as an embedding agent uses it: live updates while the command runs.

use std::io::Write;
use std::path::Path;

use bashrt_core::{BashParams, CallContext, CancelToken, Runtime, Settings, ToolResult, UPDATE_INTERVAL};

fn run(command: &str, cwd: &Path, on_update: &mut dyn FnMut(&str)) -> ToolResult {
    let tool = Runtime::builder(Settings::default()).no_state_dir().build().tool();
    let params = BashParams { command: command.to_string(), timeout: Some(60.0), ..Default::default() };
    let ctx = CallContext {
        session_cwd: cwd.to_path_buf(),
        artifacts: None,
        tool_names: vec![],
        cancel: CancelToken::new().unwrap(),
        on_update: Some(on_update),
    };
    tool.execute(&params, ctx)
}

#[test]
fn live_updates_arrive_while_the_command_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("go");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    // The command blocks on the FIFO after its first line; only a live update can unblock it.
    let command = format!("echo first; cat '{}'; echo second", fifo.display());
    let mut updates = Vec::new();
    let mut on_update = |text: &str| {
        if updates.is_empty() {
            let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            w.write_all(b"released\n").unwrap();
        }
        updates.push(text.to_string());
    };
    let result = run(&command, dir.path(), &mut on_update);
    assert_eq!(result.text(), "first\nreleased\nsecond\n");
    assert_eq!(updates[0], "first\n");
}

#[test]
fn a_flood_of_output_is_throttled() {
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let mut count = 0u64;
    let mut on_update = |_: &str| count += 1;
    let result = run("for i in $(seq 1 200000); do echo $i; done", dir.path(), &mut on_update);
    let elapsed = started.elapsed();
    assert!(!result.is_error);
    // At most one update per interval (plus the first one).
    let allowed = elapsed.as_millis() / UPDATE_INTERVAL.as_millis() + 1;
    assert!(u128::from(count) <= allowed, "{count} updates in {elapsed:?}");
    assert!(count >= 1);
}

/// A call of `params` on a runtime of `settings` that keeps artifacts in `state`.
fn call(settings: Settings, state: &Path, params: BashParams) -> ToolResult {
    let runtime = Runtime::builder(settings).state_dir(state).build();
    let session = bashrt_core::SessionName::parse("t").unwrap();
    let ctx = CallContext {
        session_cwd: state.to_path_buf(),
        artifacts: runtime.artifacts(&session),
        tool_names: vec![],
        cancel: CancelToken::new().unwrap(),
        on_update: None,
    };
    runtime.tool().execute(&params, ctx)
}

#[test]
fn a_failed_call_is_shaped_within_the_error_budget_and_kept_whole() {
    let state = tempfile::tempdir().unwrap();
    let mut settings = Settings::default();
    settings.set("bash.maxErrorOutputBytes", 2048.into()).unwrap();
    let failing = |command: &str, head: Option<u64>| {
        let params = BashParams { command: command.into(), head, ..Default::default() };
        call(settings.clone(), state.path(), params)
    };
    // An output that fits the 50 KB view but not a failure's budget: an excerpt, with the error line.
    let result = failing("seq 1 1000; echo 'error: boom'; seq 1001 2000; exit 1", None);
    let text = result.text();
    assert!(text.len() < 2048 + 300, "{} bytes", text.len());
    assert!(text.contains("1001:error: boom"), "{text}");
    assert!(text.contains("(2.0KB limit). Full: artifact://1]"), "{text}");
    // A head limit is held to it too.
    let result = failing("seq 1 5000; exit 1", Some(3000));
    assert!(result.text().len() < 2048 + 300, "{}", result.text());
    // A success keeps the whole view.
    let params = BashParams { command: "seq 1 1000".into(), ..Default::default() };
    assert_eq!(call(settings.clone(), state.path(), params).text().lines().count(), 1000);
}

#[test]
fn how_the_arguments_were_read_is_said_in_the_result() {
    let state = tempfile::tempdir().unwrap();
    let arguments = serde_json::json!({"command": "echo hi", "timeout": 120000, "env": {}, "description": "d"});
    let params = bashrt_core::read_arguments(&arguments).unwrap();
    let result = call(Settings::default(), state.path(), params);
    assert_eq!(
        result.text(),
        "hi\n\n[Timeout 120000 read as milliseconds (120s): timeout is in seconds]\n[Ignored unknown argument: `env`]"
    );
    assert_eq!(result.details.ignored_arguments, ["description", "env"]);
    assert_eq!(result.details.timeout.unwrap().applied_secs, 120.0);
}
