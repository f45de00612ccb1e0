//! The agents people use, end to end: Claude Code, Codex CLI and Gemini CLI, pinned from npm, each
//! configured exactly as `bashrt mcp --print-config` prints it (plus what points the agent at the
//! scripted model), in a scratch home, driven by a scripted model (`agents/fake_model.py`) that
//! speaks the agent's provider API on 127.0.0.1. The assertions are on what the agent's model
//! received from bashrt's tools: the output lines, the error line in the middle of a large failing
//! output, the last line, how the command ended, the artifact link, a `read_output` window, two
//! calls at once that both see the session's variables, a call with arguments bashrt does not
//! take, and a call that yields as a job which the `job` tool then follows to its end.
//!
//! The clients are installed once under `target/tmp/npm-tools/agents` (about 1 GB: Claude Code and
//! Codex ship native binaries); it needs `npm`, `python3` and the network on the first run.
//!
//! Slow tests: they run with `BASHRT_SLOW_TESTS=1` (`common::slow`), as CI runs them.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::Duration;

use crate::common::{self, npm::Prefix};
use serde_json::{json, Value};

const CLAUDE: &str = "@anthropic-ai/claude-code@2.1.332";
const CODEX: &str = "@openai/codex@0.171.0";
const GEMINI: &str = "@google/gemini-cli@0.61.0";

const BASHRT: &str = env!("CARGO_BIN_EXE_bashrt");

/// Why these tests are slow ([`common::slow`]).
const AGENTS: &str = "three real agents, installed from npm (about 1 GB) on the first run";

/// An agent that has not finished its script by then is stuck: it is killed and the test fails.
const AGENT_DEADLINE: Duration = Duration::from_secs(300);

fn clients() -> &'static Prefix {
    static CLIENTS: OnceLock<Prefix> = OnceLock::new();
    CLIENTS.get_or_init(|| {
        // Claude Code's package fetches nothing in its install script: it links the native binary of
        // its platform package in place.
        Prefix::install("agents", &[CLAUDE, CODEX, GEMINI], &[("@anthropic-ai/claude-code", "install.cjs")])
    })
}

/// The calls the scripted model makes, the same for every agent.
fn script() -> Value {
    let bash = |command: &str| json!({"calls": [{"tool": "bash", "args": {"command": command}}]});
    json!([
        bash("echo hello"),
        bash("echo oops; exit 3"),
        bash("seq 1 20000; echo 'error: boom at line 12345'; seq 1 20000 | sed 's/^/x/'; exit 1"),
        {"calls": [{"tool": "read_output", "args": {"artifactId": "artifact://1", "grep": "boom"}}]},
        bash("seq 1 100000"),
        bash("export PARVAR=seen-by-both"),
        // A model thinks before its next turn; the two calls then go out at once.
        {"delay": 1.5, "calls": [
            {"tool": "bash", "args": {"command": "sleep 1; echo \"A=$PARVAR\""}},
            {"tool": "bash", "args": {"command": "echo \"B=$PARVAR\""}},
        ]},
        {"calls": [{"tool": "bash", "args": {"command": "echo extra", "description": "say extra", "bogus": 1}}]},
        bash("python3 -c 'input(\"Proceed? \")'"),
        // A command that outlives its yield time: it blocks on a FIFO the next call writes to, so it
        // is still running when the call returns, and ends only after that write.
        {"calls": [{"tool": "bash", "args": {
            "command": "rm -f gate; mkfifo gate; echo begin; read line < gate; echo \"got $line\"",
            "yield_ms": 500,
        }}]},
        bash("python3 -c 'open(\"gate\", \"w\").write(\"go\\n\")'"),
        {"calls": [{"tool": "job", "args": {"action": "wait", "id": 1}}]},
        {"text": "done"},
    ])
}

/// One tool result as the model received it (see `fake_model.py results`).
#[derive(Debug)]
struct Received {
    text: String,
    is_error: bool,
}

/// The scripted model, serving one agent.
struct FakeModel {
    child: Child,
    port: u16,
    provider: &'static str,
    log: PathBuf,
}

