//! Reading Rust source as far as the module graph needs: comments and literals blanked, `mod` items,
//! `use` trees and paths.

use std::collections::BTreeMap;

/// The code of a file with comments blanked and literals emptied; line breaks are kept.
pub fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let starts_token = i == 0 || !ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if starts_token && (c == 'r' || (c == 'b' && next == Some('r'))) && {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            chars.get(j) == Some(&'"')
        } {
            // A raw string: r"…", r#"…"#, br#"…"#.
            i += if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while chars[i] == '#' {
                hashes += 1;
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\u{1b}'); a lifetime has no closing quote.
            out.push_str("' '");
            i += if next == Some('\\') { 3 } else { 2 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Splits a module's code into its own code, its inline child modules (name, body, byte offset) and
/// the names of its file child modules (`mod name;`).
pub fn split_modules(code: &str) -> (String, Vec<(String, String, usize)>, Vec<String>) {
    let bytes = code.as_bytes();
    let mut own = String::new();
    let mut inline = Vec::new();
    let mut declared = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while let Some(found) = code[i..].find("mod ") {
        let at = i + found;
        i = at + 4;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = &code[i..];
        let name_len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let name = rest[..name_len].to_string();
        let after = rest[name_len..].trim_start();
        if name.is_empty() {
            continue;
        }
        if after.starts_with(';') {
            declared.push(name);
        } else if after.starts_with('{') {
            let open = i + name_len + (rest[name_len..].len() - after.len());
            let mut depth = 0;
            let mut close = open;
            for (k, b) in bytes[open..].iter().enumerate() {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            close = open + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            own.push_str(&code[copied..at]);
            // Keep the line count of the parent's code.
            own.extend(code[at..=close].chars().filter(|&c| c == '\n'));
            copied = close + 1;
            inline.push((name, code[open + 1..close].to_string(), open + 1));
            i = close + 1;
        }
    }
    own.push_str(&code[copied..]);
    (own, inline, declared)
}

/// The names a module's `use` declarations bind (name → path) and every path it names, with its line.
pub type Names = (BTreeMap<String, Vec<String>>, Vec<(Vec<String>, usize)>);

pub fn names(code: &str, first_line: usize) -> Names {
    let tokens = tokenize(code);
    let mut bindings = BTreeMap::new();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (token, line) = &tokens[i];
        let line = first_line + line + 1;
        if token == "use" {
            let end = (i..tokens.len()).find(|&k| tokens[k].0 == ";").unwrap_or(tokens.len());
            let mut leaves = Vec::new();
            use_tree(&tokens[i + 1..end], &mut 0, &[], &mut leaves);
            for (path, name) in leaves {
                if let Some(name) = name {
                    bindings.insert(name, path.clone());
                }
                paths.push((path, line));
            }
            i = end + 1;
            continue;
        }
        let starts_path = i == 0 || tokens[i - 1].0 != "::";
        let after_in = i > 0 && tokens[i - 1].0 == "in";
        if starts_path && !after_in && is_ident(token) && tokens.get(i + 1).is_some_and(|t| t.0 == "::") {
            let mut path = vec![token.clone()];
            let mut k = i + 1;
            while tokens.get(k).is_some_and(|t| t.0 == "::") && tokens.get(k + 1).is_some_and(|t| is_ident(&t.0)) {
                path.push(tokens[k + 1].0.clone());
                k += 2;
            }
            paths.push((path, line));
            i = k;
            continue;
        }
        i += 1;
    }
    (bindings, paths)
}

fn is_ident(token: &str) -> bool {
    token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::` and single punctuation characters, each with its line (from 0).
fn tokenize(code: &str) -> Vec<(String, usize)> {
    let mut tokens = Vec::new();
    let mut line = 0;
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // `$crate` and `r#ident` are not paths of this crate's modules.
            if start > 0 && chars[start - 1] == '$' {
                tokens.push((format!("${word}"), line));
            } else {
                tokens.push((word, line));
            }
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push(("::".to_string(), line));
            i += 2;
        } else {
            tokens.push((c.to_string(), line));
            i += 1;
        }
    }
    tokens
}

/// Expands a `use` tree into its leaves: (full path, the name it binds, if any).
fn use_tree(
    tokens: &[(String, usize)],
    at: &mut usize,
    prefix: &[String],
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix.to_vec();
    while *at < tokens.len() {
        let token = tokens[*at].0.as_str();
        match token {
            "::" => *at += 1,
            "{" => {
                *at += 1;
                loop {
                    use_tree(tokens, at, &path, leaves);
                    match tokens.get(*at).map(|t| t.0.as_str()) {
                        Some(",") => *at += 1,
                        Some("}") => {
                            *at += 1;
                            break;
                        }
                        _ => return,
                    }
                    if tokens.get(*at).is_some_and(|t| t.0 == "}") {
                        *at += 1;
                        break;
                    }
                }
                return;
            }
            "*" => {
                *at += 1;
                leaves.push((path, None));
                return;
            }
            "," | "}" => break,
            "self" if !path.is_empty() => {
                // `a::{self}` binds `a`.
                *at += 1;
                let mut name = path.last().cloned();
                if tokens.get(*at).is_some_and(|t| t.0 == "as") {
                    name = tokens.get(*at + 1).map(|t| t.0.clone());
                    *at += 2;
                }
                leaves.push((path, name));
                return;
            }
            "as" => {
                let name = tokens.get(*at + 1).map(|t| t.0.clone()).filter(|n| n != "_");
                *at += 2;
                leaves.push((path, name));
                return;
            }
            _ => {
                path.push(token.to_string());
                *at += 1;
            }
        }
    }
    if path.len() > prefix.len() {
        let name = path.last().cloned();
        leaves.push((path, name));
    }
}
