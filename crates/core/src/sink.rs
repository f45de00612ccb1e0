//! The output sink: where every byte a command prints goes, as it arrives.
//!
//! The contract — who drives, when a chunk may arrive, what stops the stream, what `finish`
//! guarantees — is on [`OutputSink`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::artifact::writer::ArtifactWriter;
use crate::artifact::{ArtifactAllocator, ArtifactId, NewArtifact};
use crate::scan::{Excerpt, Scanner};
use crate::signatures::SignatureSet;
use crate::utf8::{self, complete_utf8_len};

/// The tail size the model sees by default: 50 KB.
pub const DEFAULT_MAX_BYTES: usize = 50 * 1024;

/// How much the sink keeps, and whether it also keeps the beginning of the output.
#[derive(Debug, Clone)]
pub struct SinkConfig {
    /// Upper bound of the kept tail (and of the head), in bytes. Output longer than this is
    /// "truncated" and spilled to an artifact when an allocator is given.
    pub max_bytes: usize,
    /// Also keep the first `n` lines, for a `head` request: once the tail has moved on, the real
    /// first lines exist nowhere else in memory.
    pub head_lines: Option<u64>,
    /// Index the lines that match these signatures, and keep the output's first bytes, for the
    /// excerpt view of an output that overflows (head, matched lines, tail). `None`: the tail only.
    pub signatures: Option<Arc<SignatureSet>>,
    /// A smaller budget the view may have to fit (an error result's, for a client that cuts those
    /// shorter): matched lines past its head share are indexed too. `None`: `max_bytes`.
    pub smallest_view: Option<usize>,
}

impl SinkConfig {
    /// Tail (and head) only, no error index: the view of a truncated output is its tail.
    pub fn tail_only(max_bytes: usize, head_lines: Option<u64>) -> SinkConfig {
        SinkConfig { max_bytes, head_lines, signatures: None, smallest_view: None }
    }
}

impl Default for SinkConfig {
    /// What bashrt does by default: 50 KB, the built-in error signatures.
    fn default() -> Self {
        SinkConfig {
            max_bytes: DEFAULT_MAX_BYTES,
            head_lines: None,
            signatures: Some(SignatureSet::defaults()),
            smallest_view: None,
        }
    }
}

/// Where the full output went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spill {
    /// Nothing was written: the output fit (and no one asked for a file), or there was no allocator.
    None,
    /// The artifact holds the raw stream; `bytes` equals the sink's total byte count. With `dropped`
    /// above zero the stream passed the artifact's cap and the file holds its first and last bytes
    /// around a marker line; `dropped` bytes of the stream are not in it.
    Written {
        /// The artifact.
        id: ArtifactId,
        /// Its file.
        path: PathBuf,
        /// Bytes of the stream (all of them).
        bytes: u64,
        /// Bytes of the stream the file does not hold.
        dropped: u64,
    },
    /// The full output could not be kept. `reason` is human-readable. With `id: Some`, the artifact
    /// file was created but a write, flush or close failed: it holds a prefix of the stream of unknown
    /// length, so it must not be presented as the full output. With `id: None`, allocation failed and
    /// no file exists.
    Failed {
        /// Why, for the result.
        reason: String,
        /// The artifact whose file holds a prefix, when one was created.
        id: Option<ArtifactId>,
    },
}

impl Spill {
    /// The artifact written, when one was.
    pub fn artifact(&self) -> Option<ArtifactId> {
        match self {
            Spill::Written { id, .. } => Some(*id),
            _ => None,
        }
    }
}

/// The first lines of the output, kept because the tail forgets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    bytes: Vec<u8>,
    lines: u64,
    capped: bool,
}

impl Head {
    /// The bytes up to and including the n-th `\n` (all bytes if the output had fewer lines), or,
    /// when [`Head::capped`], the first `max_bytes` bytes cut back to a UTF-8 character boundary.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Lines in [`Head::bytes`], counted like the sink's totals (an unterminated last piece counts).
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// True when the requested lines did not fit in `max_bytes`: the head then ends mid-line and
    /// holds fewer lines than asked for, even though the output had more.
    pub fn capped(&self) -> bool {
        self.capped
    }
}

/// What the sink saw, once the stream has ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkOutput {
    tail: Vec<u8>,
    tail_lines: u64,
    head: Option<Head>,
    total_bytes: u64,
    total_lines: u64,
    spill: Spill,
    excerpt: Option<Excerpt>,
    first_line_cut: u64,
}

impl SinkOutput {
    /// When the tail starts inside a line (one line longer than the tail), how many characters of
    /// that line came before it; 0 when the tail starts a line (the view then says how much of that
    /// line it left out).
    pub fn first_line_cut(&self) -> u64 {
        self.first_line_cut
    }

