//! The input line: readline-style editing and a history walked with up/down. Pure state, no drawing;
//! promises that the cursor is always on a character boundary and that walking the history never
//! loses the line being typed (it comes back below the newest entry).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key did to the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// The line changed (or the cursor moved).
    Changed,
    /// Enter: the line to run (already cleared and added to the history).
    Submit(String),
    /// Not a line-editing key.
    Ignored,
}

/// The line being typed, its cursor, and the history.
#[derive(Debug, Default)]
pub struct LineEditor {
    chars: Vec<char>,
    cursor: usize,
    history: Vec<String>,
    /// Where up/down is in the history; `None`: on the line being typed.
    browsing: Option<usize>,
    /// The line being typed, kept while browsing.
    draft: Vec<char>,
}

impl LineEditor {
    /// An empty line whose history starts with `history` (oldest first).
    pub fn with_history(history: Vec<String>) -> Self {
        Self { history, ..Self::default() }
    }

    pub fn text(&self) -> String {
        self.chars.iter().collect()
    }

    /// The cursor, in characters from the start.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    pub fn clear(&mut self) {
        self.chars.clear();
        self.cursor = 0;
        self.browsing = None;
    }

    /// Inserts pasted text at the cursor; line breaks stay (a heredoc can be pasted whole).
    pub fn insert_str(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        for c in text.chars() {
            self.insert(c);
        }
    }

    fn insert(&mut self, c: char) {
        self.chars.insert(self.cursor, c);
        self.cursor += 1;
    }

    /// Applies one key.
    pub fn handle(&mut self, key: &KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Enter => {
                let line = self.text();
                self.clear();
                if !line.trim().is_empty() && self.history.last() != Some(&line) {
                    self.history.push(line.clone());
                }
                return Edit::Submit(line);
            }
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = self.chars.len(),
            KeyCode::Char('b') if ctrl => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Char('f') if ctrl => self.cursor = (self.cursor + 1).min(self.chars.len()),
            KeyCode::Char('b') if alt => self.cursor = self.word_start(),
            KeyCode::Char('f') if alt => self.cursor = self.word_end(),
            KeyCode::Char('u') if ctrl => {
                self.chars.drain(..self.cursor);
                self.cursor = 0;
            }
            KeyCode::Char('k') if ctrl => self.chars.truncate(self.cursor),
            KeyCode::Char('w') if ctrl => self.delete_word_back(),
            KeyCode::Backspace if alt || ctrl => self.delete_word_back(),
            KeyCode::Char('d') if alt => {
                let end = self.word_end();
                self.chars.drain(self.cursor..end);
            }
            KeyCode::Char('h') if ctrl => self.backspace(),
            KeyCode::Char(c) if !ctrl && !alt => self.insert(c),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => {
                if self.cursor < self.chars.len() {
                    self.chars.remove(self.cursor);
                }
            }
            KeyCode::Left if ctrl || alt => self.cursor = self.word_start(),
            KeyCode::Right if ctrl || alt => self.cursor = self.word_end(),
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.chars.len()),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.chars.len(),
            KeyCode::Up => self.older(),
            KeyCode::Down => self.newer(),
            _ => return Edit::Ignored,
        }
        Edit::Changed
    }

    fn backspace(&mut self) {
        if self.cursor > 0 {
            self.cursor -= 1;
            self.chars.remove(self.cursor);
        }
    }

    fn delete_word_back(&mut self) {
        let start = self.word_start();
        self.chars.drain(start..self.cursor);
        self.cursor = start;
    }

    fn word_start(&self) -> usize {
        let mut i = self.cursor;
        while i > 0 && !self.chars[i - 1].is_alphanumeric() {
            i -= 1;
        }
        while i > 0 && self.chars[i - 1].is_alphanumeric() {
            i -= 1;
        }
        i
    }

    fn word_end(&self) -> usize {
        let mut i = self.cursor;
        let n = self.chars.len();
        while i < n && !self.chars[i].is_alphanumeric() {
            i += 1;
        }
        while i < n && self.chars[i].is_alphanumeric() {
            i += 1;
        }
        i
    }

    fn older(&mut self) {
        let next = match self.browsing {
            None if self.history.is_empty() => return,
            None => {
                self.draft = std::mem::take(&mut self.chars);
                self.history.len() - 1
            }
            Some(0) => return,
            Some(i) => i - 1,
        };
        self.browsing = Some(next);
        self.chars = self.history[next].chars().collect();
        self.cursor = self.chars.len();
    }

    fn newer(&mut self) {
        let Some(i) = self.browsing else { return };
        if i + 1 < self.history.len() {
            self.browsing = Some(i + 1);
            self.chars = self.history[i + 1].chars().collect();
        } else {
            self.browsing = None;
            self.chars = std::mem::take(&mut self.draft);
        }
        self.cursor = self.chars.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn typed(editor: &mut LineEditor, text: &str) {
        for c in text.chars() {
            editor.handle(&key(KeyCode::Char(c)));
        }
    }

    #[test]
    fn editing_keys() {
        let mut e = LineEditor::default();
        typed(&mut e, "echo wörld foo");
        e.handle(&ctrl('w'));
        assert_eq!(e.text(), "echo wörld ");
        e.handle(&ctrl('a'));
        e.handle(&KeyEvent::new(KeyCode::Char('f'), KeyModifiers::ALT));
        assert_eq!(e.cursor(), 4);
        e.handle(&ctrl('k'));
        assert_eq!(e.text(), "echo");
        e.handle(&key(KeyCode::Left));
        e.handle(&key(KeyCode::Backspace));
        assert_eq!(e.text(), "eco");
        e.handle(&ctrl('u'));
        assert_eq!((e.text().as_str(), e.cursor()), ("o", 0));
    }

    #[test]
    fn history_walks_back_and_returns_to_the_draft() {
        let mut e = LineEditor::default();
        typed(&mut e, "one");
        assert_eq!(e.handle(&key(KeyCode::Enter)), Edit::Submit("one".into()));
        typed(&mut e, "two");
        e.handle(&key(KeyCode::Enter));
        typed(&mut e, "dra");
        e.handle(&key(KeyCode::Up));
        assert_eq!(e.text(), "two");
        e.handle(&key(KeyCode::Up));
        e.handle(&key(KeyCode::Up));
        assert_eq!(e.text(), "one");
        e.handle(&key(KeyCode::Down));
        e.handle(&key(KeyCode::Down));
        assert_eq!(e.text(), "dra");
    }
}
