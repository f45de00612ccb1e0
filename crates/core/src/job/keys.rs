//! Keys a model presses in a terminal job, by name, as the bytes a terminal (xterm) sends for them.

/// The names [`encode`] knows, for its error.
pub(crate) const KEY_NAMES: &str = "Enter, Tab, Escape, Backspace, Space, Up, Down, Left, Right, Home, End, PageUp, \
PageDown, Delete, C-a … C-z (ctrl), or one character";

/// The bytes of `keys`, in order; the first name not known is the error.
pub(crate) fn encode(keys: &[String]) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    for key in keys {
        bytes.extend_from_slice(&one(key).ok_or_else(|| key.clone())?);
    }
    Ok(bytes)
}

fn one(key: &str) -> Option<Vec<u8>> {
    let mut chars = key.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(c.to_string().into_bytes());
    }
    let lower = key.trim().to_ascii_lowercase();
    let named: &[u8] = match lower.as_str() {
        "enter" | "return" | "cr" => b"\r",
        "tab" => b"\t",
        "escape" | "esc" => b"\x1b",
        "backspace" | "bs" => b"\x7f",
        "space" => b" ",
        "up" => b"\x1b[A",
        "down" => b"\x1b[B",
        "right" => b"\x1b[C",
        "left" => b"\x1b[D",
        "home" => b"\x1b[H",
        "end" => b"\x1b[F",
        "pageup" | "pgup" => b"\x1b[5~",
        "pagedown" | "pgdn" => b"\x1b[6~",
        "delete" | "del" => b"\x1b[3~",
        _ => return ctrl(&lower),
    };
    Some(named.to_vec())
}

/// `C-c`, `ctrl-c`, `ctrl+c`, `^c`: the letter's control code.
fn ctrl(lower: &str) -> Option<Vec<u8>> {
    let letter = ["c-", "ctrl-", "ctrl+", "control-", "^"].iter().find_map(|p| lower.strip_prefix(p))?;
    let mut chars = letter.chars();
    match (chars.next(), chars.next()) {
        (Some(c @ 'a'..='z'), None) => Some(vec![c as u8 - b'a' + 1]),
        (Some('['), None) => Some(vec![0x1b]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_bytes_a_terminal_sends() {
        let keys = |names: &[&str]| encode(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(keys(&["q"]).as_deref(), Ok(&b"q"[..]));
        assert_eq!(keys(&["Escape", ":", "w", "q", "Enter"]).as_deref(), Ok(&b"\x1b:wq\r"[..]));
        assert_eq!(keys(&["C-c", "ctrl-d", "^Z"]).as_deref(), Ok(&b"\x03\x04\x1a"[..]));
        assert_eq!(keys(&["Down", "PageUp"]).as_deref(), Ok(&b"\x1b[B\x1b[5~"[..]));
        assert_eq!(keys(&["Enter", "Hyper"]), Err("Hyper".to_string()));
    }
}
