//! What opening a large artifact in the pager costs: the time to its first screen, the time until the
//! background index reaches the end, the time to the last screen, and the peak memory. A measurement
//! for BENCHMARKS.md, not a test:
//!
//!     head -c 1G /dev/zero | tr '\0' 'y' | fold -w 1 > /tmp/big.log      # 512 Mi one-byte lines
//!     cargo run --release -p bashrt-tui --example pager_open -- /tmp/big.log

use std::time::{Duration, Instant};

use bashrt_tui::testing::{Document, Source};

const SCREEN: usize = 40;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: pager_open FILE")?;
    let size = std::fs::metadata(&path)?.len();
    let start = Instant::now();
    let doc = Document::open(Source::open(std::path::Path::new(&path))?)?;
    let first = doc.rows(0, SCREEN)?;
    let first_screen = start.elapsed();
    while !doc.progress().done {
        std::thread::sleep(Duration::from_millis(1));
    }
    let indexed = start.elapsed();
    let progress = doc.progress();
    let before_last = Instant::now();
    let last = doc.rows(progress.rows.saturating_sub(SCREEN as u64), SCREEN)?;
    let last_screen = before_last.elapsed();
    let hwm = std::fs::read_to_string("/proc/self/status")?
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        .unwrap_or_default();
    println!("file: {path} ({size} bytes, {} lines, {} rows)", progress.lines, progress.rows);
    println!("first screen ({} rows): {:.2} ms", first.len(), first_screen.as_secs_f64() * 1e3);
    println!("index complete: {:.0} ms", indexed.as_secs_f64() * 1e3);
    println!(
        "last screen ({} rows, line {}): {:.2} ms",
        last.len(),
        last.last().map_or(0, |l| l.number),
        last_screen.as_secs_f64() * 1e3
    );
    println!("peak RSS: {hwm}");
    Ok(())
}
