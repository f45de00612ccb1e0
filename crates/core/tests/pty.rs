//! The PTY path of `BashTool::execute_with_ui`: a real bash in a real pseudo-terminal, driven by a
//! test UI that types, resizes and cancels as a person at the console would.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;

use bashrt_core::testing::pty_selected_by;
use bashrt_core::{
    BashParams, CallContext, CancelToken, Outcome, PtyControl, PtySize, Runtime, Settings, ToolResult, ToolUi,
    VirtualTerminal,
};

/// Reacts to the raw screen output so far, acting on the program through the control.
type React<'a> = Box<dyn FnMut(&str, &PtyControl) + 'a>;

/// A console: records what the program drew and what reached the sink, and reacts to the screen.
struct Console<'a> {
    size: PtySize,
    control: Option<PtyControl>,
    raw: Vec<u8>,
    sink: Vec<u8>,
    react: React<'a>,
    /// What the UI was told of the program waiting for input, in order.
    awaiting: Vec<Option<String>>,
    /// Acts when told the program waits for input (gets the reader's name).
    on_awaiting: React<'a>,
}

impl<'a> Console<'a> {
    fn new(react: impl FnMut(&str, &PtyControl) + 'a) -> Self {
        Self {
            size: PtySize::new(80, 24),
            control: None,
            raw: Vec::new(),
            sink: Vec::new(),
            react: Box::new(react),
            awaiting: Vec::new(),
            on_awaiting: Box::new(|_, _| {}),
        }
    }
}

impl ToolUi for Console<'_> {
    fn output(&mut self, chunk: &[u8]) {
        self.sink.extend_from_slice(chunk);
    }
    fn pty_size(&mut self) -> PtySize {
        self.size
    }
    fn pty_started(&mut self, control: PtyControl) {
        (self.react)("", &control);
        self.control = Some(control);
    }
    fn pty_output(&mut self, raw: &[u8]) {
        self.raw.extend_from_slice(raw);
        if let Some(control) = &self.control {
            (self.react)(&String::from_utf8_lossy(&self.raw), control);
        }
    }
    fn awaiting_input(&mut self, reader: Option<&str>) {
        self.awaiting.push(reader.map(str::to_string));
        if let (Some(reader), Some(control)) = (reader, &self.control) {
            (self.on_awaiting)(reader, control);
        }
    }
}

fn runtime(settings: Settings, state: &Path) -> Arc<Runtime> {
    let mut settings = settings;
    settings.virtual_terminal = VirtualTerminal::On;
    settings.snapshot = false;
    Runtime::builder(settings).state_dir(state).build()
}

fn run_in(
    runtime: &Arc<Runtime>,
    command: &str,
    timeout: f64,
    cancel: CancelToken,
    ui: &mut Console<'_>,
) -> ToolResult {
    let params = BashParams { command: command.into(), timeout: Some(timeout), ..Default::default() };
    let ctx = CallContext {
        session_cwd: std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        artifacts: runtime.artifacts(&bashrt_core::SessionName::parse("pty").unwrap()),
        tool_names: vec![],
        cancel,
        on_update: None,
    };
    runtime.tool().execute_with_ui(&params, ctx, ui)
}

fn run(command: &str, ui: &mut Console<'_>) -> ToolResult {
    let state = tempfile::tempdir().unwrap();
    run_in(&runtime(Settings::default(), state.path()), command, 60.0, CancelToken::new().unwrap(), ui)
}

#[test]
fn the_command_gets_a_terminal_of_the_console_size_and_clean_lines_reach_the_model() {
    let mut ui = Console::new(|_, _| {});
    ui.size = PtySize::new(93, 17);
    let result = run("tty; stty size; echo $TERM; printf '\\033[31mred\\033[0m\\n'", &mut ui);
    assert!(!result.is_error, "{}", result.text());
    let text = result.text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("/dev/pts/"), "{text}");
    assert_eq!(&lines[1..], ["17 93", "xterm-256color", "red"]);
    assert!(!text.contains('\r'));
    // The sink keeps the colours for a UI; the terminal got the program's raw bytes.
    assert!(String::from_utf8_lossy(&ui.sink).contains("\x1b[31mred\x1b[0m\n"));
    assert!(String::from_utf8_lossy(&ui.raw).contains("17 93\r\n"));
    assert_eq!(result.details.shell.as_deref(), Some("ran in a one-shot shell: the command ran in a pseudo-terminal"));
}

