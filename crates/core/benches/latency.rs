//! Per-call latency through a warm shell (builtin `true` p50 ≤ 150 µs and p99 ≤ 0.5 ms;
//! a program, `/bin/true`, p50 ≤ 1 ms), against the floors measured in the same process run.
//!
//! Rows, each for `true` and `/bin/true` (the command is the row's `cmd`):
//!
//! - `floor-driven`: a bare `bash --noprofile --norc` on two pipes, driven the way docs/design.md ("Delivering a command")
//!   measured the floor: write `CMD; printf '\n__END_%d_%s__\n' $? ID` and read to the sentinel.
//! - `floor-protocol` (diagnostic): the shell protocol bashrt used before its runner loop (runner and
//!   command in memfds sourced by `/proc` path, a fresh output pipe per call opened by path, the report
//!   on a socket) driven by hand with blocking reads: a reference for what a pooled call costs in bash.
//! - `floor-fresh`: a fresh `bash -c CMD` per call (std `Command`, which uses posix_spawn here), waited.
//! - `pool`: `ShellPool::execute` itself, the raw executor round trip of a tool call
//!   (`CwdMode::Set`: the runner `cd`s to the call's directory every time), one cancel token reused.
//! - `session`: `AgentSession::execute_bash`, what the RPC `bash` command runs in-process
//!   (`CwdMode::Persist`, the result shaped, one line appended to the session log).
//! - `tool`: `BashTool::execute` through a `ShellPool`: normalize, intercept (default rules, no tool
//!   names, so nothing can match), validate, sink, shape; a fresh `CancelToken` per call, as the RPC
//!   server makes one; artifacts in a scratch session (nothing spills); `bash.snapshot` off.
//! - `tool-snapshot` (`true` only): the same with the default `bash.snapshot = true`, so the shell
//!   sources a snapshot of `$HOME/.bashrc` once when it starts (bench/run.sh sets a scratch HOME with
//!   Debian's default `.bashrc`).
//! - `tool-names` (`true` only, informational): the same as `tool` with the caller's tools named
//!   (`read`, `grep`, `find`, `edit`, `write`), so the interceptor parses the command and runs its rules.
//!
//! - `start-snapshot-capture`, `start-pool-first-call` (`--starts` runs each, default 10, after the
//!   rest; informational): what the first call of a process adds. Capturing the snapshot of
//!   `$HOME/.bashrc` (`snapshot::capture`, which a first call with `bash.snapshot` on waits for), and
//!   the first `true` through a fresh `ShellPool` (spawning the long-lived shell and its start-up call).
//!   Also `diag-thread-spawn-join` (`--n` times): one `std::thread::spawn` + `join` of an empty closure,
//!   which the RPC server pays once per `tool_call` and twice per `bash` request.
//!
//! Method: each row owns its own warm shell (a pool per row). Every row first makes `--warmup` calls
//! (default 50, the first one starts the shell), then the `--n` timed calls (default 2000) run in
//! blocks of `--block` (100) calls, round-robin over the rows, rotating which row goes first: load that
//! comes and goes on a shared machine hits every row alike. Each call is timed alone with `Instant`,
//! from before the request is built to after the result is checked (exit 0, no output, and for bashrt:
//! the shell was reused, never a one-shot fallback). Quantiles are nearest-rank.
//!
//! Output: one JSON object per row on stdout (`--json FILE` writes them there instead), a table on
//! stderr. Run pinned: `taskset -c 0 cargo bench -p bashrt-core --bench latency` (bench/run.sh runs the
//! binary under `taskset -c 0` and `taskset -c 0,1`). `--only SUBSTR` keeps rows whose `row/cmd`
//! contains SUBSTR (a bare argument too); `--starts 0` skips the start-up rows; `--label` is copied into
//! every JSON object.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use bashrt_core::{
    resolve_shell, AgentSession, BashOptions, BashParams, BashTool, CallContext, CancelToken, CwdMode, ExecRequest,
    Executor, Flow, PoolConfig, Runtime, SessionName, Settings, ShellEvent, ShellPool, StateDir,
};

/// One way of running one call; `call` returns an error text when the call did not do what it should.
trait Runner {
    fn call(&mut self) -> Result<(), String>;
    /// The shell this runner drives itself, if any (bashrt's shells are found as new children).
    fn shell_pid(&self) -> Option<u32> {
        None
    }
}

