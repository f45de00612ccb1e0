//! Load: 50 sessions at once over one `bashrt rpc`, each running a series of commands with output sizes
//! from nothing to 5 MB. Every response must be right, every artifact byte-exact, and the server's
//! memory and open descriptors the same after the load as after a warm-up.
//!
//! A slow test (`BASHRT_SLOW_TESTS=1`, see `common::slow`). The suite runs 20 calls per session;
//! `BASHRT_LOAD_CALLS=100` (what `bench/load.sh` sets) runs the full 50 × 100.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use crate::common::{self, Env};
use serde_json::{json, Value};

const SESSIONS: usize = 50;
const MAX_BYTES: u64 = 5_000_000;

/// Sizes spread from 0 to 5 MB, most of them small (log-uniform), from a fixed seed.
fn sizes(count: usize) -> Vec<u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            match state % 10 {
                0 => 0,
                _ => ((MAX_BYTES as f64).powf(unit)) as u64,
            }
        })
        .collect()
}

/// What `yes <token> | head -c <n>` prints.
fn expected(token: &str, n: u64) -> Vec<u8> {
    let line = format!("{token}\n");
    line.bytes().cycle().take(n as usize).collect()
}

fn rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn open_fds(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap().count()
}

/// Checks one response against what its command printed.
fn check(env: &Env, response: &Value, session: usize, token: &str, n: u64) {
    let id = &response["id"];
    let data = &response["data"];
    assert_eq!(data["exitCode"], 0, "{id}: {response}");
    assert_eq!(data["totalBytes"], n, "{id}");
    let want = expected(token, n);
    match data["artifactId"].as_u64() {
        Some(artifact) => {
            let kept = std::fs::read(env.artifact_path(&format!("s{session}"), artifact)).unwrap();
            assert!(kept == want, "{id}: artifact {artifact} is not the output byte for byte");
        }
        None => {
            // Notices (a shell replaced after the pool evicted it) are in `notices`, not in the output.
            let body = data["output"].as_str().unwrap();
            let want = String::from_utf8(want).unwrap();
            assert_eq!(body.trim_end_matches('\n'), want.trim_end_matches('\n'), "{id}: output shown whole");
        }
    }
}

#[test]
fn fifty_sessions_at_once_get_right_answers_and_byte_exact_artifacts() {
    if !common::slow("50 sessions at once, output up to 5 MB a call, about 30 s") {
        return;
    }
    let calls: usize = std::env::var("BASHRT_LOAD_CALLS").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let env = Env::new();
    let mut server =
        env.cmd().arg("rpc").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().unwrap();
    let pid = server.id() as i32;
    let mut input = server.stdin.take().unwrap();
    let mut output = BufReader::new(server.stdout.take().unwrap());
    let send = |input: &mut std::process::ChildStdin, request: Value| writeln!(input, "{request}").unwrap();
    // The next response; live `bash_update` events (megabytes of them) are skipped unparsed.
    let mut next_response = || -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(output.read_line(&mut line).unwrap() > 0, "the server ended early");
            if !line.starts_with("{\"type\":\"bash_update\"") {
                let value: Value = serde_json::from_str(&line).unwrap();
                if value["type"] == "response" {
                    return value;
                }
            }
        }
    };

    // Warm-up: every session at once with the largest output, so that the pool, the worker threads
    // and the allocator's arenas are at their working size before memory is measured.
    for s in 0..SESSIONS {
        let command = format!("yes warm | head -c {MAX_BYTES}");
        send(&mut input, json!({"id": format!("w{s}"), "type":"bash","sessionId": format!("s{s}"),"command": command}));
    }
    for _ in 0..SESSIONS {
        assert_eq!(next_response()["data"]["exitCode"], 0);
    }
    let (rss_before, fds_before) = (rss_kib(pid), open_fds(pid));

    // Every session runs its calls one after another, all sessions at once: 50 commands in flight.
    let sizes = sizes(SESSIONS * calls);
    let command = |s: usize, c: usize| {
        let n = sizes[c * SESSIONS + s];
        json!({"id": format!("{s}-{c}"), "type":"bash","sessionId": format!("s{s}"),
               "command": format!("yes s{s}c{c} | head -c {n}")})
    };
    for s in 0..SESSIONS {
        send(&mut input, command(s, 0));
    }
    for _ in 0..SESSIONS * calls {
        let response = next_response();
        let id = response["id"].as_str().unwrap().to_string();
        let (s, c) = id.split_once('-').unwrap();
        let (s, c): (usize, usize) = (s.parse().unwrap(), c.parse().unwrap());
        check(&env, &response, s, &format!("s{s}c{c}"), sizes[c * SESSIONS + s]);
        if c + 1 < calls {
            send(&mut input, command(s, c + 1));
        }
    }

    let (rss_after, fds_after) = (rss_kib(pid), open_fds(pid));
    assert_eq!(fds_after, fds_before, "open descriptors changed under load");
    assert!(rss_after <= rss_before + 8 * 1024, "memory grew from {rss_before} KiB to {rss_after} KiB");
    drop(input);
    assert!(server.wait().unwrap().success());
}
