//! The disk never fills: the state directory stays under `state.maxBytes` whatever is run, sessions in
//! use are kept, and `bashrt gc` says what it removes.

use crate::common::{text, tree_bytes, Env};
use serde_json::{json, Value};

const BUDGET: u64 = 4 * 1024 * 1024;
const ARTIFACT_CAP: u64 = 1024 * 1024;

/// The budget and the cap, and nothing kept for being recent (these outputs come a second apart).
fn limits() -> Vec<String> {
    vec![
        format!("state.maxBytes={BUDGET}"),
        format!("artifacts.maxBytes={ARTIFACT_CAP}"),
        "state.keepRecentSecs=0".into(),
    ]
}

#[test]
fn many_large_outputs_never_take_the_state_dir_over_budget_and_live_sessions_stay() {
    let env = Env::new();
    let sets: Vec<String> = limits().iter().flat_map(|s| ["--set".to_string(), s.clone()]).collect();
    let set_args: Vec<&str> = sets.iter().map(String::as_str).collect();

    // A session in use by a running server, with an artifact of its own.
    let mut rpc = env.rpc(&set_args, &[]);
    rpc.send(json!({"id":"1","type":"bash","sessionId":"live","command":"seq 1 100000"}));
    let first = rpc.response("1");
    assert_eq!(first["data"]["artifactId"], 1, "{first}");
    let live_artifact = env.artifact_path("live", 1);
    assert!(live_artifact.is_file());

    // Twenty outputs of ~900 KB in twenty sessions: 18 MB written into a 4 MiB budget.
    for i in 0..20 {
        let mut args = set_args.clone();
        let session = format!("s{i}");
        args.extend(["--session", &session]);
        let (result, code) = env.run_json(&args, "head -c 900000 /dev/zero | tr '\\0' x | fold -w 100");
        assert_eq!(code, 0, "{result}");
        assert!(result["details"]["meta"]["truncation"]["artifactId"].is_u64(), "{result}");
        let used = tree_bytes(&env.state());
        assert!(used <= BUDGET, "after output {i}: {used} bytes in the state directory, budget {BUDGET}");
        let id = result["details"]["meta"]["truncation"]["artifactId"].as_u64().unwrap();
        assert_eq!(id, i + 2, "ids are given once per state directory");
        assert!(env.artifact_path(&session, id).is_file(), "the newest output is kept");
    }
    assert!(live_artifact.is_file(), "a session in use lost its artifact");
    assert_eq!(rpc.finish(), 0);

    // Once the server ended, its session is like any other: `gc` may take it.
    let gc = env.cmd().args(["gc", "--dry-run", "--json"]).args(&set_args).output().unwrap();
    let plan: Value = serde_json::from_slice(&gc.stdout).unwrap();
    assert!(plan["usedBytes"].as_u64().unwrap() <= BUDGET, "{plan}");
    assert!(plan["liveSessions"].as_array().unwrap().is_empty(), "{plan}");
}

#[test]
fn gc_lists_then_removes_the_least_recently_used_sessions() {
    let env = Env::new();
    for i in 0..3 {
        let session = format!("old{i}");
        let (result, _) =
            env.run_json(&["--session", &session], "head -c 2000000 /dev/zero | tr '\\0' y | fold -w 100");
        assert!(result["details"]["meta"]["truncation"]["artifactId"].is_u64());
    }
    let budget = "state.maxBytes=3000000";
    let dry = env.cmd().args(["gc", "--dry-run", "--set", budget, "--set", "state.keepRecentSecs=0"]).output().unwrap();
    let text = String::from_utf8_lossy(&dry.stdout);
    assert!(text.contains("would remove session old0"), "{text}");
    assert!(text.contains("would remove session old1"), "{text}");
    assert!(!text.contains("old2"), "the newest session fits: {text}");

    assert!(env.artifact_path("old0", 1).is_file(), "a dry run removes nothing");

    // Just written, everything is kept: a result named it a moment ago.
    let recent = env.cmd().args(["gc", "--set", budget]).output().unwrap();
    let text = String::from_utf8_lossy(&recent.stdout);
    assert!(text.contains("being written or written in the last 60s, kept: 3 artifact(s)"), "{text}");
    assert!(env.artifact_path("old0", 1).is_file(), "{text}");

    let real = env.cmd().args(["gc", "--set", budget, "--set", "state.keepRecentSecs=0"]).output().unwrap();
    assert!(String::from_utf8_lossy(&real.stdout).contains("removed session old0"), "{real:?}");
    assert!(!env.state().join("sessions/old0").exists());
    assert!(!env.state().join("sessions/old1").exists());
    assert!(env.artifact_path("old2", 3).is_file());
}

#[test]
fn an_artifact_past_its_cap_keeps_its_head_and_tail_and_says_so() {
    let env = Env::new();
    let (result, code) = env.run_json(&["--set", "artifacts.maxBytes=100000"], "seq 1 1000000");
    assert_eq!(code, 0);
    let shown = text(&result);
    assert!(shown.contains("Head and tail: artifact://1 ("), "{shown}");
    assert!(shown.contains("dropped: artifacts.maxBytes)"), "{shown}");
    let dropped = result["details"]["artifactDroppedBytes"].as_u64().expect("dropped bytes in details");
    assert!(dropped > 6_000_000, "{dropped}");
    let kept = std::fs::read_to_string(env.artifact_path(&env.session_name(), 1)).unwrap();
    assert_eq!(kept.len(), 100_000);
    assert!(kept.starts_with("1\n2\n3\n"));
    assert!(kept.ends_with("999999\n1000000\n"));
    assert!(kept.contains("bytes of output dropped here"), "the artifact itself says where bytes are missing");
}
