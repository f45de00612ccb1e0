//! Errors found by their shape, with no list of tools: a line that reads like a diagnostic (a severity
//! word where a diagnostic puts it, a location, a tool's name before a message, a non-zero exit code)
//! is an error even when no signature names its format — a linter's own code-and-message line, a
//! merge tool's `CONFLICT (content): …`, a memory checker's `Invalid read of size 4`, a package
//! manager's `dpkg: error processing archive …`, a supervisor's `[1] npm run api exited with code 1`.
//! Signature matches rank above these, and these above warnings (see `crate::scan`).
//!
//! Promises: a line is looked at only when it holds one of [`WORDS`] (in lower case, capitalised or
//! upper case), so the one literal search that finds the signatures' candidates finds these too; a
//! count of none (`0 errors`, `no failures`, `errors: 0`) is not an error.

use std::sync::OnceLock;

use regex::Regex;

/// The words a diagnostic's line holds, in lower case; [`literals`] spells each three ways.
const WORDS: &[&str] = &[
    "error",
    "fatal",
    "fail",
    "panic",
    "exception",
    "denied",
    "conflict",
    "invalid",
    "undefined",
    "cannot",
    "unable",
    "abort",
    "segmentation",
    "exited with",
    "exit status",
    "exit code",
];

/// The literals that make a line a candidate: each of [`WORDS`] as written in lower case,
/// capitalised and in upper case.
pub(crate) fn literals() -> impl Iterator<Item = String> {
    WORDS.iter().flat_map(|word| {
        let mut capital = word.to_string();
        if let Some(first) = capital.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        [word.to_string(), capital, word.to_ascii_uppercase()]
    })
}

/// A severity word (a whole word, any case).
/// The word ends where a word would (`error-stack-parser` and `errors.go` hold no severity word).
const WORD: &str = r"(?i:errors?|fatal|fail(?:ed|ure|ures|s)?|panic(?:ked)?|exception|denied|conflict|invalid|undefined|cannot|unable to|abort(?:ed|ing)?|segmentation fault)(?:$|[^A-Za-z0-9_.-]|\.(?:[ \t]|$))";

/// What may come before a diagnostic on its line without being part of it: a memory checker's
/// `==1234==`, a supervisor's `[name]` or `name |`, then spaces.
const GUTTER: &str = r"(?:==[0-9]+==|\[[^\] \t]{1,40}\]|[A-Za-z0-9_.-]{1,40} +\|)?[ \t]*";

fn diagnostic() -> &'static Option<Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        // ASCII classes only: Unicode ones (`\w`, `\s`) make the compiled pattern too big.
        let location = r"(?:[^ \t]+:[0-9]+(?::[0-9]+)?:?|[^ \t]+\([0-9]+(?:, *[0-9]+)?\):?)";
        let rules = [
            // The severity word first, or after one word naming the tool (`CMake Error at`).
            format!(r"^{GUTTER}(?:[A-Za-z0-9_.-]{{1,30}} )?{WORD}"),
            // A location, then a message with a severity word (`a.py:3:1: F821 Undefined name`).
            format!(r"^{GUTTER}{location}[ \t].*\b{WORD}"),
            // A line and column, then the severity (`  4:10  error  'x' is not defined`).
            format!(r"^{GUTTER}[0-9]+:[0-9]+[ \t]+{WORD}"),
            // A tool's name, then a message with a severity word (`dpkg: error processing …`).
            format!(r"^{GUTTER}[A-Za-z0-9_.@+/-]{{1,40}}(?:\[[0-9]+\])?: (?:.*[ \t])?{WORD}"),
            // A count of errors or failures (`Found 3 errors in 1 file`).
            r"(?i:\b[1-9][0-9]* (?:errors?|failures?|failed)\b)".to_string(),
            // A severity in parentheses (`SC1020 (error): …`).
            r"\((?i:error|fatal)\)".to_string(),
            // A non-zero exit (`exited with code 1`, `exit status 2`, `returned non-zero exit status 1`).
            r"(?i:\bexit(?:ed)?(?: with)?(?: exit)? (?:code|status) *[:=]? *-?[1-9][0-9]*|non-zero exit)".to_string(),
        ];
        match Regex::new(&rules.map(|r| format!("(?:{r})")).join("|")) {
            Ok(regex) => Some(regex),
            Err(e) => {
                tracing::warn!("error shapes disabled: {e}");
                None
            }
        }
    })
}

