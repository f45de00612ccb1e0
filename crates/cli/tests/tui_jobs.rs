//! Jobs in `bashrt tui`, in a real terminal (tmux): a call that runs past its yield time, listens, or
//! is sent away with ctrl+b leaves the prompt free and shows in the job strip; ctrl+t selects a job,
//! enter attaches to it (its console, or its output in the pager), ctrl+x kills it; its entry gets
//! the final result when the command ends.

use crate::tui_support::{unique_sleep, wait_gone, wait_running, Term};

const PTY: &[&str] = &["--set", "bash.virtualTerminal=on"];

#[test]
fn a_server_goes_on_as_a_job_the_strip_selects_pages_and_kills() {
    let term = Term::new(120, 30);
    term.start(&[], &[]);
    let server = "python3 -c 'import socket,time; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); \
                  print(\"up on\", s.getsockname()[1], flush=True); time.sleep(600)'";
    term.type_line(server);
    let screen = term.wait_for("the strip", |s| s.contains("jobs:  1 python3") && s.contains("· listening 127.0.0.1:"));
    assert!(screen.contains("[Still running as job 1, listening on 127.0.0.1:"), "{screen}");
    // The prompt is free while it runs.
    term.type_line("echo next");
    term.wait_for("the next call", |s| s.contains("$ echo next") && s.contains("✓ exit 0"));
    term.keys(&["C-t"]);
    term.wait_for("the selection", |s| s.contains("enter attach · ctrl+x kill"));
    term.keys(&["Enter"]);
    term.wait_for("its output in the pager", |s| s.contains("job 1: python3") && s.contains("up on"));
    term.keys(&["q"]);
    term.keys(&["C-t", "C-x"]);
    let screen = term.wait_for("the end", |s| s.contains("⊘ cancelled") && !s.contains("jobs:"));
    assert!(screen.contains("up on"), "the entry shows the final result: {screen}");
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

#[test]
fn a_call_past_its_yield_time_frees_the_prompt_and_ctrl_x_kills_its_process() {
    let term = Term::new(120, 30);
    term.start(&["--set", "bash.yieldMs=300"], &[]);
    let sleep = unique_sleep();
    term.type_line(&sleep);
    wait_running(&sleep);
    term.wait_for("the strip", |s| s.contains("jobs:  1 sleep") && s.contains("[Still running as job 1"));
    term.keys(&["C-t", "C-x"]);
    term.wait_for("the end", |s| s.contains("⊘ cancelled") && !s.contains("jobs:"));
    wait_gone(&sleep);
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

#[test]
fn ctrl_b_sends_a_console_program_away_and_enter_attaches_to_it_again() {
    let term = Term::new(100, 30);
    term.start(PTY, &[]);
    term.type_line("python3 -q");
    term.wait_for("the console", |s| s.contains("┌ $ python3 -q") && s.contains(">>>"));
    term.keys(&["C-b"]);
    term.wait_for("the strip", |s| s.contains("jobs:  1 python3") && !s.contains("┌ $"));
    term.keys(&["C-t", "Enter"]);
    term.wait_for("the console again", |s| s.contains("┌ $ python3 -q"));
    term.type_line("6*7");
    term.wait_for("the answer", |s| s.contains("42"));
    term.type_line("exit()");
    let screen = term.wait_for("the result", |s| s.contains("✓ exit 0") && !s.contains("┌ $") && !s.contains("jobs:"));
    assert!(screen.contains("42"), "{screen}");
    term.keys(&["C-d"]);
    term.assert_restored(0);
}

#[test]
fn a_console_the_person_is_in_does_not_go_away_at_its_yield_time() {
    let term = Term::new(100, 30);
    term.start(&["--set", "bash.virtualTerminal=on", "--set", "bash.yieldMs=300"], &[]);
    term.type_line("python3 -q");
    term.wait_for("the console", |s| s.contains("┌ $ python3 -q") && s.contains(">>>"));
    // Longer than the yield time, in the console.
    term.type_line("import time; time.sleep(0.6); print('slept')");
    term.wait_for("the REPL again", |s| s.contains("slept") && s.matches(">>>").count() >= 2);
    let screen = term.screen();
    assert!(screen.contains("┌ $ python3 -q") && !screen.contains("jobs:"), "{screen}");
    term.type_line("exit()");
    let screen = term.wait_for("the result", |s| s.contains("✓ exit 0") && !s.contains("┌ $"));
    assert!(!screen.contains("[Still running as job"), "{screen}");
    term.keys(&["C-d"]);
    term.assert_restored(0);
}
