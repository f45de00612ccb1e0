//! The executor's output consumer for both surfaces: it feeds the sink, stops the producer once an
//! extracted `head -n N` has its lines (as a closed pipe would), and forwards live output — raw chunks
//! for the session-level path, throttled model-view snapshots for tool calls.

use std::time::{Duration, Instant};

use crate::exec::{Flow, OutputConsumer};
use crate::job::{Job, YieldPlan};
use crate::sink::OutputSink;
use crate::view::{model_view, View, ViewOptions};

/// How often live output snapshots may be sent: a flood of output must not freeze a UI.
pub const UPDATE_INTERVAL: Duration = Duration::from_millis(50);

/// Receives raw output chunks as they arrive.
pub type ChunkCallback<'a> = &'a mut dyn FnMut(&[u8]);

/// Receives the model view of the output so far, at most once per [`UPDATE_INTERVAL`].
pub type UpdateCallback<'a> = &'a mut dyn FnMut(&str);

pub struct Feed<'a> {
    sink: OutputSink,
    stop_after: Option<u64>,
    lines_seen: u64,
    /// An extracted `| tail -n N`, applied to stdout alone once the executor splits it off.
    tail_of_stdout: Option<u64>,
    /// Bytes of each stream kept for the tail view when stdout is split (rolling).
    split_keep: usize,
    split: Option<Split>,
    output_left_open: bool,
    on_chunk: Option<ChunkCallback<'a>>,
    on_update: Option<UpdateCallback<'a>>,
    last_update: Option<Instant>,
    view: ViewOptions,
    /// When the call yields, and its job afterwards (tool calls of a front that can yield).
    /// Boxed: the feed is moved while it is built, and the plan is large.
    yielding: Option<Box<YieldPlan<'a>>>,
    /// What the command left running, for a job to follow (fronts that can yield only).
    left: Option<crate::exec::LeftRunning>,
}

impl<'a> Feed<'a> {
    pub fn new(sink: OutputSink, view: ViewOptions) -> Self {
        Self {
            sink,
            stop_after: None,
            lines_seen: 0,
            tail_of_stdout: None,
            split_keep: 0,
            split: None,
            output_left_open: false,
            on_chunk: None,
            on_update: None,
            last_update: None,
            view,
            yielding: None,
            left: None,
        }
    }

    /// The extracted `| tail -n N` (if any), and how many bytes of each stream to keep for it: when
    /// the executor splits stdout off, the view is what that stage would have let through — stderr
    /// whole, then the last `N` lines of stdout.
    pub fn tail_of_stdout(mut self, lines: Option<u64>, keep_bytes: usize) -> Self {
        self.tail_of_stdout = lines;
        self.split_keep = keep_bytes;
        self
    }

    /// Stop reading (the producer gets SIGPIPE on its next write) once `lines` lines have arrived.
    pub fn stop_after(mut self, lines: Option<u64>) -> Self {
        self.stop_after = lines;
        self
    }

    /// Every chunk as it arrives, raw.
    pub fn on_chunk(mut self, f: Option<ChunkCallback<'a>>) -> Self {
        self.on_chunk = f;
        self
    }

    /// The model view of the output so far, at most once per [`UPDATE_INTERVAL`].
    pub fn on_update(mut self, f: Option<UpdateCallback<'a>>) -> Self {
        self.on_update = f;
        self
    }

    /// The call may yield (see [`crate::job`]).
    pub(crate) fn yielding(mut self, plan: Option<YieldPlan<'a>>) -> Self {
        self.yielding = plan.map(Box::new);
        self
    }

    /// The job the call became, when it yielded.
    pub(crate) fn job(&self) -> Option<&std::sync::Arc<Job>> {
        self.yielding.as_deref().and_then(YieldPlan::job)
    }

    /// What the command left running, handed over by the executor (see [`crate::exec::LeftRunning`]).
    pub(crate) fn take_left(&mut self) -> Option<crate::exec::LeftRunning> {
        self.left.take()
    }

