//! The excerpt view of an output that overflowed its byte budget: its first lines, the lines that
//! matched error signatures (numbered, with their context), and its last lines, in the same budget
//! the plain tail would use.
//!
//! Promises: the raw bytes selected plus the markers and line numbers fit in `max_bytes`; errors are
//! chosen before warnings, earliest first; every omitted stretch is announced by a marker line that
//! starts with `…`; each part is cleaned like any model text ([`crate::view`]); line numbers are
//! the output's own.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::lines::{count_lines, LineRange};
use crate::scan::{Entry, ErrorIndex, Excerpt, KeptLine, Rank};
use crate::signatures::{Severity, SignatureSet};
use crate::utf8::complete_utf8_len;
use crate::view::{looks_binary, text_view, ViewOptions};

/// The most of the budget the matched lines may take, and the most warnings may take of that.
fn section_share(max_bytes: usize) -> usize {
    max_bytes / 2
}

fn warning_share(max_bytes: usize) -> usize {
    max_bytes / 10
}

/// The least of the budget left to the tail, so the end of the output (a summary, the last error,
/// the exit message) is always there.
fn tail_share(max_bytes: usize) -> usize {
    max_bytes / 100 * 35
}

/// Room kept for the two marker lines.
const MARKER_ROOM: usize = 600;

/// A matched text (numbers aside) seen this many times or more is common: rarer ones are chosen first,
/// and at most [`COMMON_SHOWN`] lines of it are shown (the rest say nothing more, and the budget goes
/// to the last lines instead).
const COMMON: u32 = 8;
const COMMON_SHOWN: usize = 3;

/// Counts of matched lines, for the metadata.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorLines {
    /// Lines of the whole output that matched a signature (errors and warnings).
    pub found: u64,
    /// Of those, the lines the view shows (in the head, among the matched lines, or in the tail).
    pub shown: u64,
    /// Lines that matched an error signature.
    pub errors: u64,
    /// Lines that matched a warning signature.
    pub warnings: u64,
}

/// The view, ready to be followed by the truncation notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcerptView {
    /// What the model reads: the parts, with markers between them.
    pub text: String,
    /// The line ranges shown, in order: the head, each run of matched lines with context, the tail.
    pub ranges: Vec<LineRange>,
    /// The head's range, when a head is shown.
    pub head: Option<LineRange>,
    /// The tail's range, when a tail is shown.
    pub tail: Option<LineRange>,
    /// Matched lines shown between the head and the tail (errors and warnings).
    pub section_matched: u64,
    /// Of those, the errors.
    pub section_errors: u64,
    /// Lines shown and their raw bytes (markers and line numbers not counted).
    pub shown_lines: u64,
    /// The raw bytes of those lines.
    pub shown_bytes: u64,
    /// The matched lines found and shown, for the details.
    pub error_lines: ErrorLines,
}

impl ExcerptView {
    /// `lines 1-120, 14 error lines, 9333-10840`: what the notice lists.
    pub fn describe_ranges(&self) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.head {
            parts.push(range_text(h));
        }
        let (errors, warnings) = (self.section_errors, self.section_matched - self.section_errors);
        match (errors, warnings) {
            (0, 0) => {}
            (e, 0) => parts.push(format!("{e} error line{}", plural(e))),
            (0, w) => parts.push(format!("{w} warning line{}", plural(w))),
            (e, w) => parts.push(format!("{e} error and {w} warning line{}", plural(w))),
        }
        if let Some(t) = self.tail {
            parts.push(range_text(t));
        }
        format!("lines {}", parts.join(", "))
    }
}

fn range_text(r: LineRange) -> String {
    if r.start == r.end {
        r.start.to_string()
    } else {
        format!("{}-{}", r.start, r.end)
    }
}

