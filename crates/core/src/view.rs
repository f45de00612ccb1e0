//! What a model may read of raw output: bytes in, clean text or a binary notice out.
//!
//! Promises: the text is valid UTF-8 (invalid bytes become U+FFFD); it holds no ANSI escape sequence
//! and no control character but `\n` and `\t`; `\r`-redrawn lines appear in their final state; no line
//! is longer than `max_line_chars` characters plus an omission notice; binary output is reported by
//! its size only. Linear in the input; meant for the sink's ≤ 50 KB tail, never for the whole stream.

use std::borrow::Cow;
use std::io::Write as _;

/// Long enough for any line a human wrote; short enough that one minified bundle or base64 blob
/// cannot fill the model's view.
pub const DEFAULT_MAX_LINE_CHARS: usize = 4000;

/// How the view is shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewOptions {
    /// Characters (not bytes) kept of each line; the rest is replaced by ` … [N chars omitted]`.
    pub max_line_chars: usize,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions { max_line_chars: DEFAULT_MAX_LINE_CHARS }
    }
}

/// What the model gets for some output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum View {
    /// Cleaned text: valid UTF-8, no escape sequences, redraws collapsed, long lines cut (see
    /// [`model_view`]).
    Text(String),
    /// The bytes did not look like text; `bytes` is the length of the input that was examined
    /// (for a sink's tail, not the whole output: the caller knows the total).
    Binary {
        /// Bytes examined.
        bytes: u64,
    },
}

/// How much of the input the binary sniffer looks at, besides the NUL check over all of it.
const SNIFF_BYTES: usize = 8 * 1024;

/// Cleans `bytes` for a model.
///
/// Binary: two NULs in a row anywhere, NULs making up more than a third of the first 8 KiB, or
/// more than 30% of the first 8 KiB being invalid UTF-8 or control
/// characters that text does not use (C0 controls other than `\t \n \v \f \r`, ESC, BEL and BS,
/// which terminals and ANSI sequences use; and DEL). A few invalid bytes in text only become U+FFFD.
///
/// Text, in one pass:
/// - escape sequences are removed: CSI (`ESC [` params final, or C1 `CSI`), string sequences
///   (OSC `ESC ]`, DCS `ESC P`, SOS, PM, APC) up to BEL, `ESC \` or C1 `ST`, and other `ESC`
///   sequences (intermediates then one final byte). A string sequence also ends at a line feed, so
///   one malformed sequence cannot swallow the rest of the output; a sequence cut off by the end of
///   the input is dropped.
/// - a NUL (a record separator: `find -print0`) becomes `␀`; other control characters (C0 but `\n`
///   and `\t`, DEL, C1) are removed; tabs are kept.
/// - `\r`: a `\r` discards the text before it on its line as soon as more printable text follows on
///   that line (a redraw: `"10%\r50%\r100%\n"` → `"100%\n"`). A `\r` followed by the end of the line
///   or of the input — `\r\n`, `\r\r\n`, or a trailing `\r` — changes nothing. Escape sequences
///   between the `\r` and the next text do not count as text (`"done\r\x1b[K\n"` → `"done\n"`).
/// - each line keeps its first `max_line_chars` characters; the rest becomes ` … [N chars omitted]`.
pub fn model_view(bytes: &[u8], opts: &ViewOptions) -> View {
    model_view_detailed(bytes, opts, 0).0
}

/// [`model_view`], when the first line of `bytes` is the end of a longer line whose first
/// `first_line_cut` characters are gone (a tail cut inside one long line): that line then starts
/// with `… [N chars omitted] `, N counting those characters too. Also returns how many lines were
/// clamped (0 for binary), so that the caller can keep the full output and say where.
pub fn model_view_detailed(bytes: &[u8], opts: &ViewOptions, first_line_cut: u64) -> (View, usize) {
    if looks_binary(bytes) {
        return (View::Binary { bytes: bytes.len() as u64 }, 0);
    }
    let text: Cow<'_, str> = String::from_utf8_lossy(bytes);
    let (text, clamped) = clean_counted(&text, opts.max_line_chars, first_line_cut);
    (View::Text(text), clamped)
}

/// What the last lines of binary output look like, for the notice that replaces it: up to
/// `DESCRIBED_LINES` (3) non-empty lines from its end, each as printable text (each run of NULs, other
/// control bytes and invalid UTF-8 as one `�`), its end cut to [`DESCRIBED_CHARS`] characters.
pub fn describe_binary_tail(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = bytes
        .split(|&b| b == b'\n')
        .rev()
        .filter(|line| !line.is_empty())
        .take(DESCRIBED_LINES)
        .map(|line| {
            let start = line.len().saturating_sub(DESCRIBED_CHARS * 4);
            let text = String::from_utf8_lossy(&line[start..]);
            // Runs of bytes that are not text become one `�`: what remains is the readable part.
            let mut out = String::new();
            for c in text.chars() {
                let c = if c == '\t' || !(c.is_control() || c == '\u{FFFD}') { c } else { '\u{FFFD}' };
                if !(c == '\u{FFFD}' && out.ends_with('\u{FFFD}')) {
                    out.push(c);
                }
            }
            let chars = out.chars().count();
            if chars > DESCRIBED_CHARS {
                let skip = out.char_indices().nth(chars - DESCRIBED_CHARS).map_or(0, |(i, _)| i);
                out = format!("…{}", &out[skip..]);
            }
            out
        })
        .collect();
    lines.reverse();
    lines
}

