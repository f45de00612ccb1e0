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
    "unpars",
    "severity",
    "exited with",
    "exit status",
    "exit code",
    "--> ",
    "at line ",
];

/// Literals of a lint's error code after a location, as written (`a.py:29:11: E1120: …`: pylint's
/// errors and fatal errors, `E0001`–`F0202`); its conventions, refactors and warnings (`C0114`,
/// `R0913`, `W0611`) are not errors.
const CODES: &[&str] = &[": E0", ": E1", ": F0"];

/// The cross marks a linter or a test runner prints for an error or a failed test, where a word would
/// stand (`  32:3  ✖  Unclosed block`, ` × test/a.test.js > adds`, `✕ adds (5 ms)`).
const MARKS: &[&str] = &["✖", "✗", "✘", "✕", "❌", "×"];

/// A test's result line whose status is a runner's one-letter mark for an error or a failure, last
/// on the line after `=` or `...` (minitest's and test-unit's verbose `Suite#test_x = 0.01 s = E`).
const STATUS_MARKS: &[&str] = &["= E", "= F", "... E", "... F"];

/// The literals that make a line a candidate: each of [`WORDS`] as written in lower case,
/// capitalised and in upper case, [`CODES`], [`MARKS`] and [`STATUS_MARKS`].
pub(crate) fn literals() -> impl Iterator<Item = String> {
    WORDS
        .iter()
        .flat_map(|word| {
            let mut capital = word.to_string();
            if let Some(first) = capital.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            [word.to_string(), capital, word.to_ascii_uppercase()]
        })
        .chain(CODES.iter().chain(MARKS).chain(STATUS_MARKS).map(|literal| literal.to_string()))
}

/// A severity word (a whole word, any case).
/// The word ends where a word would (`error-stack-parser` and `errors.go` hold no severity word).
const WORD: &str = r"(?i:errors?|fatal|fail(?:ed|ure|ures|s)?|panic(?:ked)?|exception|denied|conflict|invalid|undefined|cannot|unable to|abort(?:ed|ing)?|segmentation fault|unparse?able)(?:$|[^A-Za-z0-9_.-]|\.(?:[ \t]|$))";

/// What may come before a diagnostic on its line without being part of it: a memory checker's
/// `==1234==`, a supervisor's `[name]` or `name |`, then spaces.
const GUTTER: &str = r"(?:==[0-9]+==|\[[^\]\t]{1,40}\]|[A-Za-z0-9_.-]{1,40} +\|)?[ \t]*";

