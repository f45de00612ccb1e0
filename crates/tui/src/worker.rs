//! Running commands off the UI thread: one thread per command, talking to the UI only through the
//! entry's live tail (shared memory, no message per chunk), the console's screen, and one event when
//! the command starts a terminal and one when it ends. Promises: the UI thread never waits for a
//! command; a panic on the command's thread becomes an error in the transcript, not a hung entry.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::Arc;

use bashrt_core::{
    AgentSession, ArtifactDir, BashOptions, BashParams, BashResult, BashTool, CallContext, CancelToken, PtyControl,
    PtySize, ToolResult, ToolUi, YieldNow, Yielding,
};

use crate::console::Screen;
use crate::live::LiveTail;
use crate::AppEvent;

/// What a command's thread reports when it ends.
#[derive(Debug)]
pub enum Done {
    Tool(Box<ToolResult>),
    Bang(Box<BashResult>),
    /// The thread panicked (a bug): the message.
    Failed(String),
}

/// A tool call to run.
pub struct ToolJob {
    pub id: u64,
    pub tool: Arc<BashTool>,
    pub params: BashParams,
    pub session_cwd: PathBuf,
    pub artifacts: Option<ArtifactDir>,
    pub tool_names: Vec<String>,
}

/// Everything a command's thread shares with the UI.
#[derive(Clone)]
pub struct Shared {
    pub live: LiveTail,
    pub screen: Arc<Screen>,
    pub cancel: CancelToken,
    pub events: Sender<AppEvent>,
}

/// The UI side of a tool call, on the command's thread.
struct TuiToolUi {
    id: u64,
    shared: Shared,
    size: PtySize,
    control: Option<PtyControl>,
}

impl ToolUi for TuiToolUi {
    fn output(&mut self, chunk: &[u8]) {
        self.shared.live.push(chunk);
    }

    fn pty_size(&mut self) -> PtySize {
        self.size
    }

    fn pty_started(&mut self, control: PtyControl) {
        self.control = Some(control.clone());
        let _ = self.shared.events.send(AppEvent::PtyStarted { id: self.id, control });
    }

    fn pty_output(&mut self, raw: &[u8]) {
        self.shared.screen.process(raw, self.control.as_ref());
    }

    fn awaiting_input(&mut self, reader: Option<&str>) {
        self.shared.screen.set_awaiting(reader);
    }
}

/// Starts a tool call on its own thread; `size` is the console's, should it run in a terminal. The
/// call goes on as a job when it listens on a port or `to_background` is pulled: the UI then gets
/// the result it returned with, and the final one when its command ends.
pub fn spawn_tool(job: ToolJob, shared: Shared, size: PtySize, to_background: YieldNow) -> std::io::Result<()> {
    let events = shared.events.clone();
    let id = job.id;
    std::thread::Builder::new().name(format!("bashrt-tool-{id}")).spawn(move || {
        let done = catch_unwind(AssertUnwindSafe(|| {
            let mut ui = TuiToolUi { id, shared: shared.clone(), size, control: None };
            let ctx = CallContext {
                session_cwd: job.session_cwd,
                artifacts: job.artifacts,
                tool_names: job.tool_names,
                cancel: shared.cancel.clone(),
                on_update: None,
            };
            let yielded = shared.events.clone();
            let on_yield = Box::new(move |result: ToolResult| {
                let _ = yielded.send(AppEvent::Yielded { id, result: Box::new(result) });
            });
            let yielding = Yielding { call_id: None, on_yield };
            job.tool.execute_with_ui_yielding(&job.params, ctx, &mut ui, yielding, to_background)
        }));
        let done = match done {
            Ok(result) => Done::Tool(Box::new(result)),
            Err(panic) => Done::Failed(panic_message(&panic)),
        };
        let _ = events.send(AppEvent::Done { id, done });
    })?;
    Ok(())
}

/// Starts a session command on its own thread.
pub fn spawn_bang(id: u64, session: Arc<AgentSession>, command: String, shared: Shared) -> std::io::Result<()> {
    let events = shared.events.clone();
    std::thread::Builder::new().name(format!("bashrt-bang-{id}")).spawn(move || {
        let done = catch_unwind(AssertUnwindSafe(|| {
            let live = shared.live.clone();
            let mut on_chunk = |chunk: &[u8]| live.push(chunk);
            let options =
                BashOptions { timeout: None, cancel: Some(shared.cancel.clone()), on_chunk: Some(&mut on_chunk) };
            session.execute_bash(&command, options)
        }));
        let done = match done {
            Ok(result) => Done::Bang(Box::new(result)),
            Err(panic) => Done::Failed(panic_message(&panic)),
        };
        let _ = events.send(AppEvent::Done { id, done });
    })?;
    Ok(())
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the command's thread panicked".to_string())
}