/// Lines of binary output described in its notice.
pub const DESCRIBED_LINES: usize = 3;
/// Characters of each described line (its end).
pub const DESCRIBED_CHARS: usize = 120;

/// [`model_view`]'s text cleaning without the binary check: for pieces of an output already judged to
/// be text (the parts of an excerpt, one matched line).
pub fn text_view(bytes: &[u8], opts: &ViewOptions) -> String {
    clean_counted(&String::from_utf8_lossy(bytes), opts.max_line_chars, 0).0
}

/// `bytes` as the reference's `formatSize` prints it: `512B`, `50.0KB`, `1.5MB`, `2.0GB`
/// (1024-based, one decimal rounded half up like JavaScript's `toFixed(1)`).
pub fn format_size(bytes: u64) -> String {
    const KB: u64 = 1024;
    const MB: u64 = KB * 1024;
    const GB: u64 = MB * 1024;
    match bytes {
        b if b < KB => format!("{b}B"),
        b if b < MB => one_decimal(b, KB, "KB"),
        b if b < GB => one_decimal(b, MB, "MB"),
        b => one_decimal(b, GB, "GB"),
    }
}

/// Integer arithmetic, so that ties (e.g. 1.25) round up exactly as `toFixed` does, where Rust's
/// float formatting would round them to even.
fn one_decimal(bytes: u64, unit: u64, suffix: &str) -> String {
    let (bytes, unit) = (u128::from(bytes), u128::from(unit));
    let tenths = (bytes * 20 + unit) / (2 * unit);
    format!("{}.{}{suffix}", tenths / 10, tenths % 10)
}

/// Whether [`model_view`] would report `bytes` as binary.
pub fn looks_binary(bytes: &[u8]) -> bool {
    // Two NULs in a row occur in binary formats (padding, wide characters), never in text that
    // merely separates records with NUL (`find -print0`, `xargs -0` input) or a log with a stray one.
    if memchr::memmem::find(bytes, b"\0\0").is_some() {
        return true;
    }
    let sample = &bytes[..bytes.len().min(SNIFF_BYTES)];
    // Single NULs are separators up to a point; UTF-16 text, one NUL every other byte, is not text.
    let nuls = bytecount::count(sample, 0);
    if nuls * 3 > sample.len() {
        return true;
    }
    let mut suspicious = 0usize;
    let mut rest = sample;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                suspicious += unusual_controls(valid.as_bytes());
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                suspicious += unusual_controls(valid);
                match e.error_len() {
                    Some(invalid) => {
                        suspicious += invalid;
                        rest = &after[invalid..];
                    }
                    // A character cut by the end of the sample, not an invalid one.
                    None => break,
                }
            }
        }
    }
    suspicious * 10 > sample.len() * 3
}

/// NUL is not counted: [`looks_binary`] judges NULs on their own.
fn unusual_controls(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .filter(|&&b| {
            (b < 0x20 && !matches!(b, 0 | b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | 0x1B | 0x07 | 0x08)) || b == 0x7F
        })
        .count()
}

/// Builds the cleaned text one line at a time; `line_start` lets a redraw drop the line so far.
/// Works on bytes so that plain runs are copied whole; every cut it makes is at a character
/// boundary (see `clean`).
struct Lines {
    out: Vec<u8>,
    max_chars: usize,
    line_start: usize,
    line_chars: usize,
    omitted: usize,
    pending_cr: bool,
    /// Lines that were clamped so far.
    clamped: usize,
    /// Characters of the current line that were gone before the text began (a cut tail).
    cut_before: u64,
}

impl Lines {
    /// Appends `run`, valid UTF-8 without control characters, clamping the line.
    fn push(&mut self, run: &[u8]) {
        if self.pending_cr {
            self.out.truncate(self.line_start);
            self.line_chars = 0;
            self.omitted = 0;
            self.pending_cr = false;
        }
        let chars = bytecount::num_chars(run);
        let room = self.max_chars - self.line_chars;
        if chars <= room {
            self.out.extend_from_slice(run);
            self.line_chars += chars;
        } else {
            let cut = char_offset(run, room);
            self.out.extend_from_slice(&run[..cut]);
            self.line_chars = self.max_chars;
            self.omitted += chars - room;
        }
    }

    fn end_line(&mut self, newline: bool) {
        if self.cut_before > 0 && self.line_start == 0 {
            // The line's start was cut before the text began: say so in front of what is kept.
            let marker = format!("… [{} chars omitted] ", self.cut_before);
            self.out.splice(0..0, marker.bytes());
            self.clamped += 1;
        } else if self.omitted > 0 {
            self.clamped += 1;
        }
        self.cut_before = 0;
        if self.omitted > 0 {
            // Writing to a Vec cannot fail.
            let _ = write!(self.out, " … [{} chars omitted]", self.omitted);
        }
        if newline {
            self.out.push(b'\n');
        }
        self.line_start = self.out.len();
        self.line_chars = 0;
        self.omitted = 0;
        self.pending_cr = false;
    }
}