impl FakeModel {
    fn start(provider: &'static str, dir: &Path) -> FakeModel {
        let script = dir.join("script.json");
        std::fs::write(&script, script_json()).unwrap();
        let log = dir.join("requests.jsonl");
        let mut child = Command::new("python3")
            .arg(fake_model())
            .args(["serve", provider, "--script"])
            .arg(&script)
            .arg("--log")
            .arg(&log)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the scripted model");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().strip_prefix("listening ").and_then(|p| p.parse().ok()).expect("the model's port");
        FakeModel { child, port, provider, log }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What the model received from the tools, in call order.
    fn received(&self) -> Vec<Received> {
        let out = common::npm::checked(
            "fake_model.py results",
            Command::new("python3").arg(fake_model()).args(["results", self.provider]).arg(&self.log).output(),
        );
        let results: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        results
            .iter()
            .map(|r| Received { text: r["text"].as_str().unwrap().to_string(), is_error: r["is_error"] == true })
            .collect()
    }

    /// The requests the agent sent for its own turns.
    fn main_requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|record| record["kind"] == "main")
            .map(|record| record["body"].clone())
            .collect()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn script_json() -> Vec<u8> {
    serde_json::to_vec_pretty(&script()).unwrap()
}

fn fake_model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/fake_model.py")
}

