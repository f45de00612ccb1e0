//! Input framing: one request per `\n`-terminated line, read in bounded chunks.
//!
//! Promises: memory stays bounded by the line limit plus one read buffer, whatever the input; a line
//! longer than the limit is discarded up to its newline — never buffered — and reported as
//! [`Frame::TooLong`], after which reading goes on with the next line; a last line without a newline
//! still counts; bytes are passed on raw (UTF-8 is checked by the caller, so it can answer with an id).

use std::io::{self, BufRead, BufReader, Read};

/// The longest request line accepted, in bytes (without its newline).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Size of one read from the input.
const READ_CHUNK: usize = 64 * 1024;

/// One framed piece of input.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A line without its newline.
    Line(Vec<u8>),
    /// A line over the limit, discarded.
    TooLong {
        /// Its length without the newline.
        bytes: u64,
    },
}

/// Splits a byte stream into [`Frame`]s.
pub struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
}

impl<R: Read> LineReader<R> {
    /// Frames `inner`, with lines of at most `max` bytes.
    pub fn new(inner: R, max: usize) -> Self {
        Self { inner: BufReader::with_capacity(READ_CHUNK, inner), max }
    }

    /// Whether every byte read from the input so far has been framed: no request waits in the buffer.
    pub fn is_drained(&self) -> bool {
        self.inner.buffer().is_empty()
    }

    /// The next frame; `Ok(None)` at the end of the input.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        let mut line = Vec::new();
        // `Some(length so far)` once the line went over the limit and is being skipped.
        let mut discarding: Option<u64> = None;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(match discarding {
                    Some(bytes) => Some(Frame::TooLong { bytes }),
                    None if line.is_empty() => None,
                    None => Some(Frame::Line(line)),
                });
            }
            let newline = memchr::memchr(b'\n', buf);
            let take = newline.unwrap_or(buf.len());
            match discarding.as_mut() {
                Some(bytes) => *bytes += take as u64,
                None if line.len() + take > self.max => {
                    discarding = Some((line.len() + take) as u64);
                    line = Vec::new();
                }
                None => line.extend_from_slice(&buf[..take]),
            }
            self.inner.consume(take + usize::from(newline.is_some()));
            if newline.is_some() {
                return Ok(Some(match discarding {
                    Some(bytes) => Frame::TooLong { bytes },
                    None => Frame::Line(line),
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(frame) = reader.next_frame().unwrap() {
            out.push(frame);
        }
        out
    }

    #[test]
    fn lines_are_split_on_newlines_and_a_last_line_without_one_counts() {
        assert_eq!(
            frames(b"a\n\nbc\nd", 10),
            vec![
                Frame::Line(b"a".to_vec()),
                Frame::Line(vec![]),
                Frame::Line(b"bc".to_vec()),
                Frame::Line(b"d".to_vec())
            ]
        );
        assert_eq!(frames(b"", 10), vec![]);
    }

    #[test]
    fn an_over_long_line_is_skipped_to_its_newline_and_reading_goes_on() {
        let mut input = vec![b'x'; 300_000];
        input.extend_from_slice(b"\nok\n");
        input.extend(vec![b'y'; 11]);
        assert_eq!(
            frames(&input, 10),
            vec![Frame::TooLong { bytes: 300_000 }, Frame::Line(b"ok".to_vec()), Frame::TooLong { bytes: 11 }]
        );
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        assert_eq!(frames(b"0123456789\n", 10), vec![Frame::Line(b"0123456789".to_vec())]);
    }
}
