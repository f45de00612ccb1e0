//! What a terminal stream becomes before it reaches the sink: lines ending in `\n` (the terminal's
//! `\r\n`, and a `\r` that redraws a line, become one `\n`), colours (SGR sequences) kept for a UI that
//! shows them, every other escape sequence (cursor moves, titles, clears) and control character but
//! `\t` removed. Promises: streaming — the result does not depend on where the chunks were cut; a
//! malformed sequence cannot swallow more than the rest of its line; memory is bounded (one sequence of
//! at most [`MAX_SEQUENCE`] bytes).

/// Longer colour sequences are dropped rather than kept: no real SGR is this long.
pub(crate) const MAX_SEQUENCE: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Ground,
    Esc,
    /// `ESC` then intermediates (`ESC ( B`): up to the final byte.
    EscIntermediate,
    Csi,
    /// OSC, DCS, SOS, PM, APC: up to BEL, ST or the end of the line.
    Str,
    /// `ESC` inside a string sequence: `\` ends it.
    StrEsc,
}

/// The streaming state; see the module docs.
#[derive(Debug, Default)]
pub(crate) struct Sanitizer {
    state: State,
    /// Parameters of the CSI sequence being read; `None` once it is too long or not a colour.
    csi: Option<Vec<u8>>,
    /// A `\r` came after text on this line; it becomes a `\n` if more text follows.
    pending_cr: bool,
    /// Something printable is on the current line.
    line_has_text: bool,
}

impl Sanitizer {
    /// Appends the sanitized form of `input` to `out`.
    pub(crate) fn push(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for &b in input {
            match self.state {
                State::Ground => self.ground(b, out),
                State::Esc => self.escape(b),
                State::EscIntermediate => {
                    if !(0x20..=0x2f).contains(&b) {
                        self.state = State::Ground;
                    }
                }
                State::Csi => self.csi_byte(b, out),
                State::Str => match b {
                    0x07 => self.state = State::Ground,
                    0x1b => self.state = State::StrEsc,
                    b'\n' => {
                        self.state = State::Ground;
                        self.ground(b, out);
                    }
                    _ => {}
                },
                State::StrEsc => {
                    if b == b'\\' {
                        self.state = State::Ground;
                    } else {
                        self.escape(b);
                    }
                }
            }
        }
    }

    /// The end of the stream: a `\r` that ended the last line's text ends that line.
    pub(crate) fn finish(&mut self, out: &mut Vec<u8>) {
        if self.pending_cr {
            out.push(b'\n');
            self.pending_cr = false;
        }
        self.state = State::Ground;
    }

    fn ground(&mut self, b: u8, out: &mut Vec<u8>) {
        match b {
            b'\n' => {
                out.push(b'\n');
                self.pending_cr = false;
                self.line_has_text = false;
            }
            b'\r' => self.pending_cr = self.line_has_text,
            0x1b => self.state = State::Esc,
            b'\t' | 0x20..=0x7e | 0x80..=0xff => {
                if self.pending_cr {
                    out.push(b'\n');
                    self.pending_cr = false;
                }
                out.push(b);
                self.line_has_text = true;
            }
            // Other C0 controls and DEL: bells, backspaces, shifts.
            _ => {}
        }
    }

    fn escape(&mut self, b: u8) {
        self.state = match b {
            b'[' => {
                self.csi = Some(Vec::new());
                State::Csi
            }
            b']' | b'P' | b'X' | b'^' | b'_' => State::Str,
            0x20..=0x2f => State::EscIntermediate,
            0x1b => State::Esc,
            _ => State::Ground,
        };
    }

    fn csi_byte(&mut self, b: u8, out: &mut Vec<u8>) {
        match b {
            0x20..=0x3f => {
                if let Some(params) = &mut self.csi {
                    if params.len() >= MAX_SEQUENCE || !matches!(b, b'0'..=b'9' | b';' | b':') {
                        self.csi = None;
                    } else {
                        params.push(b);
                    }
                }
            }
            0x40..=0x7e => {
                if let (b'm', Some(params)) = (b, self.csi.take()) {
                    out.extend_from_slice(b"\x1b[");
                    out.extend_from_slice(&params);
                    out.push(b'm');
                }
                self.state = State::Ground;
            }
            // CAN and SUB abort a sequence.
            0x18 | 0x1a => self.state = State::Ground,
            0x1b => self.state = State::Esc,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn clean(input: &[u8]) -> Vec<u8> {
        let mut s = Sanitizer::default();
        let mut out = Vec::new();
        s.push(input, &mut out);
        s.finish(&mut out);
        out
    }

    #[test]
    fn terminal_line_endings_become_newlines() {
        assert_eq!(clean(b"a\r\nb\r\n"), b"a\nb\n");
        assert_eq!(clean(b"a\r\r\nb"), b"a\nb");
        assert_eq!(clean(b"10%\r50%\r100%\r\n"), b"10%\n50%\n100%\n");
        assert_eq!(clean(b"last\r"), b"last\n");
        assert_eq!(clean(b"a\n\r\rb\r\n"), b"a\nb\n");
    }

    #[test]
    fn colours_stay_and_other_sequences_go() {
        assert_eq!(clean(b"\x1b[31mred\x1b[0m\r\n"), b"\x1b[31mred\x1b[0m\n");
        assert_eq!(clean(b"\x1b]0;title\x07\x1b[2J\x1b[Hx\x1b[?25l\x1b(B\r\n"), b"x\n");
        assert_eq!(clean(b"done\r\x1b[K\r\n"), b"done\n");
        assert_eq!(clean(b"a\x07b\x08c\x7f\td"), b"abc\td");
        assert_eq!(clean("é€\r\n".as_bytes()), "é€\n".as_bytes());
    }

    #[test]
    fn a_broken_string_sequence_ends_with_its_line() {
        assert_eq!(clean(b"\x1b]0;never ends\r\nnext\r\n"), b"\nnext\n");
    }

    proptest! {
        #[test]
        fn chunk_boundaries_do_not_matter(
            input in proptest::collection::vec(
                prop_oneof![Just(b'\r'), Just(b'\n'), Just(0x1bu8), Just(b'['), Just(b']'), Just(b'm'),
                            Just(b'3'), Just(b';'), Just(0x07u8), Just(b'\\'), Just(b'a'), Just(0xc3u8)],
                0..64),
            cuts in proptest::collection::vec(0usize..64, 0..8),
        ) {
            let whole = clean(&input);
            let mut s = Sanitizer::default();
            let mut out = Vec::new();
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|c| *c <= input.len()).collect();
            cuts.sort_unstable();
            let mut start = 0;
            for cut in cuts {
                s.push(&input[start..cut], &mut out);
                start = cut;
            }
            s.push(&input[start..], &mut out);
            s.finish(&mut out);
            prop_assert_eq!(whole, out);
        }
    }
}
