//! Screens of the tool renderer, the bang component and the pager, drawn with ratatui's TestBackend
//! from real results: real bash through a real runtime. Only the durations are fixed, so that the
//! screens are exact.

use std::sync::Arc;
use std::time::Instant;

use bashrt_core::{
    BashOptions, BashParams, CallContext, CancelToken, PtyControl, PtySize, Runtime, SessionName, Settings, ToolUi,
};
use bashrt_tui::testing::{entry_lines, open_pager, Entry, Kind, Pager, State};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::widgets::Paragraph;
use ratatui::Terminal;

const WIDTH: u16 = 72;

/// Where the commands of these tests run: the build's own scratch space, never the shared temp dir.
fn scratch() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

struct Fixture {
    _state: tempfile::TempDir,
    runtime: Arc<Runtime>,
}

impl Fixture {
    fn new() -> Self {
        let state = tempfile::tempdir().unwrap();
        let settings = Settings { snapshot: false, ..Settings::default() };
        let runtime = Runtime::builder(settings).state_dir(state.path()).build();
        Self { _state: state, runtime }
    }

    fn name() -> SessionName {
        SessionName::parse("ui").unwrap()
    }

    /// A tool call run as the UI runs it; `cancel_on` cancels it once that text was printed.
    fn tool(&self, command: &str, timeout: Option<f64>, cwd: Option<&str>, cancel_on: Option<&str>) -> Entry {
        let artifacts = self.runtime.artifacts(&Self::name());
        let mut entry = Entry::new(Kind::Tool, command, None, artifacts.as_ref().map(|a| a.path().to_path_buf()));
        let cancel = CancelToken::new().unwrap();
        let mut ui = Watch { entry: &entry, cancel: cancel.clone(), cancel_on };
        let params =
            BashParams { command: command.into(), timeout, cwd: cwd.map(str::to_string), ..Default::default() };
        let ctx = CallContext { session_cwd: scratch(), artifacts, tool_names: vec![], cancel, on_update: None };
        let mut result = self.runtime.tool().execute_with_ui(&params, ctx, &mut ui);
        result.details.duration_ms = 1234;
        entry.state = State::Tool(Box::new(result));
        entry
    }

    /// A session command run as the UI runs it.
    fn bang(&self, command: &str, timeout: Option<f64>, cancel_on: Option<&str>) -> Entry {
        let session = self.runtime.session(&Self::name(), scratch()).unwrap();
        self.bang_in(&session, command, timeout, cancel_on)
    }

    fn bang_in(
        &self,
        session: &bashrt_core::AgentSession,
        command: &str,
        timeout: Option<f64>,
        cancel_on: Option<&str>,
    ) -> Entry {
        let mut entry = Entry::new(Kind::Bang, command, None, Some(session.session().artifacts().path().to_path_buf()));
        let cancel = CancelToken::new().unwrap();
        let live = entry.live.clone();
        let watcher = cancel.clone();
        let mut seen = Vec::new();
        let mut on_chunk = |chunk: &[u8]| {
            live.push(chunk);
            seen.extend_from_slice(chunk);
            if cancel_on.is_some_and(|t| String::from_utf8_lossy(&seen).contains(t)) {
                watcher.cancel();
            }
        };
        let options = BashOptions { timeout, cancel: Some(cancel.clone()), on_chunk: Some(&mut on_chunk) };
        let mut result = session.execute_bash(command, options);
        result.duration_ms = 1234;
        entry.state = State::Bang(Box::new(result));
        entry
    }
}

/// The UI side of a call: output into the entry's live tail, and a cancel like esc.
struct Watch<'a> {
    entry: &'a Entry,
    cancel: CancelToken,
    cancel_on: Option<&'a str>,
}

impl ToolUi for Watch<'_> {
    fn output(&mut self, chunk: &[u8]) {
        self.entry.live.push(chunk);
        if let Some(text) = self.cancel_on {
            let seen = self.entry.live.captured().unwrap_or_default();
            if String::from_utf8_lossy(&seen).contains(text) {
                self.cancel.cancel();
            }
        }
    }
    fn pty_size(&mut self) -> PtySize {
        PtySize::new(80, 24)
    }
    fn pty_started(&mut self, _: PtyControl) {}
    fn pty_output(&mut self, _: &[u8]) {}
}

/// The entry's lines, drawn on a TestBackend `WIDTH` columns wide; each row's text, right-trimmed.
fn screen(entry: &Entry) -> Vec<String> {
    let lines = entry_lines(entry, WIDTH as usize, Instant::now());
    let height = lines.len() as u16;
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, height)).unwrap();
    terminal.draw(|f| f.render_widget(Paragraph::new(lines.clone()), f.area())).unwrap();
    rows(terminal.backend())
}

