//! Faults bashrt meets in the wild: a read-only or full state directory, a file-size limit, a missing
//! shell, the shell killed from outside. Each ends with a clear result, loses nothing already written,
//! leaves no process behind, and the next call works.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{self, text, Env};
use serde_json::json;

fn is_root() -> bool {
    // SAFETY: geteuid(2) cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A tmpfs of `size` mounted at a fresh directory, unmounted on drop (root only).
struct Tmpfs {
    path: PathBuf,
}

impl Tmpfs {
    /// `None` (with the reason on stderr) where this machine does not let us mount, even as root.
    fn mount(at: &Path, options: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let out = Command::new("mount").args(["-t", "tmpfs", "-o", options, "tmpfs"]).arg(at).output().ok()?;
        if !out.status.success() {
            eprintln!("SKIPPED: mount -t tmpfs is not allowed here: {}", String::from_utf8_lossy(&out.stderr).trim());
            return None;
        }
        Some(Tmpfs { path: at.to_path_buf() })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
    }
}

/// No process carries the marker of a runtime any more (every runtime of these tests has exited).
fn no_marked_process_left(state: &Path) {
    let needle = format!("BASHRT_STATE_DIR={}", state.display());
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else { continue };
        let ours = env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes());
        let marked = env.split(|b| *b == 0).any(|kv| kv.starts_with(b"BASHRT_RUNTIME="));
        if ours && marked && common::alive(pid) {
            panic!("process {pid} outlived its runtime");
        }
    }
}

#[test]
fn a_read_only_state_dir_still_runs_the_call_and_says_the_output_was_not_kept() {
    if !is_root() {
        eprintln!("SKIPPED a_read_only_state_dir…: mounting a read-only filesystem needs root");
        return;
    }
    let env = Env::new();
    let Some(_ro) = Tmpfs::mount(&env.state(), "size=1m,ro") else { return };
    let (result, code) = env.run_json(&[], "seq 1 100000");
    assert_eq!(code, 0, "{result}");
    let shown = text(&result);
    assert!(shown.contains("100000\n"), "the tail is still shown");
    assert!(shown.contains("Full output could not be kept"), "{shown}");
    assert!(shown.contains("Read-only file system"), "the real reason is given: {shown}");
    let (next, code) = env.run_json(&[], "echo next");
    assert_eq!((text(&next).as_str(), code), ("next\n", 0));
    no_marked_process_left(&env.state());
}

#[test]
fn a_disk_that_fills_mid_spill_leaves_no_partial_artifact_and_the_next_call_works() {
    if !is_root() {
        eprintln!("SKIPPED a_disk_that_fills_mid_spill…: mounting a small tmpfs needs root");
        return;
    }
    let env = Env::new();
    let Some(_small) = Tmpfs::mount(&env.state(), "size=2m,mode=700") else { return };
    // 6.9 MB of output into a 2 MiB disk.
    let (result, code) = env.run_json(&[], "seq 1 1000000");
    assert_eq!(code, 0, "{result}");
    let shown = text(&result);
    assert!(shown.contains("1000000\n"), "the tail is still shown");
    assert!(shown.contains("Full output could not be kept") && shown.contains("No space left"), "{shown}");
    assert!(result["details"]["meta"]["truncation"]["artifactId"].is_null(), "{result}");
    let artifacts = env.state().join("sessions").join(env.session_name()).join("artifacts");
    let left: Vec<_> =
        std::fs::read_dir(&artifacts).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "a partial artifact was left to be served as complete: {left:?}");

    // The next call works, and its artifact is whole.
    let (next, code) = env.run_json(&[], "seq 1 20000");
    assert_eq!(code, 0);
    let id = next["details"]["meta"]["truncation"]["artifactId"].as_u64().expect("kept");
    let kept = std::fs::read_to_string(env.artifact_path(&env.session_name(), id)).unwrap();
    assert_eq!(kept.lines().count(), 20000);

    // A session whose log cannot be appended to says so in the result instead of losing it silently.
    let fill = env.state().join("fill");
    let _ = Command::new("dd").args(["if=/dev/zero", "bs=64k"]).arg(format!("of={}", fill.display())).output();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"1","type":"bash","sessionId":"full","command":"echo still runs"}));
    let response = rpc.response("1");
    assert_eq!(response["data"]["output"], "still runs\n", "{response}");
    assert!(response["data"]["logError"].as_str().is_some_and(|e| e.contains("No space left")), "{response}");
    assert_eq!(rpc.finish(), 0);
    no_marked_process_left(&env.state());
}

#[test]
fn a_file_size_limit_fails_the_spill_not_bashrt() {
    let env = Env::new();
    // 200 KB may be written per file; the artifact needs 6.9 MB.
    let mut cmd = Command::new("prlimit");
    cmd.arg("--fsize=200000").arg(env!("CARGO_BIN_EXE_bashrt")).args(["run", "--json", "--", "seq 1 1000000"]);
    cmd.current_dir(env.work())
        .env("BASHRT_STATE_DIR", env.state())
        .env("HOME", env.home())
        .env("XDG_CONFIG_HOME", env.root.path().join("config"));
    let out = cmd.output().expect("prlimit (util-linux) runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown = text(&result);
    assert!(shown.contains("1000000\n"), "{shown}");
    assert!(shown.contains("Full output could not be kept") && shown.contains("File too large"), "{shown}");
    no_marked_process_left(&env.state());
}

#[test]
fn a_missing_shell_is_a_clear_refusal_and_a_shell_killed_from_outside_is_replaced() {
    let env = Env::new();
    let (result, code) = env.run_json(&["--set", "shellPath=/nonexistent/bash"], "echo hi");
    assert_eq!(code, 2);
    assert_eq!(text(&result), "Custom shell path not found: /nonexistent/bash");

    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"1","type":"bash","command":"X=kept; echo shell:$$; sleep 100"}));
    let shell = rpc.wait_for_number("1", "shell:");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(shell), nix::sys::signal::Signal::SIGKILL).unwrap();
    let killed = rpc.response("1");
    assert_eq!(killed["data"]["signal"], "SIGKILL", "{killed}");
    assert!(killed["data"]["output"].as_str().unwrap().starts_with("shell:"), "output before the kill is kept");
    rpc.send(json!({"id":"2","type":"bash","command":"echo ${X-gone}"}));
    let next = rpc.response("2");
    assert!(next["data"]["output"].as_str().unwrap().starts_with("gone\n"), "{next}");
    assert!(next["data"]["shell"].as_str().unwrap().contains("killed by SIGKILL"), "{next}");
    assert_eq!(rpc.finish(), 0);
    no_marked_process_left(&env.state());
}
