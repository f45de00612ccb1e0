//! Output text as the screen shows it: one raw line of output becomes styled cells — colours (SGR)
//! applied, a `\r` redraw overwriting the line as a terminal would, tabs expanded, other escape
//! sequences and control characters dropped — then visual rows of a given width. Promises: never
//! panics on any bytes; linear in the line; the width of every row is at most the width asked for.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// One character on screen and its style.
pub type Cell = (char, Style);

/// The cells of one raw line (without its `\n`). `colours`: apply SGR sequences (the raw view); else
/// the line is shown in the default style.
pub fn cells(raw: &[u8], colours: bool) -> Vec<Cell> {
    let text = String::from_utf8_lossy(raw);
    let mut out: Vec<Cell> = Vec::new();
    let mut cursor = 0usize;
    let mut style = Style::default();
    let mut chars = text.chars().peekable();
    let put = |out: &mut Vec<Cell>, cursor: &mut usize, cell: Cell| {
        if *cursor < out.len() {
            out[*cursor] = cell;
        } else {
            out.push(cell);
        }
        *cursor += 1;
    };
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => match chars.next() {
                Some('[') => {
                    let mut params = String::new();
                    let mut last = None;
                    for c in chars.by_ref() {
                        if ('\x40'..='\x7e').contains(&c) {
                            last = Some(c);
                            break;
                        }
                        params.push(c);
                    }
                    if last == Some('m') && colours {
                        style = sgr(style, &params);
                    }
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(c) = chars.next() {
                        if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => cursor = 0,
            '\x08' => cursor = cursor.saturating_sub(1),
            '\t' => {
                let stop = (cursor / 8 + 1) * 8;
                while cursor < stop {
                    put(&mut out, &mut cursor, (' ', style));
                }
            }
            c if c.is_control() => {}
            c => put(&mut out, &mut cursor, (c, style)),
        }
    }
    out
}

/// Applies one SGR parameter list to `style`.
fn sgr(mut style: Style, params: &str) -> Style {
    let nums: Vec<u16> = params.split([';', ':']).map(|p| p.parse().unwrap_or(0)).collect();
    let mut i = 0;
    while i < nums.len() {
        let n = nums[i];
        match n {
            0 => style = Style::default(),
            1 => style = style.add_modifier(Modifier::BOLD),
            2 => style = style.add_modifier(Modifier::DIM),
            3 => style = style.add_modifier(Modifier::ITALIC),
            4 => style = style.add_modifier(Modifier::UNDERLINED),
            7 => style = style.add_modifier(Modifier::REVERSED),
            9 => style = style.add_modifier(Modifier::CROSSED_OUT),
            22 => style = style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style = style.remove_modifier(Modifier::ITALIC),
            24 => style = style.remove_modifier(Modifier::UNDERLINED),
            27 => style = style.remove_modifier(Modifier::REVERSED),
            29 => style = style.remove_modifier(Modifier::CROSSED_OUT),
            30..=37 => style = style.fg(Color::Indexed((n - 30) as u8)),
            90..=97 => style = style.fg(Color::Indexed((n - 90 + 8) as u8)),
            40..=47 => style = style.bg(Color::Indexed((n - 40) as u8)),
            100..=107 => style = style.bg(Color::Indexed((n - 100 + 8) as u8)),
            39 => style.fg = None,
            49 => style.bg = None,
            38 | 48 => {
                let color = match nums.get(i + 1) {
                    Some(5) => {
                        i += 2;
                        nums.get(i).map(|&c| Color::Indexed(c.min(255) as u8))
                    }
                    Some(2) => {
                        i += 4;
                        let c = |k: usize| nums.get(i + k - 3).map_or(0, |&v| v.min(255) as u8);
                        Some(Color::Rgb(c(1), c(2), c(3)))
                    }
                    _ => None,
                };
                if let Some(color) = color {
                    style = if n == 38 { style.fg(color) } else { style.bg(color) };
                }
            }
            _ => {}
        }
        i += 1;
    }
    style
}

/// Splits cells into rows of at most `width` columns (at least one row, even for an empty line).
pub fn wrap(cells: &[Cell], width: usize) -> Vec<Vec<Cell>> {
    let width = width.max(1);
    let mut rows = vec![Vec::new()];
    let mut used = 0;
    for &(c, style) in cells {
        let w = c.width().unwrap_or(0);
        if used + w > width && used > 0 {
            rows.push(Vec::new());
            used = 0;
        }
        if let Some(row) = rows.last_mut() {
            row.push((c, style));
        }
        used += w;
    }
    rows
}

/// [`wrap`] for prose (notices, warnings): a row breaks after the last space that fits, when it has one.
pub fn wrap_words(cells: &[Cell], width: usize) -> Vec<Vec<Cell>> {
    let width = width.max(1);
    let mut rows: Vec<Vec<Cell>> = vec![Vec::new()];
    let mut used = 0;
    for &(c, style) in cells {
        let w = c.width().unwrap_or(0);
        if used + w > width && used > 0 && c == ' ' {
            rows.push(Vec::new());
            used = 0;
            continue;
        }
        if used + w > width && used > 0 {
            let row = rows.last_mut().map(std::mem::take).unwrap_or_default();
            let (kept, moved) = match row.iter().rposition(|cell| cell.0 == ' ') {
                Some(space) if space > 0 => (row[..space].to_vec(), row[space + 1..].to_vec()),
                _ => (row, Vec::new()),
            };
            if let Some(last) = rows.last_mut() {
                *last = kept;
            }
            used = moved.iter().map(|cell| cell.0.width().unwrap_or(0)).sum();
            rows.push(moved);
        }
        if used == 0 && c == ' ' && rows.len() > 1 {
            continue;
        }
        if let Some(row) = rows.last_mut() {
            row.push((c, style));
        }
        used += w;
    }
    rows
}

/// A row of cells as a line, after `prefix`; each cell's style is patched onto `base`.
pub fn line(prefix: Vec<Span<'static>>, row: &[Cell], base: Style) -> Line<'static> {
    let mut spans = prefix;
    let mut run = String::new();
    let mut run_style: Option<Style> = None;
    for &(c, style) in row {
        let style = base.patch(style);
        if run_style != Some(style) && !run.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut run), run_style.unwrap_or(base)));
        }
        run_style = Some(style);
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, run_style.unwrap_or(base)));
    }
    Line::from(spans)
}

