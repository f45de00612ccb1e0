//! A document the pager shows: an artifact file (possibly gigabytes) or text in memory, read lazily.
//! A background thread indexes it — a checkpoint every 4096 lines or 64 KiB — so a screen anywhere in it is one seek and a short read, and opening it costs nothing.
//!
//! Promises: memory is bounded by the checkpoints (a few MiB for a 1 GB file of tiny lines), never by
//! the document; a line longer than [`SEGMENT`] bytes is shown as several rows ("segments", cut on a
//! character boundary), numbered as one logical line; the index and the reader cut lines the same way.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Longest piece of a line handled as one row of the document.
pub const SEGMENT: u64 = 4096;
const CHECK_LINES: u64 = 4096;
const CHECK_BYTES: u64 = 64 * 1024;
const BLOCK: usize = 1024 * 1024;

/// Where the bytes are.
#[derive(Debug, Clone)]
pub enum Source {
    /// An open file (an artifact).
    File(Arc<File>),
    /// Bytes in memory (an output that was not spilled).
    Memory(Arc<[u8]>),
}

impl Source {
    /// The file at `path`, opened without following links and refused unless regular.
    pub fn open(path: &Path) -> io::Result<Self> {
        // Never through a link, never a FIFO planted in the artifact's place (it would hang the UI).
        Ok(Self::File(Arc::new(bashrt_core::open_regular(path)?)))
    }

    fn len(&self) -> io::Result<u64> {
        match self {
            Self::File(f) => Ok(f.metadata()?.len()),
            Self::Memory(b) => Ok(b.len() as u64),
        }
    }

    /// Reads up to `buf.len()` bytes at `offset`; fewer only at the end.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::File(f) => {
                let mut done = 0;
                while done < buf.len() {
                    match f.read_at(&mut buf[done..], offset + done as u64) {
                        Ok(0) => break,
                        Ok(n) => done += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(e),
                    }
                }
                Ok(done)
            }
            Self::Memory(b) => {
                let start = (offset as usize).min(b.len());
                let n = buf.len().min(b.len() - start);
                buf[..n].copy_from_slice(&b[start..start + n]);
                Ok(n)
            }
        }
    }
}

/// A row of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocLine {
    /// 1-based logical line number.
    pub number: u64,
    /// A later segment of a long line.
    pub continuation: bool,
    /// The bytes, without the `\n`.
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, Copy)]
struct Checkpoint {
    /// Index of the row that starts here (0-based).
    row: u64,
    offset: u64,
    /// Logical line number of that row.
    number: u64,
    continuation: bool,
}

#[derive(Debug, Default)]
struct IndexState {
    checkpoints: Vec<Checkpoint>,
    rows: u64,
    logical: u64,
    scanned: u64,
    done: bool,
    error: Option<String>,
}

/// How far the index got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub rows: u64,
    pub lines: u64,
    pub scanned: u64,
    pub len: u64,
    pub done: bool,
}

/// Reads a document through its (growing) index; cheap to clone, for a search thread.
#[derive(Clone)]
pub struct Reader {
    source: Source,
    len: u64,
    state: Arc<Mutex<IndexState>>,
}

/// A document and its index, which a background thread builds until it is done or the document is
/// dropped.
pub struct Document {
    reader: Reader,
    stop: Arc<AtomicBool>,
}

impl std::ops::Deref for Document {
    type Target = Reader;
    fn deref(&self) -> &Reader {
        &self.reader
    }
}

