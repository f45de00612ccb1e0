//! Round trips through `bashrt rpc` measured by a Rust client, against floors measured by the same
//! client in the same run: warm `true` as a session `bash` command and as a `tool_call`, `/bin/true` as
//! a session command, and start to first answer.
//!
//! The floors: a bare bash driven over pipes; and this bench re-run as the least a JSON-lines server in
//! front of a long-lived bash can be (`--relay`, one thread, blocking IO): once sending the command
//! and a sentinel down the shell's stdin; once giving each call an output pipe of its own, with the
//! command and a report sent as script text (which bash parses a byte per `read`); and once with the
//! same output pipe per call in front of the least runner loop (`read -N` of a fixed-width header and
//! the command, the call and report pipes held for good), the least that keeps one call's output out
//! of another's. None of them survives a hostile command. Every row also reports the CPU time per call
//! of the server (all its threads) and of its shells, from `/proc/<pid>/task/*/schedstat`.
//!
//! ```text
//! cargo bench -p bashrt --bench rpc_latency -- [--n N] [--rounds R] [--json FILE] [--bin LABEL=PATH]...
//! ```
//!
//! With several `--bin`, builds are compared in one run: every server stays up, and each round times
//! `N / R` calls of every row on every build, rotating which build goes first, so load that comes and
//! goes hits all of them alike. Each row reports the median and p99 over all samples and the lowest and
//! highest per-round median, which is the spread to read a difference against. For `true` and
//! `/bin/true` each build also gets paired figures: per round, its median less the driven bash's and
//! the least runner's of the same round (and its ratio to the least runner's), then the median over
//! the rounds. They see through the host's drift, which moves every row by a quarter or more within
//! minutes. Without `--bin`, the `bashrt` built with this bench is measured. bench/run.sh runs it
//! pinned, with 20 rounds.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

struct Client {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    line: String,
}