    /// The last bytes of the output, raw: at most `max_bytes`, the whole output when it fit. When
    /// truncated it starts on a line boundary if the last `max_bytes` held one, else on a UTF-8
    /// character boundary. Not yet fit for a model: see [`crate::view::model_view`].
    pub fn tail(&self) -> &[u8] {
        &self.tail
    }

    /// Lines in [`SinkOutput::tail`], counted like [`SinkOutput::total_lines`].
    pub fn tail_lines(&self) -> u64 {
        self.tail_lines
    }

    /// The first lines, when [`SinkConfig::head_lines`] asked for them.
    pub fn head(&self) -> Option<&Head> {
        self.head.as_ref()
    }

    /// Every byte pushed, including those no longer in memory.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Every line pushed: a line ends with `\n`, and a final unterminated piece counts as one line
    /// (`"a\nb\n"` and `"a\nb"` are both 2 lines, `""` is 0).
    pub fn total_lines(&self) -> u64 {
        self.total_lines
    }

    /// Whether the tail lacks part of the output. Derived from the byte total, so it cannot be
    /// wrong about output that scrolled out of memory.
    pub fn truncated(&self) -> bool {
        self.total_bytes > self.tail.len() as u64
    }

    /// Where the full output went.
    pub fn spill(&self) -> &Spill {
        &self.spill
    }

    /// The first bytes and the error index, when [`SinkConfig::signatures`] asked for them.
    /// The same output, its full copy said to be in `spill` (a job's view of the output since the
    /// model's last read points at the job's artifact).
    pub(crate) fn with_spill(mut self, spill: Spill) -> SinkOutput {
        self.spill = spill;
        self
    }

    pub(crate) fn excerpt(&self) -> Option<&Excerpt> {
        self.excerpt.as_ref()
    }
}

/// The push-driven sink of one command's output.
///
/// Promises: memory stays bounded (about `2 × max_bytes` + the head + the error index, itself about
/// `1.3 × max_bytes`, + a 256 KiB write buffer) whatever the output size; the totals count every byte and line seen; the kept tail starts on a line boundary
/// when it can; when the output overflows (or on request), the artifact file holds the whole raw stream,
/// byte for byte, and is flushed and closed before [`finish`](Self::finish) returns.
///
/// The sink is *push*-driven: the executor owns the reading loop (a pipe, a PTY, a synthetic
/// `PTY error: …` line) and hands each chunk to [`push`](Self::push) as soon as it has read it. Push was
/// chosen over a pull interface because the sources differ in how they must be read (poll loops,
/// cancellation, PTY quirks) while the sink's job is the same for all of them: it does no reading, no
/// waiting and no I/O of its own except appending to the spill file.
///
/// - **Who drives:** one owner, through `&mut self`. The sink is `Send`, so the owner may be a reader
///   thread, but it is never shared; live snapshots ([`tail_bytes`](Self::tail_bytes) and the totals) are
///   read by that same owner between pushes.
/// - **When a chunk may arrive:** at any time between [`new`](Self::new) and [`finish`](Self::finish),
///   of any size (empty chunks are ignored), cut anywhere — inside a line or inside a UTF-8 character.
///   Chunks are raw bytes; nothing is decoded or cleaned here (see [`model_view`](crate::model_view) for that).
/// - **What stops the stream:** only `finish`, which consumes the sink, so no chunk can follow it.
///   Nothing in the sink can stop the stream: `push` never fails. A spill error is recorded, spilling
///   stops, and the tail and totals go on.
/// - **What `finish` guarantees:** the spill file, if any, has been flushed and closed; a flush or close
///   error is reported as [`Spill::Failed`], never lost; `truncated` comes from the totals seen, never
///   from what happens to be in memory.
pub struct OutputSink {
    max_bytes: usize,
    /// The newest bytes of the stream. While `total_bytes <= max_bytes` it is the *whole* stream
    /// (that is what lets the first spill write everything seen so far); afterwards it holds at least
    /// `max_bytes + 1` bytes — one more than the tail, to see whether the tail starts a line — and
    /// at most twice that, so trimming is an occasional memmove rather than one per chunk.
    buf: Vec<u8>,
    total_bytes: u64,
    newlines: u64,
    ends_with_newline: bool,
    /// Characters of the line in progress (since the last `\n`).
    line_chars: u64,
    /// Characters of the last complete line (without its `\n`).
    last_line_chars: u64,
    head: Option<HeadCapture>,
    scanner: Option<Scanner>,
    /// Taken (so called at most once) when the first spill starts.
    allocator: Option<Box<dyn ArtifactAllocator>>,
    spill: SpillState,
}

