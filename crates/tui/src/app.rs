//! The UI's state and what every event does to it: keys, pastes, resizes, a command's terminal
//! opening, a command ending, a signal. No drawing and no waiting here — the loop in `lib.rs` draws
//! after events and on frame ticks.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::Arc;

use std::time::{Duration, Instant};

use bashrt_core::{
    AgentSession, ArtifactDir, BashParams, BashTool, CancelToken, JobAction, JobId, JobInfo, JobParams, PtyControl,
    ToolResult, YieldNow,
};
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::console::{console_size, Console, ConsoleAction, Screen};
use crate::entry::{open_pager, Entry, Kind, State};
use crate::input::{Edit, LineEditor};
use crate::jobs::{self, Backgrounded};
use crate::pager::doc::Source;
use crate::pager::{Pager, PagerAction};
use crate::worker::{self, Done, Shared, ToolJob};
use crate::AppEvent;

/// Said when a command is typed while another runs.
pub const BUSY: &str = "A command is already running. Press esc to cancel it first.";

/// Environment variable of the test hook: `panic` makes the typed command `:panic` panic the UI,
/// `error` makes `:error` end it with an error — so that tests can check the terminal is restored
/// on those exits too.
pub const FAULT_ENV: &str = "BASHRT_TUI_FAULT";

/// Earlier session commands loaded into the history at start.
const HISTORY: usize = 500;

/// What is drawn over the transcript.
pub enum Overlay {
    Console(Console),
    Pager(Box<Pager>),
}

/// How the UI ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quit {
    /// Ctrl-D or `exit`.
    Normal,
    /// A signal asked it to (SIGTERM, SIGHUP, SIGINT).
    Signal(i32),
    /// The terminal failed, or the error test hook.
    Error(String),
}

/// The command that runs now.
struct Running {
    id: u64,
    index: usize,
    cancel: CancelToken,
    screen: Arc<Screen>,
    started: Instant,
    /// Pulled, a tool call goes on as a job and the prompt is free (`None` for `!cmd`).
    to_background: Option<YieldNow>,
    /// Its terminal, once it runs in one.
    control: Option<PtyControl>,
}

/// What the UI runs commands with.
pub struct Context {
    pub tool: Arc<BashTool>,
    /// `None` when the runtime keeps no state: `!cmd` is then unavailable.
    pub session: Option<Arc<AgentSession>>,
    pub session_error: Option<String>,
    /// Where the UI started: tool calls resolve their cwd against it.
    pub project_dir: PathBuf,
    pub artifacts: Option<ArtifactDir>,
    pub tool_names: Vec<String>,
    pub events: Sender<AppEvent>,
}

pub struct App {
    pub entries: Vec<Entry>,
    pub input: LineEditor,
    /// Rows scrolled back from the bottom of the transcript.
    pub scroll: usize,
    pub message: Option<String>,
    /// What the sandbox refused the last command, which ctrl+g allows.
    grant: Option<bashrt_core::SandboxRequest>,
    pub overlay: Option<Overlay>,
    pub quit: Option<Quit>,
    running: Option<Running>,
    /// Tool calls of this UI that went on as jobs, until their commands end.
    background: Vec<Backgrounded>,
    /// The job the strip has selected (ctrl+t).
    pub selected: Option<JobId>,
    /// The command whose console is open: the running one, or a job's.
    attached: Option<u64>,
    /// The entry the pager shows.
    paged: Option<usize>,
    ctx: Context,
    next_id: u64,
    size: (u16, u16),
    home: Option<PathBuf>,
}