#[test]
fn keys_reach_the_program_and_a_resize_reaches_it_as_sigwinch() {
    let mut typed = false;
    let mut resized = false;
    let mut ui = Console::new(|screen, control| {
        if screen.contains("name?") && !typed {
            typed = true;
            control.write(b"world\r").unwrap();
        }
        if screen.contains("waiting") && !resized {
            resized = true;
            control.resize(PtySize::new(101, 31)).unwrap();
        }
    });
    let script = "read -r -p 'name? ' n; echo \"hello $n\"; \
                  trap 'stty size; exit 0' WINCH; echo waiting; while :; do sleep 0.05; done";
    let result = run(script, &mut ui);
    assert!(!result.is_error, "{}", result.text());
    let text = result.text();
    assert!(text.contains("hello world\n"), "{text}");
    assert!(text.contains("waiting\n31 101\n"), "{text}");
}

/// The console is told when the program waits for input — from the kernel (a read of the terminal),
/// not from silence — and when it printed again; a command cancelled while it waited says so.
#[test]
fn a_program_waiting_for_input_is_told_to_the_console_and_to_the_model() {
    // The person answers the prompt they were told of; the program goes on, and the console hears it.
    let mut ui = Console::new(|_, _| {});
    ui.on_awaiting = Box::new(|_, control| {
        control.write(b"world\r").unwrap();
    });
    let result = run("python3 -c 'print(\"hello\", input(\"name? \"))'", &mut ui);
    assert!(!result.is_error, "{}", result.text());
    assert!(result.text().contains("hello world\n"), "{}", result.text());
    assert_eq!(ui.awaiting, [Some("python3".to_string()), None]);
    assert_eq!(result.details.waiting_for_input, None);

    // A password prompt read through /dev/tty; the person presses esc instead.
    let cancel = CancelToken::new().unwrap();
    let esc = cancel.clone();
    let mut ui = Console::new(|_, _| {});
    ui.on_awaiting = Box::new(move |_, _| esc.cancel());
    let state = tempfile::tempdir().unwrap();
    let runtime = runtime(Settings::default(), state.path());
    let result = run_in(&runtime, "python3 -c 'import getpass; getpass.getpass()'", 60.0, cancel, &mut ui);
    assert_eq!(result.details.outcome, Some(Outcome::Cancelled));
    assert_eq!(ui.awaiting, [Some("python3".to_string())]);
    assert!(
        result
            .text()
            .ends_with("\n\n[It was waiting for input: python3 was reading the terminal]\n[Command cancelled]"),
        "{}",
        result.text()
    );
    assert_eq!(result.details.waiting_for_input.as_deref(), Some("python3"));

    // An answer typed without an echo (`read -s`): the note is taken back, and the timeout that ends
    // the `sleep` after it says nothing of input.
    let mut ui = Console::new(|_, _| {});
    ui.on_awaiting = Box::new(|_, control| {
        control.write(b"secret\r").unwrap();
    });
    let result = run_in(&runtime, "read -rs x; echo; sleep 30", 3.0, CancelToken::new().unwrap(), &mut ui);
    assert_eq!(result.details.outcome, Some(Outcome::TimedOut));
    assert_eq!(ui.awaiting, [Some("bash".to_string()), None]);
    assert!(!result.text().contains("waiting for input"), "{}", result.text());

    // Quiet, reading nothing: never a prompt, and its timeout says nothing of input.
    let mut ui = Console::new(|_, _| {});
    let result = run_in(&runtime, "echo started; sleep 30", 1.0, CancelToken::new().unwrap(), &mut ui);
    assert_eq!(result.details.outcome, Some(Outcome::TimedOut));
    assert!(ui.awaiting.is_empty(), "{:?}", ui.awaiting);
    assert!(!result.text().contains("waiting for input"), "{}", result.text());
}

#[test]
fn a_background_process_holding_the_terminal_does_not_hang_the_call() {
    let mut ui = Console::new(|_, _| {});
    // It ignores the hangup (inherited before it starts), so it keeps the terminal open after the shell exits.
    let result = run("trap '' HUP; sleep 120 & echo started", &mut ui);
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.details.outcome, Some(Outcome::Exited { code: 0 }));
    assert!(result.text().starts_with("started\n"), "{}", result.text());
    assert_eq!(result.details.background_processes, 1, "{}", result.text());
}

