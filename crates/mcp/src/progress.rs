//! Live output of a `bash` call as `notifications/progress`, when the client gave a progress token.
//!
//! The executor's thread pushes raw chunks ([`LiveTail::push`]: a copy under a lock, keeping only the
//! last few KB); a task on the server's runtime sends what changed, at most once per
//! [`PROGRESS_INTERVAL`], with the last [`PROGRESS_LINES`] lines in `message` and the bytes so far as
//! `progress`. Promises: output that arrives inside a throttle window is sent when the window ends (a
//! trailing update), never dropped, and [`Progress::finish`] sends whatever is still pending before
//! the call answers — so the last lines a client saw are the last lines the command printed; `progress`
//! grows with every notification, as the protocol requires; a call that prints nothing still gets one
//! every [`HEARTBEAT`] (Claude Code gives up on a call that sent nothing for 30 minutes, without
//! cancelling it).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bashrt_core::{model_view, View, ViewOptions};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The shortest time between two progress notifications of one call.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(200);

/// The longest time between two notifications of a running call, output or not.
pub const HEARTBEAT: Duration = Duration::from_secs(60);

/// How many of the latest lines a notification's `message` carries.
pub const PROGRESS_LINES: usize = 10;

/// The most bytes of the latest output kept for the message (longer lines are cut at the front).
const TAIL_BYTES: usize = 4096;

#[derive(Default)]
struct State {
    tail: Vec<u8>,
    total: u64,
    dirty: bool,
    done: bool,
}

/// The end of a call's output so far, shared by the executor's thread and the sending task.
#[derive(Default)]
pub struct LiveTail {
    state: Mutex<State>,
    changed: Notify,
}

impl LiveTail {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a chunk of output (on the executor's thread).
    pub fn push(&self, chunk: &[u8]) {
        let mut state = self.lock();
        let keep = &chunk[chunk.len().saturating_sub(TAIL_BYTES)..];
        let over = (state.tail.len() + keep.len()).saturating_sub(TAIL_BYTES);
        state.tail.drain(..over);
        state.tail.extend_from_slice(keep);
        state.total += chunk.len() as u64;
        state.dirty = true;
        drop(state);
        self.changed.notify_one();
    }

    fn finish(&self) {
        self.lock().done = true;
        self.changed.notify_one();
    }

    /// Waits until there is something to send, the call ended, or [`HEARTBEAT`] passed; takes it.
    async fn next(&self) -> Update {
        let deadline = Instant::now() + HEARTBEAT;
        loop {
            {
                let mut state = self.lock();
                if state.dirty || state.done {
                    let news = std::mem::take(&mut state.dirty).then(|| (state.total, latest_lines(&state.tail)));
                    return Update { news, done: state.done };
                }
            }
            if tokio::time::timeout_at(deadline, self.changed.notified()).await.is_err() {
                // Nothing new: the same lines again, so the client knows the call still runs.
                let state = self.lock();
                return Update { news: Some((state.total, latest_lines(&state.tail))), done: false };
            }
        }
    }

    /// Waits until `deadline`, or less if the call ends first.
    async fn throttle(&self, deadline: Instant) {
        while !self.lock().done {
            if tokio::time::timeout_at(deadline, self.changed.notified()).await.is_err() {
                return;
            }
        }
    }
}

struct Update {
    /// Bytes so far and the latest lines, when output arrived since the last notification.
    news: Option<(u64, String)>,
    done: bool,
}

/// The last [`PROGRESS_LINES`] lines of `tail`, as the model would read them (escape sequences and
/// carriage-return redraws cleaned up).
fn latest_lines(tail: &[u8]) -> String {
    let body = tail.strip_suffix(b"\n").unwrap_or(tail);
    let start =
        body.iter().enumerate().rev().filter(|(_, b)| **b == b'\n').nth(PROGRESS_LINES - 1).map_or(0, |(i, _)| i + 1);
    // The kept tail may start inside a character: skip its continuation bytes.
    let lines = &body[start..];
    let lines = &lines[lines.iter().take(3).take_while(|b| **b & 0xC0 == 0x80).count()..];
    match model_view(lines, &ViewOptions::default()) {
        View::Text(text) => text,
        View::Binary { .. } => "(binary output)".to_string(),
    }
}

/// The progress notifications of one call.
pub struct Progress {
    tail: Arc<LiveTail>,
    sender: JoinHandle<()>,
}

impl Progress {
    /// Starts sending progress for `token` to `peer`.
    pub fn start(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        let tail = Arc::new(LiveTail::default());
        let sender = tokio::spawn(send(tail.clone(), peer, token));
        Self { tail, sender }
    }

    /// Where the executor pushes output.
    pub fn tail(&self) -> Arc<LiveTail> {
        self.tail.clone()
    }

    /// The call ended: sends what is pending, then returns.
    pub async fn finish(self) {
        self.tail.finish();
        if let Err(e) = self.sender.await {
            tracing::error!("the progress sender failed: {e}");
        }
    }
}

async fn send(tail: Arc<LiveTail>, peer: Peer<RoleServer>, token: ProgressToken) {
    let mut last = -1.0_f64;
    loop {
        let update = tail.next().await;
        if let Some((total, message)) = update.news {
            // Bytes so far; a notification without new bytes (a heartbeat) still grows it a little.
            last = (total as f64).max(last + 0.001);
            let param = ProgressNotificationParam::new(token.clone(), last).with_message(message);
            if let Err(e) = peer.notify_progress(param).await {
                tracing::debug!("cannot send a progress notification: {e}");
            }
        }
        if update.done {
            return;
        }
        tail.throttle(Instant::now() + PROGRESS_INTERVAL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_is_the_last_lines_whole() {
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        assert_eq!(
            latest_lines(text.as_bytes()),
            (21..=30).map(|i| format!("line {i}")).collect::<Vec<_>>().join("\n")
        );
        assert_eq!(latest_lines(b"a\nb"), "a\nb");
        assert_eq!(latest_lines(&"€".as_bytes()[1..]), "");
        assert_eq!(latest_lines(b"\x1b[31mred\x1b[0m\n"), "red");
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_that_prints_nothing_still_gets_a_notification_every_heartbeat() {
        let tail = LiveTail::default();
        tail.push(b"compiling\n");
        let first = tail.next().await;
        assert_eq!(first.news, Some((10, "compiling".to_string())));
        // Nothing more is printed: the next update comes when the heartbeat is due (time is paused
        // and jumps ahead to it), with the same lines.
        let started = Instant::now();
        let beat = tail.next().await;
        assert_eq!(started.elapsed(), HEARTBEAT);
        assert_eq!((beat.news, beat.done), (Some((10, "compiling".to_string())), false));
        tail.finish();
        assert!(tail.next().await.done);
    }

    #[test]
    fn the_tail_keeps_the_latest_bytes_and_counts_all() {
        let tail = LiveTail::default();
        tail.push(&vec![b'a'; TAIL_BYTES * 2]);
        tail.push(b"\nend\n");
        let state = tail.lock();
        assert_eq!(state.total, TAIL_BYTES as u64 * 2 + 5);
        assert_eq!(state.tail.len(), TAIL_BYTES);
        assert!(state.tail.ends_with(b"\nend\n"));
    }
}