/// Builds the view. `tail` is the sink's kept tail (its last lines, at most `max_bytes`) and
/// `total_lines`/`total_bytes` the whole output's counts; the output must be longer than `max_bytes`.
pub fn build(
    excerpt: &Excerpt,
    tail: &[u8],
    total_lines: u64,
    total_bytes: u64,
    max_bytes: usize,
    opts: &ViewOptions,
) -> ExcerptView {
    // The head: the complete lines of the kept first bytes, or the start of a first line too long
    // for them.
    // Within this view's head share, which is smaller than what was kept when the view's budget is
    // (an error result's, `bash.maxErrorOutputBytes`).
    let mut head_bytes = head_of(&excerpt.head, crate::scan::head_share(max_bytes));
    let mut head_lines = count_lines(head_bytes);
    let tail_first_of = |part: &[u8]| (total_lines + 1).saturating_sub(count_lines(part)).max(1);

    // The matched lines between the head and the shortest tail, within their share.
    let shortest_tail = last_bytes(tail, tail_share(max_bytes));
    let room = max_bytes.saturating_sub(head_bytes.len() + shortest_tail.len() + MARKER_ROOM);
    let mut section = Section::new(&excerpt.index.lines, head_lines, tail_first_of(shortest_tail));
    section.choose(&excerpt.index, room.min(section_share(max_bytes)), warning_share(max_bytes));
    if section.chosen.is_empty() && head_bytes.ends_with(b"\n") {
        // Nothing matched in the middle: the head takes more of the budget (the tail keeps most), in
        // whole lines (more of a first line too long for the head would tell nothing more).
        let room = max_bytes.saturating_sub(MARKER_ROOM);
        head_bytes = head_of(&excerpt.head, crate::scan::grown_head_share(room));
        head_lines = count_lines(head_bytes);
        section.after = head_lines;
    }

    // Matched lines near the end: a tail that starts at the first of them shows them and all that lies
    // between, in no more room than the section and a shorter tail (the plain tail would show it all).
    if absorb_into_tail(&mut section, &excerpt.index.entries, tail, tail_first_of(tail), head_bytes.len(), max_bytes)
        == Absorbed::NeedsSmallHead
    {
        head_bytes = head_of(&excerpt.head, crate::scan::head_share(max_bytes) / 4);
        head_lines = count_lines(head_bytes);
        section.after = head_lines;
    }

    // The tail gets the rest; matched lines it now covers are dropped from the section.
    let tail_room = max_bytes.saturating_sub(head_bytes.len() + section.cost + MARKER_ROOM);
    let tail_bytes = last_bytes(tail, tail_room);
    let tail_first = tail_first_of(tail_bytes);
    section.drop_from(&excerpt.index.entries, tail_first);

    // What the whole output, the head and the tail hold of matched lines.
    let set = &excerpt.signatures;
    let in_head = count_matches(set, head_bytes);
    let in_tail = count_matches(set, tail_bytes);
    let (errors, warnings) = (excerpt.index.errors_found, excerpt.index.warnings_found);
    let found = errors + warnings;
    let (section_errors, section_warnings) = section.matched_shown(&excerpt.index.entries);
    let in_section = section_errors + section_warnings;
    let error_lines = ErrorLines { found, shown: in_head + in_section + in_tail, errors, warnings };
    let omitted_matches = found.saturating_sub(in_head + in_tail);

    let mut text = part_view(head_bytes, 1, opts);
    end_line(&mut text);
    // What is left out: the end of the head's last line when the head stops inside it, whole lines,
    // the start of the tail's first line when the tail starts inside it; or, head and tail in one
    // line, its middle.
    let head_cut = !head_bytes.is_empty() && !head_bytes.ends_with(b"\n");
    let tail_cut = tail_bytes.len() < tail.len() && tail[tail.len() - tail_bytes.len() - 1] != b'\n';
    let cut = total_bytes.saturating_sub((head_bytes.len() + tail_bytes.len()) as u64);
    let (omitted_first, omitted_last) = (head_lines + 1, tail_first.saturating_sub(1));
    if head_cut && tail_cut && tail_first == head_lines {
        let _ = write!(text, "… {cut} bytes omitted from the middle of line {tail_first}");
    } else {
        let mut parts = Vec::new();
        if head_cut {
            parts.push(format!("the rest of line {head_lines}"));
        }
        if omitted_last > omitted_first {
            parts.push(format!("lines {omitted_first}-{omitted_last}"));
        } else if omitted_last == omitted_first {
            parts.push(format!("line {omitted_first}"));
        }
        if tail_cut {
            parts.push(format!("the start of line {tail_first}"));
        }
        let whole = (omitted_last + 1).saturating_sub(omitted_first);
        let count = match whole {
            0 => format!("{cut} byte{}", plural(cut)),
            n => format!("{n} line{}", plural(n)),
        };
        let _ = write!(text, "… {} omitted ({count})", parts.join(" and "));
    }
    match (omitted_matches, in_section) {
        (0, _) => text.push_str("; none of them match error patterns …\n"),
        (m, 0) => {
            let _ = writeln!(text, "; {m} of them match error patterns, none fit: see the artifact …");
        }
        (m, s) if s >= m => {
            let _ = writeln!(
                text,
                "; {m} of them match error patterns and {} shown below as N:line, with context as N-line …",
                if m == 1 { "is" } else { "are" }
            );
        }
        (m, s) => {
            let _ = writeln!(
                text,
                "; {m} of them match error patterns; {s} are shown below as N:line (context as N-line), errors \
                 first, earliest first …"
            );
        }
    }
    section.render(&mut text, &excerpt.index.entries, opts);
    if !section.lines.is_empty() {
        end_line(&mut text);
        let _ = writeln!(text, "… end of matched lines; the output ends with lines {tail_first}-{total_lines} …");
    }
    text.push_str(&part_view(tail_bytes, tail_first, opts));

    let mut ranges = Vec::new();
    let head = (head_lines > 0).then_some(LineRange { start: 1, end: head_lines });
    ranges.extend(head);
    ranges.extend(section.ranges());
    let tail_range = (!tail_bytes.is_empty()).then_some(LineRange { start: tail_first, end: total_lines });
    ranges.extend(tail_range);
    let (section_lines, section_bytes) = section.size();
    ExcerptView {
        text,
        ranges,
        head,
        tail: tail_range,
        section_matched: in_section,
        section_errors,
        shown_lines: head_lines + section_lines + count_lines(tail_bytes),
        shown_bytes: (head_bytes.len() + tail_bytes.len()) as u64 + section_bytes,
        error_lines,
    }
}

