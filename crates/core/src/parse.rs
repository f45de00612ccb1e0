//! Bash parsing shared by [`crate::normalize`] and [`crate::intercept`]: brush-parser run so that no
//! command text can crash the caller. A parser panic, a parse error, or nesting too deep to parse
//! safely all come back as `None` ("unparseable"); positions are handed out as byte offsets into the
//! original text, never as brush's character indexes.

use std::panic::{catch_unwind, AssertUnwindSafe};

use brush_parser::ast::{Program, Word};
use brush_parser::{ParserOptions, SourceSpan, Token};

/// brush-parser recurses once per nesting level and spends up to ~20 KiB of stack per level in a
/// debug build; a stack overflow aborts the process and cannot be caught. So parsing runs on its own
/// thread whose stack is sized from an upper bound of the nesting depth, and text whose bound exceeds
/// this is not parsed at all.
const MAX_NESTING_OPENERS: usize = 2000;
const BASE_STACK_BYTES: usize = 4 << 20;
const STACK_BYTES_PER_OPENER: usize = 32 << 10;

/// Keywords that open a nesting level in the grammar (each is closed by `fi`/`done`/`esac`).
const NESTING_KEYWORDS: [&str; 7] = ["if", "while", "until", "for", "case", "select", "coproc"];

/// A successfully parsed command text, with the tokens the parser consumed.
pub(crate) struct Parsed<'a> {
    pub(crate) text: &'a str,
    /// Not in source order when heredocs are present (bodies follow their `<<` operator).
    pub(crate) tokens: Vec<Token>,
    pub(crate) program: Program,
    /// Byte offset of every character index, plus one past the end; `None` when `text` is ASCII.
    char_to_byte: Option<Vec<usize>>,
}

impl<'a> Parsed<'a> {
    /// Byte offset of brush's character index `index` (`index == char count` is the end).
    pub(crate) fn byte_offset(&self, index: usize) -> Option<usize> {
        match &self.char_to_byte {
            None => (index <= self.text.len()).then_some(index),
            Some(table) => table.get(index).copied(),
        }
    }

    /// The original text covered by `span`.
    pub(crate) fn slice(&self, span: &SourceSpan) -> Option<&'a str> {
        let start = self.byte_offset(span.start.index)?;
        let end = self.byte_offset(span.end.index)?;
        self.text.get(start..end)
    }

    /// The source text of `word` (quotes included). A word never starts with a blank, but brush
    /// starts the span of a word that follows a line continuation at the blanks before it.
    pub(crate) fn word(&self, word: &Word) -> Option<&'a str> {
        Some(self.slice(word.loc.as_ref()?)?.trim_start())
    }
}

/// Parses `text` and runs `inspect` on the result, both with a stack large enough for the text's
/// nesting: on the caller's stack when enough of it is left, else on a fresh stack segment of the same
/// thread (no thread is spawned: this runs on every tool call). `None` when the text is unparseable or
/// `inspect` panicked.
///
/// `inspect` runs on that stack because walking (and dropping) a deeply nested AST recurses as much
/// as building it did.
pub(crate) fn with_parsed<R, F>(text: &str, inspect: F) -> Option<R>
where
    F: FnOnce(&Parsed<'_>) -> R,
{
    let openers = nesting_upper_bound(text);
    if openers > MAX_NESTING_OPENERS {
        return None;
    }
    let stack = BASE_STACK_BYTES + openers * STACK_BYTES_PER_OPENER;
    stacker::maybe_grow(stack, stack, || {
        let parsed = parse_here(text)?;
        catch_unwind(AssertUnwindSafe(|| inspect(&parsed))).ok()
    })
}

/// Parses `text` on the current thread, catching parser panics (brush-parser 0.4 panics on e.g.
/// `echo 99999999999>out`). Only for text nested inside something [`with_parsed`] already bounded,
/// such as the body of a `$( )` found while inspecting.
pub(crate) fn parse_here(text: &str) -> Option<Parsed<'_>> {
    let options = ParserOptions::default();
    if has_unusual_here_document_tag(text) {
        return None;
    }
    let (tokens, program) = catch_unwind(|| {
        let tokens = brush_parser::uncached_tokenize_str(text, &options.tokenizer_options()).ok()?;
        if paren_depth(&tokens) > MAX_PAREN_DEPTH {
            return None;
        }
        let program = brush_parser::parse_tokens(&tokens, &options).ok()?;
        Some((tokens, program))
    })
    .ok()??;
    let char_to_byte = (!text.is_ascii())
        .then(|| text.char_indices().map(|(byte, _)| byte).chain(std::iter::once(text.len())).collect());
    Some(Parsed { text, tokens, program, char_to_byte })
}

/// Whether a here-document operator (`<<`, `<<-`) has a tag other than a plain word: letters, digits,
/// `_`, `.` or `-`, optionally quoted as a whole or preceded by `\` (`EOF`, `'EOF'`, `"END"`, `\EOF`).
/// brush-parser 0.4's tokenizer never returns on some other tags — a missing one, `''`, a form feed, `$`
/// — when it reaches the end of the text inside `$( )` (`$(cat <<  `): it loops, allocating without
/// bound (commands of 20 to 97 bytes took gigabytes). Real here-documents use plain tags, so refusing
/// the rest loses little; the scan ignores quoting around the operator, which can only refuse more.
fn has_unusual_here_document_tag(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = memchr::memmem::find(&bytes[at..], b"<<") {
        let mut next = at + found + 2;
        match bytes.get(next) {
            // A here-string (`<<<`) takes any word, and is no here-document.
            Some(b'<') => {
                at = next + 1;
                continue;
            }
            Some(b'-') => next += 1,
            _ => {}
        }
        while matches!(bytes.get(next), Some(b' ' | b'\t')) {
            next += 1;
        }
        let word_end = bytes[next..]
            .iter()
            .position(|b| matches!(b, b' ' | b'\t' | b'\n' | b'<' | b'>' | b'|' | b'&' | b';' | b'(' | b')'))
            .map_or(bytes.len(), |n| next + n);
        if !is_plain_tag(&bytes[next..word_end]) {
            return true;
        }
        at = word_end;
    }
    false
}

fn is_plain_tag(word: &[u8]) -> bool {
    let word = word.strip_prefix(b"\\").unwrap_or(word);
    let inner = match word {
        [quote @ (b'\'' | b'"'), inner @ .., last] if last == quote => inner,
        _ => word,
    };
    !inner.is_empty() && inner.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// brush-parser backtracks exponentially in the depth of `(` operators it cannot close as written (each
/// may open a subshell or an arithmetic command `((`, and both are tried): 30 bytes of `(((…` took
/// seconds, and the tool call's timeout does not cover parsing. Deeper text is unparseable; no real
/// command nests subshells this deep.
const MAX_PAREN_DEPTH: usize = 12;

/// The deepest nesting of `(` operator tokens (quoted text and `$(`/`$((` inside words are not operators).
fn paren_depth(tokens: &[Token]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for token in tokens {
        match token {
            Token::Operator(op, _) if op == "(" => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            Token::Operator(op, _) if op == ")" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// An upper bound of the grammar nesting depth of `text`: every character or keyword that can open a
/// level counts, whether or not it is quoted or closed again, so no input can undercount.
fn nesting_upper_bound(text: &str) -> usize {
    let characters = text.bytes().filter(|b| matches!(b, b'(' | b'{' | b'`' | b'!')).count();
    let keywords =
        text.split(|c: char| !c.is_ascii_alphabetic()).filter(|word| NESTING_KEYWORDS.contains(word)).count();
    characters + keywords
}
