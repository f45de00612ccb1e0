//! Jobs in a terminal (`stdin: "pty"`): the kernel's view of the terminal says who waits and what for
//! (a line with echo off is a secret, a pager reads keys), and the `job` tool types and presses keys.

use super::*;

fn terminal(command: &str) -> BashParams {
    // Only the program's read can bring the call back before the test's patience runs out.
    BashParams { stdin: Some(StdinMode::Pty), ..params(command, 600_000) }
}

fn press(fx: &Fixture, id: u64, keys: &[&str]) -> ToolResult {
    let params = JobParams {
        action: Some(JobAction::Write),
        id: Some(id),
        keys: Some(keys.iter().map(|k| k.to_string()).collect()),
        ..JobParams::default()
    };
    fx.tool.job(&params, &CancelToken::new().unwrap())
}

#[test]
fn a_prompt_on_a_terminal_returns_at_once_and_a_hidden_read_is_a_secret_that_is_never_shown() {
    let fx = Fixture::new();
    let command = "read -p 'Name: ' n; echo \"hi $n\"; read -s -p 'Enter code: ' c; echo; echo \"got ${#c}\"; tty";
    let (yielded, thread) = fx.start(terminal(command));
    let job = yielded.details.job.clone().unwrap();
    assert_eq!((job.state, job.reading.as_deref(), job.terminal), (JobState::AwaitingInput, Some("bash"), true));
    assert_eq!(job.prompt.as_ref().map(|p| (p.text.as_str(), p.kind)), Some(("Name:", PromptKind::Text)));
    assert!(yielded.text().contains("[Waiting for input as job 1: bash reads its terminal ("), "{}", yielded.text());

    let named = write(&fx, 1, "Ann\n", false);
    let text = named.text();
    assert!(text.starts_with("Ann\nhi Ann\nEnter code: \n\n"), "{text}");
    // Echo off on a line read: a secret, whatever the prompt's words.
    let prompt = named.details.job.as_ref().and_then(|j| j.prompt.clone()).unwrap();
    assert_eq!((prompt.kind, prompt.secret), (PromptKind::Password, true));
    assert!(text.contains("It asks for a password or a secret: that is the user's to give"), "{text}");

    let done = write(&fx, 1, "s3cret-42\n", false);
    let text = done.text();
    assert!(text.starts_with("\ngot 9\n/dev/pts/"), "{text}");
    let full = thread.join().unwrap();
    assert!(!full.text().contains("s3cret-42"), "the terminal did not echo the secret: {}", full.text());
}