fn rows(backend: &TestBackend) -> Vec<String> {
    let buffer = backend.buffer();
    (0..buffer.area.height)
        .map(|y| {
            let row: String = (0..buffer.area.width).map(|x| buffer[(x, y)].symbol().to_string()).collect();
            row.trim_end().to_string()
        })
        .collect()
}

#[test]
fn tool_call_collapsed() {
    let f = Fixture::new();
    let entry = f.tool("printf 'one\\ntwo\\n'", None, None, None);
    assert_eq!(screen(&entry), ["$ printf 'one\\ntwo\\n'", "  one", "  two", "  ✓ exit 0 · 1.23s · timeout 300s"]);
}

#[test]
fn tool_call_truncated_shows_why_and_where_the_rest_is() {
    let f = Fixture::new();
    let entry = f.tool("seq 1 100000", None, Some("/tmp"), None);
    assert_eq!(
        screen(&entry),
        [
            "$ seq 1 100000",
            "  … 9,325 earlier lines · ctrl+o to expand",
            "  99996",
            "  99997",
            "  99998",
            "  99999",
            "  100000",
            "  ⚠ Truncated: showing lines 1-4,269, 94,941-100,000 of 100,000 (50.0KB",
            "  limit) · full output: artifact://1",
            "  ✓ exit 0 · 1.23s · timeout 300s",
        ]
    );
}

