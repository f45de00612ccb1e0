//! Reading an artifact the way a client asks for it: a window named by optional fields (head, tail, a
//! line range `A-B`, or a pattern), resolved in a session's artifact directory, with the answer capped
//! so that one request can never take a client's (or the runtime's) memory with it. Every surface that
//! pages artifacts (the CLI, RPC, MCP, the terminal UI) goes through here.

use std::io::{self, Write};

use super::{write_window_from, ArtifactDir, ArtifactError, ArtifactId, Window};
use crate::utf8::complete_utf8_len;

/// The most content bytes one answer carries by default.
pub const MAX_READ_BYTES: usize = 1024 * 1024;

/// A window as a client names it: at most one field set; none means the whole artifact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowRequest {
    /// The first N lines.
    pub head: Option<u64>,
    /// The last N lines.
    pub tail: Option<u64>,
    /// Lines `A-B`, 1-based and inclusive.
    pub lines: Option<String>,
    /// Lines matching this regular expression, numbered.
    pub grep: Option<String>,
}

/// Why a window request or a read was refused. The texts name the fields as clients send them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// More than one of head, tail, lines and grep.
    #[error("give at most one of head, tail, lines and grep")]
    SeveralWindows,
    /// `lines` is not `A-B` with `1 <= A <= B`.
    #[error("lines expects \"A-B\" with 1 <= A <= B, got {0:?}")]
    BadRange(String),
    /// `grep` is not a valid regular expression.
    #[error("invalid grep pattern: {0}")]
    BadPattern(#[from] regex::Error),
    /// The artifact could not be found or read.
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
}

impl WindowRequest {
    /// The window this request names.
    pub fn window(&self) -> Result<Window, ReadError> {
        let asked = [self.head.is_some(), self.tail.is_some(), self.lines.is_some(), self.grep.is_some()];
        if asked.iter().filter(|a| **a).count() > 1 {
            return Err(ReadError::SeveralWindows);
        }
        if let Some(n) = self.head {
            return Ok(Window::Head(n));
        }
        if let Some(n) = self.tail {
            return Ok(Window::Tail(n));
        }
        if let Some(range) = &self.lines {
            let parsed = range
                .split_once('-')
                .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)));
            return match parsed {
                Some((first, last)) if first >= 1 && first <= last => Ok(Window::Lines { first, last }),
                _ => Err(ReadError::BadRange(range.clone())),
            };
        }
        if let Some(pattern) = &self.grep {
            return Ok(Window::Grep(regex::bytes::Regex::new(pattern)?));
        }
        Ok(Window::Whole)
    }
}

/// What a capped read returns.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactContent {
    /// The artifact read.
    pub artifact_id: ArtifactId,
    /// The window's text: lossy UTF-8, never cut inside a character.
    pub content: String,
    /// The content stopped at the cap; read further with a narrower window.
    pub truncated: bool,
}

/// Reads `window` of the artifact `reference` (`7` or `artifact://7`) in `dir`, up to `cap` bytes.
pub fn read_window(
    dir: &ArtifactDir,
    reference: &str,
    window: &Window,
    cap: usize,
) -> Result<ArtifactContent, ReadError> {
    let (artifact_id, file) = dir.open(reference)?;
    let mut out = Capped { bytes: Vec::new(), cap, truncated: false };
    match write_window_from(file, window, &mut out) {
        Ok(_) => {}
        Err(e) if is_cap(&e) => {}
        Err(e) => return Err(ArtifactError::Unreadable { id: artifact_id, reason: e.to_string() }.into()),
    }
    if out.truncated {
        let keep = complete_utf8_len(&out.bytes);
        out.bytes.truncate(keep);
    }
    let content = match String::from_utf8(out.bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(ArtifactContent { artifact_id, content, truncated: out.truncated })
}

/// A buffer that takes `cap` bytes, then stops the copy with a [`CapReached`] error.
struct Capped {
    bytes: Vec<u8>,
    cap: usize,
    truncated: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("read limit reached")]
struct CapReached;

fn is_cap(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<CapReached>())
}

impl Write for Capped {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = self.cap - self.bytes.len();
        if data.len() > room {
            self.bytes.extend_from_slice(&data[..room]);
            self.truncated = true;
            return Err(io::Error::other(CapReached));
        }
        self.bytes.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_stops_at_the_cap_on_a_character_boundary() {
        let root = tempfile::tempdir().unwrap();
        let dir = ArtifactDir::new(root.path().to_path_buf());
        // Two bytes, then euro signs (three bytes each): the cap falls inside one of them.
        let mut text = String::from("xy");
        while text.len() <= MAX_READ_BYTES {
            text.push('€');
        }
        std::fs::write(dir.path().join("1.bash.log"), &text).unwrap();
        let got = read_window(&dir, "artifact://1", &Window::Whole, MAX_READ_BYTES).unwrap();
        assert!(got.truncated);
        assert_eq!(got.content.len(), MAX_READ_BYTES - 2);
        assert!(!got.content.contains('\u{FFFD}'));
    }

    #[test]
    fn one_window_at_most() {
        let req = WindowRequest { head: Some(1), grep: Some("x".into()), ..Default::default() };
        assert!(matches!(req.window(), Err(ReadError::SeveralWindows)));
        let req = WindowRequest { lines: Some("5-2".into()), ..Default::default() };
        assert!(matches!(req.window(), Err(ReadError::BadRange(_))));
        let req = WindowRequest { lines: Some("2-5".into()), ..Default::default() };
        assert!(matches!(req.window(), Ok(Window::Lines { first: 2, last: 5 })));
    }
}
