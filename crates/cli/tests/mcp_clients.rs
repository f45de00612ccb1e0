//! `bashrt mcp` driven by real MCP clients that nobody here wrote: the official MCP Python SDK
//! (`tests/mcp/python_client.py`, one scenario per test) and the MCP Inspector CLI (TypeScript).
//!
//! Each client is installed, pinned, the first time (a venv in `target/mcp-clients/`, an npm prefix
//! with its own Node in `target/tmp/npm-tools/`) and reused after: it needs `python3` with venv and
//! `npm` (`.ci/run` installs them), and the network once.
//!
//! Slow tests: they run with `BASHRT_SLOW_TESTS=1` (`common::slow`), as CI runs them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common;
use crate::common::npm::{checked, installed, Prefix};

/// The MCP Python SDK version the tests drive.
const PYTHON_SDK: &str = "mcp==2.3.0";
/// The MCP Inspector version (it runs on the Node of its npm prefix, newer than many machines have).
const INSPECTOR: &str = "@modelcontextprotocol/inspector@2.12.0";

const BASHRT: &str = env!("CARGO_BIN_EXE_bashrt");

fn clients_dir() -> PathBuf {
    // target/<profile>/bashrt → target/mcp-clients
    let target = Path::new(BASHRT).parent().and_then(Path::parent).expect("the binary lives in target/<profile>");
    target.join("mcp-clients")
}

fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let venv = installed(&clients_dir(), "python", PYTHON_SDK, |dir| {
            checked(
                "python3 -m venv (Debian: apt-get install python3-venv)",
                Command::new("python3").arg("-m").arg("venv").arg(dir).output(),
            );
            checked(
                "pip install",
                Command::new(dir.join("bin/pip"))
                    .args(["install", "--quiet", "--disable-pip-version-check", PYTHON_SDK])
                    .output(),
            );
        });
        venv.join("bin/python")
    })
}

/// Runs one scenario of `python_client.py` in a fresh state and work directory. Each Python SDK test
/// is this call alone, so the check of the slow tests' switch is here, first.
fn python_scenario(name: &str) {
    if !common::slow("the MCP Python SDK, installed from PyPI into a venv on the first run") {
        return;
    }
    let python = python();
    let dir = tempfile::tempdir().unwrap();
    let (state, work) = (dir.path().join("state"), dir.path().join("work"));
    std::fs::create_dir(&work).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/python_client.py");
    let output = Command::new(python).arg(script).arg(BASHRT).arg(&state).arg(&work).arg(name).output();
    let output = checked(&format!("the Python client's scenario {name}"), output);
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), format!("ok {name}"));
}

#[test]
fn python_sdk_a_long_call_yields_as_a_job_and_a_server_returns_when_it_listens() {
    python_scenario("jobs");
}

#[test]
fn python_sdk_bash_escalated_is_the_users_approval_and_bash_names_it() {
    python_scenario("sandbox");
}

#[test]
fn python_sdk_a_client_that_can_ask_its_user_gets_an_elicitation_once_session_or_deny() {
    python_scenario("elicitation");
}

#[test]
fn python_sdk_initializes() {
    python_scenario("initialize");
}

#[test]
fn python_sdk_lists_the_tools_with_their_schemas() {
    python_scenario("tools");
}

#[test]
fn python_sdk_gets_structured_details_when_asked() {
    python_scenario("structured");
}

#[test]
fn python_sdk_arguments_are_read_the_way_models_send_them() {
    python_scenario("arguments");
}

#[test]
fn python_sdk_gemini_profile_answers_failures_as_text_within_geminis_cut() {
    python_scenario("gemini_profile");
}

#[test]
fn python_sdk_claude_profile_fits_failures_in_claudes_cut_and_names_its_tools() {
    python_scenario("claude_profile");
}

#[test]
fn python_sdk_calls_bash_and_shell_state_persists() {
    python_scenario("bash_success");
}

#[test]
fn python_sdk_sees_a_failed_command_as_is_error() {
    python_scenario("bash_error");
}

#[test]
fn python_sdk_sees_a_blocked_command_when_tools_are_given() {
    python_scenario("blocked");
}

#[test]
fn python_sdk_sees_a_blocked_command_when_the_setting_names_the_tools() {
    python_scenario("blocked_by_setting");
}

#[test]
fn python_sdk_nothing_is_blocked_without_tools() {
    python_scenario("not_blocked_without_tools");
}

#[test]
fn python_sdk_gets_progress_with_the_latest_lines() {
    python_scenario("progress");
}

#[test]
fn python_sdk_cancel_kills_the_running_command() {
    python_scenario("cancel");
}

#[test]
fn python_sdk_reads_a_truncated_output_back_exactly_as_a_resource() {
    python_scenario("artifact");
}