/// The byte offset of the `n`-th character of `run` (its length if it has fewer).
fn char_offset(run: &[u8], n: usize) -> usize {
    run.iter().enumerate().filter(|&(_, &b)| b & 0xC0 != 0x80).nth(n).map_or(run.len(), |(at, _)| at)
}

/// Bytes that may start something other than a plain character (tabs are plain): C0 controls and
/// DEL (ASCII), and 0xC2, the lead byte of the C1 controls U+0080–U+009F. None is a UTF-8
/// continuation byte, so a run of plain bytes always ends on a character boundary.
fn is_special(byte: u8) -> bool {
    (byte < 0x20 && byte != b'\t') || byte == 0x7F || byte == 0xC2
}

/// `text` must be valid UTF-8. Every index it moves to is a character boundary: plain runs end
/// before a special byte, and escape sequences are skipped a byte at a time only up to an ASCII
/// byte or a 0xC2 lead byte.
fn clean_counted(text: &str, max_line_chars: usize, cut_before: u64) -> (String, usize) {
    let bytes = text.as_bytes();
    let mut lines = Lines {
        out: Vec::with_capacity(bytes.len()),
        max_chars: max_line_chars,
        line_start: 0,
        line_chars: 0,
        omitted: 0,
        pending_cr: false,
        clamped: 0,
        cut_before,
    };
    let mut at = 0;
    while at < bytes.len() {
        let run_end = bytes[at..].iter().position(|&b| is_special(b)).map_or(bytes.len(), |n| at + n);
        if run_end > at {
            lines.push(&bytes[at..run_end]);
            at = run_end;
            continue;
        }
        at = match bytes[at] {
            b'\n' => {
                lines.end_line(true);
                at + 1
            }
            b'\r' => {
                lines.pending_cr = true;
                at + 1
            }
            0x1B => skip_escape(bytes, at + 1),
            0xC2 => match bytes.get(at + 1) {
                Some(0x9B) => skip_csi(bytes, at + 2),
                Some(0x90 | 0x98 | 0x9D | 0x9E | 0x9F) => skip_string(bytes, at + 2),
                // Other C1 controls: dropped.
                Some(0x80..=0x9F) => at + 2,
                // U+00A0–U+00BF: a plain character that happens to share the lead byte.
                _ => {
                    let end = (at + 2).min(bytes.len());
                    lines.push(&bytes[at..end]);
                    end
                }
            },
            // A NUL in text separates records (`find -print0`): shown, as `␀`.
            0 => {
                lines.push("␀".as_bytes());
                at + 1
            }
            // Other C0 controls and DEL: dropped.
            _ => at + 1,
        };
    }
    lines.end_line(false);
    let clamped = lines.clamped;
    // Valid by construction (see above); the lossy fallback only guards against a bug here
    // turning into a panic or invalid text.
    let text = String::from_utf8(lines.out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (text, clamped)
}

/// After an ESC at `at - 1`; returns where normal text resumes.
fn skip_escape(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at) {
        Some(b'[') => skip_csi(bytes, at + 1),
        Some(b']' | b'P' | b'X' | b'^' | b'_') => skip_string(bytes, at + 1),
        Some(0x20..=0x2F) => {
            let mut end = at;
            while matches!(bytes.get(end), Some(0x20..=0x2F)) {
                end += 1;
            }
            if matches!(bytes.get(end), Some(0x30..=0x7E)) {
                end += 1;
            }
            end
        }
        Some(0x30..=0x7E) => at + 1,
        // A lone ESC: dropped; what follows is read as usual.
        _ => at,
    }
}

/// After a CSI introducer: parameter and intermediate bytes, then one final byte. Anything else
/// ends a malformed sequence and is read as usual.
fn skip_csi(bytes: &[u8], at: usize) -> usize {
    let mut end = at;
    while matches!(bytes.get(end), Some(0x20..=0x3F)) {
        end += 1;
    }
    if matches!(bytes.get(end), Some(0x40..=0x7E)) {
        end += 1;
    }
    end
}

/// After OSC, DCS, SOS, PM or APC: up to BEL, ST (`ESC \` or C1 ST), a line feed or the `ESC` of another
/// sequence (both left to be read).
fn skip_string(bytes: &[u8], at: usize) -> usize {
    let mut end = at;
    loop {
        match bytes.get(end) {
            None => return end,
            Some(b'\n') => return end,
            Some(0x07) => return end + 1,
            Some(0x1B) if bytes.get(end + 1) == Some(&b'\\') => return end + 2,
            // Not ST: a new sequence starts here, which also ends this one. It is left to the caller's
            // loop: skipping it from here would recurse once per `ESC ]`, and a long run of them
            // overflowed the stack.
            Some(0x1B) => return end,
            Some(0xC2) if bytes.get(end + 1) == Some(&0x9C) => return end + 2,
            Some(_) => end += 1,
        }
    }
}
