//! `bashrt rpc` against a hostile or careless client: ids reused at once, lines that JSON cannot hold
//! (numbers out of range, nesting past the parser's limit, duplicate keys, invalid UTF-8), commands
//! holding a NUL, and sessions holding more artifacts than a response should list.

use crate::common::{self, Env};
use serde_json::json;

/// docs/rpc.md promises a `toolCallId` is free again once its `tool_execution_end` is out. A client
/// that reuses it the moment it reads the end event must never be told it is still running — however
/// the call ran and ended: on the reading thread (nothing else running) or on a worker (while a
/// `bash` command holds the other reading thread), run or blocked, or aborted.
#[test]
fn a_tool_call_id_is_free_the_moment_its_end_event_is_out() {
    let env = Env::new();
    let gate = common::fifo(env.root.path(), "gate");
    let mut rpc = env.rpc(&[], &[("GATE", &gate)]);
    let commands = ["true", "echo hi", "cat x", "exit 3"];
    for round in 0..300 {
        if round == 150 {
            // From here on a command runs throughout, so the calls go to workers.
            rpc.send(json!({"id":"hold","type":"bash","command":"echo held; read x < \"$GATE\"","sessionId":"other"}));
            rpc.wait_for("the holding command's start", |v| v["type"] == "bash_update" && v["id"] == "hold");
        }
        let id = format!("c{round}");
        let aborted = round % 25 == 24;
        let command = if aborted { "echo go; sleep 100" } else { commands[round % commands.len()] };
        let mut request = json!({"id": id, "type": "tool_call", "toolCallId": "X", "name": "bash",
            "arguments": {"command": command}});
        if round % 2 == 1 {
            request["toolNames"] = json!(["read"]);
        }
        rpc.send(request);
        let accepted = rpc.response_index(&id);
        assert_eq!(rpc.history[accepted]["success"], true, "round {round}: {}", rpc.history[accepted]);
        if aborted {
            // Its output, after its own acceptance (earlier rounds printed the same).
            let started = |rpc: &common::Rpc| {
                rpc.history[accepted..]
                    .iter()
                    .any(|v| v["type"] == "tool_execution_update" && v["partialResult"]["content"][0]["text"] == "go\n")
            };
            while !started(&rpc) {
                assert!(rpc.read_one(), "output ended in round {round}; stderr: {}", rpc.stderr());
            }
            rpc.send(json!({"id": format!("a{round}"), "type": "abort", "toolCallId": "X"}));
        }
        // This round's end event: the (round + 1)th of X.
        while ends(&rpc, "X") <= round {
            assert!(rpc.read_one(), "output ended in round {round}; stderr: {}", rpc.stderr());
        }
    }
    common::release(&gate);
    assert_eq!(rpc.response("hold")["data"]["output"], "held\n");
    assert_eq!(rpc.finish(), 0);
}

/// How many `tool_execution_end` events of `call` arrived so far.
fn ends(rpc: &common::Rpc, call: &str) -> usize {
    rpc.history.iter().filter(|v| v["type"] == "tool_execution_end" && v["toolCallId"] == call).count()
}

/// Lines JSON cannot hold as one meaning are refused naming the problem, answered with their own
/// `id` and `type` whenever a scan of the line can read them, and the server serves on.
#[test]
fn lines_json_cannot_hold_are_refused_with_their_id_and_the_problem() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        (
            "range",
            br#"{"id":"range","type":"tool_call","toolCallId":"c","name":"bash","arguments":{"command":"ls","timeout":1e309}}"#
                .to_vec(),
            "parse",
            "Failed to parse command: number out of range at line 1 column 107",
        ),
        (
            "deep",
            format!(r#"{{"id":"deep","type":"bash","command":"ls","x":{}{}}}"#, "[".repeat(5000), "]".repeat(5000))
                .into_bytes(),
            "parse",
            "Failed to parse command: nested deeper than 127 arrays and objects at line 1 column 173",
        ),
        (
            "dup",
            br#"{"id":"dup","type":"bash","command":"echo safe","command":"echo other"}"#.to_vec(),
            "bash",
            r#"Failed to parse command: duplicate key "command" at line 1 column 57"#,
        ),
        (
            "dup-args",
            br#"{"id":"dup-args","type":"tool_call","toolCallId":"d","name":"bash","arguments":{"command":"ls","timeout":5,"timeout":9}}"#
                .to_vec(),
            "tool_call",
            r#"Failed to parse command: duplicate key "timeout" at line 1 column 116"#,
        ),
        (
            // Invalid UTF-8 and, after it, a line cut short: the id is read all the same.
            "utf",
            b"{\"id\":\"utf\",\"type\":\"bash\",\"command\":\"echo \xc3\x28 and no end".to_vec(),
            "bash",
            "line is not valid UTF-8 (invalid byte at offset 42)",
        ),
        (
            "ctl",
            b"{\"id\":\"ctl\",\"type\":\"bash\",\"command\":\"echo a\x00b\"}".to_vec(),
            "parse",
            "Failed to parse command: control character (\\u0000-\\u001F) found while parsing a string at line 1 column 44",
        ),
    ];
    for (_, line, _, _) in &cases {
        let mut line = line.clone();
        line.push(b'\n');
        rpc.send_raw(&line);
    }
    rpc.send(json!({"id":"after","type":"bash","command":"echo served"}));
    assert_eq!(rpc.response("after")["data"]["output"], "served\n");
    for (id, _, command, error) in cases {
        let response = rpc.response(id);
        assert_eq!(
            response,
            json!({"id": id, "type": "response", "command": command, "success": false, "error": error}),
            "{id}"
        );
    }
    // Nothing of the refused lines ran: no tool call started.
    assert!(!rpc.history.iter().any(|v| v["type"] == "tool_execution_start"), "{:#?}", rpc.history);
    assert_eq!(rpc.finish(), 0);
}

