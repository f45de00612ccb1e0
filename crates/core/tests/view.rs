//! What a model may read: `model_view` and `format_size`, through the public API.

use bashrt_core::{format_size, model_view, View, ViewOptions, DEFAULT_MAX_LINE_CHARS};

use bashrt_core::testing::{describe_binary_tail, model_view_detailed, DESCRIBED_CHARS};
use proptest::prelude::*;

fn text(bytes: impl AsRef<[u8]>) -> String {
    text_with(bytes, ViewOptions::default())
}

fn text_with(bytes: impl AsRef<[u8]>, opts: ViewOptions) -> String {
    match model_view(bytes.as_ref(), &opts) {
        View::Text(text) => text,
        View::Binary { bytes } => panic!("expected text, got binary ({bytes} bytes)"),
    }
}

fn clamp(max_line_chars: usize) -> ViewOptions {
    ViewOptions { max_line_chars }
}

#[test]
fn plain_text_passes_unchanged() {
    let plain = "fn main() {\n\tprintln!(\"héllo €\");\n}\n\n";
    assert_eq!(text(plain), plain);
    assert_eq!(text(""), "");
}

#[test]
fn ansi_colours_are_removed() {
    assert_eq!(text("\x1b[31mred\x1b[0m plain\n"), "red plain\n");
    assert_eq!(text("\x1b[1;38;2;255;0;0mbold\x1b[m \x1b[38;5;208mx\x1b[K\n"), "bold x\n");
    assert_eq!(text("\u{9b}32mC1 CSI\u{9b}0m"), "C1 CSI");
}

#[test]
fn osc_sequences_are_removed_with_either_terminator() {
    assert_eq!(text("\x1b]0;my title\x07text\n"), "text\n");
    assert_eq!(text("see \x1b]8;;https://example.com\x1b\\the link\x1b]8;;\x1b\\ here"), "see the link here");
    assert_eq!(text("\x1bPq#0;2;0;0;0\x1b\\after"), "after");
}

#[test]
fn other_escape_sequences_and_controls_are_removed() {
    assert_eq!(text("\x1b(Babc\x1b=\x1b7d\x1b8"), "abcd");
    assert_eq!(text("a\x07b\x08c\x7fd\u{85}e\x0bf\x0cg"), "abcdefg");
    assert_eq!(text("col1\tcol2\n"), "col1\tcol2\n");
}

#[test]
fn c1_controls_are_removed_but_latin1_supplement_characters_stay() {
    assert_eq!(text("a\u{80}b\u{85}c\u{8d}"), "abc");
    assert_eq!(text("\u{9d}0;title\u{9c}20\u{b0}C \u{a9} \u{a0}x"), "20\u{b0}C \u{a9} \u{a0}x");
    assert_eq!(text("\u{90}dcs\x1b\\ok \u{bd}"), "ok \u{bd}");
    assert_eq!(text_with("°°°°°°", clamp(2)), "°° … [4 chars omitted]");
}

#[test]
fn escape_sequences_cut_by_the_end_of_input_are_dropped() {
    assert_eq!(text("abc\x1b[31"), "abc");
    assert_eq!(text("abc\x1b]0;title with no end"), "abc");
    assert_eq!(text("abc\x1b"), "abc");
    assert_eq!(text("abc\x1b("), "abc");
}

#[test]
fn malformed_sequences_do_not_swallow_later_lines() {
    assert_eq!(text("\x1b]0;unterminated\nnext line\n"), "\nnext line\n");
    assert_eq!(text("\x1b[12\u{e9}x"), "\u{e9}x");
}

#[test]
fn carriage_return_progress_collapses_to_its_final_state() {
    assert_eq!(text("10%\r50%\r100%\n"), "100%\n");
    assert_eq!(text("before\nworking 1/3\rworking 2/3\rdone     \nafter\n"), "before\ndone     \nafter\n");
    assert_eq!(text("\r\x1b[K 10%\r\x1b[K 99%\r\x1b[K100%"), "100%");
}

#[test]
fn crlf_and_trailing_carriage_returns_keep_the_line() {
    assert_eq!(text("a\r\nb\r\n"), "a\nb\n");
    assert_eq!(text("a\r\r\nb"), "a\nb");
    assert_eq!(text("abc\r"), "abc");
    assert_eq!(text("done\r\x1b[K\n"), "done\n");
}

#[test]
fn invalid_utf8_in_text_is_replaced() {
    assert_eq!(text(b"caf\xe9 ok\n"), "caf\u{FFFD} ok\n");
    // A character cut at either end of a tail.
    assert_eq!(text(b"\xa9 tail \xe2\x82"), "\u{FFFD} tail \u{FFFD}");
    let mut long = b"mostly fine text\n".repeat(100);
    long.extend_from_slice(b"\xff\xfe\xfd");
    assert!(matches!(model_view(&long, &ViewOptions::default()), View::Text(_)));
}

#[test]
fn a_few_nuls_in_text_are_shown_as_separators() {
    // `find -print0`, and a log with one stray NUL: text, the NULs visible as ␀.
    assert_eq!(text(b"./a\0./b\0./sub/c\0"), "./a␀./b␀./sub/c␀");
    let mut log = b"line one\n".repeat(50);
    log.extend_from_slice(b"bad\0record\nlast line\n");
    assert!(text(&log).ends_with("bad␀record\nlast line\n"));
}

