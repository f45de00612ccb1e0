//! `BashTool::execute` as an embedding agent uses it: live updates while the command runs.

use std::io::Write;
use std::path::Path;

use bashrt_core::result::ToolResult;
use bashrt_core::settings::Settings;
use bashrt_core::tool::{BashParams, CallContext, UPDATE_INTERVAL};
use bashrt_core::{CancelToken, Runtime};

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
