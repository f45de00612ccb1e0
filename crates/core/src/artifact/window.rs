//! Windows over an artifact — its head, its tail, a line range, or the lines matching a pattern — so a
//! model can read more of an old output without running the command again.
//!
//! Artifacts can be gigabytes: every window streams the file and keeps at most one line (or, for the
//! tail, the last N line offsets) in memory. Bytes are copied raw; the caller decides how to show them.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Which part of an artifact to read. Line numbers are 1-based and inclusive.
#[derive(Debug, Clone)]
pub enum Window {
    /// All of it.
    Whole,
    /// The first N lines.
    Head(u64),
    /// The last N lines.
    Tail(u64),
    /// Lines `first` to `last`.
    Lines {
        /// The first line shown (1-based).
        first: u64,
        /// The last line shown (inclusive).
        last: u64,
    },
    /// Lines matching the pattern, each prefixed by its line number and a colon (`grep -n` style).
    Grep(regex::bytes::Regex),
}

/// Writes the window of the artifact at `path` to `out`; returns the number of lines written.
pub fn write_window(path: &Path, window: &Window, out: &mut dyn Write) -> io::Result<u64> {
    let file = File::open(path)?;
    match window {
        Window::Whole => copy_rest(file, out),
        Window::Head(n) => copy_lines(file, out, |number, _| (number <= *n, number >= *n)),
        Window::Lines { first, last } => {
            copy_lines(file, out, |number, _| (number >= *first && number <= *last, number >= *last))
        }
        Window::Grep(re) => each_line(file, |number, line| {
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            if !re.is_match(body) {
                return Ok(Step::Skip);
            }
            write!(out, "{number}:")?;
            out.write_all(body)?;
            out.write_all(b"\n")?;
            Ok(Step::Wrote)
        }),
        Window::Tail(n) => write_tail(file, *n, out),
    }
}

/// Streams lines; `decide(number, line)` says (emit this line, stop after it).
fn copy_lines(file: File, out: &mut dyn Write, mut decide: impl FnMut(u64, &[u8]) -> (bool, bool)) -> io::Result<u64> {
    each_line(file, |number, line| {
        let (emit, stop) = decide(number, line);
        if emit {
            out.write_all(line)?;
        }
        Ok(match (emit, stop) {
            (true, true) => Step::WroteAndStop,
            (true, false) => Step::Wrote,
            (false, true) => Step::Stop,
            (false, false) => Step::Skip,
        })
    })
}

/// What a line visitor did with one line.
enum Step {
    Skip,
    Wrote,
    Stop,
    WroteAndStop,
}

/// Reads the file line by line (a line keeps its `\n`; one line in memory at a time) and hands each,
/// with its 1-based number, to `visit`; returns how many lines `visit` wrote.
fn each_line(file: File, mut visit: impl FnMut(u64, &[u8]) -> io::Result<Step>) -> io::Result<u64> {
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut line = Vec::new();
    let mut number = 0u64;
    let mut written = 0u64;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(written);
        }
        number += 1;
        match visit(number, &line)? {
            Step::Skip => {}
            Step::Wrote => written += 1,
            Step::Stop => return Ok(written),
            Step::WroteAndStop => return Ok(written + 1),
        }
    }
}

/// Finds the start of the last `n` lines by reading backwards in blocks, then copies from there.
fn write_tail(mut file: File, n: u64, out: &mut dyn Write) -> io::Result<u64> {
    if n == 0 {
        return Ok(0);
    }
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(0);
    }
    // A trailing newline ends the last line; it does not start another one.
    let mut last_byte = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last_byte)?;
    let mut end = if last_byte[0] == b'\n' { len - 1 } else { len };
    let mut newlines_needed = n;
    let mut start = 0u64;
    let mut block = vec![0u8; 64 * 1024];
    'outer: while end > 0 {
        let size = (end.min(block.len() as u64)) as usize;
        let pos = end - size as u64;
        file.seek(SeekFrom::Start(pos))?;
        file.read_exact(&mut block[..size])?;
        for i in (0..size).rev() {
            if block[i] == b'\n' {
                newlines_needed -= 1;
                if newlines_needed == 0 {
                    start = pos + i as u64 + 1;
                    break 'outer;
                }
            }
        }
        end = pos;
    }
    file.seek(SeekFrom::Start(start))?;
    copy_rest(file, out)
}

/// Copies from the file's position to its end; returns the number of lines copied (an unterminated
/// last line counts).
fn copy_rest(mut file: File, out: &mut dyn Write) -> io::Result<u64> {
    let mut newlines = 0u64;
    let mut last = b'\n';
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(newlines + u64::from(last != b'\n'));
        }
        newlines += bytecount::count(&buf[..n], b'\n') as u64;
        last = buf[n - 1];
        out.write_all(&buf[..n])?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window_of(content: &str, window: Window) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.bash.log");
        std::fs::write(&path, content).unwrap();
        let mut out = Vec::new();
        let lines = write_window(&path, &window, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(lines as usize, text.lines().count(), "line count of {text:?}");
        text
    }

    #[test]
    fn head_tail_range_and_grep_windows() {
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        assert_eq!(window_of(&text, Window::Head(2)), "line 1\nline 2\n");
        assert_eq!(window_of(&text, Window::Tail(2)), "line 9\nline 10\n");
        assert_eq!(window_of(&text, Window::Lines { first: 4, last: 5 }), "line 4\nline 5\n");
        let re = regex::bytes::Regex::new("line 1").unwrap();
        assert_eq!(window_of(&text, Window::Grep(re)), "1:line 1\n10:line 10\n");
        assert_eq!(window_of(&text, Window::Whole), text);
    }

    #[test]
    fn tail_without_final_newline_and_larger_than_file() {
        assert_eq!(window_of("a\nb\nc", Window::Tail(2)), "b\nc");
        assert_eq!(window_of("a\nb\n", Window::Tail(10)), "a\nb\n");
    }

    #[test]
    fn tail_across_block_boundaries() {
        let text: String = (1..=50_000).map(|i| format!("{i}\n")).collect();
        assert_eq!(window_of(&text, Window::Tail(3)), "49998\n49999\n50000\n");
    }
}
