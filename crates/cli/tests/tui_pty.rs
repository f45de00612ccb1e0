//! The PTY console of `bashrt tui` in a real terminal (tmux): an interactive program typed into and
//! left, esc killing a session, and a resize reaching the program.

use crate::tui_support::Term;

const PTY: &[&str] = &["--set", "bash.virtualTerminal=on"];

#[test]
fn a_python_repl_runs_in_the_console() {
    let term = Term::new(100, 30);
    term.start(PTY, &[]);
    term.type_line("python3 -q");
    term.wait_for("the console", |s| s.contains("┌ $ python3 -q") && s.contains(">>>"));
    term.type_line("6*7");
    term.wait_for("the answer", |s| s.contains("42"));
    term.type_line("exit()");
    let screen = term.wait_for("the result", |s| s.contains("✓ exit 0") && !s.contains("┌ $"));
    // The transcript keeps what the program printed, as the model saw it.
    assert!(screen.contains(">>> 6*7") && screen.contains("\n  42\n"), "{screen}");
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

/// A prompt in the console is named at its bottom once the program blocks reading the terminal, and
/// the note goes when it prints again.
#[test]
fn the_console_says_when_the_program_waits_for_input() {
    let term = Term::new(100, 30);
    term.start(PTY, &[]);
    term.type_line("python3 -c 'print(\"hi\", input(\"name? \")); input(\"again? \")'");
    term.wait_for("the note", |s| s.contains("name?") && s.contains("⌨ waiting for input: python3 reads the terminal"));
    term.type_line("world");
    term.wait_for("the next prompt", |s| s.contains("hi world") && s.contains("again?"));
    term.type_line("");
    term.wait_for("the result", |s| s.contains("✓ exit 0") && !s.contains("┌ $"));
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

#[test]
fn esc_kills_the_session_and_a_resize_reaches_the_program() {
    let term = Term::new(100, 30);
    term.start(PTY, &[]);
    term.type_line("bash --norc --noprofile -i");
    term.wait_for("the console", |s| s.contains("┌ $ bash --norc --noprofile -i"));
    term.type_line("stty size");
    // The program's terminal: the UI's, less the border and the status line.
    let (w, h): (u16, u16) =
        (term.format("#{pane_width}").parse().unwrap(), term.format("#{pane_height}").parse().unwrap());
    term.wait_for("the first size", |s| s.contains(&format!("│{} {}", h - 3, w - 2)));
    term.resize(90, 25);
    // The console is drawn at the new width only after the UI has resized the program's terminal.
    term.wait_for("the console at the new size", |s| {
        s.lines().any(|l| l.starts_with("┌ $ bash") && l.ends_with('┐') && l.chars().count() == 90)
    });
    term.type_line("stty size");
    term.wait_for("the new size", |s| s.contains(&format!("│{} {}", 25 - 3, 90 - 2)));
    term.keys(&["Escape"]);
    let screen = term.wait_for("the kill", |s| s.contains("⊘ cancelled") && !s.contains("┌ $"));
    assert!(screen.contains(&format!("  {} {}", 22, 88)), "{screen}");
    term.keys(&["C-d"]);
    term.assert_restored(0);
}
