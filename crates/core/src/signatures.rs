//! Error signatures: which output lines look like errors or warnings, as data (the default set is
//! `signatures.json` beside this file; settings can replace it or add to it).
//!
//! Promises: a line matches a signature only if it contains one of the signature's literals, so one
//! literal search (Aho-Corasick) over the raw stream finds every candidate line and regexes run on
//! candidates only; a bad signature is skipped with a warning, never a panic; regexes compile on first
//! use, so output without candidates costs no compilation.

use std::sync::{Arc, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::shape;

/// Most lines of context a signature may ask for on either side: context is for the one or two lines
/// that locate an error (`--> src/main.rs:3:5`, a traceback frame), not for whole reports.
pub const MAX_CONTEXT: u8 = 8;

/// How much a matched line matters. Errors are shown before warnings; `ignore` keeps a line that
/// a later signature would match out of the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// Shown first.
    Error,
    /// Shown after every error, in a smaller share of the view.
    Warning,
    /// Never shown: keeps a line from a later, broader signature.
    Ignore,
}

/// One signature, as stored in settings (`bash.errorSignatures`, `bash.extraErrorSignatures`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    /// Names it in warnings and docs.
    pub name: String,
    /// How much a line it matches matters.
    pub severity: Severity,
    /// Case-sensitive strings, one of which every line this signature matches contains. They are
    /// what the stream is searched for, so short and distinctive ones keep the search fast.
    pub literals: Vec<String>,
    /// A Rust `regex` the line (ANSI escapes removed, no newline) must also match; none means a
    /// literal is enough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Lines of context kept before the matched line.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub before: u8,
    /// Lines of context kept after the matched line.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub after: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// The built-in set: compilers, test runners, package managers, make, tracebacks, OS messages.
pub fn default_signatures() -> Vec<Signature> {
    // Checked by a unit test, so the fallback is only there to never panic on a broken build.
    serde_json::from_str(include_str!("signatures.json")).unwrap_or_default()
}

/// Keeps the signatures that can work; describes the others (one line each).
pub fn validate(signatures: Vec<Signature>, key: &str) -> (Vec<Signature>, Vec<String>) {
    let mut kept = Vec::with_capacity(signatures.len());
    let mut warnings = Vec::new();
    for (index, signature) in signatures.into_iter().enumerate() {
        match check(&signature) {
            Ok(()) => kept.push(signature),
            Err(reason) => warnings.push(format!("{key} signature {index} ({}) skipped: {reason}", signature.name)),
        }
    }
    (kept, warnings)
}

fn check(signature: &Signature) -> Result<(), String> {
    if signature.literals.is_empty() {
        return Err("it needs at least one literal".to_string());
    }
    if signature.literals.iter().any(|l| l.is_empty() || l.contains('\n')) {
        return Err("a literal is empty or holds a newline".to_string());
    }
    if signature.before > MAX_CONTEXT || signature.after > MAX_CONTEXT {
        return Err(format!("before and after are at most {MAX_CONTEXT} lines"));
    }
    if let Some(pattern) = &signature.pattern {
        regex_syntax::ParserBuilder::new()
            .build()
            .parse(pattern)
            .map_err(|e| format!("invalid regex: {}", e.to_string().lines().last().unwrap_or("")))?;
    }
    Ok(())
}

/// What a line matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Match {
    /// The matching signature's severity (an error for a line matched by its shape).
    pub severity: Severity,
    /// No signature matched: the line reads like a diagnostic (see [`SignatureSet::classify`]). Such
    /// lines rank below the signatures' errors and above warnings.
    pub by_shape: bool,
    /// Lines of context kept before the line.
    pub before: u8,
    /// Lines of context kept after the line.
    pub after: u8,
}

/// The signatures in force: the base set (the defaults unless replaced) and the extra ones, which
/// are checked first. Built cheaply; the search automata are built on first use.
pub struct SignatureSet {
    base: Vec<Signature>,
    extra: Vec<Signature>,
    /// Whether lines no signature matches are also looked at for an error's shape.
    shapes: bool,
    compiled: OnceLock<Compiled>,
}

impl std::fmt::Debug for SignatureSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignatureSet").field("base", &self.base.len()).field("extra", &self.extra.len()).finish()
    }
}

struct Compiled {
    signatures: Vec<CompiledSignature>,
    /// Finds the first literal in a stretch of output; `None` when there is no literal at all.
    prefilter: Option<AhoCorasick>,
    /// All literals in one line (overlapping), to know which signatures to try.
    per_line: Option<AhoCorasick>,
    /// For each literal, the signatures (indices, ascending) that list it.
    by_literal: Vec<Vec<usize>>,
    /// For each literal, whether it is one of the words of an error's shape (`crate::shape`).
    shape_literal: Vec<bool>,
}

