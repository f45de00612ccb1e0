//! What a command waiting for input asks: the last line it printed, and what kind of answer that line
//! wants — so that a model answers a yes/no question and leaves a password to the user. On a
//! terminal the kernel says more than the words: a line read with echo off is a secret whatever the
//! prompt says, and a program reading key by key is a pager or an editor, not a question.

use serde::Serialize;

use crate::exec::pty::TermMode;

/// Programs that page text: `q` leaves them.
const PAGERS: &[&str] = &["less", "more", "most", "pg", "man"];
/// Programs that edit a file on the terminal.
const EDITORS: &[&str] = &["vi", "vim", "nvim", "view", "nano", "pico", "emacs", "micro", "joe", "hx", "kak", "mcedit"];

/// The most bytes of a prompt kept (a line longer than this is not a prompt anyone types an answer to).
const PROMPT_MAX: usize = 240;

/// What a prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PromptKind {
    /// A yes/no question (`[y/N]`, `(yes/no)`).
    YesNo,
    /// A password, passphrase, PIN or token: the user's to give.
    Password,
    /// A pager (`less`) showing text on a terminal: it waits for keys (`q` quits).
    Pager,
    /// An editor (`vim`, `nano`) on a terminal: it waits for keys.
    Editor,
    /// Anything else: a line of text (or, on a terminal in key-by-key mode, keys).
    Text,
}

/// The prompt of a job waiting for input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// The last line the command printed (without its line break), as the view shows text.
    pub text: String,
    /// What it asks for.
    pub kind: PromptKind,
    /// The answer is a secret: it must come from the user, and is not to be repeated.
    pub secret: bool,
    /// It reads key by key (a terminal in raw mode: a pager, an editor, a menu), not a line.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub keys: bool,
    /// What is typed shows in the output: a terminal with echo on (a password prompt that does not
    /// hide its answer).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub echoed: bool,
}

impl Prompt {
    /// The prompt `last_line` makes, read by `reader` (a program's name) from a stdin pipe (`mode`
    /// `None`) or from a terminal set as `mode`.
    pub(crate) fn of(last_line: &[u8], reader: &str, mode: Option<TermMode>) -> Prompt {
        // As the view shows text: no escape sequences (an editor's status line is full of them).
        let view = crate::view::ViewOptions { max_line_chars: PROMPT_MAX };
        let text = crate::view::text_view(last_line, &view).trim_end().to_string();
        let lower = text.to_ascii_lowercase();
        let secret_words = ["password", "passphrase", "passcode", "pin:", "pin code", "token:", "secret", "otp"];
        let yes_no = ["[y/n]", "(y/n)", "[yes/no]", "(yes/no)", "y/n?", "[y/n/"];
        let keys = mode.is_some_and(|m| !m.canonical);
        let hidden = mode.is_some_and(|m| m.canonical && !m.echo);
        let kind = if keys && PAGERS.contains(&reader) {
            PromptKind::Pager
        } else if keys && EDITORS.contains(&reader) {
            PromptKind::Editor
        } else if keys {
            PromptKind::Text
        } else if hidden || secret_words.iter().any(|w| lower.contains(w)) {
            PromptKind::Password
        } else if yes_no.iter().any(|w| lower.contains(w)) {
            PromptKind::YesNo
        } else {
            PromptKind::Text
        };
        let echoed = mode.is_some_and(|m| m.echo && m.canonical);
        Prompt { text, kind, secret: kind == PromptKind::Password, keys, echoed }
    }
}

/// Keeps the last non-empty line of a stream, up to [`PROMPT_MAX`] bytes of it.
#[derive(Debug, Default, Clone)]
pub(crate) struct LastLine {
    line: Vec<u8>,
    /// The line in progress is past the cap: its start is kept, the rest dropped.
    full: bool,
    /// The stream ended its last line: the next byte starts a new one.
    ended: bool,
}

impl LastLine {
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        for part in chunk.split_inclusive(|b| *b == b'\n') {
            let (text, newline) = match part.split_last() {
                Some((b'\n', text)) => (text, true),
                _ => (part, false),
            };
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if self.ended && !text.is_empty() {
                self.line.clear();
                self.full = false;
                self.ended = false;
            }
            if !self.full {
                let room = PROMPT_MAX.saturating_sub(self.line.len());
                self.line.extend_from_slice(&text[..text.len().min(room)]);
                self.full = self.line.len() >= PROMPT_MAX;
            }
            if newline && !self.line.is_empty() {
                self.ended = true;
            }
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_are_told_apart_by_what_they_ask() {
        let of = |line: &[u8]| Prompt::of(line, "python3", None);
        assert_eq!(of(b"Proceed? [y/N] ").kind, PromptKind::YesNo);
        let password = of(b"[sudo] password for ann: ");
        assert_eq!((password.kind, password.secret), (PromptKind::Password, true));
        assert_eq!(of(b"Enter passphrase for key '/home/a/.ssh/id_ed25519': ").kind, PromptKind::Password);
        assert_eq!(of(b"Name: ").kind, PromptKind::Text);
        assert_eq!(of(b"Name: ").text, "Name:");
    }

    #[test]
    fn on_a_terminal_the_line_discipline_tells_secrets_pagers_and_editors() {
        let cooked = TermMode { echo: true, canonical: true };
        let hidden = TermMode { echo: false, canonical: true };
        let raw = TermMode { echo: false, canonical: false };
        let hidden_prompt = Prompt::of(b"Enter code: ", "python3", Some(hidden));
        assert_eq!((hidden_prompt.kind, hidden_prompt.secret), (PromptKind::Password, true));
        assert_eq!(Prompt::of(b"Enter code: ", "python3", Some(cooked)).kind, PromptKind::Text);
        assert_eq!(Prompt::of(b"(END)", "less", Some(raw)).kind, PromptKind::Pager);
        assert_eq!(Prompt::of(b"~", "vim", Some(raw)).kind, PromptKind::Editor);
        assert!(Prompt::of(b"Password: ", "bash", Some(cooked)).echoed, "echo on: the answer will show");
        assert!(!hidden_prompt.echoed);
        assert_eq!(Prompt::of(b"\x1b[1mName:\x1b[0m ", "python3", Some(cooked)).text, "Name:");
        // A program reading keys is not asked for a password, whatever its screen says.
        let menu = Prompt::of(b"Select password manager:", "fzf", Some(raw));
        assert_eq!((menu.kind, menu.secret), (PromptKind::Text, false));
    }

    #[test]
    fn the_last_line_is_the_last_non_empty_one_across_chunks() {
        let mut last = LastLine::default();
        last.push(b"building\nDeploy to prod");
        last.push(b"? [y/N] ");
        assert_eq!(last.bytes(), b"Deploy to prod? [y/N] ");
        last.push(b"\n\n");
        assert_eq!(last.bytes(), b"Deploy to prod? [y/N] ");
        last.push(b"Name: ");
        assert_eq!(last.bytes(), b"Name: ");
    }
}
