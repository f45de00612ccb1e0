//! The jobs of a runtime: ids handed out once, each job's state under its own lock, and the ends the
//! model has not been told of.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::info::{format_secs, JobId, JobInfo, JobState};
use super::stdin::{JobInput, WriteError};
use crate::artifact::ArtifactId;
use crate::cancel::CancelToken;
use crate::exec::pty::TermMode;
use crate::outcome::Outcome;
use crate::sink::{OutputSink, SinkConfig, SinkOutput, Spill};

/// Told of every change of a running job's state (listening, waiting for input), from the thread
/// running it, with no lock held.
pub type JobObserver = Arc<dyn Fn(&JobInfo) + Send + Sync>;

/// The jobs of one runtime. Ids start at 1 and are never reused, even after a job is forgotten.
#[derive(Default)]
pub struct Jobs {
    table: Mutex<Table>,
    observer: Mutex<Option<JobObserver>>,
    /// Shared with every job: what every call asks (the cap, ends to tell) without walking the table.
    counts: Arc<Counts>,
}

/// Jobs running, and ends the model has not been told of; kept by the jobs as they change.
#[derive(Debug, Default)]
struct Counts {
    running: AtomicUsize,
    unseen: AtomicUsize,
}

#[derive(Default)]
struct Table {
    next: u64,
    jobs: BTreeMap<u64, Arc<Job>>,
}

/// How many ended jobs are kept for listing and reading; older ended ones are forgotten first.
const ENDED_KEPT: usize = 64;

impl Jobs {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a job for a call that is yielding.
    pub(crate) fn add(&self, start: JobStart) -> Arc<Job> {
        let mut table = self.lock();
        table.next += 1;
        let id = JobId(table.next);
        let observer = self.observer.lock().unwrap_or_else(PoisonError::into_inner).clone();
        self.counts.running.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job::new(id, start, observer, Arc::clone(&self.counts)));
        table.jobs.insert(id.0, Arc::clone(&job));
        // Forget the oldest ended jobs the model has seen end, past the keep limit.
        let ended: Vec<u64> = table.jobs.iter().filter(|(_, j)| j.end_seen()).map(|(id, _)| *id).collect();
        for id in ended.iter().take(ended.len().saturating_sub(ENDED_KEPT)) {
            table.jobs.remove(id);
        }
        job
    }

    /// The job with this id.
    pub(crate) fn get(&self, id: JobId) -> Option<Arc<Job>> {
        self.lock().jobs.get(&id.0).cloned()
    }

    /// The job a call with this id became (RPC's `toolCallId`), while it runs.
    pub(crate) fn by_call(&self, call_id: &str) -> Option<Arc<Job>> {
        self.lock().jobs.values().find(|j| j.call_id.as_deref() == Some(call_id) && !j.ended()).cloned()
    }

    /// Every job known, oldest first.
    pub fn list(&self) -> Vec<JobInfo> {
        let jobs: Vec<Arc<Job>> = self.lock().jobs.values().cloned().collect();
        jobs.iter().map(|j| j.info()).collect()
    }

    /// How many jobs run: what every call that may become one checks, so it builds no list.
    pub(crate) fn running_count(&self) -> usize {
        self.counts.running.load(Ordering::Relaxed)
    }

    /// Jobs still running, oldest first.
    pub fn running(&self) -> Vec<JobInfo> {
        self.list().into_iter().filter(|j| !j.state.ended()).collect()
    }

    /// Jobs that ended since the model was last told of them, each returned once.
    pub(crate) fn take_unseen_ends(&self) -> Vec<JobInfo> {
        // Most calls: none, known without the table.
        if self.counts.unseen.load(Ordering::Relaxed) == 0 {
            return Vec::new();
        }
        let jobs: Vec<Arc<Job>> = self.lock().jobs.values().cloned().collect();
        jobs.iter().filter_map(|j| j.take_end_unseen()).collect()
    }

    /// Tells `observer` of every later change of a running job's state (a front's `job_state` event).
    pub fn observe(&self, observer: JobObserver) {
        *self.observer.lock().unwrap_or_else(PoisonError::into_inner) = Some(observer);
    }

    /// Kills the job with this id (its tree; its end comes from the thread that runs it); false when
    /// there is no such job running.
    pub fn kill(&self, id: JobId) -> bool {
        match self.get(id).filter(|job| !job.ended()) {
            Some(job) => {
                job.kill();
                true
            }
            None => false,
        }
    }

    /// Kills every running job (the runtime is closing); returns how many.
    pub fn kill_all(&self) -> usize {
        let jobs: Vec<Arc<Job>> = self.lock().jobs.values().filter(|j| !j.ended()).cloned().collect();
        for job in &jobs {
            job.kill();
        }
        jobs.len()
    }
}

