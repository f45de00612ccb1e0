//! The invariants that the fuzz targets (`fuzz/`) and the proptests (`tests/fuzz_invariants.rs`) check,
//! written once: each function takes arbitrary input, runs the real code on it and panics when a
//! promise is broken. The fuzzers feed them for minutes; the proptests for a few hundred cases in the
//! normal suite.

#![allow(dead_code)] // each fuzz target uses one of the checks

use std::fs;
use std::io::Write;

use bashrt_core::testing::{excerpt_of, head_share, Excerpt, LINE_CAP};
use bashrt_core::{
    complete_utf8_len, default_rules, normalize_bash_command, read_window, text_view, write_window_from, AllocateError,
    ArtifactAllocator, ArtifactDir, ArtifactError, ArtifactId, DirAllocator, Form, Interceptor, NewArtifact,
    OutputSink, ReadError, Rule, SignatureSet, SinkConfig, Spill, ViewOptions, Window, WindowRequest,
};

/// Lines as the sink and the windows count them: a line ends with `\n`, and a final unterminated piece
/// counts as one.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'))
}

/// The lines of `bytes`, each with its `\n` (the last one may lack it).
fn lines_of(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// Splits `stream` at the given cut points (taken modulo its length), keeping empty chunks.
pub fn split_at<'a>(stream: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = cuts.iter().map(|c| if stream.is_empty() { 0 } else { c % stream.len() }).collect();
    points.sort_unstable();
    let mut chunks = Vec::new();
    let mut at = 0;
    for p in points.into_iter().chain([stream.len()]) {
        chunks.push(&stream[at..p]);
        at = p;
    }
    chunks
}

/// The tail the sink documents, computed the slow, obvious way: the last `max` bytes, starting after
/// the earliest `\n` in them that does not leave them empty, else on a character boundary.
pub fn expected_tail(stream: &[u8], max: usize) -> &[u8] {
    if stream.len() <= max {
        return stream;
    }
    let window = stream.len() - max;
    if let Some(start) = (window..stream.len()).find(|&p| stream[p - 1] == b'\n') {
        return &stream[start..];
    }
    let mut start = window;
    while start < stream.len() && start - window < 3 && stream[start] & 0xC0 == 0x80 {
        start += 1;
    }
    &stream[start..]
}

/// For the fuzz targets of the parser-driven stages. libFuzzer's panic hook aborts on every panic,
/// even one the code catches on purpose: the parse module catches brush-parser's own panics (an upstream
/// bug: `echo 99999999999>out`) and treats the text as unparseable. This hook lets those unwind to that
/// catch, naming each place once, and still aborts on any other panic.
pub fn let_parser_panics_unwind() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let abort = std::panic::take_hook();
        let seen = std::sync::Mutex::new(std::collections::HashSet::new());
        std::panic::set_hook(Box::new(move |info| match info.location() {
            Some(at) if at.file().contains("brush-parser") => {
                if seen.lock().is_ok_and(|mut seen| seen.insert(at.to_string())) {
                    eprintln!("caught parser panic at {at} (the text counts as unparseable)");
                }
            }
            _ => abort(info),
        }));
    });
}

/// Normalization never panics, only shortens the trimmed command, and cuts it exactly before a `|`
/// that starts a `head`/`tail` stage.
pub fn normalizer(command: &str) {
    let normalized = normalize_bash_command(command);
    let trimmed = command.trim();
    assert!(trimmed.starts_with(&normalized.command), "{command:?} → {normalized:?}");
    match normalized.extracted {
        None => assert_eq!(normalized.command, trimmed),
        Some(_) => {
            let rest = &trimmed[normalized.command.len()..];
            let rest = rest.replace("\\\n", "");
            let stage =
                rest.trim_start().strip_prefix('|').unwrap_or_else(|| panic!("{command:?}: cut before {rest:?}"));
            let stage = stage.trim_start();
            assert!(stage.starts_with("head") || stage.starts_with("tail"), "{command:?}: stage {stage:?}");
        }
    }
}

