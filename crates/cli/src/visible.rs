//! Text for a terminal: what a command printed may hold escape sequences that a terminal obeys (OSC 52
//! writes the clipboard, OSC 0 the window title, others move the cursor over what was shown). Written
//! to a terminal, control characters are shown as `cat -v` shows them (`^[`, `^M`, `^?`), and the
//! C1 controls UTF-8 can encode as `<U+009B>`; newlines and tabs pass. Piped, bytes stay exact: the
//! caller wraps only a terminal.

use std::io::{self, Write};

/// Writes to `inner` with control characters made visible (see the module docs).
pub struct Visible<W: Write> {
    inner: W,
    /// A 0xC2 byte was written last, and the byte after it decides what it starts (U+0080..U+009F
    /// are C1 controls).
    lead: bool,
}

impl<W: Write> Visible<W> {
    pub fn new(inner: W) -> Self {
        Self { inner, lead: false }
    }
}

impl<W: Write> Write for Visible<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut plain = 0;
        for (i, &b) in buf.iter().enumerate() {
            if self.lead {
                self.lead = false;
                if (0x80..=0x9f).contains(&b) {
                    self.inner.write_all(format!("<U+{b:04X}>").as_bytes())?;
                    plain = i + 1;
                    continue;
                }
                self.inner.write_all(&[0xc2])?;
            }
            let shown: Option<[u8; 2]> = match b {
                b'\n' | b'\t' => None,
                0x00..=0x1f => Some([b'^', b + 0x40]),
                0x7f => Some([b'^', b'?']),
                _ => None,
            };
            if shown.is_none() && b != 0xc2 {
                continue;
            }
            self.inner.write_all(&buf[plain..i])?;
            plain = i + 1;
            match shown {
                Some(pair) => self.inner.write_all(&pair)?,
                None => self.lead = true,
            }
        }
        self.inner.write_all(&buf[plain..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.lead) {
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(chunks: &[&[u8]]) -> String {
        let mut out = Visible::new(Vec::new());
        for chunk in chunks {
            out.write_all(chunk).unwrap();
        }
        out.flush().unwrap();
        String::from_utf8_lossy(&out.inner).into_owned()
    }

    #[test]
    fn controls_are_shown_and_text_passes() {
        assert_eq!(shown(&[b"a\tb\n\x1b]52;c;eA==\x07 \rx\x7f"]), "a\tb\n^[]52;c;eA==^G ^Mx^?");
        assert_eq!(shown(&["été ü ½\n".as_bytes()]), "été ü ½\n");
        // CSI as a C1 control, whole or split across writes; a 0xC2 that starts a letter, at the end.
        assert_eq!(shown(&[b"\xc2\x9b2J"]), "<U+009B>2J");
        assert_eq!(shown(&[b"x\xc2", b"\x9b", b"y\xc2", b"\xbd"]), "x<U+009B>y½");
        assert_eq!(shown(&[b"\xc2"]), "\u{fffd}");
    }
}