#[test]
fn esc_cancels_the_session_and_a_deadline_times_it_out() {
    let cancel = CancelToken::new().unwrap();
    let on_screen = cancel.clone();
    let mut ui = Console::new(move |screen, _| {
        if screen.contains("running") {
            on_screen.cancel();
        }
    });
    let state = tempfile::tempdir().unwrap();
    let rt = runtime(Settings::default(), state.path());
    let result = run_in(&rt, "echo running; sleep 120", 60.0, cancel, &mut ui);
    assert_eq!(result.details.outcome, Some(Outcome::Cancelled));
    assert!(result.text().ends_with("running\n\n[Command cancelled]"), "{}", result.text());

    let mut ui = Console::new(|_, _| {});
    let result = run_in(&rt, "echo slow; sleep 120", 1.0, CancelToken::new().unwrap(), &mut ui);
    assert!(result.is_error);
    assert!(result.details.timed_out);
    assert_eq!(result.details.exit_code, None);
    assert!(result.text().ends_with("slow\n\n[Command timed out after 1 second]"), "{}", result.text());
}

#[test]
fn a_terminal_that_cannot_start_is_a_pty_error_with_no_exit_status() {
    let state = tempfile::tempdir().unwrap();
    // A shell the system cannot execute (its interpreter is missing): the terminal opens, the spawn fails.
    let shell = state.path().join("not-a-shell");
    std::fs::write(&shell, b"#!/nonexistent/interpreter\n").unwrap();
    std::fs::set_permissions(&shell, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let settings = Settings { shell_path: Some(shell), ..Settings::default() };
    let mut ui = Console::new(|_, _| {});
    let result = run_in(&runtime(settings, state.path()), "echo hi", 60.0, CancelToken::new().unwrap(), &mut ui);
    assert!(result.is_error);
    assert_eq!(result.details.outcome, Some(Outcome::Error));
    assert_eq!(result.details.exit_code, None);
    let text = result.text();
    assert!(text.starts_with("PTY error: Failed to spawn PTY command: "), "{text}");
    assert!(text.ends_with("Command failed: missing exit status"), "{text}");
    assert!(String::from_utf8_lossy(&ui.raw).starts_with("PTY error: "));
}

#[test]
fn same_prefix_and_environment_as_the_pipe_path_and_output_spills_to_an_artifact() {
    let state = tempfile::tempdir().unwrap();
    let settings = Settings { command_prefix: Some("echo prefixed;".into()), ..Settings::default() };
    let rt = runtime(settings, state.path());
    let mut ui = Console::new(|_, _| {});
    let result = run_in(
        &rt,
        "echo \"$PAGER ${BASHRT_RUNTIME:+marked}\"; seq 1 20000",
        60.0,
        CancelToken::new().unwrap(),
        &mut ui,
    );
    assert!(!result.is_error, "{}", result.text());
    let truncation = &result.details.meta.as_ref().expect("truncated").truncation;
    let id = truncation.artifact_id.expect("an artifact");
    let artifacts = rt.artifacts(&bashrt_core::SessionName::parse("pty").unwrap()).unwrap();
    let (_, path) = artifacts.resolve(&id.url()).unwrap();
    let full = std::fs::read_to_string(path).unwrap();
    assert!(full.starts_with("prefixed\ncat marked\n1\n2\n"), "{}", &full[..40]);
    assert!(full.ends_with("19999\n20000\n"));
    assert_eq!(truncation.total_lines, 20002);
}

#[test]
fn a_trailing_head_stage_runs_as_typed_in_a_terminal() {
    let mut ui = Console::new(|_, _| {});
    let result = run("seq 1 5 | head -n 2", &mut ui);
    assert_eq!(result.text(), "1\n2\n");
    assert!(result.details.normalization.is_none());
}

#[test]
fn the_pty_path_needs_the_setting_and_no_pi_no_pty() {
    let on = Settings { virtual_terminal: VirtualTerminal::On, ..Settings::default() };
    assert!(pty_selected_by(&on, None));
    assert!(pty_selected_by(&on, Some(OsStr::new("0"))));
    assert!(!pty_selected_by(&on, Some(OsStr::new("1"))));
    assert!(!pty_selected_by(&Settings::default(), None));

    // With the setting off, a UI still sees the output, through pipes.
    let state = tempfile::tempdir().unwrap();
    let rt = Runtime::builder(Settings { snapshot: false, ..Settings::default() }).state_dir(state.path()).build();
    let mut ui = Console::new(|_, _| {});
    let params = BashParams { command: "tty; echo piped".into(), ..Default::default() };
    let ctx = CallContext {
        session_cwd: std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        artifacts: None,
        tool_names: vec![],
        cancel: CancelToken::new().unwrap(),
        on_update: None,
    };
    let result = rt.tool().execute_with_ui(&params, ctx, &mut ui);
    assert_eq!(result.text(), "not a tty\npiped\n");
    assert_eq!(ui.sink, b"not a tty\npiped\n");
    assert!(ui.raw.is_empty() && ui.control.is_none());
}
