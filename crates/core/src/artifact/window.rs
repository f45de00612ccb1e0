//! Windows over an artifact — its head, its tail, a line range, or the lines matching a pattern — so a
//! model can read more of an old output without running the command again.
//!
//! Artifacts can be gigabytes: every window streams the file and keeps at most one line (or, for the
//! tail, the last N line offsets) in memory. Bytes are copied raw; the caller decides how to show them.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};

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

/// The longest stretch of one line a grep window holds in memory: a longer line is matched on its first
/// `GREP_LINE_CAP` bytes and shown cut there, with a marker. Bounds memory on single-line gigabytes.
pub const GREP_LINE_CAP: usize = 1024 * 1024;

const BLOCK: usize = 64 * 1024;

/// Writes the window of the artifact open in `file` (read from its start; open it without following
/// links) to `out`; returns the number of lines written.
/// Memory stays bounded whatever the file: lines are streamed, never held whole, except a grep
/// window's current line, held up to [`GREP_LINE_CAP`].
pub fn write_window_from(mut file: File, window: &Window, out: &mut dyn Write) -> io::Result<u64> {
    file.seek(SeekFrom::Start(0))?;
    match window {
        Window::Whole => copy_rest(file, out),
        Window::Head(n) => copy_line_range(file, 1, *n, out),
        Window::Lines { first, last } => copy_line_range(file, *first, *last, out),
        Window::Grep(re) => grep(file, re, out),
        Window::Tail(n) => write_tail(file, *n, out),
    }
}

/// Streams lines `first..=last` (1-based) to `out`, block by block; returns how many were written.
fn copy_line_range(mut file: File, first: u64, last: u64, out: &mut dyn Write) -> io::Result<u64> {
    if last < first || last == 0 {
        return Ok(0);
    }
    let mut block = vec![0u8; BLOCK];
    let mut line = 1u64;
    let mut written = 0u64;
    // Whether the current line has bytes written already (an unterminated last line counts once).
    let mut in_line = false;
    loop {
        let n = file.read(&mut block)?;
        if n == 0 {
            return Ok(written + u64::from(in_line));
        }
        let mut rest = &block[..n];
        while !rest.is_empty() {
            let (piece, ends_line) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..=i], true),
                None => (rest, false),
            };
            if line >= first {
                out.write_all(piece)?;
                in_line = !ends_line;
                if ends_line {
                    written += 1;
                    if line == last {
                        return Ok(written);
                    }
                }
            }
            if ends_line {
                line += 1;
            }
            rest = &rest[piece.len()..];
        }
    }
}

/// Numbered lines matching `re`, one line in memory at a time, at most [`GREP_LINE_CAP`] of it.
fn grep(file: File, re: &regex::bytes::Regex, out: &mut dyn Write) -> io::Result<u64> {
    let mut reader = BufReader::with_capacity(BLOCK, file);
    let mut line = Vec::new();
    let mut clipped = false;
    let mut number = 0u64;
    let mut written = 0u64;
    let emit = |number: u64, line: &[u8], clipped: bool, out: &mut dyn Write| -> io::Result<u64> {
        if !re.is_match(line) {
            return Ok(0);
        }
        write!(out, "{number}:")?;
        out.write_all(line)?;
        if clipped {
            out.write_all(b" \xe2\x80\xa6 [line cut at 1 MiB]")?;
        }
        out.write_all(b"\n")?;
        Ok(1)
    };
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            if !line.is_empty() || clipped {
                written += emit(number + 1, &line, clipped, out)?;
            }
            return Ok(written);
        }
        let (piece, ends_line) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let room = GREP_LINE_CAP - line.len();
        if piece.len() > room {
            clipped = true;
        }
        line.extend_from_slice(&piece[..piece.len().min(room)]);
        let used = piece.len() + usize::from(ends_line);
        reader.consume(used);
        if ends_line {
            number += 1;
            written += emit(number, &line, clipped, out)?;
            line.clear();
            clipped = false;
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
        let file = crate::private_dir::open_regular(&path).unwrap();
        let lines = write_window_from(file, &window, &mut out).unwrap();
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
    fn ranges_past_the_end_and_unterminated_lines() {
        assert_eq!(window_of("a\nb", Window::Lines { first: 2, last: 9 }), "b");
        assert_eq!(window_of("a\nb\n", Window::Lines { first: 3, last: 9 }), "");
        assert_eq!(window_of("a\nb", Window::Head(5)), "a\nb");
        assert_eq!(window_of("", Window::Head(5)), "");
        let re = regex::bytes::Regex::new("b").unwrap();
        assert_eq!(window_of("a\nb", Window::Grep(re)), "2:b\n");
    }

    #[test]
    fn a_giant_line_is_streamed_by_ranges_and_cut_by_grep() {
        let giant = "x".repeat(3 * GREP_LINE_CAP) + "\nend\n";
        let head = window_of(&giant, Window::Head(1));
        assert_eq!(head.len(), 3 * GREP_LINE_CAP + 1);
        let re = regex::bytes::Regex::new("^x").unwrap();
        let grep = window_of(&giant, Window::Grep(re));
        assert!(grep.starts_with("1:xxx") && grep.ends_with("[line cut at 1 MiB]\n"), "{}", &grep[grep.len() - 40..]);
        assert_eq!(grep.len(), "1:".len() + GREP_LINE_CAP + " … [line cut at 1 MiB]\n".len());
        let re = regex::bytes::Regex::new("end").unwrap();
        assert_eq!(window_of(&giant, Window::Grep(re)), "2:end\n");
    }

    #[test]
    fn tail_across_block_boundaries() {
        let text: String = (1..=50_000).map(|i| format!("{i}\n")).collect();
        assert_eq!(window_of(&text, Window::Tail(3)), "49998\n49999\n50000\n");
    }
}
