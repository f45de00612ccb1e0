//! OutputSink behaviour, through the public API, with real artifact files.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bashrt_core::{
    AllocateError, ArtifactAllocator, ArtifactId, NewArtifact, OutputSink, SinkConfig, SinkOutput, Spill,
    DEFAULT_MAX_BYTES,
};
use proptest::prelude::*;

/// What the allocator hands out.
#[derive(Clone)]
enum Mode {
    /// A fresh `<id>.bash.log` in the directory, like the real allocator.
    Fresh,
    /// Allocation fails with this reason.
    Refuse(&'static str),
    /// A file created in the directory but opened read-only, so every write fails.
    ReadOnly,
    /// `/dev/full`: writes are buffered fine, the flush fails with ENOSPC.
    DevFull,
}

struct TestAllocator {
    dir: PathBuf,
    mode: Mode,
    next: u64,
    calls: Arc<AtomicUsize>,
}

impl ArtifactAllocator for TestAllocator {
    fn allocate(&mut self) -> Result<NewArtifact, AllocateError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let id = ArtifactId(self.next);
        self.next += 1;
        let path = self.dir.join(format!("{id}.bash.log"));
        let file = match self.mode {
            Mode::Refuse(reason) => return Err(reason.to_string().into()),
            Mode::Fresh => OpenOptions::new().write(true).create_new(true).open(&path).map_err(|e| e.to_string())?,
            Mode::ReadOnly => {
                File::create(&path).map_err(|e| e.to_string())?;
                File::open(&path).map_err(|e| e.to_string())?
            }
            Mode::DevFull => {
                let path = PathBuf::from("/dev/full");
                let file = OpenOptions::new().write(true).open(&path).map_err(|e| e.to_string())?;
                return Ok(NewArtifact::unlimited(id, path, file));
            }
        };
        Ok(NewArtifact::unlimited(id, path, file))
    }
}

struct Harness {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    calls: Arc<AtomicUsize>,
}

impl Harness {
    fn new() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        Harness { dir: dir.path().to_path_buf(), _dir: dir, calls: Arc::new(AtomicUsize::new(0)) }
    }

    fn allocator(&self, mode: Mode) -> Option<Box<dyn ArtifactAllocator>> {
        Some(Box::new(TestAllocator { dir: self.dir.clone(), mode, next: 1, calls: Arc::clone(&self.calls) }))
    }

    fn sink(&self, max_bytes: usize, mode: Mode) -> OutputSink {
        OutputSink::new(SinkConfig { max_bytes, head_lines: None, ..SinkConfig::default() }, self.allocator(mode))
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

fn config(max_bytes: usize) -> SinkConfig {
    SinkConfig { max_bytes, head_lines: None, ..SinkConfig::default() }
}

fn run(config: SinkConfig, chunks: &[&[u8]]) -> SinkOutput {
    let mut sink = OutputSink::new(config, None);
    for chunk in chunks {
        sink.push(chunk);
    }
    sink.finish()
}

fn written(out: &SinkOutput) -> (ArtifactId, &Path, u64) {
    match out.spill() {
        Spill::Written { id, path, bytes, dropped: 0 } => (*id, path, *bytes),
        other => panic!("expected a written spill, got {other:?}"),
    }
}

/// A small deterministic generator, so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Text with ASCII words, multibyte characters and lines of very different lengths.
fn text_stream(len: usize, seed: u64) -> Vec<u8> {
    let pieces: [&[u8]; 8] =
        [b"word ", b"\n", "é".as_bytes(), "€uro ".as_bytes(), "𝄞".as_bytes(), b"0123456789abcdef", b"\n\n", b"\t"];
    let mut rng = XorShift(seed);
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        out.extend_from_slice(pieces[rng.below(pieces.len() as u64) as usize]);
    }
    out
}

/// The tail the sink promises, computed the slow, obvious way.
fn expected_tail(stream: &[u8], max: usize) -> &[u8] {
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

fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'))
}