#[derive(Clone)]
struct HeadCapture {
    wanted: u64,
    bytes: Vec<u8>,
    newlines: u64,
    done: bool,
    capped: bool,
}

enum SpillState {
    NotStarted,
    Active(SpillFile),
    Failed { reason: String, id: Option<ArtifactId> },
}

struct SpillFile {
    id: ArtifactId,
    path: PathBuf,
    writer: ArtifactWriter,
}

impl OutputSink {
    /// A sink that keeps `config.max_bytes` of tail and, when `allocator` is given, spills the full
    /// output to an artifact the first time that limit is exceeded (or on [`OutputSink::ensure_spilled`]).
    pub fn new(config: SinkConfig, allocator: Option<Box<dyn ArtifactAllocator>>) -> OutputSink {
        let head = config.head_lines.map(|wanted| HeadCapture {
            wanted,
            bytes: Vec::new(),
            newlines: 0,
            done: wanted == 0,
            capped: false,
        });
        let smallest = config.smallest_view.unwrap_or(config.max_bytes);
        let scanner = config.signatures.and_then(|set| Scanner::new(set, config.max_bytes, smallest));
        OutputSink {
            max_bytes: config.max_bytes,
            buf: Vec::new(),
            total_bytes: 0,
            newlines: 0,
            ends_with_newline: false,
            line_chars: 0,
            last_line_chars: 0,
            head,
            scanner,
            allocator,
            spill: SpillState::NotStarted,
        }
    }

    /// Takes the next chunk of output. Never fails: a spill error is recorded (and reported by
    /// [`OutputSink::finish`]), spilling stops, and the tail and totals go on. The only blocking it
    /// may do is the spill file's `write(2)`.
    pub fn push(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        self.total_bytes += chunk.len() as u64;
        let newlines = bytecount::count(chunk, b'\n') as u64;
        self.newlines += newlines;
        self.ends_with_newline = chunk.last() == Some(&b'\n');
        // Only the part after the last newline is counted: a few bytes, except inside a long line.
        match newlines {
            0 => self.line_chars += bytecount::num_chars(chunk) as u64,
            _ => {
                let last = memchr::memrchr(b'\n', chunk).unwrap_or(0);
                let before = memchr::memrchr(b'\n', &chunk[..last]);
                let segment = bytecount::num_chars(&chunk[before.map_or(0, |i| i + 1)..last]) as u64;
                self.last_line_chars = if before.is_some() { segment } else { self.line_chars + segment };
                self.line_chars = bytecount::num_chars(&chunk[last + 1..]) as u64;
            }
        }
        if let Some(head) = &mut self.head {
            head.capture(chunk, self.max_bytes);
        }
        if let Some(scanner) = &mut self.scanner {
            scanner.push(chunk, newlines);
        }
        // Start spilling before the tail is trimmed: `buf` still holds everything before `chunk`.
        if self.total_bytes > self.max_bytes as u64 {
            self.start_spill(chunk.len());
        }
        self.write_spill(chunk);
        self.keep_tail(chunk);
    }

    /// Writes the whole output to an artifact now, even if it has not overflowed, and keeps
    /// appending later chunks. For when head/tail shaping hides lines of a small output and the
    /// model must still be able to read all of it. No-op when already spilled, after a failure,
    /// or without an allocator.
    pub fn ensure_spilled(&mut self) {
        self.start_spill(0);
    }

    /// Writes what the spill file's buffer holds, so that a reader of the artifact sees every byte
    /// pushed so far: a job's artifact is read while its command still runs. A write error moves the
    /// spill to failed, as in `push`.
    pub(crate) fn flush_spill(&mut self) {
        if let SpillState::Active(spill) = &mut self.spill {
            if let Err(e) = std::io::Write::flush(&mut spill.writer) {
                self.spill = SpillState::Failed { reason: failure("writing", &spill.path, &e), id: Some(spill.id) };
            }
        }
    }