    pub fn into_sink(self) -> OutputSink {
        self.sink
    }

    /// What the split streams came to (`None` when the executor did not split stdout off).
    pub fn split_report(&self) -> Option<SplitReport> {
        let split = self.split.as_ref()?;
        let tail = self.tail_of_stdout.map(|n| {
            let stdout = crate::lines::last_lines(&split.stdout_kept, n);
            let stderr = split.stderr_kept.as_slice();
            let mut text = Vec::with_capacity(stderr.len() + 1 + stdout.len());
            text.extend_from_slice(stderr);
            if !stderr.is_empty() && !stderr.ends_with(b"\n") && !stdout.is_empty() {
                // The terminal would show tail's first line after the unfinished stderr line too,
                // but the view counts lines: keep them apart.
                text.push(b'\n');
            }
            text.extend_from_slice(stdout);
            SplitTail { text, shown_stdout_lines: crate::lines::count_lines(stdout) }
        });
        Some(SplitReport {
            stdout_lines: split.stdout_lines,
            stderr_lines: split.stderr_lines,
            stopped: split.stopped,
            tail,
        })
    }

    /// Whether the executor returned while processes still held the output open.
    pub fn output_left_open(&self) -> bool {
        self.output_left_open
    }

    /// Sink, live chunk and live view: where every byte read goes.
    fn deliver(&mut self, chunk: &[u8]) {
        self.sink.push(chunk);
        if let Some(plan) = self.yielding.as_mut() {
            plan.output(&mut self.sink, chunk);
        }
        if let Some(on_chunk) = self.on_chunk.as_mut() {
            on_chunk(chunk);
        }
        if let Some(on_update) = self.on_update.as_mut() {
            let now = Instant::now();
            if self.last_update.is_none_or(|t| now.duration_since(t) >= UPDATE_INTERVAL) {
                self.last_update = Some(now);
                if let View::Text(text) = model_view(self.sink.tail_bytes(), &self.view) {
                    on_update(&text);
                }
            }
        }
    }
}

/// The state of a split execution: stdout counted apart from stderr.
#[derive(Default)]
struct Split {
    stdout_lines: u64,
    stderr_lines: u64,
    /// The head limit was reached and the producer stopped.
    stopped: bool,
    /// The last bytes of each stream, for the tail view (empty without an extracted tail).
    stdout_kept: Vec<u8>,
    stderr_kept: Vec<u8>,
}

/// What a split execution's streams came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitReport {
    /// Lines the command wrote to stdout (up to the head limit, when one stopped it).
    pub stdout_lines: u64,
    /// Lines written to stderr, by every stage and by bash.
    pub stderr_lines: u64,
    /// The extracted head limit was reached: the producer was stopped there.
    pub stopped: bool,
    /// With an extracted tail: what that stage would have let through.
    pub tail: Option<SplitTail>,
}

/// What an extracted `| tail -n N` would have let through: stderr whole (its last bytes when
/// huge), then the last `N` lines of stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitTail {
    /// The bytes, raw.
    pub text: Vec<u8>,
    /// Lines of stdout in `text`.
    pub shown_stdout_lines: u64,
}

/// The part of `chunk` within the first `limit` lines, given `seen` lines before it (updated), and
/// whether the limit is reached.
fn up_to_line<'c>(chunk: &'c [u8], seen: &mut u64, limit: u64) -> (&'c [u8], Flow) {
    let wanted = limit.saturating_sub(*seen);
    if wanted == 0 {
        return (&chunk[..0], Flow::Stop);
    }
    match memchr::memchr_iter(b'\n', chunk).nth((wanted - 1) as usize) {
        Some(pos) => {
            *seen = limit;
            (&chunk[..=pos], Flow::Stop)
        }
        None => {
            *seen += bytecount::count(chunk, b'\n') as u64;
            (chunk, Flow::Continue)
        }
    }
}