impl Document {
    /// Starts indexing in the background; the document can be read at once.
    pub fn open(source: Source) -> io::Result<Self> {
        let len = source.len()?;
        let state = Arc::new(Mutex::new(IndexState {
            checkpoints: vec![Checkpoint { row: 0, offset: 0, number: 1, continuation: false }],
            ..IndexState::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let doc =
            Self { reader: Reader { source: source.clone(), len, state: Arc::clone(&state) }, stop: Arc::clone(&stop) };
        std::thread::Builder::new().name("bashrt-pager-index".into()).spawn(move || {
            if let Err(e) = index(&source, len, &state, &stop) {
                lock(&state).error = Some(e.to_string());
            }
            lock(&state).done = true;
        })?;
        Ok(doc)
    }
}

impl Reader {
    pub fn progress(&self) -> Progress {
        let s = lock(&self.state);
        Progress { rows: s.rows, lines: s.logical, scanned: s.scanned, len: self.len, done: s.done }
    }

    /// Rows `first..first + count` (fewer at the end). Reads from the nearest checkpoint before `first`.
    pub fn rows(&self, first: u64, count: usize) -> io::Result<Vec<DocLine>> {
        let start = {
            let s = lock(&self.state);
            let i = s.checkpoints.partition_point(|c| c.row <= first).saturating_sub(1);
            s.checkpoints[i]
        };
        let mut scanner = Scanner::new(&self.source, self.len, start);
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let Some(line) = scanner.next_row()? else { break };
            if scanner.row > first {
                out.push(line);
            }
        }
        Ok(out)
    }

    /// Calls `f` with every row from `first` on (forwards) until it returns true or `stop` is set;
    /// returns the row index where it stopped.
    pub fn scan_from(
        &self,
        first: u64,
        stop: &AtomicBool,
        mut f: impl FnMut(u64, &DocLine) -> bool,
    ) -> io::Result<Option<u64>> {
        let start = {
            let s = lock(&self.state);
            let i = s.checkpoints.partition_point(|c| c.row <= first).saturating_sub(1);
            s.checkpoints[i]
        };
        let mut scanner = Scanner::new(&self.source, self.len, start);
        while let Some(line) = scanner.next_row()? {
            let row = scanner.row - 1;
            if row >= first && f(row, &line) {
                return Ok(Some(row));
            }
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
        Ok(None)
    }
}

impl Drop for Document {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn lock(state: &Mutex<IndexState>) -> MutexGuard<'_, IndexState> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where a segment that starts at `start` and has no `\n` within [`SEGMENT`] bytes ends: `SEGMENT`
/// bytes on, moved back (at most 3 bytes) so that it does not end inside a UTF-8 character.
fn cut(source: &Source, start: u64) -> io::Result<u64> {
    let end = start + SEGMENT;
    let mut around = [0u8; 4];
    let n = source.read_at(end - 3, &mut around)?;
    let mut cut = end;
    // `around[3]` is the byte at `end`: a continuation byte there means a character straddles the cut.
    let mut i = 3;
    while i < n && i > 0 && around[i] & 0xC0 == 0x80 {
        cut -= 1;
        i -= 1;
    }
    Ok(cut)
}

/// Reads rows one after another from a checkpoint.
struct Scanner<'a> {
    source: &'a Source,
    len: u64,
    buf: Vec<u8>,
    buf_start: u64,
    pos: u64,
    /// Rows returned so far, counted from the document's start.
    row: u64,
    number: u64,
    continuation: bool,
}

impl<'a> Scanner<'a> {
    fn new(source: &'a Source, len: u64, from: Checkpoint) -> Self {
        Self {
            source,
            len,
            buf: Vec::new(),
            buf_start: from.offset,
            pos: from.offset,
            row: from.row,
            number: from.number,
            continuation: from.continuation,
        }
    }

    fn next_row(&mut self) -> io::Result<Option<DocLine>> {
        if self.pos >= self.len {
            return Ok(None);
        }
        let want_end = (self.pos + SEGMENT + 1).min(self.len);
        if want_end > self.buf_start + self.buf.len() as u64 || self.pos < self.buf_start {
            self.buf.resize(BLOCK.max(SEGMENT as usize + 1), 0);
            let n = self.source.read_at(self.pos, &mut self.buf)?;
            self.buf.truncate(n);
            self.buf_start = self.pos;
        }
        let from = ((self.pos - self.buf_start) as usize).min(self.buf.len());
        let window = &self.buf[from..(from + SEGMENT as usize).min(self.buf.len())];
        if window.is_empty() {
            // The file is shorter than it was when opened: it ends here.
            return Ok(None);
        }
        let (bytes, end, ends_line) = match memchr::memchr(b'\n', window) {
            Some(i) => (window[..i].to_vec(), self.pos + i as u64 + 1, true),
            None if self.pos + SEGMENT >= self.len => (window.to_vec(), self.len, true),
            None => {
                let end = cut(self.source, self.pos)?.min(self.pos + window.len() as u64);
                (window[..(end - self.pos) as usize].to_vec(), end, false)
            }
        };
        let line = DocLine { number: self.number, continuation: self.continuation, bytes };
        self.pos = end;
        self.row += 1;
        self.continuation = !ends_line;
        if ends_line {
            self.number += 1;
        }
        Ok(Some(line))
    }
}

/// Counts rows as the indexer finds them and drops a checkpoint every so often.
struct Counter {
    rows: u64,
    number: u64,
    continuation: bool,
    last: Checkpoint,
    pending: Vec<Checkpoint>,
}

impl Counter {
    /// A row ended at `end` (the next one starts there).
    fn row_done(&mut self, end: u64, ends_line: bool) {
        self.rows += 1;
        self.continuation = !ends_line;
        if ends_line {
            self.number += 1;
        }
        if self.rows - self.last.row >= CHECK_LINES || end - self.last.offset >= CHECK_BYTES {
            self.last =
                Checkpoint { row: self.rows, offset: end, number: self.number, continuation: self.continuation };
            self.pending.push(self.last);
        }
    }

    fn publish(&mut self, state: &Mutex<IndexState>, scanned: u64) {
        let mut s = lock(state);
        s.checkpoints.append(&mut self.pending);
        s.rows = self.rows;
        s.logical = self.number - 1;
        s.scanned = scanned;
    }
}

/// The indexer: newlines found with SIMD over 1 MiB blocks; segments cut where a line runs past
/// [`SEGMENT`] bytes; a checkpoint every so often.
fn index(source: &Source, len: u64, state: &Mutex<IndexState>, stop: &AtomicBool) -> io::Result<()> {
    let mut buf = vec![0u8; BLOCK];
    let mut offset = 0u64;
    let mut row_start = 0u64;
    let mut counter = Counter {
        rows: 0,
        number: 1,
        continuation: false,
        last: Checkpoint { row: 0, offset: 0, number: 1, continuation: false },
        pending: Vec::new(),
    };
    while offset < len {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let n = source.read_at(offset, &mut buf)?;
        if n == 0 {
            break;
        }
        for i in memchr::memchr_iter(b'\n', &buf[..n]) {
            let newline = offset + i as u64;
            while newline - row_start >= SEGMENT {
                let end = cut(source, row_start)?;
                counter.row_done(end, false);
                row_start = end;
            }
            counter.row_done(newline + 1, true);
            row_start = newline + 1;
        }
        offset += n as u64;
        // A long line without a newline yet: cut what is certain now.
        while offset.min(len) - row_start > SEGMENT + 3 {
            let end = cut(source, row_start)?;
            counter.row_done(end, false);
            row_start = end;
        }
        counter.publish(state, offset);
    }
    // The last row, unterminated (possibly longer than a segment).
    while len > row_start {
        let end = if len - row_start > SEGMENT { cut(source, row_start)? } else { len };
        counter.row_done(end, end == len);
        row_start = end;
    }
    counter.publish(state, len);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_bytes(bytes: Vec<u8>) -> Document {
        let doc = Document::open(Source::Memory(bytes.into())).unwrap();
        while !doc.progress().done {
            std::thread::yield_now();
        }
        doc
    }

    #[test]
    fn rows_anywhere_match_a_straight_read() {
        let mut text = String::new();
        for i in 1..=20_000 {
            text.push_str(&format!("line {i}\n"));
            if i % 5000 == 0 {
                text.push_str(&"é".repeat(5000));
                text.push('\n');
            }
        }
        text.push_str("tail");
        let doc = open_bytes(text.clone().into_bytes());
        let p = doc.progress();
        let all = doc.rows(0, p.rows as usize + 10).unwrap();
        assert_eq!(all.len() as u64, p.rows);
        assert_eq!(p.lines, 20_005);
        let mut joined = Vec::new();
        for (i, l) in all.iter().enumerate() {
            joined.extend_from_slice(&l.bytes);
            if !all.get(i + 1).is_some_and(|next| next.continuation) {
                joined.push(b'\n');
            }
        }
        assert_eq!(String::from_utf8(joined).unwrap(), format!("{text}\n"));
        // Every window agrees with the straight read, whichever checkpoint it starts from.
        for first in [0u64, 1, 4095, 4096, 5000, 5001, 5002, 12_345, p.rows - 2] {
            assert_eq!(doc.rows(first, 3).unwrap(), all[first as usize..(first as usize + 3).min(all.len())]);
        }
        assert_eq!(all.last().unwrap().bytes, b"tail");
        assert!(all.iter().filter(|l| l.continuation).count() >= 4);
    }

    #[test]
    fn a_file_that_shrinks_after_opening_ends_early() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.bash.log");
        std::fs::write(&path, "x".repeat(100_000)).unwrap();
        let doc = Document::open(Source::open(&path).unwrap()).unwrap();
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(5000).unwrap();
        let rows = doc.rows(0, 100).unwrap();
        assert_eq!(rows.iter().map(|r| r.bytes.len()).sum::<usize>(), 5000);
    }

    #[test]
    fn a_file_source_reads_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.bash.log");
        std::fs::write(&path, b"a\nb\n\nc\n").unwrap();
        let doc = Document::open(Source::open(&path).unwrap()).unwrap();
        let rows = doc.rows(0, 10).unwrap();
        let texts: Vec<&[u8]> = rows.iter().map(|r| r.bytes.as_slice()).collect();
        assert_eq!(texts, [b"a".as_slice(), b"b", b"", b"c"]);
        assert_eq!(rows[3].number, 4);
    }
}