#[test]
fn lines_are_newline_terminated_and_a_final_unterminated_piece_counts() {
    let cases: [(&[&[u8]], u64, u64); 7] = [
        (&[], 0, 0),
        (&[b""], 0, 0),
        (&[b"a\nb\n"], 4, 2),
        (&[b"a\nb"], 3, 2),
        (&[b"\n"], 1, 1),
        (&[b"a", b"", b"\n", b"b"], 3, 2),
        (&[b"no newline at all"], 17, 1),
    ];
    for (chunks, bytes, lines) in cases {
        let out = run(SinkConfig::default(), chunks);
        assert_eq!(out.total_bytes(), bytes, "{chunks:?}");
        assert_eq!(out.total_lines(), lines, "{chunks:?}");
        assert!(!out.truncated());
        assert_eq!(out.tail(), chunks.concat());
        assert_eq!(out.tail_lines(), lines);
        assert_eq!(out.spill(), &Spill::None);
    }
}

#[test]
fn default_config_keeps_50_kb_and_no_head() {
    let config = SinkConfig::default();
    assert_eq!(config.max_bytes, 50 * 1024);
    assert_eq!(DEFAULT_MAX_BYTES, 51_200);
    assert_eq!(config.head_lines, None);
}

#[test]
fn tail_of_overflowing_output_starts_on_a_line_boundary() {
    let stream: Vec<u8> = (0..10_000).flat_map(|i| format!("line {i} {}\n", "x".repeat(i % 37)).into_bytes()).collect();
    let out = run(config(1000), &[&stream]);
    let tail = out.tail();
    assert!(out.truncated());
    assert!(tail.len() <= 1000);
    assert!(stream.ends_with(tail));
    assert_eq!(stream[stream.len() - tail.len() - 1], b'\n');
    assert!(tail.starts_with(b"line "));
    // The earliest boundary in the window: one more line would not fit.
    let previous_line = stream[..stream.len() - tail.len() - 1].rsplit(|&b| b == b'\n').next().unwrap();
    assert!(tail.len() + previous_line.len() + 1 > 1000);
    assert_eq!(out.total_lines(), 10_000);
    assert_eq!(out.tail_lines(), count_lines(tail));
}

#[test]
fn window_starting_exactly_after_a_newline_is_kept_whole() {
    let stream = b"123456789\n".repeat(20);
    let out = run(config(50), &[&stream]);
    assert_eq!(out.tail(), &b"123456789\n".repeat(5)[..]);
    assert_eq!(out.tail_lines(), 5);
}

#[test]
fn single_long_line_is_cut_on_a_utf8_boundary() {
    // 3-byte characters and a limit that is not a multiple of 3: the raw window starts mid-character.
    let stream = "€".repeat(10_000).into_bytes();
    let out = run(config(100), &[&stream]);
    let tail = std::str::from_utf8(out.tail()).expect("tail is cut on a character boundary");
    assert_eq!(tail, "€".repeat(33));
    assert_eq!(out.tail_lines(), 1);
    assert!(out.truncated());
}

#[test]
fn long_last_line_ending_in_newline_is_not_cut_to_nothing() {
    let mut stream = b"first\n".to_vec();
    stream.extend(std::iter::repeat_n(b'y', 500));
    stream.push(b'\n');
    let out = run(config(100), &[&stream]);
    assert_eq!(out.tail().len(), 100);
    assert!(out.tail().ends_with(b"yyy\n"));
    assert_eq!(out.tail_lines(), 1);
}

#[test]
fn multibyte_characters_split_across_chunks_come_out_whole() {
    let stream = "héllo wörld € 𝄞\n".repeat(200).into_bytes();
    let mut sink = OutputSink::new(config(300), None);
    for byte in &stream {
        sink.push(std::slice::from_ref(byte));
    }
    let out = sink.finish();
    let tail = std::str::from_utf8(out.tail()).expect("valid UTF-8");
    assert!(tail.starts_with("héllo"));
    assert_eq!(tail.as_bytes(), expected_tail(&stream, 300));
    assert_eq!(out.total_bytes(), stream.len() as u64);
    assert_eq!(out.total_lines(), 200);
}