/// A part of the output (the head, the tail) as text, its first line numbered `first_line`: each run
/// of lines that look binary (an executable's bytes catted into a log, a NUL-padded record) is
/// described in one line, never shown (a model would read thousands of `␀` and `�`).
fn part_view(bytes: &[u8], first_line: u64, opts: &ViewOptions) -> String {
    let mut text = String::new();
    let mut text_from = 0;
    let mut binary: Option<(u64, usize)> = None;
    let mut line_no = first_line;
    let mut at = 0;
    while at < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1);
        let line = &bytes[at..end];
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        if is_binary_line(body) {
            if binary.is_none() {
                text.push_str(&text_view(&bytes[text_from..at], opts));
                binary = Some((line_no, 0));
            }
            if let Some((_, size)) = &mut binary {
                *size += line.len();
            }
        } else if let Some((from, size)) = binary.take() {
            text.push_str(&binary_lines(from, line_no - 1, size as u64));
            text.push('\n');
            text_from = at;
        }
        at = end;
        line_no += 1;
    }
    match binary {
        Some((from, size)) => {
            text.push_str(&binary_lines(from, line_no - 1, size as u64));
            if bytes.ends_with(b"\n") {
                text.push('\n');
            }
        }
        None => text.push_str(&text_view(&bytes[text_from..], opts)),
    }
    text
}

/// Whether one line is binary data: NUL padding anywhere, or, in a line long enough to judge, what
/// [`looks_binary`] judges binary (a short line with a stray invalid byte is text with a `�`).
fn is_binary_line(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"\0\0").is_some() || line.len() >= 64 && looks_binary(line)
}

/// What stands for lines `from`-`to` of binary data.
fn binary_lines(from: u64, to: u64, bytes: u64) -> String {
    let lines = if from == to { format!("line {from}") } else { format!("lines {from}-{to}") };
    format!("[{lines}: {} of binary data, not shown]", crate::view::format_size(bytes))
}

/// What [`absorb_into_tail`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Absorbed {
    /// Nothing: no matched line is near enough to the end.
    No,
    /// The tail starts at a matched line; the section keeps the ones before it.
    Yes,
    /// Every matched line is in the tail once the head shrinks to a quarter of its share.
    NeedsSmallHead,
}