/// The built-in rules with every tool offered, and the same rules with each pattern replaced by
/// `pattern` (and `flags`): checking never panics, a block names an offered tool and an existing rule,
/// and no rule applies when its tool is not offered.
pub fn interceptor(command: &str, pattern: &str, flags: Option<&str>) {
    let tools: Vec<String> = ["read", "grep", "find", "edit", "write", "ls", "bash"].map(String::from).to_vec();
    let defaults = default_rules();
    let check = |interceptor: &Interceptor, rules: &[Rule]| {
        if let Some(block) = interceptor.check(command, &tools) {
            assert!(tools.contains(&block.suggested_tool), "{block:?}");
            let named = |i: usize, rule: &Rule| rule.name.clone().unwrap_or_else(|| format!("rule-{i}"));
            assert!(rules.iter().enumerate().any(|(i, rule)| named(i, rule) == block.rule), "{block:?}");
        }
        assert_eq!(interceptor.check(command, &[]), None, "no tool offered, yet {command:?} was blocked");
    };
    check(&Interceptor::new(&defaults), &defaults);
    let custom: Vec<Rule> = defaults
        .iter()
        .map(|rule| Rule { pattern: pattern.to_owned(), flags: flags.map(str::to_owned), ..rule.clone() })
        .chain([Rule {
            name: None,
            pattern: pattern.to_owned(),
            flags: flags.map(str::to_owned),
            tool: "bash".into(),
            message: "no".into(),
            when: vec![],
        }])
        .collect();
    check(&Interceptor::new(&custom), &custom);
}

/// A rule whose only form is `form` (any names, options, operands, value classes): compiling it never
/// panics (a bad form is a warning and the rule is skipped), nor does checking any command with it, and
/// a block names the rule.
pub fn interceptor_form(command: &str, form: Form) {
    let rule = Rule {
        name: Some("form".into()),
        pattern: String::new(),
        flags: None,
        tool: "read".into(),
        message: "no".into(),
        when: vec![form],
    };
    let interceptor = Interceptor::new(std::slice::from_ref(&rule));
    let block = interceptor.check(command, &["read".to_owned()]);
    if !interceptor.warnings().is_empty() {
        assert_eq!(block, None, "a skipped rule blocked {command:?}");
    }
    if let Some(block) = block {
        assert_eq!((block.rule.as_str(), block.suggested_tool.as_str()), ("form", "read"));
    }
}

/// How a sink case is set up.
#[derive(Debug, Clone, Copy)]
pub struct SinkCase {
    /// The sink's tail size.
    pub max_bytes: usize,
    /// Also keep this many first lines.
    pub head_lines: Option<u64>,
    /// Spill into a real artifact directory on overflow.
    pub spill: bool,
    /// The artifact's cap (`None`: unlimited); the writer raises it to at least 1 KiB.
    pub artifact_cap: Option<u64>,
    /// Index error signatures for the excerpt.
    pub scan: bool,
}

/// An allocator of the real directory whose artifacts have a cap.
struct Capped {
    inner: DirAllocator,
    cap: Option<u64>,
}

impl ArtifactAllocator for Capped {
    fn allocate(&mut self) -> Result<NewArtifact, AllocateError> {
        let new = self.inner.allocate()?;
        Ok(NewArtifact { max_bytes: self.cap.unwrap_or(u64::MAX), ..new })
    }
}

/// What an artifact capped at `cap` holds of `stream`: the whole stream up to the cap; past it the
/// first half less a 256-byte marker line, the marker, and the newest bytes. Returns those first and
/// newest bytes, and how many stream bytes the file lacks.
fn expected_artifact(stream: &[u8], cap: u64) -> (&[u8], &[u8], u64) {
    let cap = usize::try_from(cap.max(1024)).unwrap_or(usize::MAX);
    if stream.len() <= cap {
        return (stream, &[], 0);
    }
    let head = cap / 2;
    let ring = cap - head;
    (&stream[..head - 256], &stream[stream.len() - ring..], (stream.len() - cap + 256) as u64)
}