/// A count of none: `0 errors`, `no failures`, `errors: 0`, `0 failed`.
fn none_counted() -> &'static Option<Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:0|no|zero|without) (?:errors?|failures?|failed|exceptions?)\b|\b(?:errors?|failures?|failed|exceptions?) *[:=] *0\b").ok()
    })
}

/// Whether `line` (text, ANSI escapes removed) reads like a diagnostic.
pub(crate) fn is_diagnostic(line: &str) -> bool {
    let Some(diagnostic) = diagnostic() else { return false };
    diagnostic.is_match(line) && !none_counted().as_ref().is_some_and(|none| none.is_match(line))
}

/// The indentation of `line` after its gutter (see [`GUTTER`]): how deep a frame or a continuation
/// line sits under the line it belongs to. `None` for a blank line.
pub(crate) fn indent(line: &[u8]) -> Option<usize> {
    let body = strip_gutter(line);
    let spaces = body.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    (spaces < body.len()).then_some(spaces)
}

/// `line` without a memory checker's `==1234==` or a supervisor's `[name]` at its start (a gutter is
/// followed by a space, a tab or nothing).
pub(crate) fn strip_gutter(line: &[u8]) -> &[u8] {
    let end = if let Some(rest) = line.strip_prefix(b"==") {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        (digits > 0 && rest[digits..].starts_with(b"==")).then_some(2 + digits + 2)
    } else if line.starts_with(b"[") {
        line.iter()
            .take(42)
            .position(|b| *b == b']')
            .filter(|&close| close > 1 && line[1..close].iter().all(u8::is_ascii_graphic))
            .map(|close| close + 1)
    } else {
        None
    };
    match end {
        Some(end) if matches!(line.get(end), None | Some(b' ' | b'\t')) => &line[end..],
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_of_formats_no_signature_names() {
        for line in [
            "a.py:3:1: F821 Undefined name `x`",
            "  4:10  error  'x' is not defined  no-undef",
            "In a.sh line 3: SC1020 (error): You need a space before the ]].",
            "CONFLICT (content): Merge conflict in a.txt",
            "==4242== Invalid read of size 4",
            "dpkg: error processing archive ./demo.deb (--install):",
            "[1] npm run api exited with code 1",
            "CMake Error at CMakeLists.txt:12 (find_package):",
            "subprocess.CalledProcessError: Command 'x' returned non-zero exit status 2.",
            "Segmentation fault",
            "fatal: refusing to merge unrelated histories",
            "Unable to locate package nope",
            "Found 3 errors in 1 file (checked 1 source file)",
            "api | Error: listen EADDRINUSE: address already in use :::3000",
        ] {
            assert!(is_diagnostic(line), "{line}");
        }
    }

    #[test]
    fn ordinary_lines_and_counts_of_none_are_not() {
        for line in [
            "0 errors, 0 warnings",
            "Found 0 errors.",
            "Tests: 12 passed, 0 failed",
            "errors: 0",
            "Downloading error-stack-parser-2.1.4.tgz",
            "the details are available on request",
            "   Compiling thiserror v2.0.21",
            "running 12 tests",
            "exit status 0",
            "process exited with code 0",
        ] {
            assert!(!is_diagnostic(line), "{line}");
        }
    }

    #[test]
    fn the_pattern_compiles_within_the_size_limit() {
        assert!(diagnostic().is_some() && none_counted().is_some());
    }

    #[test]
    fn every_word_has_its_three_spellings() {
        let all: Vec<String> = literals().collect();
        assert_eq!(all.len(), WORDS.len() * 3);
        assert!(all.contains(&"Error".to_string()) && all.contains(&"EXIT STATUS".to_string()));
    }

    #[test]
    fn indentation_is_measured_after_a_gutter() {
        assert_eq!(indent(b"==42==    at 0x10915E: main (a.c:6)"), Some(4));
        assert_eq!(indent(b"==42== Invalid read of size 4"), Some(1));
        assert_eq!(indent(b"[api]   at Server.listen"), Some(3));
        assert_eq!(indent(b"  File \"a.py\", line 3, in f"), Some(2));
        assert_eq!(indent(b"Traceback (most recent call last):"), Some(0));
        assert_eq!(indent(b"[x]y"), Some(0));
        assert_eq!(indent(b"   "), None);
    }
}