/// What a yielding call gives its job.
pub(crate) struct JobStart {
    pub command: String,
    pub call_id: Option<String>,
    pub started: Instant,
    pub deadline: Option<Instant>,
    pub cancel: CancelToken,
    pub window: SinkConfig,
    /// Lines and bytes the command printed before it yielded (the yielded result showed them).
    pub lines_before: u64,
    pub bytes_before: u64,
    pub artifact: Option<ArtifactId>,
    /// The command's input: its stdin pipe (`stdin: "pipe"`) or its terminal (`stdin: "pty"`).
    pub stdin: Option<JobInput>,
    /// The last line of the output before the yield.
    pub last_line: super::LastLine,
}

/// One job: shared by the table, the thread running its command, and its waiters.
pub(crate) struct Job {
    pub id: JobId,
    pub command: String,
    pub call_id: Option<String>,
    started: Instant,
    /// When its timeout kills it, in milliseconds after `started` ([`NO_DEADLINE`]: never); moved
    /// only later, by [`Job::extend`], and read by the executor's wait at each wake.
    deadline_ms: AtomicU64,
    /// The deadline was moved since the call began.
    moved: AtomicBool,
    cancel: CancelToken,
    window_config: SinkConfig,
    state: Mutex<State>,
    changed: Condvar,
    /// The command's input, while open: writes go in order, one at a time.
    stdin: Mutex<Option<JobInput>>,
    observer: Option<JobObserver>,
    counts: Arc<Counts>,
}

/// [`Job::deadline_ms`] of a job no timeout kills.
const NO_DEADLINE: u64 = u64::MAX;

struct State {
    listening: Vec<String>,
    /// The program the last look found blocked reading the stdin pipe or the terminal, and how the
    /// terminal was set then.
    awaiting: Option<String>,
    mode: Option<TermMode>,
    /// The last line of output, for the prompt of a job waiting for input.
    last_line: super::LastLine,
    stdin_open: bool,
    /// What the input was, once open: a pipe or a terminal (`None`: `/dev/null`).
    input_was: Option<InputKind>,
    end: Option<End>,
    /// The output since the model's last read.
    window: OutputSink,
    /// The number, in the whole output, of the window's first line.
    window_first_line: u64,
    total_bytes: u64,
    total_lines: u64,
    artifact: Option<ArtifactId>,
    /// Bumped on every change, for waiters.
    generation: u64,
    /// A waiter wants the ports looked at often.
    eager: bool,
}

/// What a job's input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputKind {
    Pipe,
    Terminal,
}

struct End {
    /// `None`: ended with no status to read (processes a finished call left running).
    outcome: Option<Outcome>,
    elapsed: Duration,
    /// The model was told (a read, a wait, a list, or a notice on another result).
    seen: bool,
}