/// Feeds `stream`, cut at `cuts`, to a sink spilling into a real artifact directory (when `spill`),
/// and checks what it promises: the live tail after every chunk, the totals, the head, the artifact
/// byte for byte (or, past its cap, its head, marker and newest bytes), the tail valid UTF-8 when the
/// stream is, and the tail's model text a suffix of the whole stream's when the tail starts a line.
/// The result must not depend on the chunking.
pub fn sink(stream: &[u8], cuts: &[usize], case: SinkCase) {
    let SinkCase { max_bytes, head_lines, spill, artifact_cap, scan } = case;
    // Only a spilling sink needs a directory; making one costs more than the rest of a small case.
    let dir = spill.then(|| tempfile::tempdir().expect("a temporary directory"));
    let allocator = dir.as_ref().map(|dir| {
        let inner = ArtifactDir::new(dir.path().join("artifacts")).allocator();
        Box::new(Capped { inner, cap: artifact_cap }) as Box<dyn ArtifactAllocator>
    });
    let signatures = scan.then(SignatureSet::defaults);
    let config = SinkConfig { max_bytes, head_lines, signatures, smallest_view: None };
    let mut sink = OutputSink::new(config.clone(), allocator);
    let mut seen = 0;
    for chunk in split_at(stream, cuts) {
        sink.push(chunk);
        seen += chunk.len();
        let prefix = &stream[..seen];
        assert_eq!(sink.tail_bytes(), expected_tail(prefix, max_bytes), "live tail after {seen} bytes");
        assert_eq!(sink.total_bytes(), seen as u64);
        assert_eq!(sink.total_lines(), count_lines(prefix));
        assert_eq!(sink.truncated(), seen > max_bytes);
    }
    let out = sink.finish();

    let mut whole = OutputSink::new(config, None);
    whole.push(stream);
    let whole = whole.finish();
    assert_eq!((out.tail(), out.head(), out.total_bytes()), (whole.tail(), whole.head(), whole.total_bytes()));

    if let Some(excerpt) = excerpt_of(&out) {
        error_index(stream, max_bytes, excerpt);
        // A chunk of 4 KiB or more without a blank or colon is taken for data and not searched, so
        // only shorter streams must give the same index however they were cut.
        if stream.len() < 4096 {
            assert!(Some(excerpt) == excerpt_of(&whole), "the error index depends on the chunking");
        }
    }

    let tail = out.tail();
    assert_eq!(tail, expected_tail(stream, max_bytes));
    assert_eq!(out.total_bytes(), stream.len() as u64);
    assert_eq!(out.total_lines(), count_lines(stream));
    assert_eq!(out.tail_lines(), count_lines(tail));
    assert_eq!(out.truncated(), stream.len() > max_bytes);

    match (head_lines, out.head()) {
        (None, None) => {}
        (Some(n), Some(head)) => {
            let wanted: usize = lines_of(stream).iter().take(n as usize).map(|line| line.len()).sum();
            assert!(stream.starts_with(head.bytes()));
            assert_eq!(head.lines(), count_lines(head.bytes()));
            if wanted <= max_bytes {
                assert_eq!(head.bytes(), &stream[..wanted]);
                assert!(!head.capped());
            } else {
                assert!(head.capped());
                assert!(head.bytes().len() <= max_bytes && head.bytes().len() + 3 >= max_bytes);
            }
        }
        (asked, head) => panic!("head {head:?} for {asked:?}"),
    }

    match out.spill() {
        Spill::None => assert!(!spill || stream.len() <= max_bytes, "an overflow was not spilled"),
        Spill::Written { id, path, bytes, dropped } => {
            assert!(spill && stream.len() > max_bytes);
            let (first, last, lacks) = expected_artifact(stream, artifact_cap.unwrap_or(u64::MAX));
            assert_eq!((*bytes, *dropped), (stream.len() as u64, lacks));
            let file = fs::read(path).expect("the artifact");
            if lacks == 0 {
                assert!(file == stream, "artifact {id} differs from the stream");
            } else {
                assert!(file.len() == first.len() + 256 + last.len(), "artifact {id}: {} bytes", file.len());
                assert!(file.starts_with(first) && file.ends_with(last), "artifact {id}: head or tail differs");
                let marker = &file[first.len()..first.len() + 256];
                let says = format!("\n[… {} bytes of output dropped here", stream.len() - file.len());
                assert!(marker.starts_with(says.as_bytes()) && marker.ends_with(b"\n"), "marker {marker:?}");
            }
        }
        Spill::Failed { reason, .. } => panic!("spill failed: {reason}"),
    }

    if std::str::from_utf8(stream).is_ok() {
        assert!(std::str::from_utf8(tail).is_ok(), "tail of UTF-8 output is not UTF-8");
        if let Some(head) = out.head() {
            assert!(std::str::from_utf8(head.bytes()).is_ok(), "head of UTF-8 output is not UTF-8");
        }
    }
    let starts_line = tail.len() == stream.len() || stream[stream.len() - tail.len() - 1] == b'\n';
    if starts_line {
        let options = ViewOptions { max_line_chars: 1 + max_bytes % 50 };
        let text = text_view(tail, &options);
        let all = text_view(stream, &options);
        assert!(all.ends_with(&text), "model text of the tail {text:?} is not a suffix of {all:?}");
    }
}

