//! Bash's parse errors in a long-lived shell's output, as `bash -c` words them. The runner `eval`s the
//! command on line 1 of the shell's input, so run-time errors already read `bash: line 2: …`; a parse
//! error names its input, though: `bash: eval: line 1: syntax error near unexpected token…` where
//! `bash -c` says `bash: -c: line 1: …`. This consumer rewrites that prefix at the start of a line,
//! whatever the chunking.
//!
//! Not told apart: a parse error of an `eval` the command runs itself, which `bash -c` too would word
//! with `eval:`; it reads `-c:` here. Only parse errors carry that prefix, so nothing else is touched.

use memchr::memmem;

use crate::exec::{Flow, OutputConsumer};

/// What the output says when the command's `break` or `continue` (`statement`) left the runner's
/// loop (see [`super::protocol::ReportStatus`]): bash's own message for one outside a loop, which
/// `bash -c` prints before it runs the rest of the command, and that the rest did not run here.
pub(crate) fn left_loops(name: &str, statement: &str) -> String {
    format!(
        "{name}: {statement}: only meaningful in a `for', `while', or `until' loop\n\
         {name}: the rest of the command did not run: its `{statement}` left the command's loops\n"
    )
}

pub(crate) struct ParseErrorPrefix<'a> {
    inner: &'a mut dyn OutputConsumer,
    /// `<name>: eval: line `
    from: Vec<u8>,
    /// `<name>: -c: line `
    to: Vec<u8>,
    /// The last byte passed on ended a line (or nothing was passed on yet).
    line_start: bool,
    /// The start of a line that may still become `from`, held back until it does or cannot.
    held: Vec<u8>,
}

impl<'a> ParseErrorPrefix<'a> {
    /// `name` is the shell's `$0`, the first word of its messages (`bash`).
    pub(crate) fn new(inner: &'a mut dyn OutputConsumer, name: &str) -> Self {
        let from = format!("{name}: eval: line ").into_bytes();
        let to = format!("{name}: -c: line ").into_bytes();
        Self { inner, from, to, line_start: true, held: Vec::new() }
    }

    /// Passes on what is held back: the output ended.
    pub(crate) fn finish(&mut self) -> Flow {
        if self.held.is_empty() {
            return Flow::Continue;
        }
        let held = std::mem::take(&mut self.held);
        self.inner.consume(&held)
    }

    fn rewrite(&mut self, data: &[u8]) -> Flow {
        let mut out = Vec::with_capacity(data.len());
        let mut pos = if self.line_start { Some(0) } else { memchr::memchr(b'\n', data).map(|p| p + 1) };
        let mut emitted = 0;
        while let Some(p) = pos {
            if p >= data.len() {
                break;
            }
            let rest = &data[p..];
            if rest.len() < self.from.len() && self.from.starts_with(rest) {
                out.extend_from_slice(&data[emitted..p]);
                self.held = rest.to_vec();
                self.line_start = true;
                return self.pass(&out);
            }
            if rest.starts_with(&self.from) {
                out.extend_from_slice(&data[emitted..p]);
                out.extend_from_slice(&self.to);
                emitted = p + self.from.len();
            }
            pos = memchr::memchr(b'\n', rest).map(|q| p + q + 1);
        }
        out.extend_from_slice(&data[emitted..]);
        self.line_start = data.last() == Some(&b'\n');
        self.pass(&out)
    }

    fn pass(&mut self, bytes: &[u8]) -> Flow {
        if bytes.is_empty() {
            Flow::Continue
        } else {
            self.inner.consume(bytes)
        }
    }
}

impl OutputConsumer for ParseErrorPrefix<'_> {
    fn consume(&mut self, chunk: &[u8]) -> Flow {
        if !self.held.is_empty() {
            let mut data = std::mem::take(&mut self.held);
            data.extend_from_slice(chunk);
            return self.rewrite(&data);
        }
        // The common case: no parse error in the chunk, and its last line cannot be the start of one.
        let last_line = match memchr::memrchr(b'\n', chunk) {
            Some(p) => &chunk[p + 1..],
            None if self.line_start => chunk,
            None => &[][..],
        };
        let may_start =
            !last_line.is_empty() && self.from.starts_with(&last_line[..last_line.len().min(self.from.len())]);
        if !may_start && memmem::find(chunk, b": eval: line ").is_none() {
            self.line_start = chunk.last().map_or(self.line_start, |&b| b == b'\n');
            return self.inner.consume(chunk);
        }
        self.rewrite(chunk)
    }

    // Parse errors come on stderr: a split-off stdout passes untouched.
    fn stdout_split(&mut self) {
        self.inner.stdout_split();
    }

    fn consume_stdout(&mut self, chunk: &[u8]) -> Flow {
        self.inner.consume_stdout(chunk)
    }

    fn output_left_open(&mut self) {
        self.inner.output_left_open();
    }

    fn started(&mut self, shell: i32) {
        self.inner.started(shell);
    }

    fn stdin_opened(&mut self, stdin: std::os::fd::OwnedFd) {
        self.inner.stdin_opened(stdin);
    }

    fn follows_jobs(&self) -> bool {
        self.inner.follows_jobs()
    }

    fn left_running(&mut self, left: crate::exec::LeftRunning) {
        self.inner.left_running(left);
    }

    fn shell_on_loan(&mut self, loan: crate::exec::ShellLoan) {
        self.inner.shell_on_loan(loan);
    }

    fn moved_deadline(&self) -> Option<std::time::Instant> {
        self.inner.moved_deadline()
    }

    fn next_tick(&self) -> Option<std::time::Instant> {
        self.inner.next_tick()
    }

    fn tick(&mut self) {
        self.inner.tick();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(chunks: &[&[u8]]) -> Vec<u8> {
        let mut got = Vec::new();
        let mut sink = |c: &[u8]| {
            got.extend_from_slice(c);
            Flow::Continue
        };
        let mut filter = ParseErrorPrefix::new(&mut sink, "bash");
        for chunk in chunks {
            filter.consume(chunk);
        }
        filter.finish();
        got
    }

    const IN: &[u8] = b"before\nbash: eval: line 2: syntax error near unexpected token `then'\n\
                        bash: eval: line 2: `if then'\nnot bash: eval: line 3: at a line start\n";
    const OUT: &[u8] = b"before\nbash: -c: line 2: syntax error near unexpected token `then'\n\
                         bash: -c: line 2: `if then'\nnot bash: eval: line 3: at a line start\n";

    #[test]
    fn parse_errors_read_as_under_bash_c_whatever_the_chunking() {
        assert_eq!(through(&[IN]), OUT);
        for cut in 0..IN.len() {
            assert_eq!(through(&[&IN[..cut], &IN[cut..]]), OUT, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = IN.chunks(1).collect();
        assert_eq!(through(&bytes), OUT);
    }

    #[test]
    fn other_output_passes_unchanged_and_a_held_start_is_flushed() {
        assert_eq!(through(&[b"bash: line 1: x: command not found\n"]), b"bash: line 1: x: command not found\n");
        assert_eq!(through(&[b"ok\nbash: ev"]), b"ok\nbash: ev");
        assert_eq!(through(&[b"ba", b"sh"]), b"bash");
    }
}
