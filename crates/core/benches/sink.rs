//! Push throughput of `OutputSink` (≥ 1 GiB/s with spill on a 2-vCPU machine).
//!
//! 1 GiB of base64-like text (76-character lines, like `base64`'s output) in 64 KiB chunks — the
//! size of one pipe read — through a default 50 KB sink, with a spill to a fresh file in a temp dir
//! under `/tmp` (as the real artifact directory is), and without. The time covers every push and
//! `finish`, which flushes and closes the file; creating the directory and deleting the file do not
//! count. Also, with spill only, the same 1 GiB in 1 MiB chunks: what reading a 1 MiB pipe in one
//! `read(2)` would give the sink (a chunk larger than the spill buffer is written without a copy).
//! The `_no_index` rows run the same sink without the error index (`bash.view = "tail"`), to show
//! what the index costs in the same run. Also: `model_view` over a full 50 KB tail. Run pinned for stable numbers:
//! `taskset -c 0 cargo bench -p bashrt-core --bench sink` (`bench/run.sh` runs it with the rest).

use std::fs::OpenOptions;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use bashrt_core::{
    model_view, AllocateError, ArtifactAllocator, ArtifactId, NewArtifact, OutputSink, SinkConfig, ViewOptions,
    DEFAULT_MAX_BYTES,
};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};

const TOTAL_BYTES: usize = 1 << 30;
const CHUNK_BYTES: usize = 64 << 10;
/// The output pipe's size (exec/pipe.rs): the most one read can return.
const BIG_CHUNK_BYTES: usize = 1 << 20;
/// Distinct chunks, so the tail copy and line count do not see one cached buffer over and over.
const DISTINCT_CHUNKS: usize = 16;

/// Hands out one fresh `1.bash.log` in its directory, like the session's allocator would.
struct FreshFile {
    dir: PathBuf,
}

impl ArtifactAllocator for FreshFile {
    fn allocate(&mut self) -> Result<NewArtifact, AllocateError> {
        let path = self.dir.join("1.bash.log");
        let file = OpenOptions::new().write(true).create_new(true).open(&path).map_err(|e| e.to_string())?;
        Ok(NewArtifact::unlimited(ArtifactId(1), path, file))
    }
}

fn base64_like_chunks(chunk_bytes: usize) -> Vec<Vec<u8>> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut column = 0;
    (0..DISTINCT_CHUNKS)
        .map(|_| {
            (0..chunk_bytes)
                .map(|_| {
                    if column == 76 {
                        column = 0;
                        return b'\n';
                    }
                    column += 1;
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ALPHABET[(state >> 58) as usize]
                })
                .collect()
        })
        .collect()
}

/// Pushes 1 GiB through one sink; returns the time of the pushes and `finish`. `index`: the default
/// config (error index for the excerpt view) or the tail only (`bash.view = "tail"`).
fn push_gib(chunks: &[Vec<u8>], spill: bool, index: bool) -> Duration {
    let dir = tempfile::tempdir().expect("temp dir under /tmp");
    let allocator: Option<Box<dyn ArtifactAllocator>> =
        if spill { Some(Box::new(FreshFile { dir: dir.path().to_path_buf() })) } else { None };
    let start = Instant::now();
    let config = if index { SinkConfig::default() } else { SinkConfig::tail_only(DEFAULT_MAX_BYTES, None) };
    let mut sink = OutputSink::new(config, allocator);
    for chunk in chunks.iter().cycle().take(TOTAL_BYTES / chunks[0].len()) {
        sink.push(chunk);
    }
    let out = sink.finish();
    let elapsed = start.elapsed();
    assert_eq!(out.total_bytes(), TOTAL_BYTES as u64);
    black_box(out);
    elapsed
}

fn sink_throughput(c: &mut Criterion) {
    let chunks = base64_like_chunks(CHUNK_BYTES);
    let mut group = c.benchmark_group("sink_push_1GiB_64KiB_chunks");
    group
        .throughput(Throughput::Bytes(TOTAL_BYTES as u64))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for (name, spill, index) in [
        ("with_spill", true, true),
        ("with_spill_no_index", true, false),
        ("tail_only", false, true),
        ("tail_only_no_index", false, false),
    ] {
        group
            .bench_function(name, |b| b.iter_custom(|iters| (0..iters).map(|_| push_gib(&chunks, spill, index)).sum()));
    }
    group.finish();

    let chunks = base64_like_chunks(BIG_CHUNK_BYTES);
    let mut group = c.benchmark_group("sink_push_1GiB_1MiB_chunks");
    group
        .throughput(Throughput::Bytes(TOTAL_BYTES as u64))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("with_spill", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| push_gib(&chunks, true, true)).sum())
    });
    group.finish();
}

/// The view runs once per result on the tail, so it only has to be cheap next to a command's
/// launch (≈ 1 ms): a worst-ish tail of coloured, `\r`-redrawn progress lines.
fn view_of_a_full_tail(c: &mut Criterion) {
    let line = "\x1b[32m✓\x1b[0m step \x1b[1m42\x1b[0m: 10%\r\x1b[K 50%\r\x1b[K100% done\r\n";
    let tail = line.repeat(DEFAULT_MAX_BYTES / line.len());
    let opts = ViewOptions::default();
    let mut group = c.benchmark_group("model_view");
    group.throughput(Throughput::Bytes(tail.len() as u64));
    group.bench_function("50KB_coloured_progress", |b| b.iter(|| model_view(black_box(tail.as_bytes()), &opts)));
    group.finish();
}

criterion_group!(benches, sink_throughput, view_of_a_full_tail);
criterion_main!(benches);
