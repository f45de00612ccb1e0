//! The error index, built as output streams through the sink: which lines matched an error signature,
//! with their line numbers and a few lines of context, plus the first bytes of the output.
//!
//! Promises: one pass, no second read of the artifact; memory bounded whatever the output size (a
//! per-severity byte budget, earliest lines first, each kept line cut at [`LINE_CAP`] bytes); every
//! matched line is counted even when it is not kept; chunks may be cut anywhere, a literal or a line
//! split across chunks is still found. Regexes run only on lines holding a literal.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use crate::shape;

mod block;
mod key;

use crate::signatures::{Match, Severity, SignatureSet};
use crate::utf8::complete_utf8_len;
use crate::view::{text_view, ViewOptions};
use block::{Continuation, Step};
use key::{hash_bytes, normalized_key};

/// Bytes kept of one matched or context line: enough for any compiler message; a minified bundle's
/// line is cut (the excerpt says how much).
pub const LINE_CAP: usize = 1024;

/// A chunk at least this large with no space, tab or colon in it is data (base64, hex, paths), not
/// messages, and is not searched. Smaller chunks are searched anyway: a program that writes a bare
/// `AssertionError` line in its own `write(2)` must still be seen, and searching them costs little.
const DATA_CHUNK_MIN: usize = 4096;

/// The share of the byte budget the view gives the first lines of the output; the scanner keeps
/// that many bytes, and does not index lines that end inside them (the view shows them anyway).
pub fn head_share(max_bytes: usize) -> usize {
    max_bytes / 100 * 15
}

/// The share the first lines may grow to when nothing between them and the last lines matched (an
/// error early in a long output that nothing later repeats is then in the view); the scanner keeps
/// this many bytes.
pub fn grown_head_share(max_bytes: usize) -> usize {
    max_bytes / 100 * 40
}

/// One kept line: its first [`LINE_CAP`] bytes (cut on a character boundary) and its real length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptLine {
    pub bytes: Vec<u8>,
    /// Bytes in the whole line, without its newline.
    pub len: u64,
}

/// Lines kept after a matched line while they sit deeper than it (a traceback's frames, a memory
/// checker's `at 0x…` lines, a Java cause's `at` lines), at most this many.
pub(crate) const CONTINUATION_MAX: u64 = 24;

/// How far above an error the scanner looks for the line that names what it is about (the request
/// of a download, the file of a linter's list, the `patching file` step above a hunk's report).
const SUBJECT_BEFORE: usize = 6;

/// Distinct matched texts counted for [`ErrorIndex::repeats`]; past that, a text counts as rare.
const REPEATS_MAX: usize = 16_384;

/// The budget slot of the first line of each text once its rank's budget is spent.
const RARE_SLOT: usize = 3;

/// How much a matched line matters, most first: a signature's error, an error found by its shape
/// ([`crate::shape`]), a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    Error,
    Shape,
    Warning,
}