#[test]
fn a_pager_waits_for_keys_and_q_quits_it() {
    let fx = Fixture::new();
    let (yielded, thread) = fx.start(terminal("seq 200 | less"));
    let prompt = yielded.details.job.as_ref().and_then(|j| j.prompt.clone()).unwrap();
    assert_eq!((prompt.kind, prompt.keys), (PromptKind::Pager, true));
    let text = yielded.text();
    assert!(text.starts_with("1\n2\n3\n"), "{text}");
    assert!(text.contains(r#"It shows a pager: {"action": "write", "id": 1, "keys": ["Space"]} pages on"#), "{text}");

    let paged = press(&fx, 1, &["Space"]);
    assert!(paged.text().contains("\n60\n"), "the next page: {}", paged.text());
    let quit = press(&fx, 1, &["q"]);
    assert!(quit.text().contains("[Job 1 exited with code 0 after "), "{}", quit.text());
    assert_eq!(thread.join().unwrap().details.exit_code, Some(0));
}

#[test]
fn ctrl_c_interrupts_and_closing_a_terminal_is_ctrl_d() {
    let fx = Fixture::new();
    let (_, first) = fx.start(terminal("cat; echo \"cat ended: $?\""));
    let echoed = write(&fx, 1, "one\n", false);
    assert!(echoed.text().starts_with("one\none\n"), "typed, then cat's copy: {}", echoed.text());
    let ended = write(&fx, 1, "", true);
    assert!(ended.text().contains("cat ended: 0"), "{}", ended.text());
    first.join().unwrap();

    let (_, second) = fx.start(terminal("read -r line; echo never"));
    let interrupted = press(&fx, 2, &["C-c"]);
    let info = interrupted.details.job.clone().unwrap();
    assert_eq!(info.state, JobState::Signalled, "{}", interrupted.text());
    assert!(!interrupted.text().contains("never"), "{}", interrupted.text());
    second.join().unwrap();
}

#[test]
fn keys_need_a_terminal_and_a_refused_key_leaves_the_pipe_open() {
    let fx = Fixture::new();
    let (yielded, thread) = fx.start(piped("cat", 600_000));
    assert_eq!(yielded.details.job.as_ref().map(|j| j.state), Some(JobState::AwaitingInput));
    let refused = press(&fx, 1, &["C-c"]);
    assert!(
        refused.is_error
            && refused.text().starts_with(
                "Not written to job 1: its stdin is not a terminal, so keys cannot be pressed: start the command \
                 with \"stdin\": \"pty\"."
            ),
        "{}",
        refused.text()
    );
    let unknown = press(&fx, 1, &["Hyper"]);
    assert!(
        unknown.text().starts_with("Invalid arguments for tool job: `keys` has \"Hyper\", not a key"),
        "{}",
        unknown.text()
    );
    let echoed = write(&fx, 1, "still here\n", true);
    assert!(echoed.text().starts_with("still here\n"), "{}", echoed.text());
    thread.join().unwrap();

    // Where no job can hold the terminal, the call is refused and says what to do instead.
    let plain = fx.tool.execute(&terminal("read -p 'Name: ' n"), fx.ctx());
    assert!(plain.is_error, "{}", plain.text());
    assert!(plain.text().starts_with("Not run: `stdin: \"pty\"` needs a front that returns running commands as jobs"));
}

#[test]
fn a_read_that_found_no_input_says_how_to_rerun_it_with_a_terminal() {
    let fx = Fixture::new();
    let (result, thread) = fx.start(params("python3 -c 'input(\"Name: \")'", 600_000));
    thread.join().unwrap();
    let text = result.text();
    assert!(
        text.contains(
            "[The command wanted input, but its stdin is /dev/null: rerun it with `stdin: \"pty\"` (a terminal; the \
             call returns when it asks, and the job tool's write answers) or `stdin: \"pipe\"`"
        ),
        "{text}"
    );
}

#[test]
fn pipe_and_terminal_calls_start_from_what_earlier_calls_defined() {
    let fx = Fixture::new();
    let (_, defining) = fx.start(params("export GREETING=hello; plain=kept; f() { echo \"fn-$1\"; }", 30_000));
    defining.join().unwrap();
    let (yielded, thread) = fx.start(terminal("echo \"$GREETING $plain\"; f a; read -r -p 'ok? ' a"));
    assert!(yielded.text().starts_with("hello kept\nfn-a\nok? \n\n[Waiting for input as job 1"), "{}", yielded.text());
    write(&fx, 1, "y\n", false);
    thread.join().unwrap();
    let (yielded, thread) = fx.start(piped("echo \"$GREETING\"; f b; cat", 600_000));
    assert!(yielded.text().starts_with("hello\nfn-b\n\n[Waiting for input as job 2"), "{}", yielded.text());
    write(&fx, 2, "", true);
    thread.join().unwrap();
}

#[test]
fn a_password_prompt_that_echoes_says_so_and_closing_after_a_partial_line_ends_the_input() {
    let fx = Fixture::new();
    let (yielded, thread) = fx.start(terminal("read -r -p 'Password: ' p; echo \"len=${#p}\""));
    let prompt = yielded.details.job.as_ref().and_then(|j| j.prompt.clone()).unwrap();
    assert!(prompt.secret && prompt.echoed, "{prompt:?}");
    let text = yielded.text();
    assert!(
        text.contains("its terminal shows what is typed (the answer would be in the output and its artifact)"),
        "{text}"
    );
    assert!(!text.contains("bashrt keeps no copy"), "{text}");
    write(&fx, 1, "pw\n", false);
    thread.join().unwrap();

    let (_, thread) = fx.start(terminal("read -r line; echo \"got [$line] $?\""));
    let done = write(&fx, 2, "abc", true);
    assert!(done.text().contains("got [abc] 1"), "{}", done.text());
    thread.join().unwrap();
}