/// Lets the tail start at the earliest chosen matched line (with its context) for which the tail from
/// there, the head and the section's earlier lines fit the budget: the section drops what the tail
/// now shows. When only all of them fit, and only with a head of a quarter of its share, says so.
/// `tail` is the sink's kept tail, whose first line is `tail_first`.
fn absorb_into_tail(
    section: &mut Section<'_>,
    entries: &[Entry],
    tail: &[u8],
    tail_first: u64,
    head: usize,
    max_bytes: usize,
) -> Absorbed {
    let mut starts: Vec<u64> = section.chosen.iter().filter_map(|&i| section.entry_lines(&entries[i]).next()).collect();
    starts.sort_unstable();
    for (k, &start) in starts.iter().enumerate() {
        let Some(from) = from_line(tail, tail_first, start) else { continue };
        // The tail from here alone is too long: no need to price the section without it.
        if crate::scan::head_share(max_bytes) / 4 + from.len() + MARKER_ROOM > max_bytes {
            continue;
        }
        let mut trial = section.clone();
        trial.drop_from(entries, start);
        let fits = |head: usize| head + trial.cost + from.len() + MARKER_ROOM <= max_bytes;
        if fits(head) {
            *section = trial;
            return Absorbed::Yes;
        }
        if k == 0 && fits(crate::scan::head_share(max_bytes) / 4) {
            *section = trial;
            return Absorbed::NeedsSmallHead;
        }
    }
    Absorbed::No
}

/// The bytes of `tail` from the start of line `line` to the end, when `tail` (whose first line,
/// perhaps cut, is `first`) holds that line whole.
fn from_line(tail: &[u8], first: u64, line: u64) -> Option<&[u8]> {
    let skip = usize::try_from(line.checked_sub(first)?).ok()?.checked_sub(1)?;
    let newline = memchr::memchr_iter(b'\n', tail).nth(skip)?;
    Some(&tail[newline + 1..])
}

/// The complete lines of the first `share` bytes of `head`, or the start of a first line too long for
/// them.
fn head_of(head: &[u8], share: usize) -> &[u8] {
    let kept = &head[..head.len().min(share)];
    match memchr::memrchr(b'\n', kept) {
        Some(end) => &kept[..=end],
        None => &kept[..complete_utf8_len(kept)],
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn end_line(text: &mut String) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
}

/// The last lines of `bytes` that fit in `budget`; the end of one line too long for it, cut on a
/// character boundary.
fn last_bytes(bytes: &[u8], budget: usize) -> &[u8] {
    if bytes.len() <= budget {
        return bytes;
    }
    let start = bytes.len() - budget;
    // A line starts at `p` when the byte before it is a newline.
    match memchr::memchr(b'\n', &bytes[start - 1..bytes.len() - 1]) {
        Some(i) => &bytes[start + i..],
        None => {
            let mut at = start;
            while at < bytes.len() && at - start < 3 && crate::utf8::is_continuation(bytes[at]) {
                at += 1;
            }
            &bytes[at..]
        }
    }
}

/// Lines of `bytes` that match a signature (errors and warnings).
fn count_matches(set: &SignatureSet, bytes: &[u8]) -> u64 {
    let mut count = 0;
    let mut at = 0;
    while at < bytes.len() {
        let Some(found) = set.find_literal(&bytes[at..]) else { break };
        let hit = at + found;
        let start = memchr::memrchr(b'\n', &bytes[at..hit]).map_or(at, |i| at + i + 1);
        let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |i| hit + i);
        let line = text_view(&bytes[start..end], &ViewOptions { max_line_chars: usize::MAX });
        if set.classify(&line).is_some_and(|m| m.severity != Severity::Ignore) {
            count += 1;
        }
        at = end + 1;
    }
    count
}

/// The matched lines chosen for the view, with their context.
#[derive(Clone)]
struct Section<'a> {
    kept: &'a BTreeMap<u64, KeptLine>,
    /// Lines strictly between these two may be shown.
    after: u64,
    before: u64,
    /// Chosen entries (indices into the index's entries).
    chosen: Vec<usize>,
    lines: BTreeSet<u64>,
    /// Rendered size of the chosen lines.
    cost: usize,
}

impl<'a> Section<'a> {
    fn new(kept: &'a BTreeMap<u64, KeptLine>, after: u64, before: u64) -> Self {
        Section { kept, after, before, chosen: Vec::new(), lines: BTreeSet::new(), cost: 0 }
    }