impl Rank {
    fn of(found: &Match) -> Option<Rank> {
        match found.severity {
            Severity::Error if found.by_shape => Some(Rank::Shape),
            Severity::Error => Some(Rank::Error),
            Severity::Warning => Some(Rank::Warning),
            Severity::Ignore => None,
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// A line that matched a signature or an error's shape, and the lines around it kept with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub line: u64,
    pub severity: Severity,
    pub rank: Rank,
    /// First and last line of the entry with its context (the last may lie past the output's end).
    pub first: u64,
    pub last: u64,
    /// The line's text with its numbers left out ([`normalized_key`]): lines that differ only in a
    /// count, an address or a line number share it.
    pub key: u64,
    /// The line's exact text, hashed: the same error printed twice is shown once.
    pub exact: u64,
}

/// What the scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorIndex {
    /// Kept lines by line number (1-based): matched lines and their context.
    pub lines: BTreeMap<u64, KeptLine>,
    /// Kept matches, in line order.
    pub entries: Vec<Entry>,
    /// Every line that matched an error signature, kept or not.
    pub errors_found: u64,
    /// Every line that matched a warning signature, kept or not.
    pub warnings_found: u64,
    /// How many matched lines share each [`Entry::key`] (the first [`REPEATS_MAX`] keys): a line
    /// repeated hundreds of times ranks below a rare one.
    pub repeats: HashMap<u64, u32>,
}

impl ErrorIndex {
    /// How many matched lines read like `entry`'s, numbers aside.
    pub fn repeats_of(&self, entry: &Entry) -> u32 {
        self.repeats.get(&entry.key).copied().unwrap_or(1)
    }
}

/// The scan's result, for the view: the output's first bytes and the index.
#[derive(Debug, Clone)]
pub struct Excerpt {
    /// The first [`grown_head_share`] bytes of the output (fewer if it was shorter), raw.
    pub head: Vec<u8>,
    /// The matched lines and their context.
    pub index: ErrorIndex,
    /// The signatures the lines were matched against.
    pub signatures: Arc<SignatureSet>,
}

impl PartialEq for Excerpt {
    fn eq(&self, other: &Self) -> bool {
        self.head == other.head && self.index == other.index && Arc::ptr_eq(&self.signatures, &other.signatures)
    }
}

impl Eq for Excerpt {}

/// The streaming state; fed every chunk by the sink.
#[derive(Clone)]
pub(crate) struct Scanner {
    set: Arc<SignatureSet>,
    head: Vec<u8>,
    head_bytes: usize,
    /// Lines that end within this many bytes are in every view's head, and are not indexed: the
    /// head share of the smallest budget a view of this output may have.
    shown_head: usize,
    /// Byte budget of kept lines per rank (errors, shapes, warnings), and last a budget for the first
    /// line of each text (numbers aside) once its rank's is spent: a rare error late in an output
    /// full of one repeated error is kept.
    budget: [usize; 4],
    kept: [usize; 4],
    /// Bytes and newlines before the current chunk.
    offset: u64,
    newlines: u64,
    /// The unterminated line so far: its first [`LINE_CAP`] bytes, its length, whether it holds a literal.
    partial: Vec<u8>,
    partial_len: u64,
    partial_hit: bool,
    /// The stream's last bytes, to find a literal cut by a chunk boundary.
    last: Vec<u8>,
    /// The last complete lines (as many as the largest `before`), oldest first.
    recent: VecDeque<(u64, KeptLine)>,
    most_before: usize,
    longest_literal: usize,
    /// Complete lines up to this number are kept as context after a match.
    capture_until: u64,
    /// The rank slot the current after-context is charged to.
    capture_severity: usize,
    /// After the last kept match: the depth lines must sit deeper than to belong to it, the rank slot
    /// they are charged to, and the last line number they may have.
    continuation: Option<Continuation>,
    /// The number of the last line a signature or a shape matched, kept or only counted.
    last_matched: u64,
    index: ErrorIndex,
}

/// Where the lines before a matched line are: complete lines of the current chunk from `from`
/// up to `line_start`, then the scanner's `recent` lines.
#[derive(Clone, Copy)]
struct Before<'c> {
    chunk: &'c [u8],
    from: usize,
    line_start: usize,
}

impl Scanner {
    /// Returns `None` when no signature can match (an empty set): nothing to scan.
    /// `smallest_view` is the smallest budget a view of this output may be shaped in (an error
    /// result's, [`crate::settings::Settings::max_error_output_bytes`]), at most `max_bytes`.
    pub(crate) fn new(set: Arc<SignatureSet>, max_bytes: usize, smallest_view: usize) -> Option<Scanner> {
        if set.is_empty() {
            return None;
        }
        Some(Scanner {
            head: Vec::new(),
            head_bytes: grown_head_share(max_bytes),
            shown_head: head_share(smallest_view.min(max_bytes)),
            budget: [max_bytes, max_bytes / 2, max_bytes / 4, max_bytes / 4],
            kept: [0, 0, 0, 0],
            offset: 0,
            newlines: 0,
            partial: Vec::new(),
            partial_len: 0,
            partial_hit: false,
            last: Vec::new(),
            recent: VecDeque::new(),
            most_before: usize::from(set.most_before()).max(SUBJECT_BEFORE),
            longest_literal: set.longest_literal(),
            capture_until: 0,
            capture_severity: 0,
            continuation: None,
            last_matched: 0,
            index: ErrorIndex::default(),
            set,
        })
    }

