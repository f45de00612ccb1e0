//! Round trips through `bashrt rpc` measured by a Rust client, against the floor of a bare bash driven
//! over pipes by the same client in the same run: warm `true` as a session `bash` command and as a
//! `tool_call`, `/bin/true` as a session command, and start to first answer.
//!
//! ```text
//! cargo bench -p bashrt --bench rpc_latency -- [--n N] [--rounds R] [--json FILE] [--bin LABEL=PATH]...
//! ```
//!
//! With several `--bin`, builds are compared in one run: every server stays up, and each round times
//! `N / R` calls of every row on every build, rotating which build goes first, so load that comes and
//! goes hits all of them alike. Each row reports the median and p99 over all samples and the lowest and
//! highest per-round median, which is the spread to read a difference against. Without `--bin`, the
//! `bashrt` built with this bench is measured. bench/run.sh runs it pinned.

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

fn percentile(sorted: &[Duration], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1e6
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

/// Samples of one (target, row), and the median of each round.
#[derive(Default)]
struct Samples {
    all: Vec<Duration>,
    round_p50: Vec<f64>,
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
        eprintln!(
            "{name:<40} p50 {p50:>8.1} µs   p99 {p99:>8.1} µs   round p50 {lo:.1}–{hi:.1}   (n={})",
            self.all.len()
        );
        serde_json::json!({"row": name, "n": self.all.len(), "p50_us": p50, "p99_us": p99,
            "round_p50_min_us": lo, "round_p50_max_us": hi})
    }
}

fn time_calls(client: &mut Client, row: &Row, from: usize, count: usize) -> Vec<Duration> {
    (from..from + count).map(|i| client.round_trip(&(row.request)(i), row.until)).collect()
}

fn main() {
    let (mut n, mut rounds) = (2000, 5);
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
    for (_, path) in &bins {
        clients.push(Client::start(path, &RPC_ARGS, state.path()));
    }
    let rows_of = |target: usize| if target == 0 { &FLOOR_ROWS[..] } else { &RPC_ROWS[..] };
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
                let timed = time_calls(&mut clients[target], row, from, per_round);
                samples[target][r].add_round(timed);
            }
        }
    }
    drop(clients);

    let mut report = Vec::new();
    for (target, rows) in samples.iter_mut().enumerate() {
        for (r, s) in rows.iter_mut().enumerate() {
            let name = match target {
                0 => rows_of(0)[r].name.to_owned(),
                t => format!("{}: {}", bins[t - 1].0, rows_of(t)[r].name),
            };
            report.push(s.report(&name));
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