    /// The signatures' errors, then the errors found by their shape, then warnings; within each,
    /// rare texts before those repeated many times (numbers aside), then by line; each taken if it
    /// fits, and a text already taken is not taken again.
    fn choose(&mut self, index: &ErrorIndex, budget: usize, warning_budget: usize) {
        let entries = &index.entries;
        let mut order: Vec<usize> = (0..entries.len()).filter(|&i| self.admits(entries[i].line)).collect();
        order.sort_by_key(|&i| (entries[i].rank, index.repeats_of(&entries[i]) >= COMMON, entries[i].line));
        let mut warning_cost = 0;
        let mut taken = std::collections::HashSet::new();
        let mut shown_of: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
        for i in order {
            let entry = entries[i];
            let common = index.repeats_of(&entry) >= COMMON;
            if taken.contains(&entry.exact) || common && shown_of.get(&entry.key).is_some_and(|n| *n >= COMMON_SHOWN) {
                continue;
            }
            let new: Vec<u64> = self.entry_lines(&entry).filter(|n| !self.lines.contains(n)).collect();
            // One group separator per entry at most.
            let delta: usize = new.iter().map(|n| self.line_cost(*n)).sum::<usize>() + 3;
            let warning = entry.rank == Rank::Warning;
            if self.cost + delta > budget || (warning && warning_cost + delta > warning_budget) {
                continue;
            }
            self.cost += delta;
            if warning {
                warning_cost += delta;
            }
            self.lines.extend(new);
            self.chosen.push(i);
            taken.insert(entry.exact);
            *shown_of.entry(entry.key).or_insert(0) += 1;
        }
    }

    fn admits(&self, line: u64) -> bool {
        line > self.after && line < self.before
    }

    fn entry_lines<'e>(&'e self, entry: &Entry) -> impl Iterator<Item = u64> + 'e {
        (entry.first..=entry.last).filter(move |n| self.admits(*n) && self.kept.contains_key(n))
    }

    /// `N:` or `N-`, the line, an omission note when the line was cut, and the newline.
    fn line_cost(&self, n: u64) -> usize {
        let line = &self.kept[&n];
        let note = if line.len > line.bytes.len() as u64 { 32 } else { 0 };
        digits(n) + 1 + line.bytes.len() + note + 1
    }

    /// Keeps only the entries whose matched line comes before `first_tail_line` (the tail shows
    /// the others), with their context before that line.
    fn drop_from(&mut self, entries: &[Entry], first_tail_line: u64) {
        self.before = self.before.min(first_tail_line);
        let before = self.before;
        self.chosen.retain(|&i| entries[i].line < before);
        let lines: BTreeSet<u64> = self.chosen.iter().flat_map(|&i| self.entry_lines(&entries[i])).collect();
        self.lines = lines;
        self.cost = self.lines.iter().map(|n| self.line_cost(*n)).sum::<usize>() + 3 * self.chosen.len();
    }

    /// Matched lines shown: errors, warnings.
    fn matched_shown(&self, entries: &[Entry]) -> (u64, u64) {
        let shown = entries.iter().filter(|e| self.lines.contains(&e.line));
        shown.fold((0, 0), |(e, w), entry| match entry.severity {
            Severity::Error => (e + 1, w),
            _ => (e, w + 1),
        })
    }

    fn ranges(&self) -> Vec<LineRange> {
        let mut ranges: Vec<LineRange> = Vec::new();
        for &n in &self.lines {
            match ranges.last_mut() {
                Some(r) if r.end + 1 == n => r.end = n,
                _ => ranges.push(LineRange { start: n, end: n }),
            }
        }
        ranges
    }

    fn size(&self) -> (u64, u64) {
        let bytes = self.lines.iter().map(|n| self.kept[n].bytes.len() as u64 + 1).sum();
        (self.lines.len() as u64, bytes)
    }

    fn render(&self, text: &mut String, entries: &[Entry], opts: &ViewOptions) {
        let matched: BTreeSet<u64> = entries.iter().map(|e| e.line).collect();
        let mut previous: Option<u64> = None;
        for &n in &self.lines {
            if previous.is_some_and(|p| p + 1 != n) {
                text.push_str("--\n");
            }
            previous = Some(n);
            let line = &self.kept[&n];
            let mark = if matched.contains(&n) { ':' } else { '-' };
            if is_binary_line(&line.bytes) {
                let _ = write!(text, "{n}{mark}{}", binary_lines(n, n, line.len));
            } else {
                let _ = write!(text, "{n}{mark}{}", text_view(&line.bytes, opts));
            }
            let cut = line.len.saturating_sub(line.bytes.len() as u64);
            if cut > 0 {
                let _ = write!(text, " … [{cut} bytes omitted]");
            }
            text.push('\n');
        }
    }
}

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}