struct CompiledSignature {
    name: String,
    severity: Severity,
    pattern: Option<String>,
    regex: OnceLock<Option<Regex>>,
    before: u8,
    after: u8,
}

impl CompiledSignature {
    fn is_match(&self, line: &str) -> bool {
        let Some(pattern) = &self.pattern else { return true };
        let regex = self.regex.get_or_init(|| match Regex::new(pattern) {
            Ok(regex) => Some(regex),
            Err(e) => {
                // The syntax was checked when the settings were read; only a size limit can fail here.
                tracing::warn!("error signature {} disabled: {e}", self.name);
                None
            }
        });
        regex.as_ref().is_some_and(|r| r.is_match(line))
    }
}

impl SignatureSet {
    /// `base` and `extra` should have been checked (as settings check them, dropping each broken one
    /// with a warning); a signature that was not and is broken only never matches.
    /// The set matches what these signatures match and nothing else (see [`Self::with_shapes`]).
    pub fn new(base: Vec<Signature>, extra: Vec<Signature>) -> SignatureSet {
        SignatureSet { base, extra, shapes: false, compiled: OnceLock::new() }
    }

    /// With `shapes`, a line no signature matches is an error when it reads like a diagnostic (a
    /// severity word where a diagnostic puts it, a location, a tool's name before a message, a
    /// non-zero exit code): formats no signature names are found too, ranked below the signatures'
    /// errors. The built-in set has them; a set whose base was replaced does not.
    pub fn with_shapes(mut self, shapes: bool) -> SignatureSet {
        self.shapes = shapes;
        self.compiled = OnceLock::new();
        self
    }

    /// Whether the set looks for errors by their shape too.
    pub fn shapes(&self) -> bool {
        self.shapes
    }

    /// The built-in set and the error shapes, built once per process and shared.
    pub fn defaults() -> Arc<SignatureSet> {
        static DEFAULTS: OnceLock<Arc<SignatureSet>> = OnceLock::new();
        DEFAULTS.get_or_init(|| Arc::new(SignatureSet::new(default_signatures(), Vec::new()).with_shapes(true))).clone()
    }

    /// The base set (the built-in one unless `bash.errorSignatures` replaced it).
    pub fn base(&self) -> &[Signature] {
        &self.base
    }

    /// The extra signatures (`bash.extraErrorSignatures`), checked first.
    pub fn extra(&self) -> &[Signature] {
        &self.extra
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| Compiled::new(self.all(), self.shapes))
    }

    /// Whether any line can match at all. Read off the signatures, not their automata: a call whose
    /// output never reaches the scanner (`true`) does not pay for building them.
    pub fn is_empty(&self) -> bool {
        self.all().all(|s| s.literals.is_empty())
    }

    fn all(&self) -> impl Iterator<Item = &Signature> {
        self.extra.iter().chain(&self.base)
    }

    /// Where the first literal starts in `haystack`, if any.
    pub fn find_literal(&self, haystack: &[u8]) -> Option<usize> {
        self.compiled().prefilter.as_ref()?.find(haystack).map(|m| m.start())
    }

    /// Whether a literal starts before `boundary` in `haystack` and ends after it.
    pub(crate) fn spans(&self, haystack: &[u8], boundary: usize) -> bool {
        self.compiled()
            .per_line
            .as_ref()
            .is_some_and(|ac| ac.find_overlapping_iter(haystack).any(|m| m.start() < boundary && m.end() > boundary))
    }

    /// The length of the longest literal: a literal cut by a chunk boundary lies within this many
    /// bytes of it.
    pub fn longest_literal(&self) -> usize {
        let signatures = self.all().flat_map(|s| &s.literals).map(String::len).max().unwrap_or(0);
        if signatures == 0 || !self.shapes {
            return signatures;
        }
        signatures.max(shape::literals().map(|l| l.len()).max().unwrap_or(0))
    }

    /// The most lines of context before a match any signature asks for.
    pub fn most_before(&self) -> u8 {
        self.all().map(|s| s.before.min(MAX_CONTEXT)).max().unwrap_or(0)
    }

    /// The first signature (extra ones first, then the base set, each in order) that `line` matches;
    /// else, when the line reads like a diagnostic (a severity word where a diagnostic puts it, a
    /// location, a tool's name before a message, a non-zero exit: `crate::shape`), an error found by
    /// its shape. `line` is one line of text without its newline, ANSI escapes removed.
    pub fn classify(&self, line: &str) -> Option<Match> {
        let compiled = self.compiled();
        let per_line = compiled.per_line.as_ref()?;
        let mut candidates: Vec<usize> = Vec::new();
        let mut shape_word = false;
        for found in per_line.find_overlapping_iter(line) {
            let id = found.pattern().as_usize();
            if let Some(signatures) = compiled.by_literal.get(id) {
                candidates.extend(signatures);
            }
            shape_word |= compiled.shape_literal.get(id).copied().unwrap_or(false);
        }
        candidates.sort_unstable();
        candidates.dedup();
        let first_match = |text: &str| {
            candidates.iter().find_map(|&index| {
                let signature = &compiled.signatures[index];
                signature.is_match(text).then_some(Match {
                    severity: signature.severity,
                    by_shape: false,
                    before: signature.before,
                    after: signature.after,
                })
            })
        };
        // A supervisor's or a build tool's gutter (`[demo 0.1.0] `, `[2] `, `==42== `) hides a line's
        // start from the signatures anchored there: they look again past it.
        let signature = first_match(line).or_else(|| {
            let stripped = shape::strip_gutter(line.as_bytes());
            (stripped.len() < line.len())
                .then(|| std::str::from_utf8(stripped).ok())
                .flatten()
                .and_then(|rest| first_match(rest.trim_start()))
        });
        signature.or_else(|| {
            (shape_word && shape::is_diagnostic(line)).then_some(Match {
                severity: Severity::Error,
                by_shape: true,
                before: 0,
                after: shape::AFTER,
            })
        })
    }
}

