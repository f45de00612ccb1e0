//! Live output of a session-level `bash` command: raw chunks in, coalesced `bash_update` texts out.
//!
//! The executor pushes chunks from its own thread ([`LiveStream::push`], cheap: a copy under a lock);
//! a pump ([`LiveStream::pump`], on a worker thread started with the first chunk, so a command without
//! output needs no second thread) emits what has gathered, at most once per [`LIVE_INTERVAL`]
//! (so ≤ 20 events per second per command), and everything left once [`LiveStream::finish`] is called.
//!
//! Promises: memory per command stays under [`LIVE_MAX_BYTES`] — when output outruns the client, the
//! oldest pending bytes are dropped and the next event says how many (`skipped`); a UTF-8 sequence
//! split between chunks is never split between events; the pump returns only after emitting the rest.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The shortest time between two events of one command.
pub const LIVE_INTERVAL: Duration = Duration::from_millis(50);

/// The most bytes one event carries; older pending output beyond it is skipped.
pub const LIVE_MAX_BYTES: usize = 256 * 1024;

#[derive(Default)]
struct State {
    pending: Vec<u8>,
    skipped: u64,
    done: bool,
    /// A pump runs: only then is there anyone to wake (a wakeup is a system call, and most commands
    /// end without output, so without a pump).
    pumping: bool,
}

impl State {
    /// Whether the pump has something to emit now (not just the start of a split UTF-8 sequence).
    fn ready(&self) -> bool {
        self.done || self.skipped > 0 || complete_prefix_len(&self.pending) > 0
    }
}

#[derive(Default)]
pub struct LiveStream {
    state: Mutex<State>,
    wake: Condvar,
}