/// The excerpt's first bytes are the stream's, and every line it kept is the stream's line of that
/// number (its first [`LINE_CAP`] bytes at most, and its real length).
fn error_index(stream: &[u8], max_bytes: usize, excerpt: &Excerpt) {
    let head = stream.len().min(head_share(max_bytes));
    assert_eq!(excerpt.head, &stream[..head], "the excerpt's head");
    let lines = lines_of(stream);
    for (&number, kept) in &excerpt.index.lines {
        let line = lines.get((number as usize).wrapping_sub(1)).unwrap_or_else(|| panic!("kept line {number}"));
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        assert_eq!(kept.len, line.len() as u64, "length of line {number}");
        assert!(line.starts_with(&kept.bytes) && kept.bytes.len() <= LINE_CAP, "line {number}: {kept:?}");
        if line.len() <= LINE_CAP {
            assert_eq!(kept.bytes, line, "line {number}");
        }
    }
    for entry in &excerpt.index.entries {
        assert!(excerpt.index.lines.contains_key(&entry.line), "{entry:?} without its line");
        assert!(entry.first <= entry.line && entry.line <= entry.last, "{entry:?}");
    }
    let found = excerpt.index.errors_found + excerpt.index.warnings_found;
    assert!(found >= excerpt.index.entries.len() as u64, "{found} found, {} kept", excerpt.index.entries.len());
}

/// A window request, as a client sends it.
pub struct Request<'a> {
    pub head: Option<u64>,
    pub tail: Option<u64>,
    pub lines: Option<&'a str>,
    pub grep: Option<&'a str>,
}

