//! Input normalization: trims the command and lifts a trailing `| head`/`| tail` stage into
//! a structured [`ExtractedLimit`], so the runtime can apply the limit to the real output lines.
//! Promise: the extraction happens only when running the shortened command and keeping the first (last)
//! N lines is exactly what bash would have done; any doubt, parse error or parser panic leaves the
//! command as it was, only trimmed.

use brush_parser::ast::{Command, CommandPrefixOrSuffixItem, SeparatorOperator};
use brush_parser::Token;

use crate::parse::{self, Parsed};

/// Which end of the output an extracted limit keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum LimitKind {
    /// The first `count` lines, like `head -n count`.
    Head,
    /// The last `count` lines, like `tail -n count`.
    Tail,
}

/// A `head`/`tail` stage lifted off the end of a pipeline. A `count` of 0 means "no lines", as with
/// the real `head -n 0`; it never means "unlimited".
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ExtractedLimit {
    /// `head` or `tail`.
    pub kind: LimitKind,
    /// Its line count.
    pub count: u64,
}

/// The command to run, and the limit that was lifted off it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Normalized {
    /// The trimmed command; when a limit was extracted, the pipeline without its last stage (the
    /// original text up to the final `|`, with trailing whitespace and line continuations removed).
    pub command: String,
    /// The stage lifted off, when one was.
    pub extracted: Option<ExtractedLimit>,
}

/// Trims `command` and extracts a trailing `head`/`tail` stage when that is provably safe.
///
/// Extracted only when the whole text parses (quote- and heredoc-aware) as one pipeline of two or more
/// stages — no `;`, `&&`, `||`, `&`, `!`, `time`, no `|&` before the last stage — whose last stage is
/// plain `head` or `tail` with exactly one line count written as `-n N`, `-nN`, `-N`, `--lines=N` or
/// `--lines N` (N unquoted decimal digits), and nothing else: no other words, redirections or
/// assignments. A comment after that stage is dropped with it. `tail -n +N`, `head -n -N`, `head -c`,
/// `tail -f`, a limit inside `$( )`, and a pipeline whose heredoc body follows the head/tail stage are
/// left alone.
pub fn normalize_bash_command(command: &str) -> Normalized {
    let trimmed = command.trim();
    let unchanged = || Normalized { command: trimmed.to_owned(), extracted: None };
    // Most commands cannot qualify; spare them the parser thread.
    if !trimmed.contains('|') || !(trimmed.contains("head") || trimmed.contains("tail")) {
        return unchanged();
    }
    match parse::with_parsed(trimmed, trailing_limit).flatten() {
        Some((cut, extracted)) => match trimmed.get(..cut) {
            Some(rest) => {
                Normalized { command: trim_end_with_continuations(rest).to_owned(), extracted: Some(extracted) }
            }
            None => unchanged(),
        },
        None => unchanged(),
    }
}

/// The byte offset of the `|` before a qualifying last stage, and that stage's limit.
fn trailing_limit(parsed: &Parsed<'_>) -> Option<(usize, ExtractedLimit)> {
    let [list] = parsed.program.complete_commands.as_slice() else {
        return None;
    };
    let [item] = list.0.as_slice() else {
        return None;
    };
    if matches!(item.1, SeparatorOperator::Async) || !item.0.additional.is_empty() {
        return None;
    }
    let pipeline = &item.0.first;
    if pipeline.bang || pipeline.timed.is_some() || pipeline.seq.len() < 2 {
        return None;
    }
    let Some(Command::Simple(stage)) = pipeline.seq.last() else {
        return None;
    };
    if stage.prefix.is_some() {
        return None;
    }
    let name = stage.word_or_name.as_ref()?;
    let name_span = name.loc.as_ref()?;
    let kind = match parsed.word(name)? {
        "head" => LimitKind::Head,
        "tail" => LimitKind::Tail,
        _ => return None,
    };
    let mut arguments = Vec::new();
    let mut end = name_span.end.index;
    for item in stage.suffix.iter().flat_map(|suffix| suffix.0.iter()) {
        // Redirections and assignments carry no reliable span; they disqualify the stage anyway.
        let CommandPrefixOrSuffixItem::Word(word) = item else {
            return None;
        };
        let span = word.loc.as_ref()?;
        arguments.push(parsed.word(word)?);
        end = end.max(span.end.index);
    }
    let count = line_count(&arguments)?;

    // Whatever follows the stage must be nothing or a same-line comment: a trailing `;`/`&`, or a
    // heredoc body that belongs to an earlier stage, would be lost by the cut.
    let after = parsed.text.get(parsed.byte_offset(end)?..)?;
    let after = after.trim_start();
    if after.contains('\n') || !(after.is_empty() || after.starts_with('#')) {
        return None;
    }

    let name_start = name_span.start.index;
    let pipe = last_pipe_before(&parsed.tokens, name_start)?;
    // Only blanks (and line continuations) may separate `|` from the stage; anything else, such as
    // a heredoc body or a `|&`, means the cut would land in the wrong place.
    let gap = parsed.text.get(parsed.byte_offset(pipe.end.index)?..parsed.byte_offset(name_start)?)?;
    if !gap.replace("\\\n", "").trim().is_empty() {
        return None;
    }
    Some((parsed.byte_offset(pipe.start.index)?, ExtractedLimit { kind, count }))
}

/// The span of the last `|` operator token that ends at or before character `index`.
fn last_pipe_before(tokens: &[Token], index: usize) -> Option<&brush_parser::SourceSpan> {
    tokens
        .iter()
        .filter_map(|token| match token {
            Token::Operator(op, span) if op == "|" && span.end.index <= index => Some(span),
            _ => None,
        })
        .max_by_key(|span| span.end.index)
}

/// The count of exactly one line-count option, as written in the source (quoted forms refused).
fn line_count(arguments: &[&str]) -> Option<u64> {
    match arguments {
        [single] => {
            let digits = single
                .strip_prefix("--lines=")
                .or_else(|| single.strip_prefix("-n"))
                .or_else(|| single.strip_prefix('-'))?;
            decimal(digits)
        }
        ["-n" | "--lines", digits] => decimal(digits),
        _ => None,
    }
}

/// A non-negative decimal integer made of ASCII digits only (no sign: `+N`/`-N` mean other things).
fn decimal(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Trims trailing whitespace, including backslash-newline continuations that led to the cut `|`
/// (left in place, a final `\` would escape whatever the runtime appends).
fn trim_end_with_continuations(mut text: &str) -> &str {
    loop {
        let trimmed = text.trim_end_matches([' ', '\t']);
        if let Some(shorter) = trimmed.strip_suffix("\\\n") {
            text = shorter;
            continue;
        }
        let trimmed = trimmed.trim_end();
        if trimmed.len() == text.len() {
            return text;
        }
        text = trimmed;
    }
}
