//! The example session of `docs/rpc.md` comes out as documented when its request lines are written all
//! at once, without waiting for any answer: the doc is a transcript a reader can replay with
//! `cat requests | bashrt rpc`, not a timing the reader must reproduce.
//!
//! What is compared: per request, the lines the doc shows for it (its response, its tool events, the
//! text of its `bash_update` chunks joined), since messages of different requests interleave freely.
//! `durationMs` varies and is not compared; nor is the `shell` description of a cancelled command
//! (whether it was aborted before or after its shell started is a race the doc does not promise).
//! `[…]` in the doc stands for text left out.

use std::collections::BTreeMap;

use crate::common::Env;

const DOC_PATH: &str = "/tmp/rpcdoc/proj";
const DOC_STATE: &str = "/tmp/rpcdoc/state";
const ELIDED: &str = "[…]";

struct Transcript {
    /// Request lines written before stdin is closed.
    requests: Vec<String>,
    /// Response and event lines, in doc order.
    answers: Vec<String>,
}

fn transcript() -> Transcript {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rpc.md")).unwrap();
    let section = doc.split("## An example session").nth(1).expect("docs/rpc.md has an example session");
    let block = section.split("```").nth(1).expect("the example is a code block");
    let mut t = Transcript { requests: Vec::new(), answers: Vec::new() };
    for line in block.lines() {
        if let Some(request) = line.strip_prefix("> ") {
            t.requests.push(request.to_string());
        } else if let Some(answer) = line.strip_prefix("< ") {
            t.answers.push(answer.replace(DOC_PATH, "@WORK@").replace(DOC_STATE, "@STATE@"));
        }
    }
    t
}

/// Which request a line belongs to, and what of it is compared.
fn key_of(line: &str) -> (String, String) {
    let field = |name: &str| {
        let pat = format!("\"{name}\":\"");
        line.find(&pat).map(|i| {
            let rest = &line[i + pat.len()..];
            rest[..rest.find('"').unwrap_or(rest.len())].to_string()
        })
    };
    let kind = field("type").unwrap_or_default();
    let owner = if kind.starts_with("tool_execution") { field("toolCallId") } else { field("id") };
    (kind, owner.unwrap_or_else(|| "-".into()))
}

/// The `chunk` of a `bash_update` line, still JSON-escaped.
fn chunk_of(line: &str) -> String {
    let start = line.find("\"chunk\":\"").unwrap() + "\"chunk\":\"".len();
    let end = line.rfind('"').unwrap();
    line[start..end].to_string()
}

fn normalize(line: &str) -> String {
    let mut line = replace_values(line, "durationMs", "0");
    if line.contains(r#""kind":"cancelled""#) {
        line = replace_values(&line, "shell", "\"-\"");
    }
    line
}

/// Replaces every value of `"key":` (a number or a string) in a JSON line with `with`.
fn replace_values(line: &str, key: &str, with: &str) -> String {
    let pat = format!("\"{key}\":");
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(&pat) {
        out.push_str(&rest[..i + pat.len()]);
        rest = &rest[i + pat.len()..];
        let end = if let Some(text) = rest.strip_prefix('"') {
            let mut escaped = false;
            let close = text.char_indices().find(|&(_, c)| {
                let close = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                close
            });
            close.map_or(rest.len(), |(j, _)| j + 2)
        } else {
            rest.find([',', '}']).unwrap_or(rest.len())
        };
        out.push_str(with);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Groups lines per request: whole lines, except `bash_update` chunks, which are joined.
fn grouped(lines: &[String]) -> BTreeMap<(String, String), Vec<String>> {
    let mut groups: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for line in lines {
        let key = key_of(line);
        let entry = groups.entry(key.clone()).or_default();
        if key.0 == "bash_update" {
            let chunk = chunk_of(line);
            match entry.first_mut() {
                Some(joined) => joined.push_str(&chunk),
                None => entry.push(chunk),
            }
        } else {
            entry.push(normalize(line));
        }
    }
    groups
}

/// `actual` matches `expected`, where `[…]` in `expected` stands for any text.
fn matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split(ELIDED).collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || !actual.ends_with(last) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn the_documented_session_comes_out_as_documented_when_piped_in_at_once() {
    let t = transcript();
    assert!(t.requests.len() > 10 && t.answers.len() > 10, "the example was not found");
    let env = Env::new();
    std::fs::write(env.work().join("notes.txt"), "remember the milk\n").unwrap();
    let mut rpc = env.rpc(&["--session", "demo", "--set", "bash.maxOutputBytes=1024"], &[]);
    let mut all = t.requests.join("\n");
    all.push('\n');
    rpc.send_raw(all.as_bytes());

    // Stdin stays open until everything but the last command has answered and that one has printed
    // what the doc shows; then its end aborts the last command, as documented.
    let expected = grouped(&t.answers);
    let last_bash = t.requests.last().map(|r| key_of(r).1).unwrap();
    for (kind, owner) in expected.keys() {
        match kind.as_str() {
            "response" if *owner == last_bash => {}
            "response" if owner == "-" => {
                rpc.wait_for("the parse error", |v| v["type"] == "response" && v.get("id").is_none());
            }
            "response" => {
                rpc.response(owner);
            }
            "tool_execution_end" => {
                rpc.tool_event(kind, owner);
            }
            _ => {}
        }
    }
    let last_chunks = &expected[&("bash_update".to_string(), last_bash.clone())][0];
    let last_text: String = serde_json::from_str(&format!("\"{last_chunks}\"")).unwrap();
    while rpc.bash_output(&last_bash) != last_text {
        assert!(rpc.read_one(), "output ended before {last_bash} printed {last_text:?}");
    }
    assert_eq!(rpc.finish(), 0);

    let work = env.work().canonicalize().unwrap();
    let actual: Vec<String> = rpc
        .raw
        .iter()
        .map(|line| {
            line.replace(&work.display().to_string(), "@WORK@").replace(&env.state().display().to_string(), "@STATE@")
        })
        .collect();
    let actual = grouped(&actual);
    assert_eq!(
        expected.keys().collect::<Vec<_>>(),
        actual.keys().collect::<Vec<_>>(),
        "requests answered differ from the doc; got {actual:#?}"
    );
    for (key, want) in &expected {
        let got = &actual[key];
        assert_eq!(want.len(), got.len(), "{key:?}: {got:#?}");
        for (w, g) in want.iter().zip(got) {
            assert!(matches(w, g), "{key:?} differs from the doc:\n doc: {w}\n got: {g}");
        }
    }
}

#[test]
fn durations_and_shells_of_cancelled_commands_are_not_compared() {
    let line = r#"{"output":"a\"b","durationMs":12,"shell":"x \"y\"","outcome":{"kind":"cancelled"}}"#;
    assert_eq!(normalize(line), r#"{"output":"a\"b","durationMs":0,"shell":"-","outcome":{"kind":"cancelled"}}"#);
}

#[test]
fn elision_matches_any_text_in_between() {
    assert!(matches("ab[…]ef", "abcdef"));
    assert!(matches("a[…]c[…]e", "abcde"));
    assert!(!matches("ab[…]ef", "abef-"));
    assert!(!matches("abc[…]cde", "abcde"));
}
