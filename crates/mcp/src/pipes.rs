//! The connection's transport on the client's pipes, in place of rmcp's own stdio transport, for what
//! that one does not do:
//!
//! - every line that is not a message is answered ([`crate::lines`]);
//! - a client that does not read its answers cannot make the server hold them without bound: past
//!   the limits of [`crate::pending`], no more requests are read until it reads some — and while
//!   reading is paused, the client closing stdin still stops the server ([`Hangup`]);
//! - a client that went away stops what runs at once: the end of stdin or a failed write cancels the
//!   server's shutdown token (rmcp, left to itself, lets running handlers finish for a few seconds
//!   after the end of its input);
//! - the server ends even when the client never reads stdout again: once the shutdown began, a write
//!   that has not completed within [`OUTPUT_GRACE`] fails, and every later one with it. rmcp's own
//!   transport waits for such a write forever (its shutdown takes the writer's lock, which the blocked
//!   write holds), so the server never exited while its stdout stayed unread.
//!
//! Messages are written whole, one at a time, each as one line.

use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Interest};
use tokio::net::unix::pipe;
use tokio_util::sync::CancellationToken;

use crate::lines::{self, Decoded, HEAD_BYTES, MAX_LINE_BYTES};
use crate::pending::Pending;

/// How long the client has to read what the server still writes once it began to stop (the end of
/// stdin, a signal): past it, the client counts as gone and the server ends without writing the rest.
/// As long as rmcp itself waits for the answers in flight after the end of the input.
pub const OUTPUT_GRACE: Duration = Duration::from_secs(5);

/// A line buffer that grew past this (a large request) is given back once the line is read.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;

/// The writing half: one message at a time, each whole.
struct Output<W> {
    writer: tokio::sync::Mutex<W>,
    /// The server's shutdown: a failed write cancels it.
    stop: CancellationToken,
    /// Cancelled [`OUTPUT_GRACE`] after `stop`: a write still blocked then fails.
    deadline: CancellationToken,
    /// A write failed (or the transport closed): nothing more is written, not even the rest of a cut
    /// line.
    dead: AtomicBool,
}

impl<W: AsyncWrite + Unpin + Send> Output<W> {
    async fn write_line(&self, line: &[u8]) -> io::Result<()> {
        let gone = || io::Error::new(io::ErrorKind::BrokenPipe, "the client is gone");
        if self.dead.load(Ordering::Acquire) {
            return Err(gone());
        }
        let mut writer = self.writer.lock().await;
        if self.dead.load(Ordering::Acquire) {
            return Err(gone());
        }
        let written = tokio::select! {
            // A write that can proceed does, even past the deadline: only a blocked one fails.
            biased;
            written = async {
                writer.write_all(line).await?;
                writer.flush().await
            } => written,
            () = self.deadline.cancelled() => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client did not read the server's output within {} s of the shutdown", OUTPUT_GRACE.as_secs()),
            )),
        };
        if let Err(e) = &written {
            self.dead.store(true, Ordering::Release);
            if !self.stop.is_cancelled() {
                tracing::info!("the client went away ({e}); shutting down");
                self.stop.cancel();
            } else {
                tracing::info!("cannot write to the client ({e})");
            }
        }
        written
    }
}

/// The client's end of stdin, watched while reading is paused. The end of the input must stop the
/// server then too, but it cannot be read: the requests before it wait in the pipe. A pipe reports a
/// hangup once every writer closed it, whatever is still in it, so a second open file description of
/// stdin (its own, so that its non-blocking mode stays its own) that is never read waits for that.
/// Without a pipe on stdin (a file), nothing is watched.
struct Hangup(Option<pipe::Receiver>);

impl Hangup {
    fn watch() -> Self {
        match pipe::OpenOptions::new().open_receiver("/proc/self/fd/0") {
            Ok(pipe) => Self(Some(pipe)),
            Err(e) => {
                tracing::debug!("stdin is not watched for its end while reading is paused: {e}");
                Self(None)
            }
        }
    }

    /// Returns once the client closed its end of stdin.
    async fn closed(&self) {
        let Some(pipe) = &self.0 else { return std::future::pending().await };
        loop {
            match pipe.ready(Interest::READABLE).await {
                Ok(ready) if ready.is_read_closed() => return,
                // The client wrote more: forget that (a `WouldBlock` clears the readiness without
                // reading) and wait for the next change.
                Ok(_) => {
                    let _ = pipe.try_io(|| Err::<(), _>(io::ErrorKind::WouldBlock.into()));
                }
                Err(e) => {
                    tracing::debug!("stdin is no longer watched for its end: {e}");
                    return std::future::pending().await;
                }
            }
        }
    }
}

/// rmcp's transport over the client's stdin and stdout.
pub struct Stdio<R, W> {
    input: BufReader<R>,
    /// The line being read: kept across cancelled reads (rmcp polls `receive` in a `select!`).
    line: Vec<u8>,
    /// The line being read passed [`MAX_LINE_BYTES`]: only its head is kept.
    too_long: bool,
    output: Arc<Output<W>>,
    pending: Arc<Pending>,
    hangup: Hangup,
    stop: CancellationToken,
    input_ended: Arc<AtomicBool>,
}

/// What one read of a line found.
enum Read {
    Line,
    TooLong,
    End(Option<io::Error>),
}

