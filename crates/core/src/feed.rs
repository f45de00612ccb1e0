//! The executor's output consumer for both surfaces: it feeds the sink, stops the producer once an
//! extracted `head -n N` has its lines (as a closed pipe would), and forwards live output — raw chunks
//! for the session-level path, throttled model-view snapshots for tool calls.

use std::time::{Duration, Instant};

use crate::exec::{Flow, OutputConsumer};
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
    on_chunk: Option<ChunkCallback<'a>>,
    on_update: Option<UpdateCallback<'a>>,
    last_update: Option<Instant>,
    view: ViewOptions,
}

impl<'a> Feed<'a> {
    pub fn new(sink: OutputSink, view: ViewOptions) -> Self {
        Self { sink, stop_after: None, lines_seen: 0, on_chunk: None, on_update: None, last_update: None, view }
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

    pub fn into_sink(self) -> OutputSink {
        self.sink
    }
}

impl OutputConsumer for Feed<'_> {
    fn consume(&mut self, chunk: &[u8]) -> Flow {
        let mut flow = Flow::Continue;
        let mut chunk = chunk;
        if let Some(limit) = self.stop_after {
            let wanted = limit.saturating_sub(self.lines_seen);
            if wanted == 0 {
                return Flow::Stop;
            }
            match memchr::memchr_iter(b'\n', chunk).nth((wanted - 1) as usize) {
                Some(pos) => {
                    chunk = &chunk[..=pos];
                    self.lines_seen = limit;
                    flow = Flow::Stop;
                }
                None => self.lines_seen += bytecount::count(chunk, b'\n') as u64,
            }
        }
        self.sink.push(chunk);
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
        flow
    }
}
