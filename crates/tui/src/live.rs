//! The live tail of a running command: what the UI draws while output streams in. The command's thread
//! pushes every chunk; the UI thread copies the last lines when it draws a frame, so the UI never
//! waits for the command and never does work proportional to the output.
//!
//! Promises: memory is bounded — [`KEEP_LINES`] lines of at most [`LINE_BYTES`] bytes each, plus the
//! first [`CAPTURE_BYTES`] of the output — whatever the output size; a push costs O(chunk) SIMD
//! scanning plus O(kept lines); the totals count every byte and line.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

/// Logical lines kept: the bang component shows the last 20, the tool preview fewer.
pub const KEEP_LINES: usize = 40;
/// Bytes kept of one line; a longer line's length is still counted (its clamp notice says how much).
pub const LINE_BYTES: usize = 64 * 1024;
/// The whole output is kept up to this size, so that a small output can be paged with its colours
/// even when no artifact was written.
pub const CAPTURE_BYTES: usize = 4 * 1024 * 1024;

/// One line of output, possibly cut.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TailLine {
    /// Its first bytes (at most [`LINE_BYTES`]), without the `\n`.
    pub bytes: Vec<u8>,
    /// Its full length in bytes.
    pub len: u64,
}

/// A copy of the tail for one frame.
#[derive(Debug, Clone, Default)]
pub struct TailSnapshot {
    /// The last lines, oldest first; the last may be unterminated (still being written).
    pub lines: Vec<TailLine>,
    pub total_lines: u64,
}

#[derive(Debug, Default)]
struct Inner {
    lines: VecDeque<TailLine>,
    /// The line being written (no `\n` yet).
    current: TailLine,
    newlines: u64,
    capture: Option<Vec<u8>>,
    /// Buffers of dropped lines, for the next ones.
    spare: Vec<Vec<u8>>,
}

/// Shared between the command's thread (pushing) and the UI (reading). Cheap to clone.
///
/// The UI never waits for the command's thread: it reads the generation without a lock, and when a
/// push holds the tail at the moment a frame is drawn (the pushing thread may even be preempted while
/// holding it, on a busy machine), the frame shows the previous copy.
#[derive(Debug, Clone)]
pub struct LiveTail {
    inner: Arc<Mutex<Inner>>,
    generation: Arc<AtomicU64>,
    /// The last copy the UI made, per number of lines asked for; only the UI thread touches it.
    last: Arc<Mutex<Option<(usize, TailSnapshot)>>>,
}

impl Default for LiveTail {
    fn default() -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner { capture: Some(Vec::new()), ..Inner::default() })),
            generation: Arc::new(AtomicU64::new(0)),
            last: Arc::new(Mutex::new(None)),
        }
    }
}

