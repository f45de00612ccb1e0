//! Calls that yield and the jobs they become, through the public API with the real bash: the call
//! returns with the output so far and a job id while its command goes on; the `job` tool waits,
//! reads and kills; a job's end is told once; a listening server comes back at once. FIFOs the test
//! holds decide when a command moves on, so nothing here waits on a clock.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;

use bashrt_core::{
    BashParams, BashTool, CallContext, CancelToken, JobAction, JobParams, JobState, PromptKind, Runtime, SessionName,
    Settings, StdinMode, ToolResult, Yielding, MAX_RUNNING_JOBS,
};

struct Fixture {
    tool: Arc<BashTool>,
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Runtime::builder(Settings::default()).state_dir(dir.path().join("state")).build();
        Self { tool: Arc::new(runtime.tool()), dir }
    }

    fn ctx(&self) -> CallContext<'static> {
        let session = SessionName::parse("jobs").unwrap();
        CallContext {
            session_cwd: self.dir.path().to_path_buf(),
            artifacts: self.tool.runtime().artifacts(&session),
            tool_names: vec![],
            cancel: CancelToken::new().unwrap(),
            on_update: None,
        }
    }

    /// A FIFO in the test's directory, for a command to block on.
    fn fifo(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        path
    }

    /// Starts a yielding call on its own thread; returns the yielded result (or the final one, if the
    /// command ended first) and the thread that returns the final result.
    fn start(&self, params: BashParams) -> (ToolResult, JoinHandle<ToolResult>) {
        let (tx, rx) = mpsc::channel();
        let tool = Arc::clone(&self.tool);
        let (cwd, session) = (self.dir.path().to_path_buf(), SessionName::parse("jobs").unwrap());
        let early = tx.clone();
        let thread = std::thread::spawn(move || {
            let ctx = CallContext {
                artifacts: tool.runtime().artifacts(&session),
                session_cwd: cwd,
                tool_names: vec![],
                cancel: CancelToken::new().unwrap(),
                on_update: None,
            };
            let on_yield = Box::new(move |result: ToolResult| {
                let _ = early.send(result);
            });
            let result = tool.execute_yielding(&params, ctx, Yielding { call_id: None, on_yield }, None);
            let _ = tx.send(result.clone());
            result
        });
        (rx.recv().unwrap(), thread)
    }

    fn job(&self, action: JobAction, id: u64) -> ToolResult {
        let params = JobParams { action: Some(action), id: Some(id), ..JobParams::default() };
        self.tool.job(&params, &CancelToken::new().unwrap())
    }
}

fn params(command: &str, yield_ms: u64) -> BashParams {
    BashParams { command: command.to_string(), yield_ms: Some(yield_ms), timeout: Some(120.0), ..Default::default() }
}

fn release(fifo: &Path, text: &str) {
    let mut w = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
    w.write_all(text.as_bytes()).unwrap();
}