    /// `newlines`: the `\n` count of `chunk` (the sink has counted it already).
    pub(crate) fn push(&mut self, chunk: &[u8], newlines: u64) {
        if chunk.is_empty() {
            return;
        }
        if self.head.len() < self.head_bytes {
            let room = self.head_bytes - self.head.len();
            self.head.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        let searched = chunk.len() < DATA_CHUNK_MIN || memchr::memchr3(b' ', b'\t', b':', chunk).is_some();
        match memchr::memchr(b'\n', chunk) {
            None => {
                self.partial_hit |= searched && (self.across_boundary(chunk) || self.set.find_literal(chunk).is_some());
                self.extend_partial(chunk);
            }
            Some(first_nl) => {
                let first = &chunk[..first_nl];
                let hit = self.partial_hit
                    || searched && (self.across_boundary(first) || self.set.find_literal(first).is_some());
                self.extend_partial(first);
                let line = KeptLine { bytes: std::mem::take(&mut self.partial), len: self.partial_len };
                let line_no = self.newlines + 1;
                let end = self.offset + first_nl as u64 + 1;
                self.complete(line_no, &line, None, end, hit, Before { chunk, from: 0, line_start: 0 });
                self.remember(line_no, line);
                self.partial_len = 0;
                self.partial_hit = false;

                let last_nl = memchr::memrchr(b'\n', chunk).unwrap_or(first_nl);
                self.scan_lines(chunk, first_nl + 1, last_nl + 1, searched, line_no + 1);
                if searched {
                    // A data chunk's lines are no context worth keeping (and copying them costs).
                    self.remember_last_lines(chunk, first_nl + 1, last_nl + 1, self.newlines + newlines);
                }

                let rest = &chunk[last_nl + 1..];
                self.partial_hit = searched && !rest.is_empty() && self.set.find_literal(rest).is_some();
                self.extend_partial(rest);
            }
        }
        self.keep_last(chunk);
        self.offset += chunk.len() as u64;
        self.newlines += newlines;
    }

    /// Ends the stream: an unterminated last line is a line too.
    pub(crate) fn finish(mut self) -> Excerpt {
        if self.partial_len > 0 {
            let line = KeptLine { bytes: std::mem::take(&mut self.partial), len: self.partial_len };
            let end = self.offset;
            self.complete(
                self.newlines + 1,
                &line,
                None,
                end,
                self.partial_hit,
                Before { chunk: &[], from: 0, line_start: 0 },
            );
        }
        Excerpt { head: self.head, index: self.index, signatures: self.set }
    }

    /// The complete lines of `chunk[from..to]` (which ends with a newline); `line_no` is the number
    /// of the line that starts at `from`.
    fn scan_lines(&mut self, chunk: &[u8], from: usize, to: usize, searched: bool, mut line_no: u64) {
        let mut at = from;
        while at < to {
            let line_start = if self.capture_until >= line_no || self.continuation.is_some() {
                at
            } else if !searched {
                return;
            } else {
                match self.set.find_literal(&chunk[at..to]) {
                    None => return,
                    Some(found) => {
                        let hit = at + found;
                        let start = memchr::memrchr(b'\n', &chunk[at..hit]).map_or(at, |i| at + i + 1);
                        line_no += bytecount::count(&chunk[at..start], b'\n') as u64;
                        start
                    }
                }
            };
            let line_end = memchr::memchr(b'\n', &chunk[line_start..to]).map_or(to - 1, |i| line_start + i);
            let bytes = &chunk[line_start..line_end];
            let hit = searched && self.set.find_literal(bytes).is_some();
            let line = KeptLine { bytes: capped(bytes), len: bytes.len() as u64 };
            let end = self.offset + line_end as u64 + 1;
            self.complete(line_no, &line, Some(bytes), end, hit, Before { chunk, from, line_start });
            at = line_end + 1;
            line_no += 1;
        }
    }

    /// A complete line: kept as context if a match asked for it; classified if it holds a literal.
    /// `whole` is the whole line when it is at hand (a cut one is classified by its kept bytes).
    fn complete(
        &mut self,
        line_no: u64,
        line: &KeptLine,
        whole: Option<&[u8]>,
        end: u64,
        hit: bool,
        before: Before<'_>,
    ) {
        // Context asked for by a match, within its rank's budget (see `continue_entry`).
        if line_no <= self.capture_until && self.kept[self.capture_severity] < self.budget[self.capture_severity] {
            self.keep(line_no, line, self.capture_severity);
        }
        let block = self.continue_entry(line_no, line);
        if !hit {
            return;
        }
        let text = text_of(whole.unwrap_or(&line.bytes));
        let Some(found) = self.set.classify(&text) else {
            if self.set.shapes() && shape::is_location(&text) {
                self.header_above(line_no, line, end, before);
            }
            return;
        };
        let Some(rank) = Rank::of(&found) else { return };
        self.last_matched = line_no;
        let (key, slot) = self.count(&text, rank);
        // In the head (shown anyway), or over budget: counted only.
        let Some(slot) = slot.filter(|_| end > self.shown_head as u64) else { return };
        let mut first = line_no;
        let wanted =
            if found.before == 0 && rank != Rank::Warning { SUBJECT_BEFORE } else { usize::from(found.before) };
        let mut before_lines = self.lines_before(before, line_no, wanted);
        if found.before == 0 {
            block::trim_to_opener(line, &mut before_lines);
        }
        let depth = block::depth_above(line, &before_lines);
        for (number, kept) in before_lines {
            self.keep(number, &kept, slot);
            first = first.min(number);
        }
        self.keep(line_no, line, slot);
        let last = line_no + u64::from(found.after);
        self.index.entries.push(Entry {
            line: line_no,
            severity: found.severity,
            rank,
            first,
            last,
            key,
            exact: hash_bytes(text.as_bytes()),
        });
        if last > self.capture_until {
            self.capture_until = last;
            self.capture_severity = slot;
        }
        self.continuation = Continuation::under(line_no, line, slot, depth).map(|mut under| {
            // A match inside the block above (a frame that names a `failed` function) goes on with
            // that block rather than opening a narrower one.
            if let Some((indent, until)) = block {
                under.indent = under.indent.min(indent);
                under.until = under.until.min(until);
            }
            under
        });
    }

    /// Counts a matched line of `rank` (and its text among the repeats); returns its text's key and the
    /// budget slot it is kept under, `None` when every slot it may use is spent.
    fn count(&mut self, text: &str, rank: Rank) -> (u64, Option<usize>) {
        if rank == Rank::Warning {
            self.index.warnings_found += 1;
        } else {
            self.index.errors_found += 1;
        }
        let key = normalized_key(text);
        if self.index.repeats.len() < REPEATS_MAX || self.index.repeats.contains_key(&key) {
            *self.index.repeats.entry(key).or_insert(0) += 1;
        }
        let mut slot = rank.slot();
        if self.kept[slot] >= self.budget[slot] && self.index.repeats.get(&key) == Some(&1) {
            slot = RARE_SLOT;
        }
        (key, (self.kept[slot] < self.budget[slot]).then_some(slot))
    }

    /// ` --> file:12:5` under a line that matched nothing: that line is a diagnostic in a format no
    /// signature names (a lint's code and message), found by where it points; an error by its shape,
    /// with the location and the source excerpt under it.
    fn header_above(&mut self, line_no: u64, line: &KeptLine, end: u64, before: Before<'_>) {
        if line_no < 2 || self.last_matched + 1 >= line_no {
            return;
        }
        self.last_matched = line_no - 1;
        let Some((number, header)) = self.lines_before(before, line_no, 1).pop() else { return };
        let text = text_of(&header.bytes).into_owned();
        let (key, slot) = self.count(&text, Rank::Shape);
        let Some(slot) = slot.filter(|_| end > self.shown_head as u64) else { return };
        self.keep(number, &header, slot);
        self.keep(line_no, line, slot);
        self.index.entries.push(Entry {
            line: number,
            severity: Severity::Error,
            rank: Rank::Shape,
            first: number,
            last: line_no,
            key,
            exact: hash_bytes(text.as_bytes()),
        });
        self.continuation = Continuation::under(line_no, line, slot, None);
    }

    /// Keeps `line` with the last entry while it belongs to the block under it (see
    /// [`CONTINUATION_MAX`]): a line deeper than the entry's, a frame of a debugger's backtrace, a
    /// source excerpt, a location right after the match and the source lines quoted under it. A blank
    /// line and a header (`stack traceback:`, `Previous write at 0x… by goroutine 7:`) belong to it when
    /// lines of the block follow them. Any other line ends the block, unless the match asked for it
    /// as context.
    /// Returns the block's depth and last line when `line` was one of its lines.
    fn continue_entry(&mut self, line_no: u64, line: &KeptLine) -> Option<(usize, u64)> {
        let mut block = self.continuation.take()?;
        // Past its length, or once its rank's budget is spent: a block's lines count against the
        // budget like its match, so that context cannot grow the index past it.
        if line_no > block.until || self.kept[block.slot] >= self.budget[block.slot] {
            return None;
        }
        match block.step(line_no, line, line_no <= self.capture_until) {
            Step::Part(held) => {
                for (number, kept) in held {
                    self.keep(number, &kept, block.slot);
                }
                self.keep(line_no, line, block.slot);
                if let Some(entry) = self.index.entries.last_mut() {
                    entry.last = entry.last.max(line_no);
                }
                let part_of = (block.indent, block.until);
                self.continuation = Some(block);
                Some(part_of)
            }
            Step::Held => {
                self.continuation = Some(block);
                None
            }
            Step::End => None,
        }
    }

    fn keep(&mut self, line_no: u64, line: &KeptLine, slot: usize) {
        if let std::collections::btree_map::Entry::Vacant(vacant) = self.index.lines.entry(line_no) {
            self.kept[slot] += line.bytes.len() + 16;
            vacant.insert(line.clone());
        }
    }

    /// Up to `count` complete lines right before `line_no`, oldest first.
    fn lines_before(&self, before: Before<'_>, line_no: u64, count: usize) -> Vec<(u64, KeptLine)> {
        let mut found = Vec::with_capacity(count);
        let mut end = before.line_start;
        let mut number = line_no;
        while found.len() < count && end > before.from {
            // `chunk[end - 1]` is the newline that ends the previous line.
            let start = memchr::memrchr(b'\n', &before.chunk[before.from..end - 1])
                .map_or(before.from, |i| before.from + i + 1);
            let bytes = &before.chunk[start..end - 1];
            number -= 1;
            found.push((number, KeptLine { bytes: capped(bytes), len: bytes.len() as u64 }));
            end = start;
        }
        for (recent_no, kept) in self.recent.iter().rev() {
            if found.len() >= count || *recent_no + 1 != number {
                break;
            }
            number = *recent_no;
            found.push((number, kept.clone()));
        }
        found.reverse();
        found
    }

    fn remember(&mut self, line_no: u64, line: KeptLine) {
        if self.most_before == 0 {
            return;
        }
        if self.recent.len() == self.most_before {
            self.recent.pop_front();
        }
        self.recent.push_back((line_no, line));
    }

    /// Remembers the last complete lines of `chunk[from..to]`; `newlines_after` is the line count
    /// once the chunk is in, so the last of them has that number.
    fn remember_last_lines(&mut self, chunk: &[u8], from: usize, to: usize, newlines_after: u64) {
        if self.most_before == 0 || to <= from {
            return;
        }
        let mut lines = Vec::with_capacity(self.most_before);
        let mut end = to;
        while lines.len() < self.most_before && end > from {
            let start = memchr::memrchr(b'\n', &chunk[from..end - 1]).map_or(from, |i| from + i + 1);
            let bytes = &chunk[start..end - 1];
            lines.push(KeptLine { bytes: capped(bytes), len: bytes.len() as u64 });
            end = start;
        }
        let count = lines.len() as u64;
        for (i, line) in lines.into_iter().rev().enumerate() {
            self.remember(newlines_after - count + 1 + i as u64, line);
        }
    }

    fn extend_partial(&mut self, piece: &[u8]) {
        if self.partial.len() < LINE_CAP {
            let room = LINE_CAP - self.partial.len();
            self.partial.extend_from_slice(&piece[..piece.len().min(room)]);
            if piece.len() >= room {
                self.partial.truncate(complete_utf8_len(&self.partial));
            }
        }
        self.partial_len += piece.len() as u64;
    }

    /// Whether a literal starts in the stream's last bytes and ends in `next`.
    fn across_boundary(&self, next: &[u8]) -> bool {
        if self.last.is_empty() || self.longest_literal < 2 {
            return false;
        }
        let mut window = self.last.clone();
        window.extend_from_slice(&next[..next.len().min(self.longest_literal - 1)]);
        self.set.spans(&window, self.last.len())
    }

    fn keep_last(&mut self, chunk: &[u8]) {
        let want = self.longest_literal.saturating_sub(1);
        if chunk.len() >= want {
            self.last.clear();
            self.last.extend_from_slice(&chunk[chunk.len() - want..]);
        } else {
            self.last.extend_from_slice(chunk);
            let excess = self.last.len().saturating_sub(want);
            self.last.drain(..excess);
        }
    }
}

fn capped(bytes: &[u8]) -> Vec<u8> {
    if bytes.len() <= LINE_CAP {
        return bytes.to_vec();
    }
    let cut = &bytes[..LINE_CAP];
    cut[..complete_utf8_len(cut)].to_vec()
}

/// The line as a signature sees it: text without escape sequences or control characters.
fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.bytes().any(|b| (b < 0x20 && b != b'\t') || b == 0x7F) => Cow::Borrowed(text),
        _ => Cow::Owned(text_view(bytes, &ViewOptions { max_line_chars: usize::MAX })),
    }
}