/// Reads a window of an artifact holding `content`, through the request a client sends, and checks
/// the answer against the window computed in memory: the content is the window's first `cap` bytes
/// (cut back to a character boundary when truncated), `truncated` says whether it was cut, and the
/// uncapped window counts its lines right.
pub fn window(content: &[u8], request: Request<'_>, cap: usize) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let artifacts = ArtifactDir::new(dir.path().to_path_buf());
    fs::write(dir.path().join("3.bash.log"), content).expect("an artifact");
    let request = WindowRequest {
        head: request.head,
        tail: request.tail,
        lines: request.lines.map(str::to_owned),
        grep: request.grep.map(str::to_owned),
    };
    let window = match request.window() {
        Ok(window) => window,
        Err(ReadError::SeveralWindows) => {
            let asked =
                [request.head.is_some(), request.tail.is_some(), request.lines.is_some(), request.grep.is_some()];
            assert!(asked.iter().filter(|a| **a).count() > 1);
            return;
        }
        Err(ReadError::BadRange(range)) => {
            let parsed = range.split_once('-').map(|(a, b)| (a.trim().parse::<u64>(), b.trim().parse::<u64>()));
            assert!(!matches!(parsed, Some((Ok(a), Ok(b))) if 1 <= a && a <= b), "{range:?} refused");
            return;
        }
        Err(ReadError::BadPattern(_)) => return,
        Err(e) => panic!("{e}"),
    };
    let lines = lines_of(content);
    let pick = |from: usize, to: usize| -> Vec<u8> { lines[from.min(lines.len())..to.min(lines.len())].concat() };
    let clamp = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let expected = match &window {
        Window::Whole => content.to_vec(),
        Window::Head(n) => pick(0, clamp(*n)),
        Window::Tail(n) => pick(lines.len().saturating_sub(clamp(*n)), lines.len()),
        Window::Lines { first, last } => pick(clamp(*first) - 1, clamp(*last)),
        Window::Grep(re) => {
            let mut out = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                let line = line.strip_suffix(b"\n").unwrap_or(line);
                if re.is_match(line) {
                    write!(out, "{}:", i + 1).expect("a Vec");
                    out.extend_from_slice(line);
                    out.push(b'\n');
                }
            }
            out
        }
    };

    let file = fs::File::open(dir.path().join("3.bash.log")).expect("the artifact");
    let mut uncapped = Vec::new();
    let written = write_window_from(file, &window, &mut uncapped).expect("an uncapped window");
    assert!(uncapped == expected, "{window:?} of {content:?}: {uncapped:?}, expected {expected:?}");
    assert_eq!(written, count_lines(&expected), "{window:?}: line count");

    let got = read_window(&artifacts, "artifact://3", &window, cap).expect("a capped window");
    assert_eq!(got.artifact_id, ArtifactId(3));
    assert_eq!(got.truncated, expected.len() > cap);
    let kept = match got.truncated {
        true => &expected[..complete_utf8_len(&expected[..cap])],
        false => &expected[..],
    };
    assert_eq!(got.content, String::from_utf8_lossy(kept), "{window:?} capped at {cap}");
}

/// Resolves `reference` in a directory holding artifacts `present`: it opens exactly when it is
/// `[artifact://]<decimal id>[/…]` naming a present artifact, errors name what was asked, error texts
/// stay short whatever the directory holds, and allocating the next artifact never panics.
pub fn artifact_id(reference: &str, present: &[u64]) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let artifacts = ArtifactDir::new(dir.path().to_path_buf());
    for id in present {
        fs::write(dir.path().join(format!("{id}.bash.log")), id.to_string()).expect("an artifact");
    }
    let text = reference.strip_prefix("artifact://").unwrap_or(reference).trim_end_matches('/');
    let wanted = match text.bytes().all(|b| b.is_ascii_digit()) {
        true => text.parse::<u64>().ok(),
        false => None,
    };
    match (artifacts.open(reference), wanted) {
        (Ok((id, _)), Some(wanted)) => {
            assert_eq!(id.0, wanted);
            assert!(present.contains(&wanted));
        }
        (Ok((id, _)), None) => panic!("{reference:?} opened {id}"),
        (Err(ArtifactError::NotFound { id, available }), Some(wanted)) => {
            assert!(!present.contains(&wanted), "{reference:?} not found");
            assert_eq!(id, text);
            assert!(available.len() < 1024, "{} bytes of available ids", available.len());
        }
        (Err(ArtifactError::MissingId(_)), None) => assert!(text.is_empty()),
        (Err(ArtifactError::NonNumeric(shown)), None) => assert_eq!(shown, text),
        (Err(e), _) => panic!("{reference:?}: {e}"),
    }
    for id in present {
        let (found, _) = artifacts.open(&ArtifactId(*id).url()).expect("a present artifact");
        assert_eq!(found.0, *id);
    }
    if let Ok(new) = artifacts.allocator().allocate() {
        assert!(!present.contains(&new.id.0), "allocated {} again", new.id);
    }
}