struct Row {
    name: &'static str,
    cmd: &'static str,
    runner: Box<dyn Runner>,
    samples: Vec<Duration>,
    /// The shell that runs this row's commands, for its CPU time.
    shell: Option<u32>,
    /// CPU time of this process and of the shell over the timed calls.
    cpu: Duration,
    shell_cpu: Duration,
}

// ---------------------------------------------------------------------------------------------------
// Floors

/// docs/design.md, "Delivering a command": one `bash --noprofile --norc` on pipes; the command and a sentinel `printf` are
/// written to its stdin, and its stdout is read until the sentinel of this call.
struct DrivenShell {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    cmd: &'static str,
    id: u64,
    line: Vec<u8>,
    buf: Vec<u8>,
}

impl DrivenShell {
    fn start(shell: &Path, cwd: &Path, cmd: &'static str) -> Self {
        let mut child = Command::new(shell)
            .args(["--noprofile", "--norc"])
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn bash");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        Self { child, stdin, stdout, cmd, id: 0, line: Vec::new(), buf: vec![0; 4096] }
    }
}

impl Runner for DrivenShell {
    fn shell_pid(&self) -> Option<u32> {
        Some(self.child.id())
    }

    fn call(&mut self) -> Result<(), String> {
        self.id += 1;
        self.line.clear();
        writeln!(self.line, "{}; printf '\\n__END_%d_%s__\\n' $? {}", self.cmd, self.id).unwrap();
        self.stdin.write_all(&self.line).map_err(|e| e.to_string())?;
        let want = format!("\n__END_0_{}__\n", self.id);
        let mut got = Vec::new();
        loop {
            let n = self.stdout.read(&mut self.buf).map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the driven shell closed its stdout".into());
            }
            got.extend_from_slice(&self.buf[..n]);
            if got.ends_with(b"__\n") {
                break;
            }
        }
        if got != want.as_bytes() {
            return Err(format!("unexpected output {:?}", String::from_utf8_lossy(&got)));
        }
        Ok(())
    }
}

impl Drop for DrivenShell {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// bashrt's own protocol (exec/protocol.rs), driven by hand with nothing else around it: a bash on a
/// socket pair, the command and the runner in memfds it sources by `/proc` path, a fresh pipe per call
/// for the output, opened by path, and the NUL-terminated report read from the socket. Blocking reads,
/// no poll, no cancel token, no pidfd, no `/proc` checks: the part of a pooled call that is bash's.
struct ProtocolShell {
    child: Child,
    control: UnixStream,
    command: File,
    command_path: String,
    runner: File,
    control_line: Vec<u8>,
    cmd: &'static str,
    cd: String,
    id: u64,
    text: Vec<u8>,
    buf: Vec<u8>,
}

fn memfd(name: &str) -> (File, String) {
    let cname = std::ffi::CString::new(name).unwrap();
    // SAFETY: a valid C string; the returned fd is owned by the File below.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    assert!(fd >= 0, "memfd_create: {}", std::io::Error::last_os_error());
    // SAFETY: fd is a fresh descriptor nobody else owns.
    let file = unsafe { File::from_raw_fd(fd) };
    (file, format!("/proc/{}/fd/{fd}", std::process::id()))
}

impl ProtocolShell {
    fn start(shell: &Path, cwd: &Path, cmd: &'static str) -> Self {
        let (control, theirs) = UnixStream::pair().expect("socketpair");
        let theirs = OwnedFd::from(theirs);
        let child = Command::new(shell)
            .args(["--noprofile", "--norc"])
            .current_dir(cwd)
            .stdin(Stdio::from(theirs.try_clone().unwrap()))
            .stdout(Stdio::from(theirs.try_clone().unwrap()))
            .stderr(Stdio::from(theirs))
            .spawn()
            .expect("spawn bash");
        let (command, command_path) = memfd("bench-command");
        let (runner, runner_path) = memfd("bench-runner");
        let cd = format!("'{}'", cwd.display());
        let control_line = format!("\\. {runner_path}\n").into_bytes();
        let mut shell = Self {
            child,
            control,
            command,
            command_path,
            runner,
            control_line,
            cmd,
            cd,
            id: 0,
            text: Vec::new(),
            buf: vec![0; 4096],
        };
        shell.cmd = "shopt -s expand_aliases";
        shell.call().expect("start-up call");
        shell.cmd = cmd;
        shell
    }