#[test]
fn tool_call_expanded_reads_the_full_output_from_the_artifact() {
    let f = Fixture::new();
    let entry = f.tool("seq 1 100000", None, None, None);
    let mut pager = open_pager(&entry).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, 6)).unwrap();
    let mut draw = |pager: &mut Pager| {
        terminal.draw(|frame| pager.draw(frame, frame.area())).unwrap();
        pager.after_draw();
        rows(terminal.backend())
    };
    let first = draw(&mut pager);
    assert_eq!(
        first[..5],
        [
            " $ seq 1 100000 — full output, artifact://1 (575.1KB)",
            "       1 1",
            "       2 2",
            "       3 3",
            "       4 4"
        ]
    );
    // End jumps to the last line, once the index has reached it.
    pager.handle(&KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
    draw(&mut pager);
    while pager.busy() {
        draw(&mut pager);
    }
    let screen = draw(&mut pager);
    assert_eq!(screen[1..5], ["  99,997 99997", "  99,998 99998", "  99,999 99999", " 100,000 100000"]);
    assert!(screen[5].starts_with("line 99,997 of 100,000 · tab: what the model saw"), "{}", screen[5]);
    // Tab: exactly what the model saw (its tail and the notice).
    pager.handle(&KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    pager.handle(&KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
    while pager.busy() {
        draw(&mut pager);
    }
    let screen = draw(&mut pager);
    assert_eq!(screen[0], " $ seq 1 100000 — what the model saw");
    assert_eq!(
        screen[3..5],
        [" 9,332 [Showing lines 1-4269, 94941-100000 of 100000 (50.0KB limit). Ful", "       l: artifact://1]"]
    );
    // Search: `/` pattern, Enter; the view moves to the match.
    pager.handle(&KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    pager.handle(&KeyEvent::new(KeyCode::Home, KeyModifiers::NONE));
    for c in "/5000".chars() {
        pager.handle(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    pager.handle(&KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    while pager.busy() {
        draw(&mut pager);
    }
    let screen = draw(&mut pager);
    assert_eq!(screen[1], "   5,000 5000");
}

#[test]
fn tool_call_cancelled_error_timed_out_and_refused() {
    let f = Fixture::new();
    let cancelled = f.tool("echo started; sleep 30", None, None, Some("started"));
    assert_eq!(screen(&cancelled), ["$ echo started; sleep 30", "  started", "  ⊘ cancelled · 1.23s · timeout 300s"]);

    // The cancel interrupted the command like Ctrl-C: the shell and its state live on.
    let failed = f.tool("echo oops; exit 3", None, None, None);
    assert_eq!(screen(&failed), ["$ echo oops; exit 3", "  oops", "  ✗ exit 3 · 1.23s · timeout 300s"]);

    let f = Fixture::new();
    let timed_out = f.tool("echo slow; sleep 30", Some(1.0), None, None);
    assert_eq!(screen(&timed_out), ["$ echo slow; sleep 30", "  slow", "  ⏱ timed out after 1s · 1.23s · timeout 1s"]);

    let refused = f.tool("ls", None, Some("/nonexistent-dir"), None);
    assert_eq!(
        screen(&refused),
        ["$ ls", "  Working directory does not exist: /nonexistent-dir", "  ✗ refused · timeout 300s"]
    );
}

#[test]
fn tool_call_running_follows_the_live_tail() {
    let started = Instant::now();
    let mut entry = Entry::new(Kind::Tool, "yes", None, None);
    entry.state = State::Running { started };
    entry.live.push(&b"y\n".repeat(1000));
    let lines = entry_lines(&entry, WIDTH as usize, started);
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert_eq!(
        text,
        [
            "$ yes",
            "  … 995 earlier lines",
            "  y",
            "  y",
            "  y",
            "  y",
            "  y",
            "  ⠋ running 0.00s · 1,000 lines · esc to cancel"
        ]
    );
}

#[test]
fn bang_collapsed_to_the_last_twenty_lines() {
    let f = Fixture::new();
    let entry = f.bang("seq 1 30", None, None);
    let screen = screen(&entry);
    assert_eq!(screen[0], "! seq 1 30");
    assert_eq!(screen[1], "  … 10 more lines · ctrl+o to expand");
    assert_eq!(screen[2], "  11");
    assert_eq!(screen[21], "  30");
    assert_eq!(screen[22], "  ✓ exit 0 · 1.23s");
    assert_eq!(screen.len(), 23);
}

#[test]
fn bang_clamps_long_lines_and_warns_of_truncation() {
    let f = Fixture::new();
    let entry = f.bang("printf 'a%.0s' $(seq 1 5000); echo", None, None);
    let long = screen(&entry);
    assert!(long[long.len() - 2].ends_with("… [1,000 chars omitted]"), "{long:?}");
    let text: String = long[1..long.len() - 1].iter().map(|r| r.trim_start()).collect();
    let kept = text.split(" …").next().unwrap();
    assert_eq!((kept.len(), kept.matches('a').count()), (4000, 4000));

    let truncated = f.bang("seq 1 100000", None, None);
    let screen = screen(&truncated);
    assert_eq!(
        screen[screen.len() - 3..],
        [
            "  ⚠ Output truncated: 9,329 of 100,000 lines kept for the model · full",
            // artifact://1 keeps the full output of the clamped line above.
            "  output: artifact://2",
            "  ✓ exit 0 · 1.23s",
        ]
    );
}

#[test]
fn bang_cancelled_exit_code_timed_out_and_error_are_distinct() {
    let f = Fixture::new();
    let session = f.runtime.session(&Fixture::name(), scratch()).unwrap();
    let cancelled = f.bang_in(&session, "echo started; sleep 30", None, Some("started"));
    assert_eq!(screen(&cancelled), ["! echo started; sleep 30", "  started", "  ⊘ (cancelled) · 1.23s"]);
    let exit = f.bang_in(&session, "exit 4", None, None);
    assert_eq!(screen(&exit), ["! exit 4", "  ✗ (exit 4) · 1.23s"]);
    let timed_out = f.bang_in(&session, "sleep 30", Some(1.0), None);
    assert_eq!(screen(&timed_out), ["! sleep 30", "  ⏱ (timed out) · 1.23s"]);

    // The session's directory disappears under it: nothing runs, and the component says why.
    let dir = tempfile::tempdir().unwrap();
    let gone = f.runtime.session(&SessionName::parse("gone").unwrap(), dir.path().to_path_buf()).unwrap();
    drop(dir);
    let error = f.bang_in(&gone, "ls", None, None);
    let screen = screen(&error);
    assert_eq!(screen.len(), 2);
    assert!(screen[1].starts_with("  ✗ Bash command failed: Working directory does not exist: /"), "{screen:?}");
}

#[test]
fn a_failed_call_shows_its_first_error_when_the_preview_holds_only_warnings() {
    let f = Fixture::new();
    let command = "echo 'src/lib.rs:3:5: error: mismatched types'; for i in $(seq 1 20); do echo \"warning: unused variable x$i\"; done; exit 1";
    let entry = f.tool(command, None, None, None);
    let card = screen(&entry);
    let at = card.iter().position(|l| l.contains("ctrl+o to expand")).expect("a hint line");
    assert_eq!(card[at + 1], "  ✗ the error line: src/lib.rs:3:5: error: mismatched types", "{card:#?}");
    assert_eq!(card[at + 2], "  warning: unused variable x16", "{card:#?}");
    // A call whose error is in the preview, or that succeeded, has no such line.
    let ok = f.tool("for i in $(seq 1 20); do echo \"error: retry $i\"; done", None, None, None);
    assert!(!screen(&ok).iter().any(|l| l.contains("error line")), "{:#?}", screen(&ok));
}
