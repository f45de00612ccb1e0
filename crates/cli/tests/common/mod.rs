//! Helpers for driving the real `bashrt` binary against real bash.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// An isolated environment: its own state dir, config dir and working directory.
pub struct Env {
    pub root: tempfile::TempDir,
}

impl Default for Env {
    fn default() -> Self {
        Self::new()
    }
}

impl Env {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("work")).unwrap();
        Self { root }
    }

    pub fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    pub fn state(&self) -> PathBuf {
        self.root.path().join("state")
    }

    pub fn cmd(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_bashrt"));
        cmd.current_dir(self.work())
            .env("BASHRT_STATE_DIR", self.state())
            .env("XDG_CONFIG_HOME", self.root.path().join("config"))
            .env_remove("BASHRT_SETTINGS")
            .env_remove("BASHRT_LOG");
        cmd
    }

    /// `bashrt run <extra..> -- <command>`
    pub fn run(&self, extra: &[&str], command: &str) -> Output {
        let mut cmd = self.cmd();
        cmd.arg("run").args(extra).arg("--").arg(command);
        cmd.output().unwrap()
    }

    /// `bashrt run --json ...`, parsed.
    pub fn run_json(&self, extra: &[&str], command: &str) -> (Value, i32) {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        let out = self.run(&args, command);
        let text = String::from_utf8(out.stdout).unwrap();
        let value: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text}\nstderr: {}", String::from_utf8_lossy(&out.stderr)));
        (value, out.status.code().unwrap_or(-1))
    }

    pub fn artifact_path(&self, session: &str, id: u64) -> PathBuf {
        self.state().join("sessions").join(session).join("artifacts").join(format!("{id}.bash.log"))
    }

    /// The implicit session of `work()`.
    pub fn session_name(&self) -> String {
        let mut name = String::from("--");
        for c in self.work().to_string_lossy().trim_start_matches('/').chars() {
            name.push(if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' });
        }
        name.push_str("--");
        name
    }
}

pub fn text(v: &Value) -> String {
    v["content"][0]["text"].as_str().unwrap().to_string()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether a process exists and is not a zombie (a zombie is dead; only its parent has not reaped it).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
            !matches!(state, Some('Z') | Some('X') | None)
        }
        Err(_) => false,
    }
}

/// Makes a FIFO the command can write pids to; reading it is how tests learn pids without sleeping.
pub fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    path
}
