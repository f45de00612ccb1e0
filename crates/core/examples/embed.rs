//! Embedding the bash tool: a call with live updates, a second call cancelled from another thread, and
//! a window of the artifact that kept the first call's full output. Run: `cargo run --example embed`.

use std::time::Duration;

use bashrt_core::{read_window, BashParams, CallContext, CancelToken, Runtime, SessionName, Settings, Window};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let state = tempfile::tempdir()?;
    let runtime = Runtime::builder(Settings::default()).state_dir(state.path()).build();
    let tool = runtime.tool();
    let artifacts = runtime.artifacts(&SessionName::parse("example")?);
    let context = |cancel: CancelToken| CallContext {
        session_cwd: state.path().to_path_buf(),
        artifacts: artifacts.clone(),
        tool_names: vec![],
        cancel,
        on_update: None,
    };

    // 1. Live updates while the command runs; 100,000 lines do not fit the view, so they spill.
    let mut updates = 0;
    let mut on_update = |_: &str| updates += 1;
    let params = BashParams { command: "for i in $(seq 1 100000); do echo line $i; done".into(), ..Default::default() };
    let result = tool.execute(&params, CallContext { on_update: Some(&mut on_update), ..context(CancelToken::new()?) });
    let id = result.details.meta.as_ref().and_then(|m| m.truncation.artifact_id).ok_or("no artifact")?;
    println!("call 1: {updates} live update(s), full output in {}", id.url());

    // 2. Cancelled from another thread: the whole process tree dies at once.
    let cancel = CancelToken::new()?;
    let canceller = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        canceller.cancel();
    });
    let params = BashParams { command: "sleep 60".into(), ..Default::default() };
    let result = tool.execute(&params, context(cancel));
    println!("call 2: cancelled = {}, {:?}", result.details.cancelled, result.text().lines().last());

    // 3. Lines 50,000-50,002 of call 1's output, read from its artifact.
    let dir = artifacts.ok_or("no state directory")?;
    let window = read_window(&dir, &id.url(), &Window::Lines { first: 50_000, last: 50_002 }, 4096)?;
    print!("artifact window:\n{}", window.content);
    Ok(())
}