impl Job {
    fn new(id: JobId, start: JobStart, observer: Option<JobObserver>, counts: Arc<Counts>) -> Self {
        let state = State {
            listening: Vec::new(),
            awaiting: None,
            mode: None,
            last_line: start.last_line,
            stdin_open: start.stdin.is_some(),
            input_was: start
                .stdin
                .as_ref()
                .map(|i| if i.is_terminal() { InputKind::Terminal } else { InputKind::Pipe }),
            end: None,
            window: OutputSink::new(start.window.clone(), None),
            window_first_line: start.lines_before + 1,
            total_bytes: start.bytes_before,
            total_lines: start.lines_before,
            artifact: start.artifact,
            generation: 0,
            eager: false,
        };
        Self {
            id,
            command: start.command,
            call_id: start.call_id,
            started: start.started,
            deadline_ms: AtomicU64::new(
                start.deadline.map_or(NO_DEADLINE, |d| d.saturating_duration_since(start.started).as_millis() as u64),
            ),
            moved: AtomicBool::new(false),
            cancel: start.cancel,
            window_config: start.window,
            state: Mutex::new(state),
            changed: Condvar::new(),
            stdin: Mutex::new(start.stdin),
            observer,
            counts,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn bump(&self, state: &mut State) {
        state.generation += 1;
        self.changed.notify_all();
    }

    /// New output (the running thread only). `lines` and `bytes`: the whole output's totals after it.
    pub(crate) fn push(&self, chunk: &[u8], total_lines: u64, total_bytes: u64) {
        let mut state = self.lock();
        state.window.push(chunk);
        state.last_line.push(chunk);
        state.total_lines = total_lines;
        state.total_bytes = total_bytes;
        self.bump(&mut state);
    }

    /// The listening addresses found by the last look (the running thread only).
    pub(crate) fn set_listening(&self, addresses: Vec<String>) {
        let mut state = self.lock();
        if state.listening != addresses {
            state.listening = addresses;
            self.bump(&mut state);
            self.tell(state);
        }
    }

    /// Tells the observer of a change, once the lock is let go.
    fn tell(&self, state: MutexGuard<'_, State>) {
        let Some(observer) = &self.observer else { return };
        let info = self.info_of(&state);
        drop(state);
        observer(&info);
    }

    /// The program the last look found waiting for input on the stdin pipe, or on the terminal set
    /// as `mode` (the running thread only).
    pub(crate) fn set_awaiting(&self, reader: Option<String>, mode: Option<TermMode>) {
        let mut state = self.lock();
        if (state.awaiting != reader || state.mode != mode) && state.end.is_none() {
            state.awaiting = reader;
            state.mode = mode;
            self.bump(&mut state);
            self.tell(state);
        }
    }

    /// Writes `input`, then presses `keys` (encoded; a terminal only), to the job's input, then ends
    /// its input when `close`. The waiting state is cleared: the next look says whether the command
    /// reads again.
    pub(crate) fn write(&self, input: &[u8], keys: &[u8], close: bool) -> Result<(), WriteError> {
        let mut stdin = self.stdin.lock().unwrap_or_else(PoisonError::into_inner);
        if self.ended() {
            return Err(WriteError::Ended);
        }
        let Some(to) = stdin.as_mut() else {
            return Err(if self.lock().input_was.is_some() { WriteError::Closed } else { WriteError::NoInput });
        };
        // The command may have stopped reading: a full pipe must not hold the caller.
        let written = to.give(input, keys, close);
        // A pipe ends with its end of input, or once it is stuck; a refused key leaves it as it was.
        if matches!(written, Ok(false) | Err(WriteError::Stuck(_))) {
            *stdin = None;
        }
        let written = written.map(|_| ());
        let mut state = self.lock();
        state.awaiting = None;
        state.stdin_open = stdin.is_some();
        self.bump(&mut state);
        written
    }

    /// Whether a waiter wants the ports looked at often.
    pub(crate) fn eager(&self) -> bool {
        self.lock().eager
    }

    /// The artifact the whole output goes to, once the sink spilled.
    pub(crate) fn set_artifact(&self, id: Option<ArtifactId>) {
        let mut state = self.lock();
        if state.artifact.is_none() {
            state.artifact = id;
        }
    }

    /// The command ended (the running thread only, once); `None`: with no status to read.
    pub(crate) fn end(&self, outcome: Option<Outcome>, elapsed: Duration) {
        *self.stdin.lock().unwrap_or_else(PoisonError::into_inner) = None;
        let mut state = self.lock();
        state.listening.clear();
        state.awaiting = None;
        state.mode = None;
        state.stdin_open = false;
        if state.end.is_none() {
            self.counts.running.fetch_sub(1, Ordering::Relaxed);
            self.counts.unseen.fetch_add(1, Ordering::Relaxed);
        }
        state.end = Some(End { outcome, elapsed, seen: false });
        self.bump(&mut state);
    }

    /// Kills the job's tree (its call is cancelled; the end comes from the running thread).
    pub(crate) fn kill(&self) {
        self.cancel.cancel();
    }

    /// When its timeout kills it.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        match self.deadline_ms.load(Ordering::Relaxed) {
            NO_DEADLINE => None,
            ms => self.started.checked_add(Duration::from_millis(ms)),
        }
    }

