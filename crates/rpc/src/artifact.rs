//! `read_artifact`: an artifact of a session, whole or as a window (head, tail, a line range, or the
//! lines matching a pattern), as text in a response.
//!
//! Promises: at most [`MAX_READ_BYTES`] of content per response — the read stops there, whatever the
//! artifact's size, and says `truncated: true`; bytes are decoded as lossy UTF-8 and never cut inside a
//! character; resolution errors are the core's texts (`Artifact 9 not found. Available: 1, 2`).

use std::io::{self, Write};

use bashrt_core::artifact::{write_window, ArtifactDir, ArtifactError, ArtifactId, Window};
use serde::Serialize;

use crate::live::complete_prefix_len;
use crate::request::ReadArtifactRequest;

/// The most content bytes one `read_artifact` response carries.
pub const MAX_READ_BYTES: usize = 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("read_artifact takes at most one of head, tail, lines and grep")]
    SeveralWindows,
    #[error("lines expects \"A-B\" with 1 <= A <= B, got {0:?}")]
    BadRange(String),
    #[error("invalid grep pattern: {0}")]
    BadPattern(#[from] regex::Error),
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
}

/// The `data` of a `read_artifact` response.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactContent {
    pub artifact_id: ArtifactId,
    pub content: String,
    /// The content stopped at [`MAX_READ_BYTES`]; read further with a narrower window.
    pub truncated: bool,
}

/// The window a request asks for.
pub fn window_of(req: &ReadArtifactRequest) -> Result<Window, ReadError> {
    let asked = [req.head.is_some(), req.tail.is_some(), req.lines.is_some(), req.grep.is_some()];
    if asked.iter().filter(|a| **a).count() > 1 {
        return Err(ReadError::SeveralWindows);
    }
    if let Some(n) = req.head {
        return Ok(Window::Head(n));
    }
    if let Some(n) = req.tail {
        return Ok(Window::Tail(n));
    }
    if let Some(range) = &req.lines {
        let parsed = range
            .split_once('-')
            .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)));
        return match parsed {
            Some((first, last)) if first >= 1 && first <= last => Ok(Window::Lines { first, last }),
            _ => Err(ReadError::BadRange(range.clone())),
        };
    }
    if let Some(pattern) = &req.grep {
        return Ok(Window::Grep(regex::bytes::Regex::new(pattern)?));
    }
    Ok(Window::Whole)
}

/// Reads the window of `reference` in `dir`, up to [`MAX_READ_BYTES`].
pub fn read(dir: &ArtifactDir, reference: &str, window: &Window) -> Result<ArtifactContent, ReadError> {
    let (artifact_id, path) = dir.resolve(reference)?;
    let mut out = Capped { bytes: Vec::new(), cap: MAX_READ_BYTES, truncated: false };
    match write_window(&path, window, &mut out) {
        Ok(_) => {}
        Err(e) if is_cap(&e) => {}
        Err(e) => return Err(ArtifactError::Unreadable { id: artifact_id, reason: e.to_string() }.into()),
    }
    if out.truncated {
        let keep = complete_prefix_len(&out.bytes);
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
        let got = read(&dir, "artifact://1", &Window::Whole).unwrap();
        assert!(got.truncated);
        assert_eq!(got.content.len(), MAX_READ_BYTES - 2);
        assert!(!got.content.contains('\u{FFFD}'));
    }
}