#[test]
fn python_sdk_pages_an_output_with_read_output() {
    python_scenario("read_output");
}

#[test]
fn python_sdk_runs_two_calls_at_once() {
    python_scenario("concurrent");
}

#[test]
fn python_sdk_disconnecting_leaves_no_process() {
    python_scenario("disconnect");
}

/// The Inspector's launcher, and the Node that runs it.
fn inspector() -> &'static (PathBuf, PathBuf) {
    static INSPECTOR_PATHS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    INSPECTOR_PATHS.get_or_init(|| {
        let prefix = Prefix::install("inspector", &[INSPECTOR], &[]);
        let launcher = prefix.modules.join("@modelcontextprotocol/inspector/clients/launcher/build/index.js");
        (prefix.node(), launcher)
    })
}

/// Runs `mcp-inspector --cli --config CONFIG --server bashrt ARGS…` and parses its JSON answer.
fn inspect(config: &Path, home: &Path, args: &[&str]) -> serde_json::Value {
    let output = checked(&format!("mcp-inspector {args:?}"), run_inspector(config, home, args));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

fn run_inspector(config: &Path, home: &Path, args: &[&str]) -> std::io::Result<Output> {
    let (node, launcher) = inspector();
    Command::new(node)
        .arg(launcher)
        .arg("--cli")
        .arg("--config")
        .arg(config)
        .args(["--server", "bashrt"])
        .args(args)
        .env("HOME", home)
        .output()
}

/// A client config made from `bashrt mcp --print-config claude` as printed, with a fixed session (each
/// Inspector run is a connection of its own) and a private state directory.
fn inspector_config(dir: &Path) -> PathBuf {
    let printed =
        checked("bashrt mcp --print-config", Command::new(BASHRT).args(["mcp", "--print-config", "claude"]).output());
    let mut config: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
    let server = &mut config["mcpServers"]["bashrt"];
    assert_eq!(server["command"], BASHRT);
    server["args"].as_array_mut().unwrap().extend(["--session".into(), "inspector".into()]);
    server["env"] =
        serde_json::json!({ "BASHRT_STATE_DIR": dir.join("state"), "PATH": std::env::var("PATH").unwrap_or_default() });
    server["cwd"] = dir.display().to_string().into();
    let path = dir.join("mcp.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    path
}

#[test]
fn inspector_lists_calls_and_reads_a_resource() {
    if !common::slow("the MCP Inspector, installed from npm on the first run") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = inspector_config(dir.path());
    let home = dir.path();

    let listed = inspect(&config, home, &["--method", "tools/list"]);
    let names: Vec<&str> = listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["bash", "read_output", "job", "bash_escalated"]);
    assert_eq!(listed["tools"][0]["inputSchema"]["required"], serde_json::json!(["command"]));
    assert!(listed["tools"][0].get("outputSchema").is_none(), "{listed}");

    let called =
        inspect(&config, home, &["--method", "tools/call", "--tool-name", "bash", "--tool-arg", "command=echo hi"]);
    assert_eq!(called["content"][0]["text"], "hi\n", "{called}");
    assert_eq!(called["_meta"]["bashrt/details"]["exitCode"], 0, "{called}");
    assert!(called.get("structuredContent").is_none(), "{called}");
    assert_ne!(called["isError"], true, "{called}");

    // The Inspector prints an isError result, then fails.
    let failed = run_inspector(
        &config,
        home,
        &["--method", "tools/call", "--tool-name", "bash", "--tool-arg", "command=exit 4"],
    )
    .unwrap();
    assert!(!failed.status.success());
    let failed: serde_json::Value = serde_json::from_slice(&failed.stdout).unwrap();
    assert_eq!(failed["isError"], true, "{failed}");
    assert_eq!(failed["_meta"]["bashrt/details"]["exitCode"], 4, "{failed}");

    let long = inspect(
        &config,
        home,
        &["--method", "tools/call", "--tool-name", "bash", "--tool-arg", "command=seq 1 100000"],
    );
    let id = &long["_meta"]["bashrt/details"]["meta"]["truncation"]["artifactId"];
    assert!(id.is_u64(), "{long}");
    // A later connection of the same session reads the artifact the earlier one made.
    let uri = format!("artifact://{id}");
    let read = inspect(&config, home, &["--method", "resources/read", "--uri", &uri]);
    let expected: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    assert!(read["contents"][0]["text"] == expected.as_str(), "the artifact did not read back whole");
    let window = inspect(&config, home, &["--method", "resources/read", "--uri", &format!("{uri}?tail=2")]);
    assert_eq!(window["contents"][0]["text"], "99999\n100000\n");
}
