//! The block of a matched line: which lines above it open its context, and, as the scanner follows
//! it line by line, which lines below belong to the error (its frames, its source excerpt, a header
//! and the lines under it) and where it ends.

use super::{KeptLine, CONTINUATION_MAX};
use crate::shape;

/// The block of lines under the last kept match.
#[derive(Debug, Clone)]
pub(super) struct Continuation {
    /// Lines sit deeper than this to belong to the block (or are frames, a source excerpt, …).
    pub indent: usize,
    /// The rank slot the block's lines are charged to.
    pub slot: usize,
    /// The last line number the block may have ([`CONTINUATION_MAX`] after its match).
    pub until: u64,
    /// The line right after the match: a location there (`Origin: site.yml:165:7`) belongs to it.
    next: u64,
    /// A location is among the block's lines: the numbered source lines a tool quotes under it
    /// belong to it too.
    located: bool,
    /// A blank line and a header (`stack traceback:`) or a line at the block's depth (pydantic's
    /// `replicas` above its indented message), held until a line of the block follows.
    pending: Vec<(u64, KeptLine)>,
    /// The depth a pending header sets for the lines under it.
    pending_indent: Option<usize>,
}

/// What a line is to the block.
pub(super) enum Step {
    /// One of its lines, after the held lines it confirms.
    Part(Vec<(u64, KeptLine)>),
    /// Held (a blank line, a header) or passed over (context the match asked for): the block goes on.
    Held,
    /// Not of the block, which ends.
    End,
}

impl Continuation {
    /// The block under the match on `line`: lines deeper than it, or than `depth` when that is less
    /// (the line that opened the block above the match).
    pub(super) fn under(line_no: u64, line: &KeptLine, slot: usize, depth: Option<usize>) -> Option<Continuation> {
        shape::indent(&line.bytes).map(|indent| Continuation {
            indent: depth.map_or(indent, |depth| depth.min(indent)),
            slot,
            until: line_no + CONTINUATION_MAX,
            next: line_no + 1,
            located: false,
            pending: Vec::new(),
            pending_indent: None,
        })
    }

    /// What `line` is to the block: a line deeper than its depth, a frame of a debugger's backtrace,
    /// a source excerpt, a location right after the match (or among the lines the match asked for,
    /// `in_window`) and the source lines quoted under it are its lines; a blank line and a line at
    /// its depth (a header, `stack traceback:`, `Previous write at 0x… by goroutine 7:`, or an item,
    /// pydantic's `replicas`) are held until a line deeper than them follows; any other line ends it,
    /// unless the match asked for it as context.
    pub(super) fn step(&mut self, line_no: u64, line: &KeptLine, in_window: bool) -> Step {
        let indent = shape::indent(&line.bytes);
        let depth = self.pending_indent.unwrap_or(self.indent);
        let names_location = shape::names_file_and_line(&line.bytes);
        let location = (line_no == self.next || in_window) && names_location;
        let part = indent.is_some_and(|indent| indent > depth)
            || shape::is_source_excerpt(&line.bytes)
            || shape::is_frame(&line.bytes)
            || location
            || self.located && shape::is_quoted_source(&line.bytes);
        if part {
            if let Some(indent) = self.pending_indent.take() {
                self.indent = indent;
            }
            // A location among its lines (`   Location: task_45.py:42:11`): source lines may follow.
            self.located |= names_location;
            return Step::Part(std::mem::take(&mut self.pending));
        }
        if indent.is_none() && self.pending.is_empty() {
            self.pending.push((line_no, line.clone()));
        } else if self.pending_indent.is_none()
            && self.pending.len() < 2
            && indent.is_some_and(|indent| indent >= self.indent)
        {
            // A header (`stack traceback:`) or a line at the block's depth: a line deeper than it
            // must follow for it to belong.
            self.pending.push((line_no, line.clone()));
            self.pending_indent = indent;
        } else if in_window {
            // Context the match asked for, kept anyway: the block goes on after it.
            self.pending.clear();
            self.pending_indent = None;
        } else {
            return Step::End;
        }
        Step::Held
    }
}

/// Keeps of the lines before a match (oldest first) only those from the line that opens its context
/// on: the line that names the request, the file or the failed test. The earliest of: a test runner's
/// numbered failure (`  1) test adds`), the item an indented match belongs to (`>> Issue: …` above
/// `   Severity: High`), the last line naming what it is about ([`shape::names_a_subject`], the file
/// its location points at), the first line naming a path it names (the steps on that file, as make's
/// `Considering target file 'build/a.o'` above `No rule to make target 'build/a.o'`). None: no line.
pub(super) fn trim_to_opener(line: &KeptLine, before: &mut Vec<(u64, KeptLine)>) {
    let path = shape::location_path(&line.bytes);
    let named: Vec<&[u8]> = shape::path_words(&line.bytes).take(4).collect();
    // A file made from another is named after it (`a.c.rej`, `a.c.orig`, `a.o` of `a.c`): the step
    // that names the source is the opener too.
    let stems: Vec<&[u8]> = named.iter().filter_map(|word| shape::stem(word)).collect();
    let names =
        |kept: &KeptLine| named.iter().chain(&stems).any(|word| memchr::memmem::find(&kept.bytes, word).is_some());
    let steps = before.iter().position(|(_, kept)| names(kept));
    let numbered = before.iter().rposition(|(_, kept)| shape::is_numbered_item(&kept.bytes));
    let parent = shape::indent(&line.bytes)
        .filter(|here| *here > 0)
        .and_then(|here| before.iter().rposition(|(_, kept)| shape::indent(&kept.bytes).is_some_and(|i| i < here)));
    let subject = before.iter().rposition(|(_, kept)| {
        shape::names_a_subject(&kept.bytes) || path.is_some_and(|path| shape::names_path(&kept.bytes, path))
    });
    match [numbered, parent, subject, steps].into_iter().flatten().min() {
        Some(at) => drop(before.drain(..at)),
        None => before.clear(),
    }
}

/// The depth of the block under a match whose context starts with `before`'s first line: under a
/// test runner's numbered failure or the item a match belongs to, the details sit deeper than that
/// line, not than the matched line among them. `None`: the match's own depth.
pub(super) fn depth_above(line: &KeptLine, before: &[(u64, KeptLine)]) -> Option<usize> {
    before
        .first()
        .filter(|(_, kept)| {
            shape::is_numbered_item(&kept.bytes)
                || shape::indent(&kept.bytes) < shape::indent(&line.bytes) && !kept.bytes.trim_ascii().is_empty()
        })
        .and_then(|(_, kept)| shape::indent(&kept.bytes))
}