    fn write_file(file: &File, bytes: &[u8]) -> std::io::Result<()> {
        file.write_all_at(bytes, 0)?;
        file.set_len(bytes.len() as u64)
    }
}

impl Runner for ProtocolShell {
    fn shell_pid(&self) -> Option<u32> {
        Some(self.child.id())
    }

    fn call(&mut self) -> Result<(), String> {
        self.id += 1;
        let id = format!("b.{}", self.id);
        Self::write_file(&self.command, self.cmd.as_bytes()).map_err(|e| e.to_string())?;
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| e.to_string())?;
        let output = format!("/proc/{}/fd/{}", std::process::id(), write.as_raw_fd());
        self.text.clear();
        write!(
            self.text,
            "if \\builtin cd -- {cd}; then {{ __bashrt_ran={id}; \\. {command}; }} </dev/null >{output} 2>&1\n\
             \\builtin printf '\\036bashrt-%s:%s:%s:%s:%s\\0' {id} \"$?\" \"${{!-}}\" \"${{__bashrt_ran-}}\" \"${{PWD-}}\"\n\
             else \\builtin printf '\\036bashrt-%s:cwd\\0' {id}; fi\n",
            cd = self.cd,
            command = self.command_path,
        )
        .unwrap();
        Self::write_file(&self.runner, &self.text).map_err(|e| e.to_string())?;
        (&self.control).write_all(&self.control_line).map_err(|e| e.to_string())?;
        let mut got = Vec::new();
        while !got.ends_with(b"\0") {
            let n = (&self.control).read(&mut self.buf).map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the shell closed its socket".into());
            }
            got.extend_from_slice(&self.buf[..n]);
        }
        drop(write);
        let mut output = Vec::new();
        File::from(read).read_to_end(&mut output).map_err(|e| e.to_string())?;
        let want = format!("\x1ebashrt-{id}:0::{id}:");
        if !got.starts_with(want.as_bytes()) || !output.is_empty() {
            return Err(format!(
                "report {:?}, output {:?}",
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&output)
            ));
        }
        Ok(())
    }
}