impl App {
    pub fn new(ctx: Context, size: (u16, u16)) -> Self {
        // The session's earlier `!` commands (its log survives restarts) start the history.
        let history = ctx.session.as_ref().map_or_else(Vec::new, |s| {
            let mut commands: Vec<String> = s.history().into_iter().map(|e| format!("!{}", e.command)).collect();
            commands.dedup();
            let keep = commands.len().saturating_sub(HISTORY);
            commands.split_off(keep)
        });
        Self {
            entries: Vec::new(),
            input: LineEditor::with_history(history),
            scroll: 0,
            message: None,
            grant: None,
            overlay: None,
            quit: None,
            running: None,
            background: Vec::new(),
            selected: None,
            attached: None,
            paged: None,
            ctx,
            next_id: 1,
            size,
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    /// The entry of the running command.
    pub fn running(&self) -> Option<&Entry> {
        self.running.as_ref().and_then(|r| self.entries.get(r.index))
    }

    /// What changes between events: a running command's tail, its console, a pager at work.
    pub fn live_generation(&self) -> Option<u64> {
        let running = self.running.as_ref()?;
        let entry = self.entries.get(running.index)?;
        Some(entry.live.generation().wrapping_add(running.screen.generation()))
    }

    pub fn animating(&self) -> bool {
        self.running.is_some() || matches!(&self.overlay, Some(Overlay::Pager(p)) if p.busy())
    }

    /// The session's directory, `~` for home: where `!cmd` runs next (and tool calls too).
    pub fn prompt_dir(&self) -> String {
        self.tilde(&self.session_cwd())
    }

    fn session_cwd(&self) -> PathBuf {
        self.ctx.session.as_ref().map_or_else(|| self.ctx.project_dir.clone(), |s| s.cwd())
    }

    fn tilde(&self, path: &Path) -> String {
        match self.home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
            Some(rest) if rest.as_os_str().is_empty() => "~".to_string(),
            Some(rest) => format!("~/{}", rest.display()),
            None => path.display().to_string(),
        }
    }

    pub fn handle(&mut self, event: AppEvent) {
        match event {
            AppEvent::Term(Event::Key(key)) if key.kind != KeyEventKind::Release => self.key(&key),
            AppEvent::Term(Event::Paste(text)) => match &mut self.overlay {
                Some(Overlay::Console(console)) => console.paste(&text),
                Some(Overlay::Pager(_)) => {}
                None => self.input.insert_str(&text),
            },
            AppEvent::Term(Event::Resize(cols, rows)) => {
                self.size = (cols, rows);
                if let Some(Overlay::Console(console)) = &mut self.overlay {
                    console.resize(cols, rows);
                }
            }
            AppEvent::Term(_) => {}
            AppEvent::TermError(e) => self.quit = Some(Quit::Error(e)),
            AppEvent::Signal(signal) => {
                self.cancel_running();
                self.quit = Some(Quit::Signal(signal));
            }
            AppEvent::PtyStarted { id, control } => self.pty_started(id, control),
            AppEvent::Yielded { id, result } => self.yielded(id, result),
            AppEvent::Done { id, done } => self.done(id, done),
        }
    }

    /// Called every frame: keys the console program has not taken yet go out now; a tool call past
    /// its yield time whose console is not open goes on as a job.
    pub fn tick(&mut self) {
        if let Some(running) = &self.running {
            let yield_after = Duration::from_millis(self.ctx.tool.settings().yield_ms);
            if self.attached != Some(running.id) && running.started.elapsed() >= yield_after {
                if let Some(trigger) = &running.to_background {
                    trigger.pull();
                }
            }
        }
        match &mut self.overlay {
            Some(Overlay::Console(console)) => console.flush(),
            Some(Overlay::Pager(pager)) => pager.after_draw(),
            None => {}
        }
    }

    fn key(&mut self, key: &KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match &mut self.overlay {
            Some(Overlay::Pager(pager)) => {
                let step = match key.code {
                    KeyCode::Char('[') if !pager.is_prompting() => Some(false),
                    KeyCode::Char(']') if !pager.is_prompting() => Some(true),
                    _ => None,
                };
                match step {
                    Some(newer) => self.page_neighbour(newer),
                    None if pager.handle(key) == PagerAction::Close => self.overlay = None,
                    None => {}
                }
                return;
            }
            Some(Overlay::Console(console)) => {
                match console.key(key) {
                    ConsoleAction::Kill => self.kill_attached(),
                    ConsoleAction::Detach => self.detach(),
                    ConsoleAction::Forwarded => {}
                }
                return;
            }
            None => {}
        }
        self.message = None;
        match key.code {
            KeyCode::Esc if self.selected.is_some() => self.selected = None,
            KeyCode::Esc => self.cancel_running(),
            // While a command runs; on an idle line ctrl+b moves the cursor back, as in readline.
            KeyCode::Char('b') if ctrl && self.running.is_some() => self.send_to_background(),
            KeyCode::Char('t') if ctrl => {
                self.selected = jobs::next_selection(&self.running_jobs(), self.selected);
            }
            KeyCode::Char('x') if ctrl => self.kill_selected(),
            KeyCode::Char('g') if ctrl => self.grant_offered(),
            KeyCode::Enter if self.input.is_empty() && self.selected.is_some() => self.attach_selected(),
            KeyCode::Char('c') if ctrl => {
                if self.running.is_some() {
                    self.cancel_running();
                } else if !self.input.is_empty() {
                    self.input.clear();
                } else {
                    self.message = Some("ctrl+d or exit to quit".into());
                }
            }
            KeyCode::Char('d') if ctrl && self.input.is_empty() => {
                self.cancel_running();
                self.quit = Some(Quit::Normal);
            }
            KeyCode::Char('d') if ctrl => {
                self.input.handle(&KeyEvent::new(KeyCode::Delete, KeyModifiers::NONE));
            }
            KeyCode::Char('o') if ctrl => self.expand_last(),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_add(self.page()),
            KeyCode::PageDown => self.scroll = self.scroll.saturating_sub(self.page()),
            KeyCode::End if ctrl => self.scroll = 0,
            _ => {
                if let Edit::Submit(line) = self.input.handle(key) {
                    self.submit(line);
                }
            }
        }
    }

    /// ctrl+g: allow what the sandbox refused the last command, for the rest of the session.
    fn grant_offered(&mut self) {
        self.message = Some(match self.grant.take() {
            Some(request) => {
                self.ctx.tool.runtime().grant_sandbox(&request);
                format!("sandbox widened for this session: {} — run the command again", request.summary())
            }
            None => "nothing to allow: ctrl+g allows what the sandbox refused the last command".into(),
        });
    }

    fn page(&self) -> usize {
        usize::from(self.size.1.saturating_sub(4)).max(1)
    }

    fn submit(&mut self, line: String) {
        let line = line.trim().to_string();
        if line.is_empty() {
            return;
        }
        if line == "exit" {
            self.cancel_running();
            self.quit = Some(Quit::Normal);
            return;
        }
        if let Some(quit) = fault(&line) {
            self.quit = Some(quit);
            return;
        }
        if self.running.is_some() {
            self.message = Some(BUSY.into());
            self.input.insert_str(&line);
            return;
        }
        self.scroll = 0;
        match line.strip_prefix('!') {
            Some(command) => self.start_bang(command.trim()),
            None => self.start_tool(&line),
        }
    }

    fn shared(&self) -> Option<Shared> {
        let cancel = CancelToken::new().ok()?;
        let size = console_size(self.size.0, self.size.1);
        Some(Shared { live: Default::default(), screen: Screen::new(size), cancel, events: self.ctx.events.clone() })
    }

    fn start_tool(&mut self, command: &str) {
        let Some(shared) = self.shared() else {
            self.message = Some("cannot create a cancel token (out of file descriptors?)".into());
            return;
        };
        let cwd = self.session_cwd();
        let differs = cwd != self.ctx.project_dir;
        let id = self.next_id;
        self.next_id += 1;
        let mut entry = Entry::new(
            Kind::Tool,
            command,
            differs.then(|| self.tilde(&cwd)),
            self.ctx.artifacts.as_ref().map(|a| a.path().to_path_buf()),
        );
        entry.live = shared.live.clone();
        let job = ToolJob {
            id,
            tool: Arc::clone(&self.ctx.tool),
            params: BashParams {
                command: command.to_string(),
                cwd: differs.then(|| cwd.display().to_string()),
                // The UI decides when its time has come (not while the person is in its console):
                // the call itself yields only when it listens, or when the UI pulls its trigger.
                yield_ms: Some(u64::MAX),
                ..Default::default()
            },
            session_cwd: self.ctx.project_dir.clone(),
            artifacts: self.ctx.artifacts.clone(),
            tool_names: self.ctx.tool_names.clone(),
        };
        let size = console_size(self.size.0, self.size.1);
        let trigger = YieldNow::new();
        let to_background = trigger.clone();
        self.launch(id, entry, &shared, Some(&to_background), |s| worker::spawn_tool(job, s, size, trigger));
    }

    fn start_bang(&mut self, command: &str) {
        if command.is_empty() {
            self.message = Some("!command runs the command in your session".into());
            return;
        }
        let Some(session) = self.ctx.session.clone() else {
            let why = self.ctx.session_error.clone().unwrap_or_else(|| "no session".into());
            self.message = Some(format!("!command is unavailable: {why}"));
            return;
        };
        let Some(shared) = self.shared() else {
            self.message = Some("cannot create a cancel token (out of file descriptors?)".into());
            return;
        };
        let id = self.next_id;
        self.next_id += 1;
        let mut entry = Entry::new(Kind::Bang, command, None, Some(session.session().artifacts().path().to_path_buf()));
        entry.live = shared.live.clone();
        let command = command.to_string();
        self.launch(id, entry, &shared, None, |s| worker::spawn_bang(id, session, command, s));
    }

    fn launch(
        &mut self,
        id: u64,
        entry: Entry,
        shared: &Shared,
        to_background: Option<&YieldNow>,
        spawn: impl FnOnce(Shared) -> std::io::Result<()>,
    ) {
        self.entries.push(entry);
        let index = self.entries.len() - 1;
        let to_background = to_background.cloned();
        match spawn(shared.clone()) {
            Ok(()) => {
                self.running = Some(Running {
                    id,
                    index,
                    cancel: shared.cancel.clone(),
                    screen: Arc::clone(&shared.screen),
                    started: Instant::now(),
                    to_background,
                    control: None,
                })
            }
            Err(e) => self.entries[index].state = State::Failed(format!("cannot start a thread: {e}")),
        }
    }

    fn cancel_running(&mut self) {
        if let Some(running) = &self.running {
            running.cancel.cancel();
        }
    }

    fn pty_started(&mut self, id: u64, control: PtyControl) {
        let Some(running) = self.running.as_mut().filter(|r| r.id == id) else { return };
        running.control = Some(control.clone());
        let title = self.entries[running.index].command.clone();
        let screen = Arc::clone(&running.screen);
        self.open_console(id, title, screen, control);
    }

    fn open_console(&mut self, id: u64, title: String, screen: Arc<Screen>, control: PtyControl) {
        // The terminal may have been resized since the command started.
        let size = console_size(self.size.0, self.size.1);
        screen.resize(size);
        let _ = control.resize(size);
        self.overlay = Some(Overlay::Console(Console::new(title, screen, control)));
        self.attached = Some(id);
    }

    /// The running tool call went on as a job: its entry shows the result it returned with, and the
    /// prompt is free. A console open on it stays open (the person may be typing in it).
    fn yielded(&mut self, id: u64, result: Box<ToolResult>) {
        let Some(running) = self.running.take_if(|r| r.id == id) else { return };
        let job = result.details.job.as_ref().map(|j| j.id);
        self.entries[running.index].state = State::Tool(result);
        match job {
            Some(job) => self.background.push(Backgrounded {
                id,
                index: running.index,
                job,
                cancel: running.cancel,
                screen: running.screen,
                control: running.control,
            }),
            None => self.running = Some(running),
        }
    }

    /// ctrl+b: the running tool call goes on as a job now.
    fn send_to_background(&mut self) {
        match self.running.as_ref().map(|r| r.to_background.as_ref()) {
            Some(Some(trigger)) => {
                trigger.pull();
                self.message = Some("moving it to the background: it goes on as a job (ctrl+t selects it)".into());
            }
            Some(None) => self.message = Some("a !command runs in your session: only tool calls go on as jobs".into()),
            None => self.message = Some("nothing runs now".into()),
        }
    }

    /// ctrl+b in a console: leave it; the command goes on (as a job, if it is the running call).
    fn detach(&mut self) {
        self.overlay = None;
        if self.attached.take().is_some_and(|id| self.running.as_ref().is_some_and(|r| r.id == id)) {
            self.send_to_background();
        }
    }

    /// esc in a console: kill what it shows.
    fn kill_attached(&mut self) {
        match self.attached.and_then(|id| self.background.iter().find(|b| b.id == id)) {
            Some(job) => job.cancel.cancel(),
            None => self.cancel_running(),
        }
    }

    /// The runtime's running jobs, in id order.
    pub fn running_jobs(&self) -> Vec<JobInfo> {
        self.ctx.tool.runtime().jobs().running()
    }

    fn kill_selected(&mut self) {
        let Some(id) = self.selected else {
            self.message = Some("ctrl+t selects a job first".into());
            return;
        };
        self.message = Some(match self.ctx.tool.runtime().jobs().kill(id) {
            true => format!("killing job {id}"),
            false => format!("job {id} is not running"),
        });
        self.selected = None;
    }

    /// enter on a selected job: its console when it runs in a terminal, else its output in the pager.
    fn attach_selected(&mut self) {
        let Some(id) = self.selected.take() else { return };
        let console = self.background.iter().find(|b| b.job == id).and_then(|b| {
            let control = b.control.clone()?;
            Some((b.id, self.entries[b.index].command.clone(), Arc::clone(&b.screen), control))
        });
        if let Some((entry, title, screen, control)) = console {
            self.open_console(entry, title, screen, control);
            return;
        }
        // Its output so far: what the job tool reads, with its artifact when it has one.
        let Ok(cancel) = CancelToken::new() else { return };
        let read = JobParams { action: Some(JobAction::Read), id: Some(id.0), ..JobParams::default() };
        let result = self.ctx.tool.job(&read, &cancel);
        let full = result.details.job.as_ref().and_then(|j| j.artifact_id).and_then(|artifact| {
            let path = self.ctx.artifacts.as_ref()?.resolve(&artifact.url()).ok()?.1;
            Some((Source::open(&path).ok()?, format!("full output, artifact://{}", artifact.0)))
        });
        let note = full.is_none().then(|| "its output since the last look (no artifact yet)".to_string());
        let title = format!("job {id}: {}", result.details.job.as_ref().map_or("", |j| j.command.as_str()));
        match Pager::new(title, full, result.text(), note) {
            Ok(pager) => self.overlay = Some(Overlay::Pager(Box::new(pager))),
            Err(e) => self.message = Some(format!("cannot open the output: {e}")),
        }
    }

    fn done(&mut self, id: u64, done: Done) {
        if let Some(at) = self.background.iter().position(|b| b.id == id) {
            let job = self.background.remove(at);
            if self.attached == Some(id) {
                self.overlay = None;
                self.attached = None;
            }
            self.entries[job.index].state = ended(done);
            return;
        }
        let Some(running) = self.running.take_if(|r| r.id == id) else { return };
        if matches!(self.overlay, Some(Overlay::Console(_))) {
            self.overlay = None;
            self.attached = None;
        }
        self.grant = crate::grant::offer_after(&done).map(|(request, message)| {
            self.message = Some(message);
            request
        });
        self.entries[running.index].state = ended(done);
    }

    /// Ctrl-O: the pager over the newest finished command's full output.
    fn expand_last(&mut self) {
        match self.entries.iter().rposition(|e| !e.is_running()) {
            Some(index) => self.open_pager_at(index),
            None => {
                self.message = Some(if self.running.is_some() {
                    "ctrl+o expands a command once it has ended".into()
                } else {
                    "nothing to expand yet".into()
                });
            }
        }
    }

    /// `[` / `]` in the pager: the finished command before or after the one shown.
    fn page_neighbour(&mut self, newer: bool) {
        let Some(current) = self.paged else { return };
        let finished = |i: &usize| self.entries.get(*i).is_some_and(|e| !e.is_running());
        let next =
            if newer { (current + 1..self.entries.len()).find(finished) } else { (0..current).rev().find(finished) };
        if let Some(index) = next {
            self.open_pager_at(index);
        }
    }

    fn open_pager_at(&mut self, index: usize) {
        match open_pager(&self.entries[index]) {
            Ok(pager) => {
                self.overlay = Some(Overlay::Pager(Box::new(pager)));
                self.paged = Some(index);
            }
            Err(e) => self.message = Some(format!("cannot open the output: {e}")),
        }
    }
}

/// An entry's state once its command ended.
fn ended(done: Done) -> State {
    match done {
        Done::Tool(result) => State::Tool(result),
        Done::Bang(result) => State::Bang(result),
        Done::Failed(message) => State::Failed(message),
    }
}

/// The test hook (see [`FAULT_ENV`]).
fn fault(line: &str) -> Option<Quit> {
    let hook = std::env::var(FAULT_ENV).ok()?;
    match (hook.as_str(), line) {
        ("panic", ":panic") => panic!("test hook: the UI panics"),
        ("error", ":error") => Some(Quit::Error("test hook: the UI fails".into())),
        _ => None,
    }
}
