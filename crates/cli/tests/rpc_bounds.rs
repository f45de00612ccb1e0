//! Memory stays bounded whatever is read over RPC: history comes in pages, updates don't repeat huge
//! arguments, artifact windows never hold a whole giant line, and error messages summarize.

use std::io::Write;

use crate::common::Env;
use serde_json::json;

fn peak_rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn history_comes_in_pages_and_skips_what_it_cannot_read() {
    let env = Env::new();
    let dir = env.state().join("sessions/paged");
    std::fs::create_dir_all(&dir).unwrap();
    let mut log = std::fs::File::create(dir.join("bash.jsonl")).unwrap();
    for i in 0..2500 {
        let entry = json!({"startedMs": i, "command": format!("echo {i}"), "cwd": "/", "exitCode": 0, "signal": null,
            "timedOut": false, "cancelled": false, "durationMs": 1, "truncated": false, "artifactId": null});
        writeln!(log, "{entry}").unwrap();
        if i == 10 {
            // A line too long to be an entry, and one that is not JSON: both skipped.
            writeln!(log, "{}", "x".repeat(2 * 1024 * 1024)).unwrap();
            writeln!(log, "not json").unwrap();
        }
    }
    drop(log);
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"1","type":"get_history","sessionId":"paged"}));
    let first = rpc.response("1");
    let data = &first["data"];
    assert_eq!(data["total"], 2500, "{data}");
    assert_eq!(data["entries"].as_array().unwrap().len(), 1000);
    assert_eq!(data["entries"][11]["command"], "echo 11");
    assert_eq!(data["nextOffset"], 1000);
    rpc.send(json!({"id":"2","type":"get_history","sessionId":"paged","offset":2400,"limit":50}));
    let page = rpc.response("2");
    assert_eq!(page["data"]["entries"][0]["command"], "echo 2400");
    assert_eq!(page["data"]["entries"].as_array().unwrap().len(), 50);
    assert_eq!(page["data"]["nextOffset"], 2450);
    rpc.send(json!({"id":"3","type":"get_history","sessionId":"paged","offset":2450}));
    let last = rpc.response("3");
    assert_eq!(last["data"]["entries"].as_array().unwrap().len(), 50);
    assert!(last["data"]["nextOffset"].is_null(), "{last}");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn updates_do_not_repeat_huge_arguments() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let padding = "x".repeat(8 * 1024);
    let big = format!("echo started; : {padding}");
    rpc.send(json!({"id":"1","type":"tool_call","toolCallId":"big","name":"bash","arguments":{"command": big}}));
    let (_, start) = rpc.tool_event("tool_execution_start", "big");
    assert_eq!(start["args"]["command"], big.as_str(), "the start event carries the arguments once");
    let (_, update) = rpc.tool_event("tool_execution_update", "big");
    assert!(update.get("args").is_none(), "{}", &update.to_string()[..200]);
    rpc.tool_event("tool_execution_end", "big");
    rpc.send(json!({"id":"2","type":"tool_call","toolCallId":"small","name":"bash","arguments":{"command":"echo hi"}}));
    let (_, update) = rpc.tool_event("tool_execution_update", "small");
    assert_eq!(update["args"]["command"], "echo hi", "small arguments are still repeated for old clients");
    rpc.tool_event("tool_execution_end", "small");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_window_of_a_giant_single_line_artifact_keeps_memory_flat() {
    let env = Env::new();
    let dir = env.state().join("sessions/giant/artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    let giant = vec![b'z'; 96 * 1024 * 1024];
    std::fs::write(dir.join("1.bash.log"), &giant).unwrap();
    drop(giant);
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"0","type":"get_state"}));
    rpc.response("0");
    let before = peak_rss_kib(rpc.pid());
    for (id, window) in [("1", json!({"head": 1})), ("2", json!({"grep": "z"})), ("3", json!({"lines": "1-1"}))] {
        let mut request = json!({"id": id, "type":"read_artifact","sessionId":"giant","artifactId":1});
        request.as_object_mut().unwrap().extend(window.as_object().unwrap().clone());
        rpc.send(request);
        let response = rpc.response(id);
        assert_eq!(response["success"], true, "{}", &response.to_string()[..200.min(response.to_string().len())]);
        assert_eq!(response["data"]["truncated"], true);
    }
    let grown_mib = (peak_rss_kib(rpc.pid()) - before) / 1024;
    assert!(grown_mib < 24, "reading windows of a 96 MiB line grew the server by {grown_mib} MiB");
    assert_eq!(rpc.finish(), 0);
}

#[test]
fn a_missing_artifact_is_reported_with_the_ranges_that_exist() {
    let env = Env::new();
    let dir = env.state().join("sessions/many/artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    for id in (1..=3000).chain(3005..=3010) {
        std::fs::write(dir.join(format!("{id}.bash.log")), "x\n").unwrap();
    }
    let out = env.cmd().args(["artifact", "4000", "--session", "many"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Artifact 4000 not found. Available: 1-3000, 3005-3010"), "{stderr}");
    assert!(stderr.len() < 300, "{stderr}");
}
