//! Keys for a program in the PTY console: a key event, as the terminal reported it, becomes the bytes
//! a program in a legacy terminal expects. The UI enables the Kitty keyboard protocol where the terminal
//! has it (so Ctrl-I and Tab, or Esc and Alt, arrive distinct), and crossterm decodes its `CSI … u`
//! sequences into key events; the program in the console never asked for that protocol, so every
//! event is re-encoded here the legacy way. Promises: releases, lone modifier keys and keys with no
//! legacy encoding produce nothing; arrows, Home and End follow the program's application-cursor mode.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The bytes for `key`, or `None` when a legacy terminal sends nothing for it.
/// `application_cursor`: the program asked for application cursor keys (`CSI ? 1 h`), so unmodified
/// arrows are `ESC O A` rather than `ESC [ A`.
pub fn encode(key: &KeyEvent, application_cursor: bool) -> Option<Vec<u8>> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let mods = key.modifiers;
    let alt = mods.contains(KeyModifiers::ALT);
    let ctrl = mods.contains(KeyModifiers::CONTROL);
    let shift = mods.contains(KeyModifiers::SHIFT);
    // xterm's modifier parameter: 1 + shift + 2·alt + 4·ctrl (super, hyper and meta have no legacy form).
    let param = 1 + u8::from(shift) + 2 * u8::from(alt) + 4 * u8::from(ctrl);
    let mut out = Vec::new();
    match key.code {
        KeyCode::Char(c) => {
            if alt {
                out.push(0x1b);
            }
            match (ctrl, control_byte(c)) {
                (true, Some(b)) => out.push(b),
                _ => {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        KeyCode::Enter => with_alt(&mut out, alt, b"\r"),
        KeyCode::Tab if shift => out.extend_from_slice(b"\x1b[Z"),
        KeyCode::Tab => with_alt(&mut out, alt, b"\t"),
        KeyCode::BackTab => out.extend_from_slice(b"\x1b[Z"),
        KeyCode::Backspace => with_alt(&mut out, alt, if ctrl { b"\x08" } else { b"\x7f" }),
        KeyCode::Esc => with_alt(&mut out, alt, b"\x1b"),
        KeyCode::Up => cursor(&mut out, b'A', param, application_cursor),
        KeyCode::Down => cursor(&mut out, b'B', param, application_cursor),
        KeyCode::Right => cursor(&mut out, b'C', param, application_cursor),
        KeyCode::Left => cursor(&mut out, b'D', param, application_cursor),
        KeyCode::Home => cursor(&mut out, b'H', param, application_cursor),
        KeyCode::End => cursor(&mut out, b'F', param, application_cursor),
        KeyCode::Insert => tilde(&mut out, 2, param),
        KeyCode::Delete => tilde(&mut out, 3, param),
        KeyCode::PageUp => tilde(&mut out, 5, param),
        KeyCode::PageDown => tilde(&mut out, 6, param),
        KeyCode::F(n @ 1..=4) => {
            let last = b"PQRS"[usize::from(n - 1)];
            if param == 1 {
                out.extend_from_slice(&[0x1b, b'O', last]);
            } else {
                out.extend_from_slice(format!("\x1b[1;{param}").as_bytes());
                out.push(last);
            }
        }
        KeyCode::F(n @ 5..=12) => {
            const CODES: [u8; 8] = [15, 17, 18, 19, 20, 21, 23, 24];
            tilde(&mut out, CODES[usize::from(n - 5)], param);
        }
        _ => return None,
    }
    Some(out)
}

/// Ctrl with a character: the C0 control a legacy terminal sends, when there is one.
fn control_byte(c: char) -> Option<u8> {
    let c = c.to_ascii_lowercase();
    Some(match c {
        'a'..='z' => c as u8 - b'a' + 1,
        '@' | ' ' | '2' => 0x00,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' | '~' => 0x1e,
        '_' | '7' | '/' | '-' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

fn with_alt(out: &mut Vec<u8>, alt: bool, bytes: &[u8]) {
    if alt {
        out.push(0x1b);
    }
    out.extend_from_slice(bytes);
}

fn cursor(out: &mut Vec<u8>, last: u8, param: u8, application: bool) {
    match (param, application) {
        (1, true) => out.extend_from_slice(&[0x1b, b'O', last]),
        (1, false) => out.extend_from_slice(&[0x1b, b'[', last]),
        _ => {
            out.extend_from_slice(format!("\x1b[1;{param}").as_bytes());
            out.push(last);
        }
    }
}

fn tilde(out: &mut Vec<u8>, code: u8, param: u8) {
    if param == 1 {
        out.extend_from_slice(format!("\x1b[{code}~").as_bytes());
    } else {
        out.extend_from_slice(format!("\x1b[{code};{param}~").as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventState;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    fn bytes(code: KeyCode, modifiers: KeyModifiers) -> Vec<u8> {
        encode(&key(code, modifiers), false).unwrap()
    }

    #[test]
    fn printable_keys_and_control_characters() {
        assert_eq!(bytes(KeyCode::Char('a'), KeyModifiers::NONE), b"a");
        assert_eq!(bytes(KeyCode::Char('é'), KeyModifiers::NONE), "é".as_bytes());
        assert_eq!(bytes(KeyCode::Char('A'), KeyModifiers::SHIFT), b"A");
        assert_eq!(bytes(KeyCode::Char('c'), KeyModifiers::CONTROL), [0x03]);
        assert_eq!(bytes(KeyCode::Char('D'), KeyModifiers::CONTROL | KeyModifiers::SHIFT), [0x04]);
        assert_eq!(bytes(KeyCode::Char(' '), KeyModifiers::CONTROL), [0x00]);
        assert_eq!(bytes(KeyCode::Char('['), KeyModifiers::CONTROL), [0x1b]);
        assert_eq!(bytes(KeyCode::Char('x'), KeyModifiers::ALT), b"\x1bx");
        assert_eq!(bytes(KeyCode::Char('b'), KeyModifiers::ALT | KeyModifiers::CONTROL), b"\x1b\x02");
        assert_eq!(bytes(KeyCode::Enter, KeyModifiers::NONE), b"\r");
        assert_eq!(bytes(KeyCode::Backspace, KeyModifiers::NONE), b"\x7f");
        assert_eq!(bytes(KeyCode::Tab, KeyModifiers::NONE), b"\t");
        assert_eq!(bytes(KeyCode::BackTab, KeyModifiers::SHIFT), b"\x1b[Z");
    }

    /// What the Kitty protocol reports that a legacy terminal cannot: each is folded into its legacy
    /// form, or dropped.
    #[test]
    fn kitty_protocol_events_become_legacy_bytes() {
        // `CSI 105;5 u`: Ctrl-I, distinct from Tab under the protocol; legacy Ctrl-I is a tab.
        assert_eq!(bytes(KeyCode::Char('i'), KeyModifiers::CONTROL), b"\t");
        // `CSI 13;2 u` (Shift-Enter) and `CSI 27 u` (Esc, unambiguous): plain CR and ESC.
        assert_eq!(bytes(KeyCode::Enter, KeyModifiers::SHIFT), b"\r");
        assert_eq!(bytes(KeyCode::Esc, KeyModifiers::NONE), b"\x1b");
        // Super, hyper and meta have no legacy form: ignored.
        assert_eq!(bytes(KeyCode::Char('k'), KeyModifiers::SUPER), b"k");
        // Releases and repeats: a legacy terminal has no release, and a repeat is one more press.
        let mut release = key(KeyCode::Char('a'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        assert_eq!(encode(&release, false), None);
        let mut repeat = key(KeyCode::Char('a'), KeyModifiers::NONE);
        repeat.kind = KeyEventKind::Repeat;
        repeat.state = KeyEventState::NONE;
        assert_eq!(encode(&repeat, false).unwrap(), b"a");
        // A lone modifier key (`CSI 57441 u`, left shift) sends nothing.
        use ratatui::crossterm::event::ModifierKeyCode;
        assert_eq!(encode(&key(KeyCode::Modifier(ModifierKeyCode::LeftShift), KeyModifiers::SHIFT), false), None);
        assert_eq!(encode(&key(KeyCode::CapsLock, KeyModifiers::NONE), false), None);
    }

    #[test]
    fn arrows_follow_the_application_cursor_mode() {
        let up = key(KeyCode::Up, KeyModifiers::NONE);
        assert_eq!(encode(&up, false).unwrap(), b"\x1b[A");
        assert_eq!(encode(&up, true).unwrap(), b"\x1bOA");
        assert_eq!(encode(&key(KeyCode::Home, KeyModifiers::NONE), true).unwrap(), b"\x1bOH");
        // Modified arrows are the same in both modes.
        let ctrl_left = key(KeyCode::Left, KeyModifiers::CONTROL);
        assert_eq!(encode(&ctrl_left, false).unwrap(), b"\x1b[1;5D");
        assert_eq!(encode(&ctrl_left, true).unwrap(), b"\x1b[1;5D");
        assert_eq!(bytes(KeyCode::Right, KeyModifiers::SHIFT | KeyModifiers::ALT), b"\x1b[1;4C");
    }

    #[test]
    fn editing_and_function_keys() {
        assert_eq!(bytes(KeyCode::Delete, KeyModifiers::NONE), b"\x1b[3~");
        assert_eq!(bytes(KeyCode::PageUp, KeyModifiers::CONTROL), b"\x1b[5;5~");
        assert_eq!(bytes(KeyCode::F(1), KeyModifiers::NONE), b"\x1bOP");
        assert_eq!(bytes(KeyCode::F(2), KeyModifiers::SHIFT), b"\x1b[1;2Q");
        assert_eq!(bytes(KeyCode::F(5), KeyModifiers::NONE), b"\x1b[15~");
        assert_eq!(bytes(KeyCode::F(12), KeyModifiers::NONE), b"\x1b[24~");
        assert_eq!(encode(&key(KeyCode::F(13), KeyModifiers::NONE), false), None);
    }
}