    /// What [`OutputSink::finish`] would report now, the sink going on: a yielded call's view of the
    /// output so far. The spill is reported as written up to now (flush it first).
    pub(crate) fn snapshot(&self) -> SinkOutput {
        let clone = OutputSink {
            max_bytes: self.max_bytes,
            buf: self.buf.clone(),
            total_bytes: self.total_bytes,
            newlines: self.newlines,
            ends_with_newline: self.ends_with_newline,
            line_chars: self.line_chars,
            last_line_chars: self.last_line_chars,
            head: self.head.clone(),
            scanner: self.scanner.clone(),
            allocator: None,
            spill: SpillState::NotStarted,
        };
        let spill = match &self.spill {
            SpillState::NotStarted => Spill::None,
            SpillState::Failed { reason, id } => Spill::Failed { reason: reason.clone(), id: *id },
            SpillState::Active(file) => {
                let kept = file.writer.kept();
                Spill::Written {
                    id: file.id,
                    path: file.path.clone(),
                    bytes: kept.stream_bytes,
                    dropped: kept.dropped_bytes,
                }
            }
        };
        clone.finish().with_spill(spill)
    }

    /// The artifact the output is being written to, once spilling started.
    pub(crate) fn spilled_to(&self) -> Option<ArtifactId> {
        match &self.spill {
            SpillState::Active(file) => Some(file.id),
            _ => None,
        }
    }

    /// Bytes pushed so far.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Lines pushed so far, counted like [`SinkOutput::total_lines`].
    pub fn total_lines(&self) -> u64 {
        lines(self.newlines, self.total_bytes, self.ends_with_newline)
    }

    /// Whether the current tail lacks part of the output so far.
    pub fn truncated(&self) -> bool {
        self.total_bytes > self.max_bytes as u64
    }

    /// The current tail, for live updates while the command runs: the whole output while it fits
    /// in `max_bytes`; afterwards the last `max_bytes` at most, starting on a line boundary unless
    /// those bytes hold no line break (then on a UTF-8 character boundary). It may *end* mid-line or
    /// mid-character, since the next chunk has not arrived yet. Costs one `memchr` over the tail.
    pub fn tail_bytes(&self) -> &[u8] {
        &self.buf[self.tail_start()..]
    }

    /// Ends the stream: flushes and closes the spill file (no fsync), and reports what was kept.
    pub fn finish(mut self) -> SinkOutput {
        let spill = match std::mem::replace(&mut self.spill, SpillState::NotStarted) {
            SpillState::NotStarted => Spill::None,
            SpillState::Failed { reason, id } => Spill::Failed { reason, id },
            SpillState::Active(file) => file.close(),
        };
        let start = self.tail_start();
        let tail = self.buf[start..].to_vec();
        // The tail starts inside a line only when its window held no line break: then all of it is
        // the end of the line in progress.
        let starts_line = start == 0 || self.buf[start - 1] == b'\n';
        let first_line_cut = match (starts_line, tail.split_last()) {
            (false, Some((b'\n', line))) => self.last_line_chars.saturating_sub(bytecount::num_chars(line) as u64),
            (false, Some(_)) => self.line_chars.saturating_sub(bytecount::num_chars(&tail) as u64),
            _ => 0,
        };
        let tail_lines = lines(bytecount::count(&tail, b'\n') as u64, tail.len() as u64, tail.last() == Some(&b'\n'));
        let head = self.head.take().map(|h| Head {
            lines: lines(h.newlines, h.bytes.len() as u64, h.bytes.last() == Some(&b'\n')),
            bytes: h.bytes,
            capped: h.capped,
        });
        let excerpt = self.scanner.take().map(Scanner::finish);
        SinkOutput {
            tail,
            tail_lines,
            head,
            total_bytes: self.total_bytes,
            total_lines: self.total_lines(),
            spill,
            excerpt,
            first_line_cut,
        }
    }

    fn tail_start(&self) -> usize {
        if self.total_bytes <= self.max_bytes as u64 {
            return 0;
        }
        // Invariant: past the limit, `buf` holds at least `max_bytes + 1` bytes.
        let len = self.buf.len();
        let window = len - self.max_bytes;
        // A line starts at `window` if the byte before it is `\n`, or right after any `\n` inside the
        // window — except the window's last byte, which would leave an empty tail.
        match memchr::memchr(b'\n', &self.buf[window - 1..len - 1]) {
            Some(i) => window + i,
            None => {
                let mut start = window;
                while start < len && start - window < 3 && utf8::is_continuation(self.buf[start]) {
                    start += 1;
                }
                start
            }
        }
    }

    fn keep_tail(&mut self, chunk: &[u8]) {
        // Saturating, so that a `max_bytes` of `usize::MAX` means "keep everything".
        let keep = self.max_bytes.saturating_add(1);
        let limit = keep.saturating_mul(2);
        if self.total_bytes > self.max_bytes as u64 {
            // Past the limit the buffer's size is known: allocate it exactly once rather than let
            // doubling overshoot the memory bound.
            self.buf.reserve_exact(limit.saturating_sub(self.buf.len()));
        }
        if chunk.len() >= keep {
            self.buf.clear();
            self.buf.extend_from_slice(&chunk[chunk.len() - keep..]);
            return;
        }
        let needed = self.buf.len() + chunk.len();
        if needed > limit {
            // At least `keep` bytes were appended since the last trim, so each byte is moved O(1) times.
            self.buf.drain(..needed - keep);
        }
        self.buf.extend_from_slice(chunk);
    }