/// Plain text as cells in one style.
pub fn plain(text: &str, style: Style) -> Vec<Cell> {
    text.chars().filter(|c| !c.is_control() || *c == '\t').map(|c| (if c == '\t' { ' ' } else { c }, style)).collect()
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A duration as people read it: `0.12s`, `4.3s`, `2m05s`.
pub fn duration(ms: u64) -> String {
    match ms {
        ms if ms < 10_000 => format!("{:.2}s", ms as f64 / 1000.0),
        ms if ms < 60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        ms => format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(cells: &[Cell]) -> String {
        cells.iter().map(|c| c.0).collect()
    }

    #[test]
    fn colours_redraws_and_controls() {
        let c = cells(b"\x1b[31mred\x1b[0m plain", true);
        assert_eq!(text(&c), "red plain");
        assert_eq!(c[0].1.fg, Some(Color::Indexed(1)));
        assert_eq!(c[4].1.fg, None);
        assert_eq!(text(&cells(b"10%\r50%\r100%", true)), "100%");
        assert_eq!(text(&cells(b"a\tb\x07\x1b]0;t\x07c", false)), "a       bc");
        assert_eq!(cells(b"\x1b[38;5;208mx", true)[0].1.fg, Some(Color::Indexed(208)));
        assert_eq!(cells(b"\x1b[38;2;1;2;3mx", true)[0].1.fg, Some(Color::Rgb(1, 2, 3)));
        assert_eq!(cells(b"\x1b[31mx", false)[0].1.fg, None);
    }

    #[test]
    fn rows_fit_the_width() {
        let rows = wrap(&plain("abcdef日本", Style::default()), 4);
        let rows: Vec<String> = rows.iter().map(|r| text(r)).collect();
        assert_eq!(rows, ["abcd", "ef日", "本"]);
        assert_eq!(wrap(&[], 4).len(), 1);
        let words: Vec<String> =
            wrap_words(&plain("full output: artifact://1", Style::default()), 13).iter().map(|r| text(r)).collect();
        assert_eq!(words, ["full output:", "artifact://1"]);
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(duration(123_456), "2m03s");
    }
}
