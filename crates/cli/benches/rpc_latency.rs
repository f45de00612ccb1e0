//! Round trips through `bashrt rpc` measured by a Rust client, against the floor of a bare bash driven
//! over pipes by the same client in the same run: warm `true` as a session `bash` command and as a
//! `tool_call`, and `/bin/true` as a session command.
//!
//! `cargo bench -p bashrt --bench rpc_latency -- [--n N] [--json FILE]`; bench/run.sh runs it pinned.

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

fn measure(name: &str, n: usize, mut call: impl FnMut(usize) -> Duration) -> serde_json::Value {
    for i in 0..n / 10 + 10 {
        call(i);
    }
    let mut samples: Vec<Duration> = (0..n).map(|i| call(i + n)).collect();
    samples.sort();
    let (p50, p99) = (percentile(&samples, 0.5), percentile(&samples, 0.99));
    eprintln!("{name:<28} p50 {p50:>8.1} µs   p99 {p99:>8.1} µs   (n={n})");
    serde_json::json!({"row": name, "n": n, "p50_us": p50, "p99_us": p99})
}

fn main() {
    let mut n = 2000;
    let mut json_out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--n" => n = args.next().and_then(|v| v.parse().ok()).expect("--n N"),
            "--json" => json_out = args.next(),
            _ => {} // `--bench` from cargo, filters
        }
    }
    let state = tempfile::tempdir().expect("state dir");
    let bashrt = env!("CARGO_BIN_EXE_bashrt");
    let mut rows = Vec::new();

    // The floor: bash reading commands on a pipe, each followed by a sentinel.
    let mut floor = Client::start("bash", &["--noprofile", "--norc"], state.path());
    rows.push(measure("floor: driven bash, true", n, |i| {
        floor.round_trip(&format!("true; echo __END_{i}__\n"), "__END_")
    }));
    rows.push(measure("floor: driven bash, /bin/true", n, |i| {
        floor.round_trip(&format!("/bin/true; echo __END_{i}__\n"), "__END_")
    }));
    drop(floor);

    let rpc_args = ["rpc", "--set", "bash.snapshot=false"];
    let mut rpc = Client::start(bashrt, &rpc_args, state.path());
    rows.push(measure("bashrt rpc: bash true", n, |i| {
        rpc.round_trip(
            &format!("{{\"id\":\"b{i}\",\"type\":\"bash\",\"command\":\"true\"}}\n"),
            "\"type\":\"response\"",
        )
    }));
    rows.push(measure("bashrt rpc: bash /bin/true", n, |i| {
        let request = format!("{{\"id\":\"p{i}\",\"type\":\"bash\",\"command\":\"/bin/true\"}}\n");
        rpc.round_trip(&request, "\"type\":\"response\"")
    }));
    rows.push(measure("bashrt rpc: tool_call true", n, |i| {
        let request = format!(
            "{{\"id\":\"t{i}\",\"type\":\"tool_call\",\"toolCallId\":\"c{i}\",\"name\":\"bash\",\"arguments\":{{\"command\":\"true\"}}}}\n"
        );
        rpc.round_trip(&request, "tool_execution_end")
    }));
    drop(rpc);

    // Start to first answer: a fresh server, its first `bash true`.
    let starts: Vec<Duration> = (0..20)
        .map(|_| {
            let started = Instant::now();
            let mut fresh = Client::start(bashrt, &rpc_args, state.path());
            fresh.round_trip("{\"id\":\"s\",\"type\":\"bash\",\"command\":\"true\"}\n", "\"type\":\"response\"");
            started.elapsed()
        })
        .collect();
    let mut sorted = starts;
    sorted.sort();
    let p50 = percentile(&sorted, 0.5);
    eprintln!("{:<28} p50 {p50:>8.1} µs", "bashrt rpc: start to answer");
    rows.push(serde_json::json!({"row": "bashrt rpc: start to answer", "n": 20, "p50_us": p50}));

    if let Some(path) = json_out {
        std::fs::write(path, serde_json::to_string_pretty(&rows).unwrap_or_default()).expect("write json");
    }
}