impl Drop for ProtocolShell {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh `bash -c CMD` per call. std's `Command` spawns with posix_spawn (no `pre_exec`, no
/// `process_group`), as `hyperfine -N` and bench/pairs.py do.
struct FreshShell {
    shell: PathBuf,
    cwd: PathBuf,
    cmd: &'static str,
}

impl Runner for FreshShell {
    fn call(&mut self) -> Result<(), String> {
        let status = Command::new(&self.shell)
            .args(["-c", self.cmd])
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("bash -c {} exited {status}", self.cmd))
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// bashrt

/// `ShellPool::execute`, the raw executor round trip.
struct Pool {
    pool: ShellPool,
    request: ExecRequest,
    cancel: CancelToken,
}

impl Runner for Pool {
    fn call(&mut self) -> Result<(), String> {
        let mut bytes = 0usize;
        let mut out = |chunk: &[u8]| {
            bytes += chunk.len();
            Flow::Continue
        };
        let execution = self.pool.execute(&self.request, &mut out, &self.cancel).map_err(|e| e.to_string())?;
        if execution.outcome != (bashrt_core::Outcome::Exited { code: 0 }) || bytes != 0 {
            return Err(format!("{:?}, {bytes} bytes of output", execution.outcome));
        }
        match execution.shell {
            ShellEvent::Reused | ShellEvent::Started => Ok(()),
            other => Err(format!("not a warm shell: {other}")),
        }
    }
}

/// `AgentSession::execute_bash`: the RPC `bash` command's work, without the transport.
struct Session {
    session: AgentSession,
    cmd: &'static str,
}

impl Runner for Session {
    fn call(&mut self) -> Result<(), String> {
        let cancel = CancelToken::new().map_err(|e| e.to_string())?;
        let options = BashOptions { timeout: None, cancel: Some(cancel), on_chunk: None };
        let result = self.session.execute_bash(self.cmd, options);
        if result.error.is_some() || result.exit_code != Some(0) || !result.output.is_empty() {
            return Err(format!("{result:?}"));
        }
        if result.shell.contains("one-shot") {
            return Err(format!("not a warm shell: {}", result.shell));
        }
        Ok(())
    }
}

/// `BashTool::execute`: the whole tool-call pipeline.
struct Tool {
    tool: BashTool,
    params: BashParams,
    cwd: PathBuf,
    state: StateDir,
    session: SessionName,
    tool_names: Vec<String>,
}

impl Runner for Tool {
    fn call(&mut self) -> Result<(), String> {
        let ctx = CallContext {
            session_cwd: self.cwd.clone(),
            artifacts: Some(self.state.session(&self.session).artifacts()),
            tool_names: self.tool_names.clone(),
            cancel: CancelToken::new().map_err(|e| e.to_string())?,
            on_update: None,
        };
        let result = self.tool.execute(&self.params, ctx);
        if result.is_error || result.details.exit_code != Some(0) {
            return Err(format!("{:?}", result.text()));
        }
        match result.details.shell.as_deref() {
            Some(shell) if !shell.contains("one-shot") => Ok(()),
            other => Err(format!("not a warm shell: {other:?}")),
        }
    }
}

// ---------------------------------------------------------------------------------------------------

struct Args {
    n: usize,
    warmup: usize,
    block: usize,
    only: Vec<String>,
    json: Option<PathBuf>,
    label: String,
    starts: usize,
}

fn parse_args() -> Args {
    let mut args =
        Args { n: 2000, warmup: 50, block: 100, only: Vec::new(), json: None, label: String::new(), starts: 10 };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().unwrap_or_else(|| panic!("{name} needs a value"));
        match arg.as_str() {
            "--n" => args.n = value("--n").parse().expect("--n N"),
            "--warmup" => args.warmup = value("--warmup").parse().expect("--warmup N"),
            "--block" => args.block = value("--block").parse().expect("--block N"),
            "--only" => args.only.push(value("--only")),
            "--json" => args.json = Some(PathBuf::from(value("--json"))),
            "--label" => args.label = value("--label"),
            "--starts" => args.starts = value("--starts").parse().expect("--starts N"),
            // cargo bench passes `--bench`; anything else unknown is a filter, as with libtest.
            "--bench" => {}
            other if other.starts_with("--") => panic!("unknown option {other}"),
            other => args.only.push(other.to_string()),
        }
    }
    assert!(args.block > 0 && args.n > 0, "--n and --block must be positive");
    args
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let args = parse_args();
    let shell = resolve_shell(None).expect("bash on PATH");
    let scratch = tempfile::tempdir().expect("temp dir");
    let cwd = scratch.path().join("work");
    std::fs::create_dir(&cwd).unwrap();
    let state = StateDir::new(scratch.path().join("state"));
    let name = SessionName::parse("latency-bench").unwrap();
    let no_snapshot = Settings { snapshot: false, ..Settings::default() };
    let agent_tools: Vec<String> = ["read", "grep", "find", "edit", "write"].map(String::from).to_vec();

