//! The run stage's side of a job: when a running call yields, and what its job learns afterwards.
//!
//! The plan lives in the call's output consumer, on the thread that runs the command; the executor's
//! wait wakes it at the times it asks for ([`crate::exec::OutputConsumer::next_tick`]), so no thread
//! is added to a call, and a call that ends before its yield time pays one comparison per wake.
//!
//! A call yields at the first of: its yield time; a look at its processes finding a listening socket
//! (looks start once the output has been quiet for [`QUIET`], every [`FIRST_LOOK`] then less and
//! less often, up to [`YOUNG_LOOK`] in the call's first [`YOUNG`], then up to [`LAST_LOOK`]). Once yielded, the same looks keep the job's listening addresses
//! current, and every chunk goes to the job's window and to the artifact, flushed at once so that a
//! reader sees it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::os::fd::OwnedFd;

use super::listen::{listening, processes};
use super::stdin::JobInput;
use super::table::Job;
use crate::exec::pty::{PtyControl, TermMode};
use crate::process::procfs;
use crate::process::waiting::{Probe, Prober, Stdin};
use crate::sink::OutputSink;

/// Output quiet this long before processes are looked at: a chatty build is not a server.
pub(crate) const QUIET: Duration = Duration::from_millis(200);
/// The first interval between looks, and the interval while a waiter waits for a port.
const FIRST_LOOK: Duration = Duration::from_millis(100);
/// The longest interval between looks in a call's first [`YOUNG`]: a server is usually up by then,
/// and must be seen soon after it is.
const YOUNG_LOOK: Duration = Duration::from_millis(300);
/// How long a call is young.
const YOUNG: Duration = Duration::from_secs(30);
/// The longest interval between looks, however long the job runs quiet.
const LAST_LOOK: Duration = Duration::from_millis(3200);

/// Asks a running call to return as a job now (a UI's "to the background" key): see
/// [`crate::BashTool::execute_with_ui_yielding`]. Cheap to clone; pulling it twice is pulling it once.
#[derive(Debug, Clone, Default)]
pub struct YieldNow(Arc<AtomicBool>);

impl YieldNow {
    /// A trigger not pulled yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The call returns as a job at its next look (within a tenth of a second), if it still runs.
    pub fn pull(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub(crate) fn pulled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Why a call yielded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum YieldReason {
    /// Its yield time came (or, for a background call, its short peek ended).
    Time,
    /// A process of it listens on these addresses.
    Listening(Vec<String>),
    /// This program of it waits for input on the stdin pipe, or on its terminal (set so).
    AwaitingInput(String, Option<TermMode>),
}

/// Makes the job and hands the yielded result to the caller: called once, with the sink (already
/// spilled and flushed) and the reason.
pub(crate) type Fire<'f> = Box<dyn FnOnce(&OutputSink, YieldReason, Option<JobInput>) -> Arc<Job> + 'f>;

/// When a call yields; then, its job.
pub(crate) struct YieldPlan<'f> {
    at: Option<Instant>,
    fire: Option<Fire<'f>>,
    job: Option<Arc<Job>>,
    /// The shell running the command, and the clock tick the call started at (processes started
    /// before it belong to earlier calls of a long-lived shell).
    root: Option<i32>,
    since: Option<u64>,
    created: Instant,
    last_output: Instant,
    next_look: Instant,
    look_every: Duration,
    /// The command's input (its stdin pipe's write end, or its terminal), until the job takes it;
    /// what the pipe is, to tell a read of it; the looks' verdicts; the program last confirmed
    /// waiting on it. A terminal's readers are told by the terminal path's own looks.
    input: Option<JobInput>,
    stdin_id: Option<Stdin>,
    terminal: bool,
    prober: Prober,
    awaiting: Option<String>,
    /// Pulled: yield at the next wake (which comes within [`FIRST_LOOK`] while it is not).
    now: Option<YieldNow>,
    /// A program waiting for input makes the call yield.
    yield_on_input: bool,
    /// The long-lived shell running the command, lent to the job when the call yields.
    loan: Option<crate::exec::ShellLoan>,
}

impl<'f> YieldPlan<'f> {
    /// A plan that yields at `at` at the latest (`None`: only when it listens).
    pub(crate) fn new(at: Option<Instant>, fire: Fire<'f>) -> Self {
        let now = Instant::now();
        Self {
            at,
            fire: Some(fire),
            job: None,
            root: None,
            since: None,
            created: now,
            last_output: now,
            next_look: now + QUIET,
            look_every: FIRST_LOOK,
            input: None,
            stdin_id: None,
            terminal: false,
            prober: Prober::default(),
            awaiting: None,
            now: None,
            yield_on_input: true,
            loan: None,
        }
    }

    /// Yield as soon as `now` is pulled.
    pub(crate) fn triggered_by(mut self, now: Option<YieldNow>) -> Self {
        self.now = now;
        self
    }

    /// Whether a program waiting for input makes the call yield (not where a person answers it).
    pub(crate) fn on_input(mut self, yes: bool) -> Self {
        self.yield_on_input = yes;
        self
    }