impl Compiled {
    fn new<'a>(signatures: impl Iterator<Item = &'a Signature>, shapes: bool) -> Compiled {
        let mut literals: Vec<String> = Vec::new();
        let mut by_literal: Vec<Vec<usize>> = Vec::new();
        let mut compiled = Vec::new();
        let mut shape_literal = Vec::new();
        for (index, signature) in signatures.enumerate() {
            for literal in &signature.literals {
                let id = match literals.iter().position(|l| l == literal) {
                    Some(id) => id,
                    None => {
                        literals.push(literal.clone());
                        by_literal.push(Vec::new());
                        literals.len() - 1
                    }
                };
                by_literal[id].push(index);
            }
            compiled.push(CompiledSignature {
                name: signature.name.clone(),
                severity: signature.severity,
                pattern: signature.pattern.clone(),
                regex: OnceLock::new(),
                before: signature.before.min(MAX_CONTEXT),
                after: signature.after.min(MAX_CONTEXT),
            });
        }
        shape_literal.resize(literals.len(), false);
        // Only a set with signatures looks for shapes: an empty set turns the excerpt off.
        if shapes && !literals.is_empty() {
            for word in shape::literals() {
                match literals.iter().position(|l| *l == word) {
                    Some(id) => shape_literal[id] = true,
                    None => {
                        literals.push(word);
                        by_literal.push(Vec::new());
                        shape_literal.push(true);
                    }
                }
            }
        }
        let build = |kind: MatchKind| {
            if literals.is_empty() {
                return None;
            }
            match AhoCorasickBuilder::new().match_kind(kind).build(&literals) {
                Ok(ac) => Some(ac),
                Err(e) => {
                    tracing::warn!("error signatures disabled: {e}");
                    None
                }
            }
        };
        let prefilter = build(MatchKind::LeftmostFirst);
        let per_line = prefilter.as_ref().and_then(|_| build(MatchKind::Standard));
        Compiled { signatures: compiled, prefilter, per_line, by_literal, shape_literal }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(line: &str) -> Option<Severity> {
        SignatureSet::defaults().classify(line).map(|m| m.severity)
    }

    #[test]
    fn the_default_set_parses_and_every_signature_is_valid() {
        let defaults = default_signatures();
        assert!(defaults.len() >= 30, "{}", defaults.len());
        let (kept, warnings) = validate(defaults.clone(), "default");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(kept.len(), defaults.len());
        for signature in &defaults {
            if let Some(pattern) = &signature.pattern {
                Regex::new(pattern).unwrap_or_else(|e| panic!("{}: {e}", signature.name));
            }
        }
    }

    #[test]
    fn real_error_lines_are_errors() {
        for line in [
            "error[E0308]: mismatched types",
            "error: could not compile `demo` (bin \"demo\") due to 2 previous errors",
            "thread 'tests::adds' panicked at src/lib.rs:10:9:",
            "thread 'main' (4655) panicked at src/main.rs:1:55:",
            "main.c:3:5: error: 'y' undeclared (first use in this function)",
            "Main.java:3: error: cannot find symbol",
            "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
            "./main.go:5:2: undefined: foo",
            "./main.go:12:5: undefined: frobnicate",
            "WARNING: DATA RACE",
            "    testing.go:1319: race detected during execution of test",
            "Thread 42 \"ledger\" received signal SIGSEGV, Segmentation fault.",
            "[demo 0.1.0] thread 'main' (22846) panicked at build.rs:13:13:",
            "    thread 'tests::adds' (29547) panicked at src/lib.rs:7517:9:",
            "--- FAIL: TestAdd (0.00s)",
            "FAIL\texample.com/demo\t0.002s",
            "panic: runtime error: index out of range [5] with length 3",
            "Traceback (most recent call last):",
            "ValueError: invalid literal for int() with base 10: 'x'",
            "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
            "AssertionError",
            "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
            "TypeError: Cannot read properties of undefined (reading 'x')",
            "Exception in thread \"main\" java.lang.IllegalStateException: boom",
            "FAILED tests/test_a.py::test_add - assert 3 == 4",
            "E       assert 3 == 4",
            "tests/test_a.py:5: AssertionError",
            "========================= 1 failed, 2 passed in 0.12s =========================",
            "test tests::adds ... FAILED",
            "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
            "FAIL src/sum.test.js",
            "Tests:       1 failed, 1 passed, 2 total",
            "npm ERR! code E404",
            "npm error code E404",
            "make: *** [Makefile:3: all] Error 1",
            "make[1]: *** No rule to make target 'x'.  Stop.",
            "find: '/root/secret': Permission denied",
            "cat: nofile: No such file or directory",
            "bash: line 1: frobnicate: command not found",
            "cp: cannot stat 'a': No such file or directory",
            "Segmentation fault (core dumped)",
            "ERROR: Could not find a version that satisfies the requirement nope==9.9",
            "fatal: not a git repository (or any of the parent directories): .git",
            "2024-01-01 12:00:00,000 ERROR app: connection lost",
            "ERROR:root:something broke",
            "Build failed with 3 errors",
            "/usr/bin/ld: main.o: in function `main': undefined reference to `foo'",
        ] {
            assert_eq!(class(line), Some(Severity::Error), "{line}");
        }
    }

    #[test]
    fn warnings_rank_below_errors_and_quiet_lines_do_not_match() {
        for line in [
            "warning: unused variable: `x`",
            "main.c:3:9: warning: unused variable 'x' [-Wunused-variable]",
            "  /tmp/t.py:3: DeprecationWarning: use something else",
            "npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
            "WARNING: Running pip as the 'root' user",
        ] {
            assert_eq!(class(line), Some(Severity::Warning), "{line}");
        }
        for line in [
            "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out",
            "   Compiling thiserror v2.0.21",
            "all good",
            "",
            "no errors found",
            // A test's log line: under a `--- FAIL:` it is kept with it (see `crate::scan`).
            "    main_test.go:10: key k450 ok after 1 hits",
        ] {
            assert_eq!(class(line), None, "{line}");
        }
    }

    #[test]
    fn bad_signatures_are_skipped_with_a_reason() {
        let sig = |literals: &[&str], pattern: Option<&str>, after: u8| Signature {
            name: "s".into(),
            severity: Severity::Error,
            literals: literals.iter().map(|l| l.to_string()).collect(),
            pattern: pattern.map(str::to_string),
            before: 0,
            after,
        };
        let (kept, warnings) = validate(
            vec![sig(&["x"], Some("("), 0), sig(&[], None, 0), sig(&["ok"], None, 0), sig(&["y"], None, 99)],
            "bash.errorSignatures",
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings[0].starts_with("bash.errorSignatures signature 0 (s) skipped: invalid regex"),
            "{}",
            warnings[0]
        );
        let set = SignatureSet::new(Vec::new(), kept);
        assert_eq!(set.classify("it is ok").map(|m| m.severity), Some(Severity::Error));
        assert!(SignatureSet::new(Vec::new(), Vec::new()).is_empty());
    }

    #[test]
    fn extra_signatures_come_first() {
        let quiet = Signature {
            name: "quiet".into(),
            severity: Severity::Ignore,
            literals: vec!["rror".into()],
            pattern: Some("expected error".into()),
            before: 0,
            after: 0,
        };
        let set = SignatureSet::new(default_signatures(), vec![quiet]);
        assert_eq!(set.classify("error: expected error in test").map(|m| m.severity), Some(Severity::Ignore));
        assert_eq!(set.classify("error: real").map(|m| m.severity), Some(Severity::Error));
    }
}
