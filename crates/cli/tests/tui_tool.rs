//! `bashrt tui` in a real terminal (tmux): tool calls and their expanded view, session commands,
//! cancelling, and a flood of output while the UI keeps answering.

use crate::tui_support::{unique_sleep, wait_gone, wait_running, Term};

#[test]
fn a_truncated_tool_call_expands_to_its_last_line_from_the_artifact() {
    let term = Term::new(100, 30);
    term.start(&[], &[]);
    term.type_line("seq 1 200000");
    let screen = term.wait_for("the result", |s| s.contains("✓ exit 0"));
    assert!(screen.contains("⚠ Truncated: showing lines"), "{screen}");
    assert!(screen.contains("full output:") && screen.contains("artifact://1"), "{screen}");
    assert!(screen.contains("ctrl+o to expand"), "{screen}");
    term.keys(&["C-o"]);
    term.wait_for("the pager", |s| s.contains("full output, artifact://1") && s.contains("      1 1"));
    term.keys(&["End"]);
    let screen = term.wait_for("the last line", |s| s.contains(" 200,000 200000"));
    assert!(screen.contains("line 199,9"), "{screen}");
    // Tab: what the model saw; q: back to the transcript.
    term.keys(&["Tab"]);
    term.wait_for("the model's view", |s| s.contains("— what the model saw"));
    term.keys(&["q"]);
    term.wait_for("the transcript", |s| s.contains("$ seq 1 200000") && s.contains("work $"));
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

#[test]
fn a_cd_in_the_session_persists_and_shows_in_the_prompt() {
    let term = Term::new(100, 30);
    term.start(&[], &[]);
    term.type_line("!cd /usr/share");
    term.wait_for("the new prompt", |s| s.contains("/usr/share $"));
    term.type_line("!pwd");
    let screen = term.wait_for("pwd", |s| s.contains("! pwd") && s.matches("✓ exit 0").count() == 2);
    assert!(screen.contains("\n  /usr/share\n"), "{screen}");
    // A tool call runs where the prompt says, and its call line says so.
    term.type_line("pwd");
    let screen = term.wait_for("the tool call", |s| s.contains("$ pwd  (in /usr/share)") && s.contains("timeout 300s"));
    assert_eq!(screen.matches("\n  /usr/share\n").count(), 2, "{screen}");
    // The pager shows the newest command; `[` goes to the one before.
    term.keys(&["C-o"]);
    term.wait_for("the pager", |s| s.contains(" $ pwd — full output"));
    term.keys(&["["]);
    term.wait_for("the previous command", |s| s.contains(" ! pwd — full output") && s.contains("1 /usr/share"));
    term.keys(&["q"]);
    term.type_line("exit");
    term.assert_restored(0);
    // The session's `!` commands are in the history of the next start, newest first.
    term.start(&[], &[]);
    term.keys(&["Up"]);
    term.wait_for("the last session command", |s| s.contains("$ !pwd"));
    term.keys(&["Up"]);
    term.wait_for("the one before", |s| s.contains("$ !cd /usr/share"));
    term.keys(&["C-u", "C-d"]);
    term.assert_restored(0);
}

#[test]
fn esc_cancels_a_running_command_and_its_process_is_gone() {
    let term = Term::new(100, 30);
    term.start(&[], &[]);
    let sleep = unique_sleep();
    term.type_line(&sleep);
    let pid = wait_running(&sleep);
    assert!(pid > 0);
    term.keys(&["Escape"]);
    let screen = term.wait_for("the cancel", |s| s.contains("⊘ cancelled"));
    assert!(screen.contains(&format!("$ {sleep}")), "{screen}");
    wait_gone(&sleep);
    // A session command too.
    let sleep = unique_sleep();
    term.type_line(&format!("!{sleep}"));
    wait_running(&sleep);
    term.keys(&["C-c"]);
    term.wait_for("the cancel", |s| s.contains("⊘ (cancelled)"));
    wait_gone(&sleep);
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

#[test]
fn a_yes_flood_is_cancelled_while_the_ui_still_answers() {
    let term = Term::new(100, 30);
    term.start(&[], &[]);
    term.type_line("yes");
    term.wait_for("the flood", |s| s.contains("running") && s.contains("\n  y\n"));
    // The UI answers while the flood runs: typed text shows, and a second command is refused clearly.
    term.type_line("echo after");
    let screen =
        term.wait_for("the refusal", |s| s.contains("A command is already running. Press esc to cancel it first."));
    assert!(screen.contains("work $ echo after"), "the line typed during the flood is kept:\n{screen}");
    term.keys(&["Escape"]);
    let screen = term.wait_for("the cancel", |s| s.contains("⊘ cancelled"));
    assert!(screen.contains("⚠ Truncated: showing lines"), "{screen}");
    wait_gone("yes");
    term.keys(&["Enter"]);
    term.wait_for("the next command", |s| s.contains("$ echo after") && s.contains("\n  after\n"));
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

/// Commands run without a controlling terminal: one that writes to `/dev/tty` fails at once instead
/// of drawing over the UI (or, reading it, stealing keys) — also when bashrt leads the terminal's
/// session, started directly as the terminal's program.
#[test]
fn commands_cannot_open_the_terminal() {
    for term in [Term::new(100, 30), Term::leader(100, 30)] {
        if term.screen().contains("$") && !term.screen().contains("bashrt — type a command") {
            term.start(&[], &[]);
        }
        term.type_line("echo drawn > /dev/tty");
        let screen = term.wait_for("the result", |s| s.contains("✗ exit 1"));
        assert!(screen.contains("/dev/tty: No such device or address"), "{screen}");
        assert!(!screen.contains("\ndrawn"), "{screen}");
        term.type_line("!echo drawn > /dev/tty");
        let screen = term.wait_for("the session command's result", |s| s.contains("✗ (exit 1)"));
        assert!(!screen.contains("\ndrawn"), "{screen}");
    }
}