#[test]
fn nul_runs_and_nul_heavy_bytes_mean_binary() {
    assert_eq!(model_view(b"abc\0\0def", &ViewOptions::default()), View::Binary { bytes: 8 });
    let utf16: Vec<u8> = "hello".encode_utf16().flat_map(u16::to_le_bytes).collect();
    assert!(matches!(model_view(&utf16, &ViewOptions::default()), View::Binary { .. }));
}

#[test]
fn binary_output_has_its_last_lines_described() {
    let mut bytes = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0xff, 0xfe];
    bytes.extend_from_slice(b"\nstatus: done\n");
    assert!(matches!(model_view(&bytes, &ViewOptions::default()), View::Binary { .. }));
    let described = describe_binary_tail(&bytes);
    assert_eq!(described, ["\u{FFFD}ELF\u{FFFD}", "status: done"]);
    let long = "y".repeat(500);
    assert_eq!(describe_binary_tail(long.as_bytes()), [format!("…{}", "y".repeat(DESCRIBED_CHARS))]);
}

#[test]
fn a_line_whose_start_was_cut_says_so_and_counts_every_omitted_char() {
    let opts = ViewOptions { max_line_chars: 10 };
    let (view, clamped) = model_view_detailed(b"abcdefghijklmnop\nnext\n", &opts, 1000);
    assert_eq!(view, View::Text("… [1000 chars omitted] abcdefghij … [6 chars omitted]\nnext\n".into()));
    assert_eq!(clamped, 1);
    let (view, clamped) = model_view_detailed(b"short\n", &opts, 0);
    assert_eq!((view, clamped), (View::Text("short\n".into()), 0));
}

#[test]
fn random_bytes_are_binary_even_without_nul() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let random: Vec<u8> = (0..20_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .map(|b| b.max(1))
        .collect();
    assert_eq!(model_view(&random, &ViewOptions::default()), View::Binary { bytes: 20_000 });
}

#[test]
fn heavily_coloured_output_is_text() {
    let coloured = "\x1b[1m\x1b[32m✓\x1b[0m\x1b[2m ok\x1b[0m\n".repeat(500);
    assert_eq!(text(coloured), "✓ ok\n".repeat(500));
}

#[test]
fn long_lines_are_clamped_in_characters_with_a_count_of_the_rest() {
    assert_eq!(text_with("xxxxxxxxxx\nok\n", clamp(4)), "xxxx … [6 chars omitted]\nok\n");
    assert_eq!(text_with("éééééééééé", clamp(4)), "éééé … [6 chars omitted]");
    assert_eq!(text_with("abcd\n", clamp(4)), "abcd\n");
    // Escape sequences are not characters of the line.
    assert_eq!(text_with("\x1b[31mabcd\x1b[0m\n", clamp(4)), "abcd\n");
    let long = "y".repeat(10_000);
    let expected = format!("{} … [6000 chars omitted]", "y".repeat(DEFAULT_MAX_LINE_CHARS));
    assert_eq!(text(&long), expected);
}

#[test]
fn a_redraw_resets_the_clamp() {
    assert_eq!(text_with("xxxxxxxxxx\rdone", clamp(4)), "done");
}

#[test]
fn format_size_matches_the_reference() {
    let cases = [
        (0, "0B"),
        (512, "512B"),
        (1023, "1023B"),
        (1024, "1.0KB"),
        (1280, "1.3KB"), // a tie rounds up, as toFixed(1) does
        (1331, "1.3KB"),
        (51_200, "50.0KB"),
        (1_048_575, "1024.0KB"),
        (1_048_576, "1.0MB"),
        (1_572_864, "1.5MB"),
        (2 * 1024 * 1024 * 1024, "2.0GB"),
        (u64::MAX, "17179869184.0GB"),
    ];
    for (bytes, expected) in cases {
        assert_eq!(format_size(bytes), expected, "{bytes}");
    }
}

proptest! {
    #[test]
    fn text_view_holds_no_escapes_or_controls_and_no_overlong_line(
        bytes in proptest::collection::vec(
            prop_oneof![
                4 => proptest::sample::select(b"ab \n\r\t\x1b[];m0\x07\\\xc2\x9b\x9c\xb0".to_vec()),
                1 => any::<u8>().prop_map(|b| b.max(1)),
            ],
            0..300,
        ),
        max_line_chars in 1usize..20,
    ) {
        if let View::Text(text) = model_view(&bytes, &ViewOptions { max_line_chars }) {
            prop_assert!(text.chars().all(|c| c == '\n' || c == '\t' || !c.is_control()), "{:?}", text);
            for line in text.split('\n') {
                let kept = line.split(" … [").next().unwrap_or("");
                prop_assert!(kept.chars().count() <= max_line_chars, "{:?}", line);
            }
        }
    }

    #[test]
    fn printable_text_is_left_alone(text in "[a-zA-Z0-9 .,é€𝄞\t\n]{0,200}") {
        prop_assert_eq!(model_view(text.as_bytes(), &ViewOptions::default()), View::Text(text.clone()));
    }

    #[test]
    fn the_view_of_a_view_is_the_same(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let opts = ViewOptions::default();
        if let View::Text(once) = model_view(&bytes, &opts) {
            prop_assert_eq!(model_view(once.as_bytes(), &opts), View::Text(once.clone()));
        }
    }
}