#[test]
fn artifact_is_byte_exact_for_a_multi_megabyte_stream_in_random_chunks() {
    let harness = Harness::new();
    let mut stream = text_stream(6 << 20, 7);
    // Raw bytes that are not text belong in the artifact too.
    stream.extend((0..=255u8).cycle().take(70_000));
    let mut sink = harness.sink(DEFAULT_MAX_BYTES, Mode::Fresh);
    let mut rng = XorShift(42);
    let mut at = 0;
    while at < stream.len() {
        let size = match rng.below(4) {
            0 => 1 + rng.below(16),
            1 => 1 + rng.below(4096),
            2 => 65_536,
            _ => 1 + rng.below(300_000),
        } as usize;
        let end = (at + size).min(stream.len());
        sink.push(&stream[at..end]);
        assert_eq!(sink.tail_bytes(), expected_tail(&stream[..end], DEFAULT_MAX_BYTES));
        at = end;
    }
    let out = sink.finish();
    let (id, path, bytes) = written(&out);
    assert_eq!(id, ArtifactId(1));
    assert_eq!(bytes, stream.len() as u64);
    assert!(fs::read(path).unwrap() == stream, "artifact differs");
    assert_eq!(out.total_bytes(), stream.len() as u64);
    assert_eq!(out.total_lines(), count_lines(&stream));
    assert_eq!(out.tail(), expected_tail(&stream, DEFAULT_MAX_BYTES));
    assert_eq!(harness.calls(), 1);
}

#[test]
fn allocate_is_called_once_and_only_on_overflow() {
    let harness = Harness::new();
    let mut sink = harness.sink(100, Mode::Fresh);
    sink.push(&[b'a'; 60]);
    sink.push(&[b'b'; 40]);
    assert_eq!(harness.calls(), 0, "exactly max_bytes is not an overflow");
    let out = sink.finish();
    assert_eq!(out.spill(), &Spill::None);
    assert!(!out.truncated());
    assert_eq!(fs::read_dir(&harness.dir).unwrap().count(), 0);

    let mut sink = harness.sink(100, Mode::Fresh);
    sink.push(&[b'a'; 100]);
    assert_eq!(harness.calls(), 0);
    sink.push(b"b");
    assert_eq!(harness.calls(), 1);
    for _ in 0..100 {
        sink.push(&[b'c'; 1000]);
    }
    sink.ensure_spilled();
    assert_eq!(harness.calls(), 1);
    let out = sink.finish();
    let (_, path, bytes) = written(&out);
    assert_eq!(bytes, 100_101);
    assert_eq!(fs::metadata(path).unwrap().len(), 100_101);
}

#[test]
fn allocation_failure_is_recorded_once_and_output_still_kept() {
    let harness = Harness::new();
    let mut sink = harness.sink(10, Mode::Refuse("No space left on device"));
    for i in 0..50 {
        sink.push(format!("line {i}\n").as_bytes());
    }
    sink.ensure_spilled();
    let out = sink.finish();
    assert_eq!(harness.calls(), 1);
    assert_eq!(out.spill(), &Spill::Failed { reason: "No space left on device".to_string(), id: None });
    assert_eq!(out.tail(), b"line 49\n");
    assert_eq!(out.total_lines(), 50);
    assert!(out.truncated());
}

#[test]
fn write_failure_stops_spilling_and_names_the_partial_file() {
    let harness = Harness::new();
    let mut sink = harness.sink(16, Mode::ReadOnly);
    // About 600 KB: more than the write buffer holds, so the failure shows during the pushes.
    for i in 0..50_000 {
        sink.push(format!("line {i}\n").as_bytes());
    }
    let out = sink.finish();
    match out.spill() {
        Spill::Failed { reason, id: Some(id) } => {
            assert_eq!(*id, ArtifactId(1));
            assert!(reason.starts_with("writing "), "{reason}");
            assert!(reason.contains("1.bash.log"), "{reason}");
        }
        other => panic!("expected a failed spill with an id, got {other:?}"),
    }
    assert_eq!(harness.calls(), 1);
    assert_eq!(out.tail(), b"line 49999\n");
    assert_eq!(out.total_lines(), 50_000);
}