/// Appends `chunk` to `kept`, keeping its last `keep` bytes (trimming in steps, not per chunk).
fn keep_last(kept: &mut Vec<u8>, chunk: &[u8], keep: usize) {
    kept.extend_from_slice(chunk);
    if kept.len() > keep.saturating_mul(2) {
        let cut = kept.len() - keep;
        kept.drain(..cut);
    }
}

impl OutputConsumer for Feed<'_> {
    fn stdout_split(&mut self) {
        self.split = Some(Split::default());
    }

    fn consume_stdout(&mut self, chunk: &[u8]) -> Flow {
        let keep = self.split_keep;
        let tail = self.tail_of_stdout.is_some();
        let stop_after = self.stop_after;
        let Some(split) = self.split.as_mut() else {
            return self.consume(chunk);
        };
        let mut chunk = chunk;
        let mut flow = Flow::Continue;
        if let Some(limit) = stop_after {
            (chunk, flow) = up_to_line(chunk, &mut split.stdout_lines, limit);
            split.stopped = flow == Flow::Stop;
            if chunk.is_empty() && split.stopped {
                return flow;
            }
        } else {
            split.stdout_lines += bytecount::count(chunk, b'\n') as u64;
        }
        if tail {
            keep_last(&mut split.stdout_kept, chunk, keep);
        }
        self.deliver(chunk);
        flow
    }

    fn output_left_open(&mut self) {
        self.output_left_open = true;
    }

    fn started(&mut self, shell: i32) {
        if let Some(plan) = self.yielding.as_mut() {
            plan.started(shell);
        }
    }

    fn stdin_opened(&mut self, stdin: std::os::fd::OwnedFd) {
        if let Some(plan) = self.yielding.as_mut() {
            plan.stdin_opened(stdin);
        }
    }

    fn follows_jobs(&self) -> bool {
        self.yielding.is_some()
    }

    fn left_running(&mut self, left: crate::exec::LeftRunning) {
        self.left = Some(left);
    }

    fn shell_on_loan(&mut self, loan: crate::exec::ShellLoan) {
        if let Some(plan) = self.yielding.as_mut() {
            plan.shell_on_loan(loan);
        }
    }

    fn terminal_opened(&mut self, control: crate::exec::pty::PtyControl) {
        if let Some(plan) = self.yielding.as_mut() {
            plan.terminal_opened(control);
        }
    }

    fn terminal_reader(&mut self, reader: Option<(&str, crate::exec::pty::TermMode)>) {
        if let Some(plan) = self.yielding.as_mut() {
            plan.terminal_reader(&mut self.sink, reader);
        }
    }

    fn moved_deadline(&self) -> Option<Instant> {
        self.yielding.as_ref().and_then(|plan| plan.job()).and_then(|job| job.moved_deadline())
    }

    fn next_tick(&self) -> Option<Instant> {
        self.yielding.as_deref().map(YieldPlan::next_tick)
    }

    fn tick(&mut self) {
        if let Some(plan) = self.yielding.as_mut() {
            plan.tick(&mut self.sink);
        }
    }

    fn consume(&mut self, chunk: &[u8]) -> Flow {
        if let Some(split) = self.split.as_mut() {
            // Stderr: no limit applies to it.
            split.stderr_lines += bytecount::count(chunk, b'\n') as u64;
            if self.tail_of_stdout.is_some() {
                keep_last(&mut split.stderr_kept, chunk, self.split_keep);
            }
            self.deliver(chunk);
            return Flow::Continue;
        }
        let mut flow = Flow::Continue;
        let mut chunk = chunk;
        if let Some(limit) = self.stop_after {
            (chunk, flow) = up_to_line(chunk, &mut self.lines_seen, limit);
            if chunk.is_empty() && flow == Flow::Stop {
                return flow;
            }
        }
        self.deliver(chunk);
        flow
    }
}