    /// `pending`: bytes already counted in the totals but not yet in `buf` (the chunk being pushed).
    fn start_spill(&mut self, pending: usize) {
        if !matches!(self.spill, SpillState::NotStarted) {
            return;
        }
        let Some(mut allocator) = self.allocator.take() else {
            return;
        };
        self.spill = match allocator.allocate() {
            Ok(NewArtifact { id, path, file, max_bytes, budget }) => {
                let mut spill = SpillFile { id, path, writer: ArtifactWriter::new(file, max_bytes, budget) };
                // Nothing has been trimmed yet: the limit was not exceeded before this push (or
                // this is `ensure_spilled` on output that fits), so `buf` is the whole stream.
                debug_assert_eq!((self.buf.len() + pending) as u64, self.total_bytes);
                match spill.write(&self.buf) {
                    Ok(()) => SpillState::Active(spill),
                    Err(failed) => failed,
                }
            }
            Err(error) => SpillState::Failed { reason: error.to_string(), id: None },
        };
    }

    fn write_spill(&mut self, chunk: &[u8]) {
        if let SpillState::Active(spill) = &mut self.spill {
            if let Err(failed) = spill.write(chunk) {
                self.spill = failed;
            }
        }
    }
}

impl fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spill = match &self.spill {
            SpillState::NotStarted if self.allocator.is_some() => "not started",
            SpillState::NotStarted => "no allocator",
            SpillState::Active(_) => "active",
            SpillState::Failed { .. } => "failed",
        };
        f.debug_struct("OutputSink")
            .field("max_bytes", &self.max_bytes)
            .field("total_bytes", &self.total_bytes)
            .field("total_lines", &self.total_lines())
            .field("spill", &spill)
            .finish_non_exhaustive()
    }
}

impl HeadCapture {
    fn capture(&mut self, chunk: &[u8], max_bytes: usize) {
        if self.done {
            return;
        }
        let room = max_bytes - self.bytes.len();
        let scan = &chunk[..chunk.len().min(room)];
        let missing = self.wanted - self.newlines;
        if let Some((seen, end)) = memchr::memchr_iter(b'\n', scan)
            .enumerate()
            .map(|(n, at)| (n as u64 + 1, at))
            .find(|&(seen, _)| seen == missing)
        {
            self.bytes.extend_from_slice(&chunk[..=end]);
            self.newlines += seen;
            self.done = true;
        } else if chunk.len() <= room {
            self.bytes.extend_from_slice(chunk);
            self.newlines += bytecount::count(chunk, b'\n') as u64;
        } else {
            self.bytes.extend_from_slice(scan);
            self.newlines += bytecount::count(scan, b'\n') as u64;
            // The cut character may have begun in an earlier chunk. What is dropped is part of one
            // multibyte character, never a `\n`, so the line count stands.
            self.bytes.truncate(complete_utf8_len(&self.bytes));
            self.done = true;
            self.capped = true;
        }
    }
}

impl SpillFile {
    /// Appends `bytes`; on error, hands back the state the sink moves to (the file is closed).
    fn write(&mut self, bytes: &[u8]) -> Result<(), SpillState> {
        self.writer
            .write(bytes)
            .map_err(|e| SpillState::Failed { reason: failure("writing", &self.path, &e), id: Some(self.id) })
    }

    fn close(self) -> Spill {
        let SpillFile { id, path, writer } = self;
        let (file, kept) = match writer.finish(&path) {
            Ok(done) => done,
            Err(e) => return Spill::Failed { reason: failure("flushing", &path, &e), id: Some(id) },
        };
        // `File`'s drop ignores close errors; some filesystems (NFS) only report a failed write there.
        if let Err(e) = nix::unistd::close(file) {
            return Spill::Failed { reason: failure("closing", &path, &std::io::Error::from(e)), id: Some(id) };
        }
        Spill::Written { id, path, bytes: kept.stream_bytes, dropped: kept.dropped_bytes }
    }
}

fn failure(action: &str, path: &Path, e: &std::io::Error) -> String {
    format!("{action} {}: {e}", path.display())
}

fn lines(newlines: u64, bytes: u64, ends_with_newline: bool) -> u64 {
    newlines + u64::from(bytes > 0 && !ends_with_newline)
}