#[test]
fn flush_error_at_finish_is_reported_as_spill_failure() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let harness = Harness::new();
    let mut sink = harness.sink(1024, Mode::DevFull);
    sink.push(b"small output\n");
    sink.ensure_spilled();
    sink.push(b"more\n");
    let out = sink.finish();
    match out.spill() {
        Spill::Failed { reason, id } => {
            assert_eq!(*id, Some(ArtifactId(1)));
            assert!(reason.contains("flushing"), "{reason}");
        }
        other => panic!("expected a failed spill, got {other:?}"),
    }
    assert_eq!(out.tail(), b"small output\nmore\n");
}

#[test]
fn ensure_spilled_writes_small_output_and_what_follows() {
    let harness = Harness::new();
    let mut sink = harness.sink(DEFAULT_MAX_BYTES, Mode::Fresh);
    sink.push(b"one\ntwo\n");
    sink.ensure_spilled();
    sink.ensure_spilled();
    sink.push(b"three");
    let out = sink.finish();
    assert_eq!(harness.calls(), 1);
    let (_, path, bytes) = written(&out);
    assert_eq!(fs::read(path).unwrap(), b"one\ntwo\nthree");
    assert_eq!(bytes, 13);
    assert!(!out.truncated(), "a spill alone does not truncate");
    assert_eq!(out.tail(), b"one\ntwo\nthree");
}

#[test]
fn ensure_spilled_on_empty_output_writes_an_empty_artifact() {
    let harness = Harness::new();
    let mut sink = harness.sink(DEFAULT_MAX_BYTES, Mode::Fresh);
    sink.ensure_spilled();
    let out = sink.finish();
    let (_, path, bytes) = written(&out);
    assert_eq!(bytes, 0);
    assert_eq!(fs::metadata(path).unwrap().len(), 0);
}

#[test]
fn ensure_spilled_without_allocator_does_nothing() {
    let mut sink = OutputSink::new(SinkConfig::default(), None);
    sink.push(b"x\n");
    sink.ensure_spilled();
    assert_eq!(sink.finish().spill(), &Spill::None);
}

#[test]
fn finish_returns_with_the_file_flushed_and_closed() {
    // Far less than the write buffer: without the flush in `finish` the file would be empty.
    let harness = Harness::new();
    let mut sink = harness.sink(16, Mode::Fresh);
    sink.push(b"0123456789\n0123456789\n");
    sink.push(b"tail\n");
    let out = sink.finish();
    let (_, path, bytes) = written(&out);
    assert_eq!(fs::metadata(path).unwrap().len(), out.total_bytes());
    assert_eq!(bytes, 27);
    assert_eq!(fs::read(path).unwrap(), b"0123456789\n0123456789\ntail\n");
}

#[test]
fn head_keeps_the_first_lines_across_chunks() {
    let config = SinkConfig { max_bytes: 64, head_lines: Some(3), ..SinkConfig::default() };
    let stream: Vec<u8> = (1..=100).flat_map(|i| format!("l{i}\n").into_bytes()).collect();
    let chunks: Vec<&[u8]> = stream.chunks(5).collect();
    let out = run(config, &chunks);
    let head = out.head().expect("head requested");
    assert_eq!(head.bytes(), b"l1\nl2\nl3\n");
    assert_eq!(head.lines(), 3);
    assert!(!head.capped());
    assert!(out.truncated());
}