    let mut rows: Vec<Row> = Vec::new();
    let mut add = |name: &'static str, cmd: &'static str, runner: Box<dyn Runner>| {
        rows.push(Row {
            name,
            cmd,
            runner,
            samples: Vec::new(),
            shell: None,
            cpu: Duration::ZERO,
            shell_cpu: Duration::ZERO,
        })
    };
    let wanted = |name: &str, cmd: &str| {
        let id = format!("{name}/{cmd}");
        args.only.is_empty() || args.only.iter().any(|o| id.contains(o.as_str()))
    };
    for cmd in ["true", "/bin/true"] {
        if wanted("floor-driven", cmd) {
            add("floor-driven", cmd, Box::new(DrivenShell::start(&shell, &cwd, cmd)));
        }
        if wanted("floor-protocol", cmd) {
            add("floor-protocol", cmd, Box::new(ProtocolShell::start(&shell, &cwd, cmd)));
        }
        if wanted("floor-fresh", cmd) {
            add("floor-fresh", cmd, Box::new(FreshShell { shell: shell.clone(), cwd: cwd.clone(), cmd }));
        }
        if wanted("pool", cmd) {
            let request =
                ExecRequest { cwd_mode: CwdMode::Set, ..ExecRequest::new(&shell, cmd, &cwd, Duration::from_secs(300)) };
            let pool = ShellPool::new(PoolConfig::default());
            add("pool", cmd, Box::new(Pool { pool, request, cancel: CancelToken::new().unwrap() }));
        }
        if wanted("session", cmd) {
            let runtime = Runtime::builder(no_snapshot.clone()).state_dir(state.path()).build();
            let session = runtime.session(&name, cwd.clone()).expect("session");
            add("session", cmd, Box::new(Session { session, cmd }));
        }
        let tool_rows: &[(&'static str, bool, bool)] = if cmd == "true" {
            &[("tool", false, false), ("tool-snapshot", true, false), ("tool-names", false, true)]
        } else {
            &[("tool", false, false)]
        };
        for &(row, snapshot, names) in tool_rows {
            if !wanted(row, cmd) {
                continue;
            }
            let settings = Settings { snapshot, ..Settings::default() };
            let tool = Runtime::builder(settings).state_dir(state.path()).build().tool();
            let params = BashParams { command: cmd.to_string(), ..BashParams::default() };
            let tool_names = if names { agent_tools.clone() } else { Vec::new() };
            let runner =
                Tool { tool, params, cwd: cwd.clone(), state: state.clone(), session: name.clone(), tool_names };
            add(row, cmd, Box::new(runner));
        }
    }
    assert!(!rows.is_empty(), "no row matches {:?}", args.only);

    let affinity = affinity();
    eprintln!(
        "latency: {} rows, {} calls each after {} warm-up calls, blocks of {}, CPUs {affinity:?}, shell {}",
        rows.len(),
        args.n,
        args.warmup,
        args.block,
        shell.display()
    );
    let started = Instant::now();
    let mut known = child_pids();
    for row in &mut rows {
        let t = Instant::now();
        for _ in 0..args.warmup {
            if let Err(e) = row.runner.call() {
                panic!("{}/{}: warm-up call failed: {e}", row.name, row.cmd);
            }
        }
        // bashrt's shell of this row: the one child that appeared during its warm-up.
        let new: Vec<u32> = child_pids().into_iter().filter(|p| !known.contains(p) && !is_reaper(*p)).collect();
        known.extend(&new);
        row.shell = row.runner.shell_pid().or(if new.len() == 1 { Some(new[0]) } else { None });
        eprintln!("  warm-up {}/{}: {:.1} ms", row.name, row.cmd, t.elapsed().as_secs_f64() * 1e3);
        row.samples.reserve(args.n);
    }
    let rounds = args.n.div_ceil(args.block);
    let k = rows.len();
    for round in 0..rounds {
        for i in 0..k {
            let row = &mut rows[(round + i) % k];
            let calls = args.block.min(args.n - row.samples.len());
            let (cpu0, shell0) = (process_cpu(), row.shell.map_or(Duration::ZERO, schedstat));
            for _ in 0..calls {
                let t = Instant::now();
                let result = row.runner.call();
                let elapsed = t.elapsed();
                if let Err(e) = result {
                    panic!("{}/{}: call failed: {e}", row.name, row.cmd);
                }
                row.samples.push(elapsed);
            }
            row.cpu += process_cpu().saturating_sub(cpu0);
            row.shell_cpu += row.shell.map_or(Duration::ZERO, schedstat).saturating_sub(shell0);
        }
    }
    eprintln!("  timed calls: {:.1} s in all", started.elapsed().as_secs_f64());

    let mut lines = String::new();
    eprintln!(
        "  {:<14} {:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "row", "cmd", "p50 µs", "p90 µs", "p99 µs", "mean µs", "max µs", "self µs", "shell µs"
    );
    for row in &mut rows {
        row.samples.sort();
        let s = &row.samples;
        let mean = s.iter().sum::<Duration>() / s.len() as u32;
        let (p50, p90, p99) = (quantile(s, 0.5), quantile(s, 0.9), quantile(s, 0.99));
        eprintln!(
            "  {:<14} {:<10} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>8.1} {:>8}",
            row.name,
            row.cmd,
            us(p50),
            us(p90),
            us(p99),
            us(mean),
            us(s[s.len() - 1]),
            us(row.cpu) / s.len() as f64,
            row.shell.map_or("-".to_string(), |_| format!("{:.1}", us(row.shell_cpu) / s.len() as f64)),
        );
        let json = serde_json::json!({
            "label": args.label,
            "row": row.name,
            "cmd": row.cmd,
            "n": s.len(),
            "warmup": args.warmup,
            "block": args.block,
            "affinity": affinity,
            "p50_us": us(p50),
            "p90_us": us(p90),
            "p99_us": us(p99),
            "mean_us": us(mean),
            "min_us": us(s[0]),
            "max_us": us(s[s.len() - 1]),
            // Means per call: this process's CPU (all threads), and the shell's own (without the
            // programs it forks). On one CPU, mean − both = the kernel between the processes.
            "self_cpu_us": us(row.cpu) / s.len() as f64,
            "shell_cpu_us": row.shell.map(|_| us(row.shell_cpu) / s.len() as f64),
        });
        lines.push_str(&json.to_string());
        lines.push('\n');
    }
    drop(rows);
    if args.starts > 0 {
        lines.push_str(&startup(&args, &shell, &cwd, scratch.path(), &affinity));
    }
    match &args.json {
        Some(path) => std::fs::write(path, lines).expect("write --json file"),
        None => print!("{lines}"),
    }
}

/// What a first call costs on top of a warm one (informational; `--starts` runs each, after the warm
/// rows, one after another): capturing the shell snapshot of `$HOME/.bashrc` (what the first call of a
/// process with `bash.snapshot` on waits for), and the first `true` through a fresh `ShellPool`
/// (starting the long-lived shell and its start-up call), without a snapshot.
fn startup(args: &Args, shell: &Path, cwd: &Path, scratch: &Path, affinity: &[usize]) -> String {
    let mut lines = String::new();
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/"));
    let mut rows: Vec<(&str, Vec<Duration>)> = Vec::new();
    let mut capture = Vec::new();
    for i in 0..args.starts {
        let out = scratch.join(format!("snapshot-{i}.sh"));
        let t = Instant::now();
        let snapshot = bashrt_core::testing::capture_snapshot(shell, &home, &out, Duration::from_secs(10), None);
        capture.push(t.elapsed());
        let snapshot = snapshot.expect("snapshot capture");
        if i == 0 {
            eprintln!(
                "  snapshot of {}: {} functions, {} aliases, {} lines, {} skipped",
                home.join(".bashrc").display(),
                snapshot.functions,
                snapshot.aliases,
                std::fs::read_to_string(&out).map_or(0, |t| t.lines().count()),
                snapshot.skipped.len()
            );
        }
    }
    rows.push(("start-snapshot-capture", capture));
    let mut first = Vec::new();
    let request = ExecRequest::new(shell, "true", cwd, Duration::from_secs(300));
    let cancel = CancelToken::new().unwrap();
    for _ in 0..args.starts {
        let t = Instant::now();
        let pool = ShellPool::new(PoolConfig::default());
        let execution = pool.execute(&request, &mut |_: &[u8]| Flow::Continue, &cancel).expect("first call");
        first.push(t.elapsed());
        assert_eq!(execution.shell, ShellEvent::Started);
        drop(pool);
    }
    rows.push(("start-pool-first-call", first));
    // What one `std::thread::spawn` + `join` costs here: the RPC server starts one thread per `tool_call`
    // and two per `bash` request.
    let mut threads = Vec::new();
    for _ in 0..args.n {
        let t = Instant::now();
        std::thread::spawn(|| std::hint::black_box(1)).join().unwrap();
        threads.push(t.elapsed());
    }
    rows.push(("diag-thread-spawn-join", threads));
    for (name, mut s) in rows {
        s.sort();
        let p50 = quantile(&s, 0.5);
        eprintln!(
            "  {name:<24} p50 {:.2} ms, max {:.2} ms ({} runs)",
            us(p50) / 1e3,
            us(s[s.len() - 1]) / 1e3,
            s.len()
        );
        let json = serde_json::json!({
            "label": args.label, "row": name, "cmd": if name.starts_with("diag") { "-" } else { "true" }, "n": s.len(), "affinity": affinity,
            "p50_us": us(p50), "p90_us": us(quantile(&s, 0.9)), "p99_us": us(quantile(&s, 0.99)),
            "mean_us": us(s.iter().sum::<Duration>() / s.len() as u32), "min_us": us(s[0]), "max_us": us(s[s.len() - 1]),
        });
        lines.push_str(&json.to_string());
        lines.push('\n');
    }
    lines
}

/// Children of every thread of this process (the pool thread spawns bashrt's shells).
fn child_pids() -> Vec<u32> {
    let mut pids = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").into_iter().flatten().flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            pids.extend(text.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
    }
    pids
}

fn is_reaper(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c.split(|&b| b == 0).any(|a| a == b"bashrt-reaper"))
}

/// CPU time of a single-threaded process (a shell) so far, from `/proc/PID/schedstat` (ns).
fn schedstat(pid: u32) -> Duration {
    std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// CPU time of this process, all threads.
fn process_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a pointer to a local.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The CPUs this process may run on (what `taskset` set).
fn affinity() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity writes at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}