    /// The deadline, when it was moved since the call began (the executor's wait reads it).
    pub(crate) fn moved_deadline(&self) -> Option<Instant> {
        self.moved.load(Ordering::Relaxed).then(|| self.deadline()).flatten()
    }

    /// Moves the deadline to `to`, which must be later than the current one: a job is given more
    /// time, never less (a kill stops it sooner). The error says why not, for the model.
    pub(crate) fn extend(&self, to: Instant) -> Result<(), String> {
        if self.ended() {
            return Err("it has ended".to_string());
        }
        let Some(current) = self.deadline() else {
            return Err("it has no timeout: it runs until it ends or is killed".to_string());
        };
        if to <= current {
            let left = format_secs(current.saturating_duration_since(Instant::now()));
            return Err(format!("its timeout kills it in {left} already; to stop it sooner, kill it"));
        }
        let ms = to.saturating_duration_since(self.started).as_millis() as u64;
        self.deadline_ms.store(ms.min(NO_DEADLINE - 1), Ordering::Relaxed);
        self.moved.store(true, Ordering::Relaxed);
        let mut state = self.lock();
        self.bump(&mut state);
        Ok(())
    }

    /// Since its call started.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    pub(crate) fn ended(&self) -> bool {
        self.lock().end.is_some()
    }

    fn end_seen(&self) -> bool {
        self.lock().end.as_ref().is_some_and(|e| e.seen)
    }

    fn take_end_unseen(&self) -> Option<JobInfo> {
        let mut state = self.lock();
        let end = state.end.as_mut().filter(|e| !e.seen)?;
        end.seen = true;
        self.counts.unseen.fetch_sub(1, Ordering::Relaxed);
        Some(self.info_of(&state))
    }

    /// The job as a list shows it.
    pub(crate) fn info(&self) -> JobInfo {
        self.info_of(&self.lock())
    }

    fn info_of(&self, state: &State) -> JobInfo {
        let (job_state, elapsed) = match &state.end {
            Some(end) => (JobState::of(end.outcome), end.elapsed),
            None if state.awaiting.is_some() => (JobState::AwaitingInput, self.started.elapsed()),
            None if state.listening.is_empty() => (JobState::Running, self.started.elapsed()),
            None => (JobState::Listening, self.started.elapsed()),
        };
        let outcome = state.end.as_ref().and_then(|e| e.outcome);
        let now = Instant::now();
        JobInfo {
            id: self.id,
            command: self.command.clone(),
            state: job_state,
            exit_code: outcome.and_then(|o| o.exit_code()),
            signal: outcome.and_then(|o| o.signal_name()),
            listening: state.listening.clone(),
            reading: state.awaiting.clone(),
            prompt: state
                .awaiting
                .as_ref()
                .map(|reader| super::Prompt::of(state.last_line.bytes(), reader, state.mode)),
            stdin_open: state.stdin_open,
            terminal: state.input_was == Some(InputKind::Terminal),
            elapsed_ms: elapsed.as_millis() as u64,
            deadline_in_ms: match (&state.end, self.deadline()) {
                (None, Some(d)) => Some(d.saturating_duration_since(now).as_millis() as u64),
                _ => None,
            },
            artifact_id: state.artifact,
            total_bytes: state.total_bytes,
            total_lines: state.total_lines,
            unread_bytes: state.window.total_bytes(),
        }
    }

    /// Waits until `until` holds or `limit` passes, whichever first; says which, and the job then.
    pub(crate) fn wait(&self, until: &Until, limit: Duration, cancel: Option<&CancelToken>) -> (bool, JobInfo) {
        let give_up = Instant::now() + limit;
        let mut state = self.lock();
        if matches!(until, Until::Listening(_)) {
            state.eager = true;
        }
        // Output the model has not read but that a pattern already was checked against is not
        // checked again: a wait looks at what is new since it began, and at the unread window.
        let mut checked = 0u64;
        let met = loop {
            let met = match until {
                Until::Exit => state.end.is_some(),
                Until::Settled => state.end.is_some() || state.awaiting.is_some(),
                Until::Pattern(regex) => {
                    let found = find_pattern(&state.window, regex, &mut checked);
                    found || state.end.is_some()
                }
                Until::Listening(port) => {
                    let listening = match port {
                        Some(port) => state.listening.iter().any(|a| a.ends_with(&format!(":{port}"))),
                        None => !state.listening.is_empty(),
                    };
                    listening || state.end.is_some()
                }
            };
            if met {
                break true;
            }
            let now = Instant::now();
            if now >= give_up || cancel.is_some_and(CancelToken::is_cancelled) {
                break false;
            }
            // Short slices while a cancel may come (nothing wakes this lock on a cancel).
            let slice = (give_up - now).min(Duration::from_millis(if cancel.is_some() { 50 } else { 1000 }));
            state = self.changed.wait_timeout(state, slice).unwrap_or_else(PoisonError::into_inner).0;
        };
        if matches!(until, Until::Listening(_)) {
            state.eager = false;
        }
        (met, self.info_of(&state))
    }

    /// Takes the output since the last read (a fresh window starts), with the line number its first
    /// line has in the whole output, and the job's state; an end read this way counts as seen.
    pub(crate) fn read(&self) -> (SinkOutput, u64, JobInfo) {
        let mut state = self.lock();
        let fresh = OutputSink::new(self.window_config.clone(), None);
        let window = std::mem::replace(&mut state.window, fresh);
        let first_line = state.window_first_line;
        let output = window.finish();
        let spill = match state.artifact {
            Some(id) => Spill::Written { id, path: Default::default(), bytes: state.total_bytes, dropped: 0 },
            None => Spill::None,
        };
        state.window_first_line = state.total_lines + 1;
        if let Some(end) = state.end.as_mut().filter(|e| !e.seen) {
            end.seen = true;
            self.counts.unseen.fetch_sub(1, Ordering::Relaxed);
        }
        let info = self.info_of(&state);
        (output.with_spill(spill), first_line, info)
    }
}

/// What a wait waits for.
#[derive(Debug, Clone)]
pub(crate) enum Until {
    /// The end.
    Exit,
    /// The end, or the command reading its stdin again (after a write).
    Settled,
    /// A line of new output that matches (or the end).
    Pattern(regex::Regex),
    /// A listening socket, on this port when one is named (or the end).
    Listening(Option<u16>),
}

/// Whether a complete line of the window past `checked` (bytes of the window) matches; moves
/// `checked` to the start of the line in progress.
fn find_pattern(window: &OutputSink, regex: &regex::Regex, checked: &mut u64) -> bool {
    let total = window.total_bytes();
    let tail = window.tail_bytes();
    let tail_start = total - tail.len() as u64;
    let from = (*checked).max(tail_start);
    let region = &tail[(from - tail_start) as usize..];
    let complete = match memchr::memrchr(b'\n', region) {
        Some(i) => &region[..=i],
        None => return false,
    };
    *checked = from + complete.len() as u64;
    String::from_utf8_lossy(complete).lines().any(|line| regex.is_match(line))
}