#[test]
fn head_of_short_output_is_all_of_it() {
    let config = SinkConfig { max_bytes: 64, head_lines: Some(5), ..SinkConfig::default() };
    let out = run(config, &[b"a\nb", b"\nc"]);
    let head = out.head().unwrap();
    assert_eq!(head.bytes(), b"a\nb\nc");
    assert_eq!(head.lines(), 3);
    assert!(!head.capped());
}

#[test]
fn head_of_zero_lines_is_empty_and_no_head_requested_is_none() {
    let zero = SinkConfig { max_bytes: 64, head_lines: Some(0), ..SinkConfig::default() };
    let head = run(zero, &[b"a\nb\n"]).head().cloned().unwrap();
    assert_eq!(head.bytes(), b"");
    assert!(!head.capped());
    assert!(run(config(64), &[b"a\n"]).head().is_none());
}

#[test]
fn head_longer_than_max_bytes_is_capped_on_a_character_boundary() {
    let config = SinkConfig { max_bytes: 10, head_lines: Some(2), ..SinkConfig::default() };
    // "ab€€€€" is 14 bytes; 10 bytes would end inside the third '€'.
    let out = run(config, &["ab€".as_bytes(), "€€€\nnext\n".as_bytes()]);
    let head = out.head().unwrap();
    assert_eq!(head.bytes(), "ab€€".as_bytes());
    assert!(head.capped());
    assert_eq!(head.lines(), 1);
}

#[test]
fn head_cap_drops_a_character_begun_in_an_earlier_chunk() {
    // Found by proptest: the first chunk ends inside '€' and fits; the next one overflows.
    let config = SinkConfig { max_bytes: 4, head_lines: Some(2), ..SinkConfig::default() };
    let out = run(config, &[b"a\xc3\xa9\xe2", b"\x82\xac\n\n"]);
    let head = out.head().unwrap();
    assert_eq!(head.bytes(), "aé".as_bytes());
    assert!(head.capped());
}

#[test]
fn head_that_exactly_fills_max_bytes_is_not_capped() {
    let config = SinkConfig { max_bytes: 6, head_lines: Some(2), ..SinkConfig::default() };
    let out = run(config, &[b"ab\ncd\nef\n"]);
    let head = out.head().unwrap();
    assert_eq!(head.bytes(), b"ab\ncd\n");
    assert!(!head.capped());
}

#[test]
fn truncated_comes_from_the_totals_while_running_and_at_the_end() {
    let mut sink = OutputSink::new(config(8), None);
    sink.push(b"12345678");
    assert!(!sink.truncated());
    assert_eq!(sink.tail_bytes(), b"12345678");
    sink.push(b"9");
    assert!(sink.truncated());
    assert_eq!(sink.total_bytes(), 9);
    assert_eq!(sink.total_lines(), 1);
    let out = sink.finish();
    assert!(out.truncated());
    assert_eq!(out.tail(), b"23456789");
}

#[test]
fn zero_max_bytes_keeps_nothing_but_spills_everything() {
    let harness = Harness::new();
    let mut sink = harness.sink(0, Mode::Fresh);
    sink.push(b"a\n");
    sink.push(b"b\n");
    let out = sink.finish();
    assert_eq!(out.tail(), b"");
    assert_eq!(out.tail_lines(), 0);
    assert!(out.truncated());
    let (_, path, _) = written(&out);
    assert_eq!(fs::read(path).unwrap(), b"a\nb\n");
}

#[test]
fn sink_can_move_to_a_reader_thread() {
    let harness = Harness::new();
    let mut sink = harness.sink(4, Mode::Fresh);
    let out = std::thread::spawn(move || {
        sink.push(b"from a thread\n");
        sink.finish()
    })
    .join()
    .unwrap();
    assert_eq!(written(&out).2, 14);
}

/// Splits `stream` at the given cut points (taken modulo its length).
fn split_at<'a>(stream: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
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

fn stream_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => "[ab€é\n]{0,120}".prop_map(String::into_bytes),
        1 => proptest::collection::vec(any::<u8>(), 0..120),
    ]
}