    /// The command's stdin is a pipe, this its write end.
    pub(crate) fn stdin_opened(&mut self, stdin: OwnedFd) {
        self.stdin_id = Stdin::of_fd(std::os::fd::AsFd::as_fd(&stdin)).ok();
        self.input = Some(JobInput::pipe(stdin));
    }

    /// The command runs in a terminal that `control` types into.
    pub(crate) fn terminal_opened(&mut self, control: PtyControl) {
        self.input = Some(JobInput::Terminal(control));
        self.terminal = true;
    }

    /// The terminal path's looks found a program blocked reading the terminal, or no longer: the
    /// call yields at once, or its job learns it.
    pub(crate) fn terminal_reader(&mut self, sink: &mut OutputSink, reader: Option<(&str, TermMode)>) {
        self.awaiting = reader.map(|(name, _)| name.to_string());
        match (&self.job, reader) {
            (Some(job), reader) => job.set_awaiting(reader.map(|(name, _)| name.to_string()), reader.map(|r| r.1)),
            (None, Some((name, mode))) if self.yield_on_input => {
                self.fire(sink, YieldReason::AwaitingInput(name.to_string(), Some(mode)))
            }
            (None, _) => {}
        }
    }

    /// The long-lived shell running the command goes to the job if the call yields.
    pub(crate) fn shell_on_loan(&mut self, loan: crate::exec::ShellLoan) {
        if self.job.is_none() {
            self.loan = Some(loan);
        }
    }

    /// The shell running the command is known.
    pub(crate) fn started(&mut self, shell: i32) {
        self.root = Some(shell);
    }

    /// A chunk was pushed into `sink`.
    pub(crate) fn output(&mut self, sink: &mut OutputSink, chunk: &[u8]) {
        self.last_output = Instant::now();
        self.look_every = FIRST_LOOK;
        if let Some(job) = &self.job {
            sink.flush_spill();
            job.set_artifact(sink.spilled_to());
            job.push(chunk, sink.total_lines(), sink.total_bytes());
        }
    }

    /// When the plan next wants a wake.
    pub(crate) fn next_tick(&self) -> Instant {
        let look = self.next_look.max(self.last_output + QUIET);
        let look = match (&self.job, &self.now) {
            (None, Some(_)) => look.min(Instant::now() + FIRST_LOOK),
            _ => look,
        };
        match (&self.job, self.at) {
            (None, Some(at)) => look.min(at),
            _ => look,
        }
    }

    /// A wake: yield when it is time, look at the processes when it is time.
    pub(crate) fn tick(&mut self, sink: &mut OutputSink) {
        let now = Instant::now();
        if now >= self.next_look && now >= self.last_output + QUIET {
            // The call's start in clock ticks, found at the first look (a call that never looks
            // never reads the clock): ticks now, less the time since the call started, less one.
            let created = self.created;
            let since = *self.since.get_or_insert_with(|| procfs::ticks_before(created.elapsed()));
            let pids = self.root.map(|pid| processes(pid, since)).unwrap_or_default();
            let found = listening(&pids);
            let probe = self.stdin_id.as_ref().map(|stdin| self.prober.probe(&pids, stdin));
            // A reader seen once is confirmed (or not) by the next look, which comes soon.
            let confirming = matches!(probe, Some(Probe::Seen(_)));
            if !self.terminal {
                self.awaiting = match probe {
                    Some(Probe::Waiting(reader)) => Some(reader.comm),
                    Some(Probe::Seen(_)) => self.awaiting.take(),
                    Some(Probe::NotWaiting) | None => None,
                };
            }
            let eager = confirming || self.job.as_ref().is_some_and(|j| j.eager());
            let longest = if created.elapsed() < YOUNG { YOUNG_LOOK } else { LAST_LOOK };
            self.look_every = if eager { FIRST_LOOK } else { (self.look_every * 2).min(longest) };
            self.next_look = now + self.look_every;
            match (&self.job, &self.awaiting) {
                (Some(job), _) => {
                    job.set_listening(found);
                    if !self.terminal {
                        job.set_awaiting(self.awaiting.clone(), None);
                    }
                }
                (None, Some(reader)) if !self.terminal && self.yield_on_input => {
                    let reader = reader.clone();
                    return self.fire(sink, YieldReason::AwaitingInput(reader, None));
                }
                (None, _) if !found.is_empty() => return self.fire(sink, YieldReason::Listening(found)),
                (None, _) => {}
            }
        }
        let pulled = self.now.as_ref().is_some_and(YieldNow::pulled);
        if self.job.is_none() && (pulled || self.at.is_some_and(|at| now >= at)) {
            self.fire(sink, YieldReason::Time);
        }
    }

    fn fire(&mut self, sink: &mut OutputSink, reason: YieldReason) {
        let Some(fire) = self.fire.take() else { return };
        sink.ensure_spilled();
        sink.flush_spill();
        // The shell is the job's before the caller hears of the yield: its next call starts a fresh one.
        if let Some(loan) = self.loan.take() {
            loan.lend();
        }
        let job = fire(sink, reason, self.input.take());
        self.job = Some(job);
    }

    /// The job, once the call yielded.
    pub(crate) fn job(&self) -> Option<&Arc<Job>> {
        self.job.as_ref()
    }
}
