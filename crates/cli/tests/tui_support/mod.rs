//! Driving `bashrt tui` in a real terminal: a private tmux server (its own socket, no user config, no
//! status line), a plain bash in the pane that starts bashrt, `send-keys` to type and `capture-pane` to
//! read the screen. Every wait polls the screen until a condition holds, under one generous deadline
//! that fails the test with the screen it last saw.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

use crate::common::Env;

/// Guards against a hang only; no test asserts on time.
const DEADLINE: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(20);

/// tmux is a Debian package: installed here when missing (as CI's `.ci/run` does).
fn ensure_tmux() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success()) {
            return;
        }
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        assert!(root, "the terminal tests need tmux (apt-get install tmux)");
        let ok = Command::new("sh")
            .arg("-c")
            .arg("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux")
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "could not install tmux");
    });
}

/// One terminal with bashrt in it.
pub struct Term {
    socket: String,
    pub env: Env,
    _root: tempfile::TempDir,
}

impl Term {
    /// A `cols`×`rows` terminal running a plain bash in the test's work directory.
    pub fn new(cols: u16, rows: u16) -> Self {
        let term = Self::empty();
        term.open(
            cols,
            rows,
            "env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color PS1='$ ' bash --norc --noprofile",
        );
        term.tmux(&["set-option", "-g", "status", "off"]);
        term.wait_for("the shell prompt", |s| s.contains("$"));
        term
    }

    /// A terminal whose program is `bashrt tui` itself, as a terminal emulator or `tmux new bashrt`
    /// starts it: the leader of the terminal's session.
    pub fn leader(cols: u16, rows: u16) -> Self {
        let term = Self::empty();
        let env = &term.env;
        let command = format!(
            "exec env -i PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color BASHRT_STATE_DIR='{}' HOME='{}' \
             XDG_CONFIG_HOME='{}' TMPDIR='{}' '{}' tui",
            env.state().display(),
            env.home().display(),
            env.root.path().join("config").display(),
            env.root.path().join("tmp").display(),
            env!("CARGO_BIN_EXE_bashrt"),
        );
        term.open(cols, rows, &command);
        term.tmux(&["set-option", "-g", "status", "off"]);
        term.wait_for("the UI", |s| s.contains("bashrt — type a command"));
        term
    }

    fn empty() -> Self {
        ensure_tmux();
        let env = Env::new();
        let root = tempfile::tempdir().unwrap();
        let socket = root.path().join("tmux.sock").display().to_string();
        Self { socket, env, _root: root }
    }

    fn open(&self, cols: u16, rows: u16, command: &str) {
        let term = self;
        let out = term.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            &cols.to_string(),
            "-y",
            &rows.to_string(),
            "-c",
            &term.env.work().display().to_string(),
            command,
        ]);
        assert!(out.status.success(), "tmux: {}", String::from_utf8_lossy(&out.stderr));
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().unwrap()
    }

    /// Starts `bashrt tui <args>` from the pane's shell, with `vars` in its environment; waits for the UI.
    pub fn start(&self, args: &[&str], vars: &[(&str, &str)]) {
        let mut all = vec!["tui"];
        all.extend_from_slice(args);
        self.start_bashrt(&all, vars);
    }

    /// Starts `bashrt <args>` (no `tui` added) and waits for the UI.
    pub fn start_bashrt(&self, args: &[&str], vars: &[(&str, &str)]) {
        let env = &self.env;
        let mut line = format!(
            "export BASHRT_STATE_DIR='{}' HOME='{}' XDG_CONFIG_HOME='{}' TMPDIR='{}';",
            env.state().display(),
            env.home().display(),
            env.root.path().join("config").display(),
            env.root.path().join("tmp").display()
        );
        for (k, v) in vars {
            line.push_str(&format!(" export {k}='{v}';"));
        }
        line.push_str(&format!(" clear; '{}'", env!("CARGO_BIN_EXE_bashrt")));
        for a in args {
            line.push_str(&format!(" '{a}'"));
        }
        line.push_str("; echo \"EXITED:$?\"");
        self.type_line(&line);
        self.wait_for("the UI", |s| s.contains("bashrt — type a command"));
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, text: &str) {
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    pub fn type_text(&self, text: &str) {
        let out = self.tmux(&["send-keys", "-t", "main", "-l", text]);
        assert!(out.status.success());
    }

    /// Named keys (`Escape`, `C-o`, `End`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success());
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "main"]).stdout).into_owned()
    }

    /// Polls the screen until `ready` holds; returns that screen.
    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}; the screen:\n{screen}");
            std::thread::sleep(POLL);
        }
    }

    /// A tmux format of the pane (`#{alternate_on}`).
    pub fn format(&self, format: &str) -> String {
        String::from_utf8_lossy(&self.tmux(&["display-message", "-p", "-t", "main", format]).stdout).trim().to_string()
    }

    pub fn resize(&self, cols: u16, rows: u16) {
        let out = self.tmux(&["resize-window", "-t", "main", "-x", &cols.to_string(), "-y", &rows.to_string()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }

    /// The pid of bashrt: the child of the pane's shell.
    pub fn bashrt_pid(&self) -> i32 {
        let shell: i32 = self.format("#{pane_pid}").parse().unwrap();
        let start = Instant::now();
        loop {
            let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap_or_default();
            if let Some(pid) = children.split_whitespace().next() {
                return pid.parse().unwrap();
            }
            assert!(start.elapsed() < DEADLINE, "bashrt never started");
            std::thread::sleep(POLL);
        }
    }

    /// After bashrt exited: its status, and the terminal as the shell has it back — main screen,
    /// cursor shown, cooked mode with echo.
    pub fn assert_restored(&self, status: i32) {
        let screen = self.wait_for("bashrt to exit", |s| s.contains("EXITED:"));
        assert!(screen.contains(&format!("EXITED:{status}")), "{screen}");
        assert_eq!(self.format("#{alternate_on}"), "0", "still on the alternate screen");
        assert_eq!(self.format("#{cursor_flag}"), "1", "cursor hidden");
        self.type_line("clear; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | sort | tr '\\n' ' '; echo END");
        let screen = self.wait_for("stty", |s| s.contains("END") && !s.contains("grep"));
        assert!(screen.contains("echo icanon END"), "the terminal was left in raw mode:\n{screen}");
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}

/// Polls until no process runs `cmdline` (arguments joined by spaces); fails after the deadline.
pub fn wait_gone(cmdline: &str) {
    let start = Instant::now();
    while !pids_of(cmdline).is_empty() {
        assert!(start.elapsed() < DEADLINE, "{cmdline} still runs");
        std::thread::sleep(POLL);
    }
}

/// Polls until a process runs `cmdline`; returns its pid.
pub fn wait_running(cmdline: &str) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(&pid) = pids_of(cmdline).first() {
            return pid;
        }
        assert!(start.elapsed() < DEADLINE, "{cmdline} never started");
        std::thread::sleep(POLL);
    }
}

/// Live processes whose command line is exactly `cmdline`.
pub fn pids_of(cmdline: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(raw) = std::fs::read(Path::new("/proc").join(pid.to_string()).join("cmdline")) else { continue };
        let args: Vec<String> =
            raw.split(|b| *b == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        if args.join(" ") == cmdline && crate::common::alive(pid) {
            pids.push(pid);
        }
    }
    pids
}

/// A `sleep` nobody else runs: `sleep 100.<pid><n>`, with `n` counted across the test binary (its
/// areas run side by side in one process), both of fixed width so that no two are alike.
pub fn unique_sleep() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("sleep 100.{:07}{:04}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}