proptest! {
    #[test]
    fn any_chunking_gives_the_reference_tail_head_and_totals(
        stream in stream_strategy(),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        max_bytes in 0usize..48,
        head_lines in proptest::option::of(0u64..6),
    ) {
        let config = SinkConfig { max_bytes, head_lines, ..SinkConfig::default() };
        let chunks = split_at(&stream, &cuts);
        let whole = run(config.clone(), &[&stream]);
        let out = run(config, &chunks);
        prop_assert_eq!(&out, &whole);

        prop_assert_eq!(out.total_bytes(), stream.len() as u64);
        prop_assert_eq!(out.total_lines(), count_lines(&stream));
        prop_assert_eq!(out.tail(), expected_tail(&stream, max_bytes));
        prop_assert_eq!(out.tail_lines(), count_lines(out.tail()));
        prop_assert_eq!(out.truncated(), stream.len() > max_bytes);
        prop_assert!(out.tail().len() <= max_bytes);

        match (head_lines, out.head()) {
            (None, None) => {}
            (Some(n), Some(head)) => {
                let full_end = stream
                    .iter()
                    .enumerate()
                    .filter(|&(_, &b)| b == b'\n')
                    .nth(n.saturating_sub(1) as usize)
                    .map_or(stream.len(), |(i, _)| i + 1);
                let full_end = if n == 0 { 0 } else { full_end };
                prop_assert!(stream.starts_with(head.bytes()));
                prop_assert_eq!(head.lines(), count_lines(head.bytes()));
                if full_end <= max_bytes {
                    prop_assert_eq!(head.bytes(), &stream[..full_end]);
                    prop_assert!(!head.capped());
                } else {
                    prop_assert!(head.capped());
                    prop_assert!(head.bytes().len() <= max_bytes);
                    prop_assert!(head.bytes().len() + 3 >= max_bytes);
                }
            }
            (requested, head) => prop_assert!(false, "head {:?} for {:?}", head, requested),
        }

        if std::str::from_utf8(&stream).is_ok() {
            prop_assert!(std::str::from_utf8(out.tail()).is_ok());
            if let Some(head) = out.head() {
                prop_assert!(std::str::from_utf8(head.bytes()).is_ok());
            }
        }
    }

    #[test]
    fn spilled_artifact_is_the_stream_and_exists_only_after_overflow(
        stream in stream_strategy(),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        max_bytes in 0usize..48,
    ) {
        let harness = Harness::new();
        let mut sink = harness.sink(max_bytes, Mode::Fresh);
        for chunk in split_at(&stream, &cuts) {
            sink.push(chunk);
            prop_assert_eq!(harness.calls(), usize::from(sink.total_bytes() > max_bytes as u64));
        }
        let out = sink.finish();
        if stream.len() > max_bytes {
            let (_, path, bytes) = written(&out);
            prop_assert_eq!(bytes, stream.len() as u64);
            prop_assert_eq!(fs::read(path).unwrap(), stream);
        } else {
            prop_assert_eq!(out.spill(), &Spill::None);
        }
    }
}

#[test]
fn a_tail_inside_one_long_line_knows_how_much_of_that_line_came_before_it() {
    // Chunked anyhow, with a multi-byte character: the count is in characters.
    let line = format!("{}é{}", "a".repeat(3000), "b".repeat(2000));
    let chars = line.chars().count() as u64;
    for ending in ["", "\n"] {
        let stream = format!("short first line\n{line}{ending}");
        let chunks: Vec<&[u8]> = stream.as_bytes().chunks(777).collect();
        let out = run(config(1000), &chunks);
        let kept = String::from_utf8_lossy(out.tail()).trim_end_matches('\n').chars().count() as u64;
        assert_eq!(out.first_line_cut(), chars - kept, "ending {ending:?}");
    }
    // A tail that starts a line has nothing cut.
    let out = run(config(1000), &[b"x\n".repeat(2000).as_slice()]);
    assert_eq!(out.first_line_cut(), 0);
}