impl Client {
    fn start(program: &str, args: &[&str], state: &std::path::Path) -> Client {
        let mut child = Command::new(program)
            .args(args)
            .env("BASHRT_STATE_DIR", state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Client { child, input, output, line: String::new() }
    }

    /// Writes `request` and reads lines until one contains `until`.
    fn round_trip(&mut self, request: &str, until: &str) -> Duration {
        let started = Instant::now();
        self.input.write_all(request.as_bytes()).expect("write");
        loop {
            self.line.clear();
            if self.output.read_line(&mut self.line).expect("read") == 0 {
                panic!("the server ended");
            }
            if self.line.contains(until) {
                return started.elapsed();
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// CPU time so far of `pid` (every thread) and of its descendants apart, in ns, from `schedstat`:
/// where a round trip's time goes, server or shell.
fn cpu_ns(pid: u32) -> (u64, u64) {
    fn own(pid: u32, children: &mut Vec<u32>) -> u64 {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return 0 };
        let mut total = 0;
        for task in tasks.flatten() {
            let dir = task.path();
            let stat = std::fs::read_to_string(dir.join("schedstat")).unwrap_or_default();
            total += stat.split(' ').next().and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            let kids = std::fs::read_to_string(dir.join("children")).unwrap_or_default();
            children.extend(kids.split_whitespace().filter_map(|v| v.parse::<u32>().ok()));
        }
        total
    }
    let mut children = Vec::new();
    let server = own(pid, &mut children);
    let mut rest = 0;
    while let Some(child) = children.pop() {
        rest += own(child, &mut children);
    }
    (server, rest)
}

fn percentile(sorted: &[Duration], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1e6
}

/// The median of a few per-round figures (NaN when there are none).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// One kind of round trip: its name, the request for call `i`, and what marks its answer.
struct Row {
    name: &'static str,
    request: fn(usize) -> String,
    until: &'static str,
}

const FLOOR_ROWS: [Row; 2] = [
    Row { name: "floor: driven bash, true", request: |i| format!("true; echo __END_{i}__\n"), until: "__END_" },
    Row {
        name: "floor: driven bash, /bin/true",
        request: |i| format!("/bin/true; echo __END_{i}__\n"),
        until: "__END_",
    },
];

const RPC_ROWS: [Row; 3] = [
    Row {
        name: "bash true",
        request: |i| format!("{{\"id\":\"b{i}\",\"type\":\"bash\",\"command\":\"true\"}}\n"),
        until: "\"type\":\"response\"",
    },
    Row {
        name: "bash /bin/true",
        request: |i| format!("{{\"id\":\"p{i}\",\"type\":\"bash\",\"command\":\"/bin/true\"}}\n"),
        until: "\"type\":\"response\"",
    },
    Row {
        name: "tool_call true",
        request: |i| {
            format!(
                "{{\"id\":\"t{i}\",\"type\":\"tool_call\",\"toolCallId\":\"c{i}\",\"name\":\"bash\",\"arguments\":{{\"command\":\"true\"}}}}\n"
            )
        },
        until: "tool_execution_end",
    },
];

const RPC_ARGS: [&str; 3] = ["rpc", "--set", "bash.snapshot=false"];

/// The relay floors answer the `bash` rows only.
const RELAY_ROWS: usize = 2;

/// The relay floors: this bench re-run as the least a JSON-lines server in front of a long-lived bash
/// can be (`--relay MODE`), timed with the same requests as bashrt.
const RELAYS: [(&str, &str); 3] = [
    ("floor: relay to driven bash", "pipe"),
    ("floor: relay, output pipe per call", "isolated"),
    ("floor: least runner, output pipe per call", "runner"),
];

/// Serves `bash` requests on stdin, one at a time on one thread with blocking IO, through one bash:
/// each line parsed as JSON, the command sent to the shell, a response line written with its exit code
/// and output. `pipe`: the command and a sentinel `printf` on the shell's stdin, its output read to
/// the sentinel (output and sentinel share one stream). `isolated`: what keeps each call's output apart
/// at the least cost: a fresh pipe per call that the shell opens by `/proc` path for the command's
/// stdout and stderr (stdin `/dev/null`), and a NUL-terminated report of status and `$PWD` on the
/// shell's stdout; the output is read to EOF once the report came. `runner`: the same isolation at
/// the least cost to the shell: a loop given with `-c` (so bash never parses a call byte by byte, as
/// it parses a script read from a pipe) that takes a fixed-width header and the command with `read -N`
/// from its stdin, which stays the call pipe, runs the command with the output pipe opened by path,
/// and prints the report on its stdout, which stays the report pipe. None survives a hostile command.
fn relay(mode: &str) {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let fd_dir = format!("/proc/{}/fd/", std::process::id());
    let runner = format!(
        "while read -r -N 16 h; do read -r -N \"${{h:0:4}}\" c; \
         eval \"$c\" </dev/null >{fd_dir}\"${{h:4}}\" 2>&1; printf '%s %s\\0' \"$?\" \"$PWD\"; done"
    );
    let mut args = vec!["--noprofile", "--norc"];
    if mode == "runner" {
        args.extend(["-c", runner.as_str()]);
    }
    let mut shell = Command::new("bash")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn bash");
    let mut to_shell = shell.stdin.take().expect("stdin");
    let mut from_shell = shell.stdout.take().expect("stdout");
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let (mut line, mut script, mut got, mut buf) = (String::new(), Vec::new(), Vec::new(), vec![0u8; 4096]);
    while stdin.read_line(&mut line).unwrap_or(0) > 0 {
        let request: serde_json::Value = serde_json::from_str(&line).expect("request");
        line.clear();
        let command = request["command"].as_str().expect("command");
        script.clear();
        got.clear();
        let mut output = Vec::new();
        // `isolated` and `runner`: the command's own output pipe, which the shell opens by path.
        let pipe = (mode != "pipe").then(|| nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("pipe"));
        let end: &[u8] = match &pipe {
            Some((_, write)) if mode == "runner" => {
                write!(script, "{:04}{:/>12}{command}", command.len(), write.as_raw_fd()).ok();
                b"\0"
            }
            Some((_, write)) => {
                let quoted = command.replace('\'', "'\\''");
                let out = format!("{fd_dir}{}", write.as_raw_fd());
                writeln!(script, "eval '{quoted}' </dev/null >{out} 2>&1; printf '%s %s\\0' \"$?\" \"$PWD\"").ok();
                b"\0"
            }
            None => {
                writeln!(script, "{command}\nprintf '\\n__END_%s__\\n' $?").ok();
                b"__\n"
            }
        };
        to_shell.write_all(&script).expect("write");
        while !got.ends_with(end) {
            let n = from_shell.read(&mut buf).expect("read");
            assert!(n > 0, "the shell ended");
            got.extend_from_slice(&buf[..n]);
        }
        let status = match pipe {
            Some((read, write)) => {
                drop(write);
                std::fs::File::from(read).read_to_end(&mut output).expect("output");
                got.split(|&b| b == b' ').next().unwrap_or_default().to_vec()
            }
            None => {
                let at = rfind(&got, b"\n__END_");
                output.extend_from_slice(&got[..at]);
                got[at + 7..got.len() - 3].to_vec()
            }
        };
        let code: i64 = std::str::from_utf8(&status).ok().and_then(|s| s.parse().ok()).expect("status");
        let response = serde_json::json!({"id": request["id"], "type": "response", "command": "bash",
            "success": true, "data": {"exitCode": code, "output": String::from_utf8_lossy(&output)}});
        serde_json::to_writer(&mut stdout, &response).expect("write response");
        stdout.write_all(b"\n").and_then(|()| stdout.flush()).expect("write response");
    }
    drop(to_shell);
    let _ = shell.wait();
}

fn rfind(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).rposition(|w| w == needle).expect("sentinel")
}

/// Samples of one (target, row), and the median of each round.
#[derive(Default)]
struct Samples {
    all: Vec<Duration>,
    round_p50: Vec<f64>,
    /// CPU of the server and of its shells over the timed calls, ns.
    cpu: (u64, u64),
}

impl Samples {
    fn add_round(&mut self, mut round: Vec<Duration>) {
        round.sort();
        self.round_p50.push(percentile(&round, 0.5));
        self.all.extend(round);
    }

    fn report(&mut self, name: &str) -> serde_json::Value {
        self.all.sort();
        let (p50, p99) = (percentile(&self.all, 0.5), percentile(&self.all, 0.99));
        let lo = self.round_p50.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.round_p50.iter().copied().fold(0.0, f64::max);
        let per_call = |ns: u64| ns as f64 / 1e3 / self.all.len().max(1) as f64;
        let (server, shell) = (per_call(self.cpu.0), per_call(self.cpu.1));
        eprintln!(
            "{name:<52} p50 {p50:>7.1} µs  p99 {p99:>7.1} µs  round p50 {lo:.1}–{hi:.1}  CPU/call {server:.1} + shell {shell:.1} µs  (n={})",
            self.all.len()
        );
        serde_json::json!({"row": name, "n": self.all.len(), "p50_us": p50, "p99_us": p99,
            "round_p50_min_us": lo, "round_p50_max_us": hi, "round_p50_us": self.round_p50,
            "server_cpu_us_per_call": server, "shell_cpu_us_per_call": shell})
    }
}

fn time_calls(client: &mut Client, row: &Row, from: usize, count: usize) -> Vec<Duration> {
    (from..from + count).map(|i| client.round_trip(&(row.request)(i), row.until)).collect()
}

fn main() {
    let (mut n, mut rounds) = (2000, 5);
    if let Some(mode) = std::env::args().skip_while(|a| a != "--relay").nth(1) {
        return relay(&mode);
    }
    let mut json_out = None;
    let mut bins: Vec<(String, String)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--n" => n = args.next().and_then(|v| v.parse().ok()).expect("--n N"),
            "--rounds" => rounds = args.next().and_then(|v| v.parse().ok()).expect("--rounds R"),
            "--json" => json_out = args.next(),
            "--bin" => {
                let spec = args.next().expect("--bin LABEL=PATH");
                let (label, path) = spec.split_once('=').expect("--bin LABEL=PATH");
                bins.push((label.to_owned(), path.to_owned()));
            }
            _ => {} // `--bench` from cargo, filters
        }
    }
    if bins.is_empty() {
        bins.push(("bashrt rpc".to_owned(), env!("CARGO_BIN_EXE_bashrt").to_owned()));
    }
    let rounds = rounds.max(1);
    let per_round = (n / rounds).max(1);
    let state = tempfile::tempdir().expect("state dir");

    // Target 0 is the floor (bash reading commands on a pipe, each followed by a sentinel); then
    // one server per build.
    let mut clients = vec![Client::start("bash", &["--noprofile", "--norc"], state.path())];
    let me = std::env::current_exe().expect("this bench's path");
    let me = me.to_str().expect("a UTF-8 path");
    for (_, mode) in RELAYS {
        clients.push(Client::start(me, &["--relay", mode], state.path()));
    }
    for (_, path) in &bins {
        clients.push(Client::start(path, &RPC_ARGS, state.path()));
    }
    let rows_of = |target: usize| match target {
        0 => &FLOOR_ROWS[..],
        t if t <= RELAYS.len() => &RPC_ROWS[..RELAY_ROWS],
        _ => &RPC_ROWS[..],
    };
    let mut samples: Vec<Vec<Samples>> =
        (0..clients.len()).map(|t| rows_of(t).iter().map(|_| Samples::default()).collect()).collect();

    // Warm-up, then the timed rounds.
    for (target, client) in clients.iter_mut().enumerate() {
        for row in rows_of(target) {
            time_calls(client, row, 0, per_round / 10 + 10);
        }
    }
    let targets = clients.len();
    for round in 0..rounds {
        for k in 0..targets {
            let target = (round + k) % targets;
            for (r, row) in rows_of(target).iter().enumerate() {
                let from = (round + 1) * per_round * 10;
                let pid = clients[target].child.id();
                let before = cpu_ns(pid);
                let timed = time_calls(&mut clients[target], row, from, per_round);
                let after = cpu_ns(pid);
                let s = &mut samples[target][r];
                s.cpu.0 += after.0.saturating_sub(before.0);
                s.cpu.1 += after.1.saturating_sub(before.1);
                s.add_round(timed);
            }
        }
    }
    drop(clients);

    let mut report = Vec::new();
    for (target, rows) in samples.iter_mut().enumerate() {
        for (r, s) in rows.iter_mut().enumerate() {
            let name = match target {
                0 => rows_of(0)[r].name.to_owned(),
                t if t <= RELAYS.len() => format!("{}, {}", RELAYS[t - 1].0, rows_of(t)[r].name),
                t => format!("{}: {}", bins[t - 1 - RELAYS.len()].0, rows_of(t)[r].name),
            };
            report.push(s.report(&name));
        }
    }

    // Paired figures: each round's median of a build's row against the floors' medians of the same
    // round, then the median over rounds. The host's speed drifts by half within minutes; a round
    // times every target within a second or so, so the pairs see the same host.
    let least = RELAYS.len(); // the least runner's target
    for (b, (label, _)) in bins.iter().enumerate() {
        for (r, cmd) in ["true", "/bin/true"].iter().enumerate() {
            let this = &samples[1 + RELAYS.len() + b][r].round_p50;
            let over = |floor: &[f64]| median(this.iter().zip(floor).map(|(x, f)| x - f).collect());
            let driven = &samples[0][r].round_p50;
            let runner = &samples[least][r].round_p50;
            let (over_driven, over_runner) = (over(driven), over(runner));
            let least_over_driven = median(runner.iter().zip(driven).map(|(x, f)| x - f).collect());
            let vs_runner = median(this.iter().zip(runner).map(|(x, f)| x / f).collect());
            let name = format!("{label}: bash {cmd}, paired per round");
            eprintln!(
                "{name:<52} over driven bash {over_driven:+.1} µs (the least runner {least_over_driven:+.1}), \
                 over the least runner {over_runner:+.1} µs = {vs_runner:.2}×  ({} rounds)",
                this.len()
            );
            report.push(serde_json::json!({"row": name, "rounds": this.len(),
                "over_driven_us": over_driven, "least_runner_over_driven_us": least_over_driven,
                "over_least_runner_us": over_runner, "vs_least_runner": vs_runner}));
        }
    }

    // Start to first answer: a fresh server per sample, its first `bash true`; builds interleaved.
    let mut starts: Vec<Vec<Duration>> = vec![Vec::new(); bins.len()];
    for i in 0..20 {
        for k in 0..bins.len() {
            let b = (i + k) % bins.len();
            let started = Instant::now();
            let mut fresh = Client::start(&bins[b].1, &RPC_ARGS, state.path());
            fresh.round_trip("{\"id\":\"s\",\"type\":\"bash\",\"command\":\"true\"}\n", "\"type\":\"response\"");
            starts[b].push(started.elapsed());
        }
    }
    for (b, mut sorted) in starts.into_iter().enumerate() {
        sorted.sort();
        let p50 = percentile(&sorted, 0.5);
        let name = format!("{}: start to answer", bins[b].0);
        eprintln!("{name:<40} p50 {p50:>8.1} µs");
        report.push(serde_json::json!({"row": name, "n": sorted.len(), "p50_us": p50}));
    }

    if let Some(path) = json_out {
        std::fs::write(path, serde_json::to_string_pretty(&report).unwrap_or_default()).expect("write json");
    }
}