#[test]
fn a_call_past_its_yield_time_returns_as_a_job_that_wait_follows_to_its_end() {
    let fx = Fixture::new();
    let gate = fx.fifo("gate");
    let command = format!("echo started; read line < '{}'; echo \"got $line\"; sh -c 'exit 3'", gate.display());
    let (yielded, thread) = fx.start(params(&command, 300));
    let text = yielded.text();
    assert!(text.starts_with("started\n"), "{text}");
    assert!(text.contains("[Still running as job 1 ("), "{text}");
    assert!(text.contains(r#"{"action": "wait", "id": 1}"#), "{text}");
    assert!(!yielded.is_error);
    let job = yielded.details.job.clone().unwrap();
    assert_eq!((job.id.0, job.state), (1, JobState::Running));
    assert!(job.artifact_id.is_some(), "a job keeps its whole output from the first byte");

    release(&gate, "go\n");
    let waited = fx.job(JobAction::Wait, 1);
    let text = waited.text();
    assert!(text.starts_with("got go\n"), "only the new output: {text}");
    assert!(text.contains("[Job 1 exited with code 3 after "), "{text}");
    assert!(waited.is_error, "a job that failed is a failed read");
    let final_result = thread.join().unwrap();
    assert_eq!(final_result.details.exit_code, Some(3));
    assert_eq!(final_result.details.job.as_ref().map(|j| j.id.0), Some(1));

    // Told once: the next call does not tell it again.
    let next = fx.tool.execute(&params("echo next", 30_000), fx.ctx());
    assert_eq!(next.text(), "next\n");
}

#[test]
fn a_job_that_ends_unseen_is_told_first_in_the_next_result_once() {
    let fx = Fixture::new();
    let gate = fx.fifo("gate");
    let command = format!("echo one; cat '{}' > /dev/null; echo two", gate.display());
    let (yielded, thread) = fx.start(params(&command, 200));
    assert!(yielded.details.job.is_some());
    release(&gate, "x\n");
    thread.join().unwrap();
    let next = fx.tool.execute(&params("echo next", 30_000), fx.ctx());
    let text = next.text();
    assert!(text.starts_with("[Job 1 (echo one; cat "), "{text}");
    assert!(text.contains(") exited with code 0 after "), "{text}");
    assert!(text.contains(r#"{"action": "read", "id": 1} shows its last output"#), "{text}");
    assert!(text.ends_with("]\nnext\n"), "{text}");
    assert_eq!(next.details.jobs_ended.len(), 1);
    let again = fx.tool.execute(&params("echo again", 30_000), fx.ctx());
    assert_eq!(again.text(), "again\n");
    // The output it printed after the yield is still there to read.
    assert!(fx.job(JobAction::Read, 1).text().starts_with("two\n"));
}

#[test]
fn a_server_returns_as_soon_as_it_listens_and_a_kill_ends_it_as_cancelled() {
    let fx = Fixture::new();
    let server = "python3 -c 'import socket, time\ns = socket.socket()\ns.bind((\"127.0.0.1\", 0))\ns.listen()\n\
                  print(\"port\", s.getsockname()[1], flush=True)\ntime.sleep(600)'";
    // A yield time far past the test's patience: only the listening socket can bring the call back.
    let (yielded, thread) = fx.start(params(server, 600_000));
    let job = yielded.details.job.clone().unwrap();
    assert_eq!(job.state, JobState::Listening, "{}", yielded.text());
    let port = yielded.text().lines().next().unwrap().trim_start_matches("port ").to_string();
    assert_eq!(job.listening, vec![format!("127.0.0.1:{port}")]);
    assert!(yielded.text().contains(&format!("[Still running as job 1, listening on 127.0.0.1:{port} (")));

    let listed = fx.tool.job(&JobParams::default(), &CancelToken::new().unwrap());
    assert!(listed.text().starts_with("job 1: running for "), "{}", listed.text());
    assert!(listed.text().contains(&format!("listening on 127.0.0.1:{port}")), "{}", listed.text());

    let killed = fx.job(JobAction::Kill, 1);
    assert!(killed.text().contains("[Job 1 was killed on request after "), "{}", killed.text());
    assert!(!killed.is_error);
    let final_result = thread.join().unwrap();
    assert!(final_result.details.cancelled);
    assert_eq!(final_result.details.exit_code, None, "a kill is never an exit status");
}

#[test]
fn wait_until_a_pattern_returns_while_the_job_goes_on() {
    let fx = Fixture::new();
    let (first, second) = (fx.fifo("first"), fx.fifo("second"));
    let command = format!(
        "echo compiling; cat '{}'; echo 'ready in 5ms'; cat '{}'; echo after",
        first.display(),
        second.display()
    );
    let (yielded, thread) = fx.start(params(&command, 200));
    assert!(yielded.details.job.is_some());
    release(&first, "step\n");
    let params = JobParams {
        action: Some(JobAction::Wait),
        id: Some(1),
        until: Some("^ready in".into()),
        ..JobParams::default()
    };
    let waited = fx.tool.job(&params, &CancelToken::new().unwrap());
    let text = waited.text();
    assert!(text.starts_with("step\nready in 5ms\n"), "{text}");
    assert!(text.contains("[Job 1 is still running ("), "{text}");
    release(&second, "");
    thread.join().unwrap();
    let end = fx.job(JobAction::Wait, 1);
    assert!(end.text().starts_with("after\n"), "{}", end.text());
}

#[test]
fn a_wait_that_runs_out_says_what_it_waited_for() {
    let fx = Fixture::new();
    let gate = fx.fifo("gate");
    let (yielded, thread) = fx.start(params(&format!("cat '{}'", gate.display()), 200));
    assert_eq!(yielded.text().lines().next(), Some("(no output yet)"));
    let params = JobParams { action: Some(JobAction::Wait), id: Some(1), timeout: Some(0.3), ..JobParams::default() };
    let waited = fx.tool.job(&params, &CancelToken::new().unwrap());
    assert!(waited.text().contains("[Waited 300ms: it has not ended]"), "{}", waited.text());
    release(&gate, "");
    thread.join().unwrap();
}

#[test]
fn background_needs_a_front_that_can_yield_and_unknown_ids_name_the_jobs() {
    let fx = Fixture::new();
    let params = BashParams { command: "sleep 100".into(), background: Some(true), ..Default::default() };
    let refused = fx.tool.execute(&params, fx.ctx());
    assert!(refused.text().starts_with("Not run: `background` is not supported"), "{}", refused.text());
    let none = fx.job(JobAction::Wait, 9);
    assert!(none.text().starts_with("No job 9. No job has been started in this session"), "{}", none.text());
}

#[test]
fn a_background_call_returns_after_a_short_peek() {
    let fx = Fixture::new();
    let gate = fx.fifo("gate");
    let params = BashParams {
        command: format!("echo up; cat '{}'", gate.display()),
        background: Some(true),
        ..Default::default()
    };
    let (yielded, thread) = fx.start(params);
    assert!(yielded.text().starts_with("up\n"), "{}", yielded.text());
    assert_eq!(yielded.details.job.as_ref().map(|j| j.state), Some(JobState::Running));
    let killed = fx.job(JobAction::Kill, 1);
    assert!(killed.text().contains("[Job 1 was killed on request"), "{}", killed.text());
    thread.join().unwrap();
    drop(gate);
}

#[test]
fn past_the_cap_a_call_that_could_become_a_job_is_refused_naming_the_running_ones() {
    let fx = Fixture::new();
    let mut threads = Vec::new();
    for _ in 0..MAX_RUNNING_JOBS {
        let (yielded, thread) = fx.start(params("exec sleep 1000", 100));
        assert!(yielded.details.job.is_some(), "{}", yielded.text());
        threads.push(thread);
    }
    let (refused, _) = fx.start(params("echo one more", 100));
    let text = refused.text();
    assert!(refused.is_error);
    assert!(
        text.starts_with("Not run: 32 jobs are running already (1: exec sleep 1000; 2: exec sleep 1000;"),
        "{text}"
    );
    assert!(
        text.ends_with(
            r#"Stop one with the job tool ({"action": "kill", "id": 32}) or wait for one to end, then run this again."#
        ),
        "{text}"
    );
    for id in 1..=MAX_RUNNING_JOBS as u64 {
        fx.job(JobAction::Kill, id);
    }
    for thread in threads {
        assert!(thread.join().unwrap().details.cancelled);
    }
}

fn piped(command: &str, yield_ms: u64) -> BashParams {
    BashParams { stdin: Some(StdinMode::Pipe), ..params(command, yield_ms) }
}

fn write(fx: &Fixture, id: u64, input: &str, close: bool) -> ToolResult {
    let params = JobParams {
        action: Some(JobAction::Write),
        id: Some(id),
        input: Some(input.into()),
        close: Some(close),
        ..JobParams::default()
    };
    fx.tool.job(&params, &CancelToken::new().unwrap())
}

#[test]
fn a_prompt_on_a_stdin_pipe_returns_at_once_and_write_answers_it() {
    let fx = Fixture::new();
    let command = "python3 -c 'a = input(\"Proceed? [y/N] \"); print(\"answer:\", a); b = input(\"Name: \"); \
                   print(\"hello\", b)'";
    // Only the prompt can bring the call back before the test's patience runs out.
    let (yielded, thread) = fx.start(piped(command, 600_000));
    let job = yielded.details.job.clone().unwrap();
    assert_eq!((job.state, job.reading.as_deref(), job.stdin_open), (JobState::AwaitingInput, Some("python3"), true));
    let text = yielded.text();
    assert!(text.starts_with("Proceed? [y/N] \n\n[Waiting for input as job 1: python3 reads its stdin ("), "{text}");
    assert!(text.contains(r#"It asks yes or no: {"action": "write", "id": 1, "input": "y\n"} answers it"#), "{text}");
    let prompt = job.prompt.unwrap();
    assert_eq!((prompt.text.as_str(), prompt.kind, prompt.secret), ("Proceed? [y/N]", PromptKind::YesNo, false));

    let answered = write(&fx, 1, "y\n", false);
    let text = answered.text();
    assert!(text.starts_with("answer: y\nName: \n\n"), "{text}");
    assert!(text.contains("[Job 1 is waiting for input: python3 reads its stdin ("), "{text}");
    let done = write(&fx, 1, "Ann\n", true);
    assert!(done.text().starts_with("hello Ann\n"), "{}", done.text());
    assert!(done.text().contains("[Job 1 exited with code 0 after "), "{}", done.text());
    assert_eq!(thread.join().unwrap().details.exit_code, Some(0));
    // A job that ended takes no more input, and says why.
    let late = write(&fx, 1, "more\n", false);
    assert!(late.is_error && late.text().starts_with("Not written to job 1: it has ended."), "{}", late.text());
}

#[test]
fn cat_on_a_stdin_pipe_echoes_each_write_and_ends_when_stdin_closes() {
    let fx = Fixture::new();
    let (yielded, thread) = fx.start(piped("cat", 600_000));
    assert_eq!(yielded.details.job.as_ref().map(|j| j.state), Some(JobState::AwaitingInput));
    for line in ["one\n", "two\n"] {
        let echoed = write(&fx, 1, line, false);
        assert!(
            echoed.text().starts_with(&format!("{line}\n[Job 1 is waiting for input: cat reads its stdin")),
            "{}",
            echoed.text()
        );
    }
    let closed = write(&fx, 1, "", true);
    assert!(closed.text().contains("[Job 1 exited with code 0 after "), "{}", closed.text());
    thread.join().unwrap();
}

#[test]
fn a_read_of_another_file_is_not_waiting_for_input_and_null_stdin_jobs_take_none() {
    let fx = Fixture::new();
    let gate = fx.fifo("gate");
    let (yielded, thread) = fx.start(piped(&format!("read line < '{}'; echo \"got $line\"", gate.display()), 1500));
    let job = yielded.details.job.clone().unwrap();
    assert_eq!((job.state, job.reading), (JobState::Running, None), "{}", yielded.text());
    release(&gate, "x\n");
    thread.join().unwrap();
    let (yielded, thread) = fx.start(params(&format!("cat '{}'", gate.display()), 200));
    assert!(yielded.details.job.is_some());
    let refused = write(&fx, 2, "y\n", false);
    assert!(
        refused.text().starts_with(
            "Not written to job 2: its stdin is not a pipe or a terminal: start the command with \"stdin\": \"pipe\""
        ),
        "{}",
        refused.text()
    );
    release(&gate, "");
    thread.join().unwrap();
}

#[test]
fn a_password_prompt_is_left_to_the_user() {
    let fx = Fixture::new();
    let (yielded, thread) =
        fx.start(piped("printf 'Password for deploy@prod: '; read -r p; echo \"got ${#p} chars\"", 600_000));
    let job = yielded.details.job.clone().unwrap();
    let prompt = job.prompt.unwrap();
    assert_eq!((prompt.kind, prompt.secret), (PromptKind::Password, true));
    let text = yielded.text();
    assert!(
        text.contains("It asks for a password or a secret: that is the user's to give — ask them, never make one up"),
        "{text}"
    );
    let answered = write(&fx, 1, "hunter2\n", false);
    assert!(answered.text().starts_with("got 7 chars\n"), "{}", answered.text());
    thread.join().unwrap();
}

#[test]
fn a_process_left_running_with_ampersand_is_followed_as_a_job_that_listens_and_is_killed() {
    let fx = Fixture::new();
    let gate = fx.fifo("gate");
    // The server starts once the test opens the gate, so the call has surely ended by then.
    let server = format!(
        "(read go < '{}'; echo serving; exec python3 -c 'import socket,time; s=socket.socket(); \
         s.bind((\"127.0.0.1\", 0)); s.listen(); print(\"port\", s.getsockname()[1], flush=True); time.sleep(600)') & \
         echo started",
        gate.display()
    );
    let (result, thread) = fx.start(params(&server, 30_000));
    thread.join().unwrap();
    let text = result.text();
    assert!(result.details.job.is_none(), "the call ended: it did not yield");
    let left = result.details.left_job.clone().expect("a job follows what it left running");
    assert_eq!(left.state, JobState::Running);
    assert!(
        text.starts_with("started\n\n[1 background process still running, followed as job 1. With the `job` tool: "),
        "{text}"
    );
    release(&gate, "go\n");
    let wait = JobParams { action: Some(JobAction::Wait), id: Some(1), port: Some(0), ..JobParams::default() };
    let listening = fx.tool.job(&wait, &CancelToken::new().unwrap());
    let text = listening.text();
    assert!(text.starts_with("serving\nport "), "what it printed after the call ended: {text}");
    assert_eq!(listening.details.job.as_ref().map(|j| j.state), Some(JobState::Listening), "{text}");
    // What they print from now on is kept whole, in an artifact of its own.
    let artifact = listening.details.job.as_ref().and_then(|j| j.artifact_id).expect("an artifact");
    assert!(text.contains(&format!("Full output: {}", artifact.url())), "{text}");
    let dir = fx.tool.runtime().artifacts(&SessionName::parse("jobs").unwrap()).unwrap();
    let (_, path) = dir.resolve(&artifact.url()).unwrap();
    assert!(std::fs::read_to_string(path).unwrap().starts_with("serving\nport "));
    // While it runs, other calls do not repeat that something runs: the job tool lists it.
    let other = fx.tool.execute_yielding(
        &params("echo other", 30_000),
        fx.ctx(),
        Yielding { call_id: None, on_yield: Box::new(|_| {}) },
        None,
    );
    assert_eq!(other.text(), "other\n");
    let killed = fx.job(JobAction::Kill, 1);
    assert_eq!(killed.details.job.as_ref().map(|j| j.state), Some(JobState::Cancelled), "{}", killed.text());

    // One that ends by itself ends the job, with no status to tell.
    let (_, thread) = fx.start(params(&format!("(read go < '{}') & echo started", gate.display()), 30_000));
    thread.join().unwrap();
    release(&gate, "go\n");
    let ended = fx.job(JobAction::Wait, 2);
    let text = ended.text();
    assert!(text.contains("[Job 2 ended after "), "{text}");
    assert!(text.contains("(started with `&`: its exit status went to its shell)"), "{text}");

    // Where no job could have been had (`execute`), the notice stays as it was.
    let plain = fx.tool.execute(&params("sleep 100 & echo again", 30_000), fx.ctx());
    let text = plain.text();
    assert!(text.contains("background process") && text.ends_with(" still running]"), "{text}");
    assert!(plain.details.left_job.is_none(), "{text}");
}

mod deadline;
mod handed;
mod terminal;