fn diagnostic() -> &'static Option<Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        // ASCII classes only: Unicode ones (`\w`, `\s`) make the compiled pattern too big.
        let location = r"(?:[^ \t]+:[0-9]+(?::[0-9]+)?:?|[^ \t]+\([0-9]+(?:, *[0-9]+)?\):?)";
        let rules = [
            // The severity word first, or after one word naming the tool or the file (`CMake Error at`,
            // `data/order-01207.json invalid`).
            format!(r"^{GUTTER}(?:[A-Za-z0-9_./-]{{1,80}} )?{WORD}"),
            // A severity word after the stars a test driver or make prints (`***Exception: SegFault`,
            // `***Failed`).
            format!(r"\*\*\* ?{WORD}"),
            // A location, then a message with a severity word (`a.py:3:1: F821 Undefined name`).
            format!(r"^{GUTTER}{location}[ \t].*\b{WORD}"),
            // A location, then a lint's error code (`a.py:29:11: E1120: No value for argument`).
            format!(r"^{GUTTER}{location}[ \t]+[EF][0-9]{{4}}:[ \t]"),
            // A cross mark where a severity word would stand: first on the line, or after a location
            // or a line and column (`  32:3  ✖  Unclosed block`, ` × test/a.test.js > adds 9ms`).
            format!(r"^{GUTTER}(?:(?:{location}|[0-9]+:[0-9]+)[ \t]+)?(?:✖|✗|✘|✕|❌|×)[ \t]"),
            // A test's one-letter failure status, last on its result line (`Suite#test_x = 0.01 s = E`).
            r"[ \t](?:=|\.\.\.)[ \t]+[EF][ \t]*$".to_string(),
            // A message that points at a line and a column in words (`… used at line 16, column 5.`,
            // `Unexpected token at line 1, column 9`): a linter's or a parser's finding.
            r"(?i:\bat line [0-9]+,? column [0-9]+\b)".to_string(),
            // A severity rated high by a scanner (`   Severity: High   Confidence: High`).
            r"(?i:\bseverity\b)[ \t]*[:=][ \t]*(?i:high|critical|blocker|error|fatal)\b".to_string(),
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

/// Lines of context kept after a line that reads like a diagnostic: the line after it often completes
/// it (the statement a parse error names).
pub(crate) const AFTER: u8 = 1;

/// Whether `line` (text, ANSI escapes removed) reads like a diagnostic.
pub(crate) fn is_diagnostic(line: &str) -> bool {
    let Some(diagnostic) = diagnostic() else { return false };
    diagnostic.is_match(line) && !none_counted().as_ref().is_some_and(|none| none.is_match(line))
}

/// ` --> src/a.rs:12:5`: where the diagnostic on the line above points, as rustc, clippy and ruff
/// print it. When that line matched nothing (a lint's `E722 Do not use bare except` holds no severity
/// word), it is the diagnostic (see `crate::scan`).
pub(crate) fn is_location(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("--> ") else { return false };
    let path = rest.split_whitespace().next().unwrap_or("");
    let mut parts = path.rsplitn(3, ':');
    let numbers = parts.by_ref().take(2).filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())).count();
    numbers >= 1 && path.len() > 2
}

/// Whether `line` is part of a source excerpt under a diagnostic: `12 |     code`, `   |     ^^^`,
/// `   = help: …` — the block rustc, clippy and ruff print, whose numbered lines sit no deeper than the
/// diagnostic itself.
pub(crate) fn is_source_excerpt(line: &[u8]) -> bool {
    let body = line.trim_ascii_start();
    let digits = body.iter().take_while(|b| b.is_ascii_digit()).count();
    let after = body[digits..].trim_ascii_start();
    after.starts_with(b"|") || digits == 0 && after.starts_with(b"= ")
}