impl LiveStream {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a chunk of output (from the executor's thread).
    pub fn push(&self, chunk: &[u8]) {
        let mut state = self.lock();
        if chunk.len() >= LIVE_MAX_BYTES {
            state.skipped += (state.pending.len() + chunk.len() - LIVE_MAX_BYTES) as u64;
            state.pending.clear();
            state.pending.extend_from_slice(&chunk[chunk.len() - LIVE_MAX_BYTES..]);
        } else {
            let over = (state.pending.len() + chunk.len()).saturating_sub(LIVE_MAX_BYTES);
            if over > 0 {
                state.pending.drain(..over);
                state.skipped += over as u64;
            }
            state.pending.extend_from_slice(chunk);
        }
        let pumping = state.pumping;
        drop(state);
        if pumping {
            self.wake.notify_one();
        }
    }

    /// No more chunks will come; the pump emits the rest and returns.
    pub fn finish(&self) {
        let mut state = self.lock();
        state.done = true;
        let pumping = state.pumping;
        drop(state);
        if pumping {
            self.wake.notify_one();
        }
    }

    /// Emits `(text, skipped bytes)` until [`finish`](Self::finish); blocks the calling thread.
    pub fn pump(&self, mut emit: impl FnMut(&str, u64)) {
        let mut last_emit: Option<Instant> = None;
        let mut state = self.lock();
        // Set before the first look at the state, under the same lock: nothing pushed before is missed.
        state.pumping = true;
        loop {
            if !state.ready() {
                state = self.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            if !state.done {
                if let Some(due) = last_emit.map(|t| t + LIVE_INTERVAL) {
                    let now = Instant::now();
                    if now < due {
                        state = self.wake.wait_timeout(state, due - now).unwrap_or_else(PoisonError::into_inner).0;
                        continue;
                    }
                }
            }
            let done = state.done;
            let mut bytes = std::mem::take(&mut state.pending);
            let mut skipped = std::mem::take(&mut state.skipped);
            // Keep the start of a split UTF-8 sequence for the next event.
            let cut = if done { bytes.len() } else { complete_prefix_len(&bytes) };
            state.pending = bytes.split_off(cut);
            drop(state);
            if skipped > 0 {
                // The drop may have cut a sequence at the front: skip its continuation bytes too.
                let stray = bytes.iter().take(3).take_while(|b| **b & 0xC0 == 0x80).count();
                bytes.drain(..stray);
                skipped += stray as u64;
            }
            if !bytes.is_empty() || skipped > 0 {
                emit(&String::from_utf8_lossy(&bytes), skipped);
                last_emit = Some(Instant::now());
            }
            if done {
                return;
            }
            state = self.lock();
        }
    }
}

/// The newest partial result of a tool call, for its `tool_execution_update` events. The executor's
/// thread only replaces the text (a copy under a lock, [`LatestText::set`]); a pump writes it when
/// the output takes it. A client that stops reading stdout then holds the pump, never the call: the
/// call's deadline and an abort still act, and the updates it missed are superseded by the newest.
#[derive(Default)]
pub struct LatestText {
    state: Mutex<Latest>,
    wake: Condvar,
}

#[derive(Default)]
struct Latest {
    text: Option<String>,
    done: bool,
    /// A pump was asked for (by the first `set`).
    started: bool,
    /// The pump waits on the condition variable.
    pumping: bool,
}

impl LatestText {
    fn lock(&self) -> MutexGuard<'_, Latest> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Replaces the pending text (nothing once [`finish`](Self::finish)ed). True the first time:
    /// the caller starts the pump.
    pub fn set(&self, text: &str) -> bool {
        let mut state = self.lock();
        if state.done {
            return false;
        }
        match &mut state.text {
            Some(pending) => {
                pending.clear();
                pending.push_str(text);
            }
            none => *none = Some(text.to_string()),
        }
        let first = !std::mem::replace(&mut state.started, true);
        let pumping = state.pumping;
        drop(state);
        if pumping {
            self.wake.notify_one();
        }
        first
    }

    /// No more texts: the pump writes what is pending, then returns.
    pub fn finish(&self) {
        let mut state = self.lock();
        state.done = true;
        let pumping = state.pumping;
        drop(state);
        if pumping {
            self.wake.notify_one();
        }
    }

    /// Emits each newest text until [`finish`](Self::finish); blocks the calling thread.
    pub fn pump(&self, mut emit: impl FnMut(&str)) {
        let mut state = self.lock();
        state.pumping = true;
        loop {
            if let Some(text) = state.text.take() {
                drop(state);
                emit(&text);
                state = self.lock();
            } else if state.done {
                return;
            } else {
                state = self.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
            }
        }
    }
}

pub(crate) use bashrt_core::complete_utf8_len as complete_prefix_len;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn the_newest_text_replaces_what_the_pump_has_not_taken_and_nothing_comes_after_the_end() {
        let latest = Arc::new(LatestText::default());
        assert!(latest.set("a"));
        assert!(!latest.set("ab"));
        let (sent, got) = std::sync::mpsc::channel();
        let pump = {
            let latest = latest.clone();
            std::thread::spawn(move || latest.pump(|text| sent.send(text.to_string()).unwrap()))
        };
        assert_eq!(got.recv().unwrap(), "ab");
        latest.set("abc");
        latest.finish();
        assert!(!latest.set("after the end"));
        pump.join().unwrap();
        assert_eq!(got.try_iter().collect::<Vec<_>>(), ["abc"]);
    }

    #[test]
    fn a_split_utf8_sequence_is_kept_for_later() {
        let euro = "€".as_bytes();
        assert_eq!(complete_prefix_len(b"ab"), 2);
        assert_eq!(complete_prefix_len(&[b'a', euro[0]]), 1);
        assert_eq!(complete_prefix_len(&[b'a', euro[0], euro[1]]), 1);
        assert_eq!(complete_prefix_len(euro), 3);
        assert_eq!(complete_prefix_len(&[0x80, 0x80, 0x80, 0x80, 0x80]), 5);
        assert_eq!(complete_prefix_len(b""), 0);
    }

    /// Runs a pump over the chunks pushed by `feed`; returns the events.
    fn events(feed: impl FnOnce(&LiveStream)) -> Vec<(String, u64)> {
        let live = Arc::new(LiveStream::new());
        let pump = {
            let live = live.clone();
            std::thread::spawn(move || {
                let mut out = Vec::new();
                live.pump(|text, skipped| out.push((text.to_string(), skipped)));
                out
            })
        };
        feed(&live);
        live.finish();
        pump.join().unwrap()
    }

    #[test]
    fn every_byte_arrives_once_and_in_order() {
        let got = events(|live| {
            for i in 0..1000 {
                live.push(format!("{i}\n").as_bytes());
            }
        });
        let text: String = got.iter().map(|(t, _)| t.as_str()).collect();
        let want: String = (0..1000).map(|i| format!("{i}\n")).collect();
        assert_eq!(text, want);
        assert!(got.iter().all(|(_, skipped)| *skipped == 0));
    }

    #[test]
    fn utf8_split_across_pushes_is_whole_in_the_text() {
        let got = events(|live| {
            let euro = "€".as_bytes();
            live.push(&euro[..1]);
            live.push(&euro[1..]);
        });
        let text: String = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(text, "€");
    }

    #[test]
    fn output_beyond_the_limit_is_skipped_from_the_front_and_counted() {
        let got = events(|live| {
            live.push(&vec![b'a'; LIVE_MAX_BYTES]);
            live.push(b"tail");
        });
        let text: String = got.iter().map(|(t, _)| t.as_str()).collect();
        let skipped: u64 = got.iter().map(|(_, s)| s).sum();
        assert!(text.ends_with("tail"));
        assert_eq!(text.len() as u64 + skipped, LIVE_MAX_BYTES as u64 + 4);
    }
}