impl LiveTail {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes one chunk of output.
    pub fn push(&self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        // The scans happen before the lock: the UI waits for none of them.
        let newlines = bytecount::count(chunk, b'\n');
        // Only the last KEEP_LINES lines of the chunk can survive: skip the rest without looking at it.
        let cut = if newlines > KEEP_LINES { memchr::memrchr_iter(b'\n', chunk).nth(KEEP_LINES) } else { None };
        let mut inner = self.lock();
        inner.newlines += newlines as u64;
        let fits = inner.capture.as_ref().is_some_and(|c| c.len() + chunk.len() <= CAPTURE_BYTES);
        if fits {
            if let Some(capture) = inner.capture.as_mut() {
                capture.extend_from_slice(chunk);
            }
        } else {
            inner.capture = None;
        }
        let mut rest = chunk;
        if let Some(cut) = cut {
            // Every kept line is replaced: keep their buffers for the new ones.
            let Inner { lines, spare, current, .. } = &mut *inner;
            spare.extend(lines.drain(..).map(|l| l.bytes));
            current.bytes.clear();
            current.len = 0;
            rest = &chunk[cut + 1..];
        }
        while !rest.is_empty() {
            let (piece, ended) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], Some(i + 1)),
                None => (rest, None),
            };
            let current = &mut inner.current;
            current.len += piece.len() as u64;
            let room = LINE_BYTES.saturating_sub(current.bytes.len());
            current.bytes.extend_from_slice(&piece[..piece.len().min(room)]);
            match ended {
                Some(next) => {
                    // A flood allocates nothing here: a dropped line's buffer becomes the next line's.
                    let mut fresh = inner.spare.pop().unwrap_or_default();
                    fresh.clear();
                    let line = std::mem::replace(&mut inner.current, TailLine { bytes: fresh, len: 0 });
                    inner.lines.push_back(line);
                    if inner.lines.len() > KEEP_LINES {
                        if let Some(old) = inner.lines.pop_front() {
                            inner.spare.push(old.bytes);
                        }
                    }
                    rest = &rest[next..];
                }
                None => break,
            }
        }
        drop(inner);
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// Changes with every push: the UI redraws only when it moved.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The last `n` lines (the unterminated one included) and the totals — or, while a push holds the
    /// tail, the previous copy of them.
    pub fn snapshot(&self, n: usize) -> TailSnapshot {
        let fresh = match self.inner.try_lock() {
            Ok(inner) => Some(copy(&inner, n)),
            Err(TryLockError::Poisoned(e)) => Some(copy(&e.into_inner(), n)),
            Err(TryLockError::WouldBlock) => None,
        };
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        match (fresh, last.as_ref()) {
            (Some(snap), _) => {
                *last = Some((n, snap.clone()));
                snap
            }
            (None, Some((kept, snap))) if *kept == n => snap.clone(),
            (None, _) => copy(&self.lock(), n),
        }
    }

    /// The whole output, when it was small enough to keep.
    pub fn captured(&self) -> Option<Vec<u8>> {
        self.lock().capture.clone()
    }
}

fn copy(inner: &Inner, n: usize) -> TailSnapshot {
    let partial = !inner.current.bytes.is_empty() || inner.current.len > 0;
    let from_complete = n.saturating_sub(usize::from(partial));
    let skip = inner.lines.len().saturating_sub(from_complete);
    let mut lines: Vec<TailLine> = inner.lines.iter().skip(skip).cloned().collect();
    if partial {
        lines.push(inner.current.clone());
    }
    let total_lines = inner.newlines + u64::from(partial);
    TailSnapshot { lines, total_lines }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_and_counts_everything() {
        let tail = LiveTail::default();
        let text: String = (1..=1000).map(|i| format!("{i}\n")).collect();
        for chunk in text.as_bytes().chunks(7) {
            tail.push(chunk);
        }
        tail.push(b"partial");
        let snap = tail.snapshot(3);
        let lines: Vec<&[u8]> = snap.lines.iter().map(|l| l.bytes.as_slice()).collect();
        assert_eq!(lines, [b"999".as_slice(), b"1000", b"partial"]);
        assert_eq!(snap.total_lines, 1001);
        assert!(tail.captured().is_some_and(|c| c.ends_with(b"1000\npartial")));
    }

    #[test]
    fn a_huge_chunk_keeps_only_its_last_lines_and_long_lines_are_cut() {
        let tail = LiveTail::default();
        let mut chunk = b"y\n".repeat(3 * 1024 * 1024);
        chunk.extend(std::iter::repeat_n(b'x', LINE_BYTES + 10));
        tail.push(&chunk);
        let snap = tail.snapshot(KEEP_LINES + 5);
        assert_eq!(snap.lines.len(), KEEP_LINES + 1);
        let last = snap.lines.last().unwrap();
        assert_eq!((last.bytes.len(), last.len), (LINE_BYTES, LINE_BYTES as u64 + 10));
        assert_eq!(snap.total_lines, 3 * 1024 * 1024 + 1);
        assert!(tail.captured().is_none(), "larger than the capture");
    }
}