/// Whether a line names a file and a line in it (`In scripts/a.sh line 17:`, `src/a.py:3:`): the
/// heading of the diagnostics under it.
pub(crate) fn names_file_and_line(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let words: Vec<&str> = text.split_whitespace().collect();
    words.iter().enumerate().any(|(i, word)| {
        let word = word.trim_end_matches(':');
        let (path, number) = match word.split_once(':') {
            Some((path, number)) => (path, number.split(':').next().unwrap_or("")),
            None => {
                (word, if words.get(i + 1) == Some(&"line") { words.get(i + 2).copied().unwrap_or("") } else { "" })
            }
        };
        let number = number.trim_end_matches(|c: char| !c.is_ascii_digit());
        let looks_like_path = path.contains('/')
            || path.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty() && (1..=5).contains(&ext.len()) && ext.bytes().any(|b| b.is_ascii_alphabetic())
            });
        looks_like_path && !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The indentation of `line` after its gutter (see [`GUTTER`]): how deep a frame or a continuation
/// line sits under the line it belongs to. `None` for a blank line.
pub(crate) fn indent(line: &[u8]) -> Option<usize> {
    let body = strip_gutter(line);
    let spaces = body.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    (spaces < body.len()).then_some(spaces)
}

/// `line` without a memory checker's `==1234==` or a supervisor's `[name]` (`[demo 0.1.0]`, cargo's
/// build script output) at its start (a gutter is followed by a space, a tab or nothing).
pub(crate) fn strip_gutter(line: &[u8]) -> &[u8] {
    let end = if let Some(rest) = line.strip_prefix(b"==") {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        (digits > 0 && rest[digits..].starts_with(b"==")).then_some(2 + digits + 2)
    } else if line.starts_with(b"[") {
        line.iter()
            .take(42)
            .position(|b| *b == b']')
            .filter(|&close| close > 1 && line[1..close].iter().all(|b| b.is_ascii_graphic() || *b == b' '))
            .map(|close| close + 1)
    } else {
        None
    };
    match end {
        Some(end) if matches!(line.get(end), None | Some(b' ' | b'\t')) => &line[end..],
        _ => line,
    }
}

/// Whether `line` is a frame of a debugger's backtrace: `#0  lookup_field (rec=…) at a.c:15`, which
/// gdb prints at the depth of the line that announces it.
pub(crate) fn is_frame(line: &[u8]) -> bool {
    let body = strip_gutter(line).trim_ascii_start();
    let Some(rest) = body.strip_prefix(b"#") else { return false };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && matches!(rest.get(digits), Some(b' ' | b'\t'))
}

/// Whether `line` is a line of source code as a tool quotes it under a location that it printed
/// (`15\t    if (x)`, `165     - name: check`, a bare `164`), or the caret under it (`   ^ column 7`).
pub(crate) fn is_quoted_source(line: &[u8]) -> bool {
    let body = strip_gutter(line).trim_ascii_start();
    if body.starts_with(b"^") {
        return true;
    }
    let digits = body.iter().take_while(|b| b.is_ascii_digit()).count();
    let after = &body[digits..];
    digits > 0 && (after.is_empty() || after.starts_with(b"\t") || after.starts_with(b"  "))
}

/// Whether `line` heads a numbered failure of a test runner's report (`  1) test adds (MathTest)`,
/// `1) bulkDiscount(com.acme.PricingTest)`): the details under it are indented deeper.
pub(crate) fn is_numbered_item(line: &[u8]) -> bool {
    let body = strip_gutter(line).trim_ascii_start();
    let digits = body.iter().take_while(|b| b.is_ascii_digit()).count();
    (1..=4).contains(&digits) && body[digits..].starts_with(b") ") && body.len() > digits + 2
}

/// The file a diagnostic line points at, from its first word of the form `path:N` (`src/a.hs:24:25:`,
/// `internal/pkg/label.go:24:9:`), when that word looks like a path.
pub(crate) fn location_path(line: &[u8]) -> Option<&[u8]> {
    let body = strip_gutter(line).trim_ascii_start();
    let word = body.split(|b| *b == b' ' || *b == b'\t').next()?;
    let colon = word.iter().position(|b| *b == b':')?;
    let (path, rest) = (&word[..colon], &word[colon + 1..]);
    let numbered = rest.first().is_some_and(u8::is_ascii_digit);
    let looks_like_path = path.contains(&b'/') || path.iter().rposition(|b| *b == b'.').is_some_and(|dot| dot > 0);
    (numbered && looks_like_path && path.len() > 2).then_some(path)
}

/// The paths a line names in its words (`'build/net/socket_posix.o'`, `src/a.c`): words with a `/`
/// in them, quotes and brackets around them left out; not URLs.
pub(crate) fn path_words(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    let edge = |b: &u8| matches!(b, b'\'' | b'"' | b'`' | b'(' | b')' | b'[' | b']' | b',' | b';' | b':' | b'.');
    line.split(|b| b.is_ascii_whitespace()).filter_map(move |word| {
        let start = word.iter().position(|b| !edge(b))?;
        let end = word.iter().rposition(|b| !edge(b))? + 1;
        let word = &word[start..end];
        (word.len() >= 4 && word.contains(&b'/') && memchr::memmem::find(word, b"://").is_none()).then_some(word)
    })
}

/// A path without its last extension, when what is left still names a file (`src/a.c.rej` →
/// `src/a.c`, `build/a.o` → `build/a`): the source a derived file is named after.
pub(crate) fn stem(path: &[u8]) -> Option<&[u8]> {
    let slash = path.iter().rposition(|b| *b == b'/').map_or(0, |s| s + 1);
    let dot = path[slash..].iter().rposition(|b| *b == b'.')? + slash;
    (dot > slash + 1).then(|| &path[..dot])
}

/// Whether `line`, above a diagnostic that points at `path`, names that file or its directory (two
/// levels or more): the step that built it (`[ 60 of 102] Compiling M058 ( src/M058.hs, … )`, Go's
/// `# example.com/shop/internal/pkg097`).
pub(crate) fn names_path(line: &[u8], path: &[u8]) -> bool {
    if memchr::memmem::find(line, path).is_some() {
        return true;
    }
    match path.iter().rposition(|b| *b == b'/') {
        Some(slash) => {
            let dir = &path[..slash];
            dir.contains(&b'/') && memchr::memmem::find(line, dir).is_some()
        }
        None => false,
    }
}

/// Whether a line names what the error after it is about: a URL (a download's request line) or a
/// path alone on its line, after any gutter (a linter's file heading, Node's `file.js:4` above the
/// code line and caret of an uncaught error).
pub(crate) fn names_a_subject(line: &[u8]) -> bool {
    if memchr::memmem::find(line, b"://").is_some() || names_file_and_line(line) {
        return true;
    }
    let text = strip_gutter(line).trim_ascii();
    !text.is_empty()
        && text.len() < 512
        && !text.contains(&b' ')
        && (text.contains(&b'/') || text.contains(&b'.'))
        && text.iter().any(u8::is_ascii_alphabetic)
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
            "billing/mod_23.py:29:11: E1120: No value for argument 'rate' in function call (no-value-for-parameter)",
            "L:   4 | P:  52 |  PRS | Line 4, Position 52: Found unparsable section: 'group",
            "  32:3  ✖  Unclosed block  CssSyntaxError",
            " × test/cart_31.test.js > cart 31 > free shipping starts at 50 euros 9ms",
            "  ✕ adds one and two (5 ms)",
            "data/order-01207.json invalid",
            "517/900 Test #517: geo_area_0517 ....................***Exception: SegFault  0.00 sec",
            "   Severity: High   Confidence: High",
            "ShippingBatch29Test#test_label_05_without_postcode = 0.00 s = E",
            "test_rates_heavy_parcel ... F",
            "lib/Acme/Mod0641.pm: Two-argument \"open\" used at line 16, column 5.  See page 207 of PBP.  (Severity: 5)",
        ] {
            assert!(is_diagnostic(line), "{line}");
        }
        for line in ["ShippingBatch29Test#test_label_04 = 0.00 s = .", "expected = Expected", "x = E + 1"] {
            assert!(!is_diagnostic(line), "{line}");
        }
        assert_eq!(stem(b"src/billing/billing_148.c.rej"), Some(&b"src/billing/billing_148.c"[..]));
        assert_eq!((stem(b"build/.hidden"), stem(b"src/Makefile")), (None, None));
        assert!(is_location("  --> pkg/mod_012.py:18:5") && is_location(" --> src/main.rs:2:5"));
        assert!(!is_location("--> see below") && !is_diagnostic("  --> pkg/mod_012.py:18:5"));
    }

    #[test]
    fn source_excerpts_and_file_headings_are_told_apart_from_other_lines() {
        for line in ["16 |     with open(config_path) as fh:", "   |               ^^^^^^^^^^^", "   = help: remove it"]
        {
            assert!(is_source_excerpt(line.as_bytes()), "{line}");
        }
        assert!(!is_source_excerpt(b"F821 Undefined name `x`"));
        assert!(!is_source_excerpt(b"2 errors"));
        for line in ["In scripts/step_23.sh line 17:", "src/a.py:3:", "/srv/app/migrate.js:4", "pkg/mod.py"] {
            assert_eq!(names_file_and_line(line.as_bytes()), line != "pkg/mod.py", "{line}");
        }
        assert!(!names_file_and_line(b"step 12: compiled module number 12 of the project"));
        assert!(!names_file_and_line(b"Connecting to 127.0.0.1:8000... connected."));
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
            "billing/mod_01.py:1:0: C0114: Missing module docstring (missing-module-docstring)",
            "billing/mod_01.py:3:0: W0611: Unused import os (unused-import)",
            "a.py:1:80: E501 line too long (88 > 79 characters)",
            "   1:1   ⚠  Expected class selector \".Card_0_0\" to be kebab-case  selector-class-pattern",
            "the area is 3 × 4 metres",
            "   Severity: Low   Confidence: High",
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
        assert_eq!(all.len(), WORDS.len() * 3 + CODES.len() + MARKS.len() + STATUS_MARKS.len());
        assert!(all.contains(&"Error".to_string()) && all.contains(&"EXIT STATUS".to_string()));
    }

    #[test]
    fn the_parts_of_a_block_under_an_error_are_told_apart() {
        for line in ["#0  lookup_field (rec=0x7ff) at ledger.c:15", "#12 0x00005555 in main () at a.c:3"] {
            assert!(is_frame(line.as_bytes()), "{line}");
        }
        assert!(!is_frame(b"# a comment") && !is_frame(b"#include <stdio.h>"));
        for line in [
            "15\t        if (strcmp(a, b) == 0)",
            "165     - name: check release directory",
            "164",
            "          ^ column 7",
        ] {
            assert!(is_quoted_source(line.as_bytes()), "{line}");
        }
        assert!(!is_quoted_source(b"2 errors") && !is_quoted_source(b"record 12 priced"));
    }

    #[test]
    fn a_failed_tests_number_and_the_file_a_diagnostic_points_at_are_read() {
        for line in
            ["  1) test invoice with 15 percent discount (Billing.Part23Test)", "12) bulk(com.acme.PricingTest)"]
        {
            assert!(is_numbered_item(line.as_bytes()), "{line}");
        }
        assert!(
            !is_numbered_item(b"1)") && !is_numbered_item(b"  (1) note") && !is_numbered_item(b"2024) x"[..5].as_ref())
        );
        assert_eq!(location_path(b"src/M058.hs:24:25: error:"), Some(&b"src/M058.hs"[..]));
        assert_eq!(location_path(b"internal/pkg097/label.go:24:9: cannot use"), Some(&b"internal/pkg097/label.go"[..]));
        assert_eq!(location_path(b"error: could not compile"), None);
        assert_eq!(location_path(b"12:00:01 ERROR lost"), None);
        let compiling = b"[ 60 of 102] Compiling M058             ( src/M058.hs, build/M058.o )";
        assert!(names_path(compiling, b"src/M058.hs"));
        assert!(names_path(b"# example.com/shop/internal/pkg097", b"internal/pkg097/label.go"));
        assert!(!names_path(b"Compiling src things", b"src/a.rs"));
        let error = b"make: *** No rule to make target 'build/net/socket_posix.o', needed by 'build/libapp.a'.  Stop.";
        assert_eq!(path_words(error).collect::<Vec<_>>(), [&b"build/net/socket_posix.o"[..], &b"build/libapp.a"[..]]);
        assert_eq!(path_words(b"see https://example.com/a/b and a/b").count(), 0);
    }

    #[test]
    fn indentation_is_measured_after_a_gutter() {
        assert_eq!(indent(b"==42==    at 0x10915E: main (a.c:6)"), Some(4));
        assert_eq!(indent(b"==42== Invalid read of size 4"), Some(1));
        assert_eq!(indent(b"[api]   at Server.listen"), Some(3));
        assert_eq!(indent(b"  File \"a.py\", line 3, in f"), Some(2));
        assert_eq!(indent(b"Traceback (most recent call last):"), Some(0));
        assert_eq!(indent(b"[x]y"), Some(0));
        assert_eq!(strip_gutter(b"[demo 0.1.0] thread 'main' panicked"), b" thread 'main' panicked");
        assert_eq!(indent(b"   "), None);
    }
}