/// bash reads a command as a C string, and the session's long-lived shell reads a command up to a
/// NUL: a `bash` command holding one would run only the text before it. It is refused whole, and the
/// session's shell goes on with the next command as if it had not come.
#[test]
fn a_bash_command_holding_a_nul_is_refused_and_nothing_of_it_runs() {
    let env = Env::new();
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"warm","type":"bash","command":"echo warm"}));
    assert_eq!(rpc.response("warm")["data"]["output"], "warm\n");
    rpc.send(json!({"id":"z","type":"bash","command":"echo ran > ran.txt\u{0}; echo rest"}));
    rpc.send(json!({"id":"next","type":"bash","command":"echo next"}));
    assert_eq!(
        rpc.response("z"),
        json!({"id":"z","type":"response","command":"bash","success":false,
            "error":"Not run: the command holds a NUL byte (at byte 18), which bash cannot run: it would run only the text before it"})
    );
    assert_eq!(rpc.response("next")["data"]["output"], "next\n");
    assert!(!env.work().join("ran.txt").exists(), "the text before the NUL ran");
    assert!(!rpc.history.iter().any(|v| v["type"] == "bash_update" && v["id"] == "z"));
    assert_eq!(rpc.finish(), 0);
}

/// `get_state` of a session with 200,000 artifacts: a summary (count, total size, id ranges, the
/// newest with their sizes), one short line, not a list of every id.
#[test]
fn get_state_summarizes_a_session_of_200000_artifacts_in_a_short_line() {
    let env = Env::new();
    let dir = env.state().join("sessions/crowded/artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    const COUNT: u64 = 200_000;
    // The newest few hold their id's number of bytes; the rest are links to empty files (a link is
    // one system call, where creating a file is three), 50,000 to each (ext4 allows 65,000).
    let empties: Vec<_> = (0..COUNT / 50_000).map(|i| env.root.path().join(format!("empty{i}"))).collect();
    for empty in &empties {
        std::fs::File::create(empty).unwrap();
    }
    for id in 1..=COUNT {
        let path = dir.join(format!("{id}.bash.log"));
        if id > COUNT - 10 {
            std::fs::File::create(&path).unwrap().set_len(id).unwrap();
        } else {
            std::fs::hard_link(&empties[(id % (COUNT / 50_000)) as usize], &path).unwrap();
        }
    }
    let mut rpc = env.rpc(&[], &[]);
    rpc.send(json!({"id":"s","type":"get_state","sessionId":"crowded"}));
    let at = rpc.response_index("s");
    let state = &rpc.history[at]["data"];
    assert_eq!(
        state["artifacts"],
        json!({
            "count": COUNT,
            "ranges": [{"start": 1, "end": COUNT}],
            "newest": [
                {"id": COUNT, "bytes": COUNT},
                {"id": COUNT - 1, "bytes": COUNT - 1},
                {"id": COUNT - 2, "bytes": COUNT - 2},
                {"id": COUNT - 3, "bytes": COUNT - 3},
                {"id": COUNT - 4, "bytes": COUNT - 4},
            ],
        })
    );
    let line = &rpc.raw[at];
    assert!(line.len() < 1024, "{} bytes: {line}", line.len());
    assert_eq!(rpc.finish(), 0);
}