/// `bashrt mcp --print-config CLIENT`, as printed.
fn printed_config(client: &str) -> String {
    let out = common::npm::checked(
        "bashrt mcp --print-config",
        Command::new(BASHRT).args(["mcp", "--print-config", client]).output(),
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A scratch home and a project directory for one agent.
struct Scratch {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        // Outside any git work tree: Claude Code takes a repository's top level for the project.
        let root = tempfile::tempdir().unwrap();
        let (home, project) = (root.path().join("home"), root.path().join("project"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        Scratch { _root: root, home, project }
    }

    /// The agent's command in a clean environment: the scratch home, the clients' Node first on PATH.
    fn command(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", clients().bin().display());
        command.env_clear().env("PATH", path).env("HOME", &self.home).env("TERM", "dumb");
        command.current_dir(&self.project).env("PWD", &self.project);
        command.stdin(Stdio::null());
        command
    }
}

/// Runs the agent to its end, killing it past [`AGENT_DEADLINE`].
fn run_agent(mut command: Command) -> Output {
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the agent starts");
    let pid = child.id();
    let (done, finished) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if finished.recv_timeout(AGENT_DEADLINE).is_err() {
            // SAFETY: kill(2) on the agent's pid, which this test still owns (not yet reaped).
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    });
    let output = child.wait_with_output().unwrap();
    let _ = done.send(());
    watchdog.join().unwrap();
    output
}

fn describe(output: &Output) -> String {
    format!(
        "{}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// What every agent's model must have received. `flags_errors`: the agent passes bashrt's
/// `isError` on to its model (Codex never shows it; for Gemini CLI bashrt leaves failures unflagged,
/// their text says how the command ended).
fn assert_the_model_got_bashrts_view(received: &[Received], flags_errors: bool, limit: usize) {
    let texts: Vec<&str> = received.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(received.len(), 13, "{texts:#?}");
    let cut_by_the_client = [
        "characters truncated",
        "tokens truncated",
        "chars truncated",
        "Output too large",
        "persisted-output",
        "exceeds maximum allowed tokens",
    ];
    for text in &texts {
        assert!(text.len() <= limit, "{} bytes: over what the client passes whole", text.len());
        for marker in cut_by_the_client {
            assert!(!text.contains(marker), "the client cut bashrt's view ({marker}):\n{text}");
        }
    }

    // An agent that hands its server credentials in the environment (Claude Code: its API key) hears
    // once, in the first result, that the sandbox left them out: their names, never their values.
    let (first, told) = texts[0].split_at(texts[0].find("\n\n").unwrap_or(texts[0].len()));
    assert_eq!((first.trim_end(), received[0].is_error), ("hello", false), "{}", texts[0]);
    if !told.is_empty() {
        assert!(told.starts_with("\n\n[Sandbox: ") && told.contains("left out of the environment: "), "{told}");
    }

    assert_eq!(texts[1], "oops\n\nCommand exited with code 3");
    assert_eq!(received[1].is_error, flags_errors);

    // A large failing output: the error line from its middle, its last line, how it ended, where
    // the rest is.
    let big = texts[2];
    assert!(big.starts_with("1\n2\n3\n"), "{big}");
    assert!(big.contains("\n20001:error: boom at line 12345\n"), "the error line is lost:\n{big}");
    assert!(big.contains("\nx20000\n"), "the last line is lost:\n{big}");
    assert!(big.contains("1 error line") && big.contains("Full: artifact://1]"), "{big}");
    assert!(big.ends_with("\nCommand exited with code 1"), "{big}");
    assert_eq!(received[2].is_error, flags_errors);

    assert_eq!(texts[3], "20001:error: boom at line 12345\n");

    // A large output of a command that succeeded.
    let long = texts[4];
    assert!(long.starts_with("1\n2\n") && long.contains("\n99999\n100000\n"), "{long}");
    assert!(long.contains(" of 100000 (") && long.contains("Full: artifact://2]"), "{long}");
    assert!(!received[4].is_error);

    // Two calls at once: the one beside the busy shell has the session's variable too.
    assert_eq!(texts[6], "A=seen-by-both\n");
    assert_eq!(texts[7], "B=seen-by-both\n");

    assert_eq!(texts[8], "extra\n\n[Ignored unknown argument: `bogus`]");

    // A prompt met the end of /dev/null: the model is told why, and how to run it without one.
    let prompt = texts[9];
    assert!(prompt.contains("EOFError: EOF when reading a line"), "{prompt}");
    assert!(
        prompt.ends_with(
            "[The command wanted input, but its stdin is /dev/null: rerun it with `stdin: \"pty\"` (a terminal; \
             the call returns when it asks, and the job tool's write answers) or `stdin: \"pipe\"`, or with a \
             non-interactive flag (--yes, -y, --no-input, …); a password is the user's to give]\nCommand exited \
             with code 1"
        ),
        "{prompt}"
    );
    assert_eq!(received[9].is_error, flags_errors);

    // A call past its yield time comes back with its output so far and the job it goes on as; the
    // job tool then follows it to its end.
    let yielded = texts[10];
    assert!(yielded.starts_with("begin\n\n[Still running as job 1 ("), "{yielded}");
    assert!(yielded.contains(r#"{"action": "wait", "id": 1}"#), "{yielded}");
    assert!(!received[10].is_error);
    // The job holds the session's shell: this call ran in a fresh one, which the result may say. The
    // write ends the job: when its end is in before this result is made, the result says it first.
    let write = texts[11].strip_prefix(
        "[Job 1 (rm -f gate; mkfifo gate; echo begin; read line < gate; echo \"got $line\") exited with code 0 after ",
    );
    let write = write.and_then(|rest| rest.split_once("]\n")).map_or(texts[11], |(_, rest)| rest);
    assert!(write.starts_with("(no output)"), "{}", texts[11]);
    let waited = texts[12];
    assert!(waited.starts_with("got go\n"), "{waited}");
    assert!(waited.contains("\n[Job 1 exited with code 0 after "), "{waited}");
    assert!(!received[12].is_error);
}

fn tool_names(request: &Value, list: &str, name: &str) -> Vec<String> {
    request[list].as_array().into_iter().flatten().filter_map(|t| t[name].as_str().map(str::to_string)).collect()
}

#[test]
fn claude_code_gives_its_model_bashrts_view() {
    if !common::slow(AGENTS) {
        return;
    }
    let claude = clients().bin().join("claude");
    let scratch = Scratch::new();
    let model = FakeModel::start("anthropic", scratch.project.parent().unwrap());
    std::fs::write(scratch.project.join(".mcp.json"), printed_config("claude")).unwrap();
    // As the printed hints say: deny Claude's own Bash, allow bashrt's tools (the project must be
    // trusted for its allow list to count).
    std::fs::create_dir_all(scratch.project.join(".claude")).unwrap();
    let settings = json!({"permissions": {"deny": ["Bash"], "allow": ["mcp__bashrt__bash", "mcp__bashrt__read_output", "mcp__bashrt__job"]}});
    std::fs::write(scratch.project.join(".claude/settings.json"), settings.to_string()).unwrap();
    let trust = json!({"hasCompletedOnboarding": true,
        "projects": {scratch.project.display().to_string(): {"hasTrustDialogAccepted": true}}});
    std::fs::write(scratch.home.join(".claude.json"), trust.to_string()).unwrap();

    let mut command = scratch.command(&claude);
    command
        .env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "sk-ant-scripted")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .args(["-p", "Run the commands.", "--output-format", "stream-json", "--verbose"]);
    let output = run_agent(command);
    assert!(output.status.success(), "{}", describe(&output));

    let requests = model.main_requests();
    let tools = tool_names(&requests[0], "tools", "name");
    assert!(tools.iter().any(|t| t == "mcp__bashrt__bash"), "bash is loaded up front: {tools:?}");
    assert!(!tools.iter().any(|t| t == "Bash"), "Claude's own Bash is denied: {tools:?}");
    // Claude Code passes a successful result whole up to 50,000 characters; bashrt keeps a failed
    // one within its 11,024 (the test's first bound is the looser one).
    let received = model.received();
    assert_the_model_got_bashrts_view(&received, true, 50_000);
    assert!(received[2].text.len() <= 11_024, "a failed call's view must fit Claude Code's cut of errors");
}

#[test]
fn codex_gives_its_model_bashrts_view() {
    if !common::slow(AGENTS) {
        return;
    }
    for model_name in ["gpt-5.5", "gpt-4.1"] {
        let scratch = Scratch::new();
        let model = FakeModel::start("openai", scratch.project.parent().unwrap());
        let codex_home = scratch.home.join(".codex");
        std::fs::create_dir_all(&codex_home).unwrap();
        // The scripted model as Codex's provider, no plugin sync (no network here), then bashrt's
        // block as printed.
        let config = format!(
            "model_provider = \"scripted\"\nmodel = \"{model_name}\"\n\n\
             [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
             env_key = \"SCRIPTED_API_KEY\"\n\n[features]\nplugins = false\nremote_plugin = false\n\n{}",
            model.url(),
            printed_config("codex")
        );
        std::fs::write(codex_home.join("config.toml"), config).unwrap();

        let mut command = scratch.command(&clients().bin().join("codex"));
        command
            .env("CODEX_HOME", &codex_home)
            .env("SCRIPTED_API_KEY", "sk-scripted")
            // As the printed hints say: Codex's own shell off; `codex exec` asks no one, so bashrt's
            // calls need approving up front.
            .args(["exec", "--disable", "shell_tool", "--skip-git-repo-check"])
            .args(["--dangerously-bypass-approvals-and-sandbox", "--json", "-m", model_name, "Run the commands."]);
        let output = run_agent(command);
        assert!(output.status.success(), "{model_name}: {}", describe(&output));

        let requests = model.main_requests();
        let tools = tool_names(&requests[0], "tools", "name");
        assert!(!tools.iter().any(|t| t == "exec_command"), "{model_name}: Codex's shell is off: {tools:?}");
        // gpt-5.5 gets 47,964 bytes of a result, models outside Codex's catalog 11,964 unless the
        // tool's output_token_limit is raised, as the printed configuration does.
        assert_the_model_got_bashrts_view(&model.received(), false, 47_964);
    }
}

#[test]
fn gemini_cli_gives_its_model_bashrts_view() {
    if !common::slow(AGENTS) {
        return;
    }
    let scratch = Scratch::new();
    let model = FakeModel::start("gemini", scratch.project.parent().unwrap());
    let mut settings: Value = serde_json::from_str(&printed_config("gemini")).unwrap();
    // What points Gemini CLI at the scripted model with an API key, and keeps it off the network.
    settings["security"] = json!({"auth": {"selectedType": "gemini-api-key"}});
    settings["telemetry"] = json!({"enabled": false});
    settings["privacy"] = json!({"usageStatisticsEnabled": false});
    std::fs::create_dir_all(scratch.home.join(".gemini")).unwrap();
    std::fs::write(scratch.home.join(".gemini/settings.json"), settings.to_string()).unwrap();

    let mut command = scratch.command(&clients().bin().join("gemini"));
    command
        .env("GEMINI_API_KEY", "scripted")
        .env("GOOGLE_GEMINI_BASE_URL", model.url())
        .env("GEMINI_CLI_NO_RELAUNCH", "true")
        .env("NO_COLOR", "1")
        // `gemini -p` has no one to ask: bashrt's calls are approved up front (or "trust": true).
        .args(["--skip-trust", "--approval-mode", "yolo", "-p", "Run the commands."]);
    let output = run_agent(command);
    assert!(output.status.success(), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("unknown format"), "Gemini warns about bashrt's schemas:\n{stderr}");

    let requests = model.main_requests();
    let declared: Vec<String> = requests[0]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| tool_names(t, "functionDeclarations", "name"))
        .collect();
    assert!(declared.iter().any(|t| t == "mcp_bashrt_bash"), "{declared:?}");
    assert!(!declared.iter().any(|t| t == "run_shell_command"), "Gemini's own shell is off: {declared:?}");
    // Gemini CLI passes a result whole up to 40,000 characters with its 41-character wrapper.
    assert_the_model_got_bashrts_view(&model.received(), false, 39_959);
}