impl<R, W> Stdio<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport whose end of input and failed writes cancel `stop`, and whose writes fail once
    /// [`OUTPUT_GRACE`] passed after `stop` was cancelled (a task on the current runtime waits for
    /// that). `input_ended` is set when stdin ends.
    pub fn new(input: R, output: W, stop: CancellationToken, input_ended: Arc<AtomicBool>) -> Self {
        let deadline = CancellationToken::new();
        tokio::spawn({
            let (stop, deadline) = (stop.clone(), deadline.clone());
            async move {
                stop.cancelled().await;
                tokio::time::sleep(OUTPUT_GRACE).await;
                deadline.cancel();
            }
        });
        let output = Output {
            writer: tokio::sync::Mutex::new(output),
            stop: stop.clone(),
            deadline,
            dead: AtomicBool::new(false),
        };
        Self {
            input: BufReader::new(input),
            line: Vec::new(),
            too_long: false,
            output: Arc::new(output),
            pending: Arc::new(Pending::default()),
            hangup: Hangup::watch(),
            stop,
            input_ended,
        }
    }

    /// The input ended (`error`: it broke): the server stops.
    fn ended(&mut self, error: Option<io::Error>) -> Option<ClientJsonRpcMessage> {
        match error {
            Some(e) => tracing::info!("cannot read stdin ({e}); shutting down"),
            None => tracing::info!("the client closed stdin; shutting down"),
        }
        self.input_ended.store(true, Ordering::Release);
        self.stop.cancel();
        None
    }

    /// Reads up to the next newline into `self.line`, keeping at most [`MAX_LINE_BYTES`] of it (only
    /// [`HEAD_BYTES`] of a longer one). Cancel-safe: what was read stays in `self.line`, and nothing
    /// is consumed from the input without being recorded there.
    async fn read_line(&mut self) -> Read {
        loop {
            let (consumed, ended) = {
                let available = match self.input.fill_buf().await {
                    Ok(available) => available,
                    Err(e) => return Read::End(Some(e)),
                };
                if available.is_empty() {
                    return Read::End(None);
                }
                let newline = available.iter().position(|&b| b == b'\n');
                let piece = &available[..newline.unwrap_or(available.len())];
                if !self.too_long {
                    if self.line.len() + piece.len() > MAX_LINE_BYTES {
                        self.too_long = true;
                        let keep = HEAD_BYTES.saturating_sub(self.line.len()).min(piece.len());
                        self.line.truncate(HEAD_BYTES);
                        self.line.extend_from_slice(&piece[..keep]);
                        self.line.shrink_to(HEAD_BYTES);
                    } else {
                        self.line.extend_from_slice(piece);
                    }
                }
                (newline.map_or(available.len(), |at| at + 1), newline.is_some())
            };
            self.input.consume(consumed);
            if ended {
                return if std::mem::take(&mut self.too_long) { Read::TooLong } else { Read::Line };
            }
        }
    }

    /// Answers a line that was not a message, on a task of its own (a `receive` may be cancelled at
    /// any await; the answer must still be written whole).
    fn refuse(&self, refusal: lines::Refusal) {
        tracing::debug!("answering a line that is not a message: {}", refusal.error.message);
        let line = refusal.to_line();
        self.pending.refusing();
        let (output, pending) = (self.output.clone(), self.pending.clone());
        tokio::spawn(async move {
            // A failure was logged, and stopped the server.
            let _ = output.write_line(&line).await;
            pending.refused();
        });
    }

    /// Counts a request as owed an answer, and a cancellation as releasing one.
    fn note(&self, message: &ClientJsonRpcMessage) {
        match message {
            JsonRpcMessage::Request(request) => {
                let read = matches!(request.request, ClientRequest::ReadResourceRequest(_));
                self.pending.requested(&request.id, read);
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) = &notification.notification {
                    if let Some(id) = &cancelled.params.request_id {
                        self.pending.cancelled(id);
                    }
                }
            }
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {}
        }
    }
}

/// Marks an answer written when its send ends, also when rmcp drops the send (at its shutdown).
struct Answering {
    pending: Arc<Pending>,
    id: Option<RequestId>,
}

impl Drop for Answering {
    fn drop(&mut self) {
        if let Some(id) = &self.id {
            self.pending.answered(id);
        }
    }
}

impl<R, W> Transport<RoleServer> for Stdio<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let id = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => None,
        };
        // Here rather than in the future: rmcp calls `send` in order with the messages it reads, so a
        // cancellation read after this answer was handed over no longer drops it.
        if let Some(id) = &id {
            self.pending.sending(id);
        }
        let answering = Answering { pending: self.pending.clone(), id };
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let output = self.output.clone();
        async move {
            let _answering = answering;
            match line {
                Ok(line) => output.write_line(&line).await,
                Err(e) => {
                    tracing::error!("cannot serialize a message: {e}");
                    Err(io::Error::other(e))
                }
            }
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            tokio::select! {
                // Only while reading is paused does the hangup count: otherwise the requests before
                // the end are read first.
                biased;
                () = self.pending.room() => {}
                () = self.hangup.closed() => return self.ended(None),
            }
            let decoded = match self.read_line().await {
                Read::Line => lines::decode(&self.line),
                Read::TooLong => Decoded::Refused(lines::too_long(&self.line)),
                Read::End(error) => return self.ended(error),
            };
            self.line.clear();
            if self.line.capacity() > KEEP_BUFFER_BYTES {
                self.line = Vec::new();
            }
            match decoded {
                Decoded::Blank => {}
                Decoded::Dropped(reason) => tracing::debug!("dropping a notification the server cannot read: {reason}"),
                Decoded::Refused(refusal) => self.refuse(refusal),
                Decoded::Message(message) => {
                    self.note(&message);
                    return Some(*message);
                }
            }
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        // Not the writer's lock: a write blocked on a client that does not read holds it until
        // `OUTPUT_GRACE` passed.
        self.output.dead.store(true, Ordering::Release);
        Ok(())
    }
}
