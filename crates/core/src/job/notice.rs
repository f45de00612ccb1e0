//! What the model is told of jobs in other results: that a call goes on as a job, and which jobs
//! ended since it last heard of them.

use std::time::Duration;

use super::info::{format_secs, JobInfo};
use super::prompt::PromptKind;

/// A command on one line, shortened.
pub(crate) fn one_line(command: &str) -> String {
    let line: String = command.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// `45s` and `; its timeout kills it in 4m15s` (empty once the job ended): how long a job has run,
/// and when its deadline comes, as every notice of a job says them.
pub(crate) fn so_far_and_deadline(info: &JobInfo) -> (String, String) {
    let deadline = info
        .deadline_in_ms
        .map(|ms| format!("; its timeout kills it in {}", format_secs(Duration::from_millis(ms))))
        .unwrap_or_default();
    (format_secs(Duration::from_millis(info.elapsed_ms)), deadline)
}

/// What a call that yielded tells the model: it still runs as a job, and how to go on.
pub(crate) fn yield_notice(info: &JobInfo) -> String {
    let (so_far, deadline) = so_far_and_deadline(info);
    let listening =
        if info.listening.is_empty() { String::new() } else { format!(", listening on {}", info.listening.join(", ")) };
    let id = info.id;
    if let Some(reader) = &info.reading {
        return format!(
            "[Waiting for input as job {id}: {reader} reads its {} ({so_far} so far{deadline}). {}; \
{{\"action\": \"kill\", \"id\": {id}}} stops it]",
            info.input_name(),
            answer(info)
        );
    }
    format!(
        "[Still running as job {id}{listening} ({so_far} so far{deadline}). With the `job` tool: \
{{\"action\": \"wait\", \"id\": {id}}} waits for its end and returns its new output (\"until\": a regex of a \
line to stop at), {{\"action\": \"kill\", \"id\": {id}}} stops it]"
    )
}

/// How to answer the prompt of a job waiting for input, by what it asks (a password is the user's):
/// one clause, without a final stop.
pub(crate) fn answer(info: &JobInfo) -> String {
    let id = info.id;
    let write = |example: &str| format!("{{\"action\": \"write\", \"id\": {id}, \"input\": \"{example}\"}}");
    let press = |keys: &str| format!("{{\"action\": \"write\", \"id\": {id}, \"keys\": [{keys}]}}");
    match info.prompt.as_ref().map(|p| p.kind) {
        Some(PromptKind::Pager) => format!(
            "It shows a pager: {} pages on, {} quits it (a command run with `--no-pager` or `| cat` prints \
the text instead)",
            press("\"Space\""),
            press("\"q\"")
        ),
        Some(PromptKind::Editor) => format!(
            "It opened an editor: send its keys with {} (a command that can take the text another way, such as \
`git commit -m`, or `GIT_EDITOR=true`, needs no editor)",
            press("\"Escape\", \":\", \"w\", \"q\", \"Enter\"")
        ),
        Some(PromptKind::Text) if reads_keys(info) => format!(
            "It reads its terminal key by key: {} types a line, {} presses keys; each returns what it shows next",
            write("…\\n"),
            press("\"Down\", \"Enter\"")
        ),
        Some(PromptKind::Password) if info.prompt.as_ref().is_some_and(|p| p.echoed) => format!(
            "It asks for a password or a secret, and its terminal shows what is typed (the answer would be \
in the output and its artifact): that is the user's to give — ask them, never make one up; {} sends it",
            write("…\\n")
        ),
        Some(PromptKind::Password) => format!(
            "It asks for a password or a secret: that is the user's to give — ask them, never make one up; \
once they gave it, {} sends it (bashrt keeps no copy)",
            write("…\\n")
        ),
        Some(PromptKind::YesNo) => {
            format!("It asks yes or no: {} answers it and returns what it prints next", write("y\\n"))
        }
        _ => format!("With the `job` tool: {} answers it and returns what it prints next", write("…\\n")),
    }
}

/// Whether the job's program reads key by key (a terminal in raw mode), as its prompt was made.
fn reads_keys(info: &JobInfo) -> bool {
    info.prompt.as_ref().is_some_and(|p| p.keys)
}

/// What a result says of jobs that ended since the model last heard of them; put first.
pub(crate) fn ended_notice(ended: &[JobInfo]) -> Option<String> {
    if ended.is_empty() {
        return None;
    }
    let each: Vec<String> = ended
        .iter()
        .map(|j| {
            let unread = if j.unread_bytes > 0 {
                format!("; {{\"action\": \"read\", \"id\": {}}} shows its last output", j.id)
            } else {
                String::new()
            };
            format!("[Job {} ({}) {}{unread}]", j.id, one_line(&j.command), j.describe())
        })
        .collect();
    Some(each.join("\n"))
}

/// What a call that ended leaving processes running (`server &`) says of the job that follows them.
pub(crate) fn left_notice(info: &JobInfo, processes: usize) -> String {
    let id = info.id;
    let s = if processes == 1 { "" } else { "es" };
    let listening =
        if info.listening.is_empty() { String::new() } else { format!(", listening on {}", info.listening.join(", ")) };
    format!(
        "[{processes} background process{s} still running, followed as job {id}{listening}. With the `job` tool: \
{{\"action\": \"read\", \"id\": {id}}} shows what they print from now on, {{\"action\": \"wait\", \"id\": {id}, \
\"port\": 0}} waits until they listen, {{\"action\": \"kill\", \"id\": {id}}} stops them]"
    )
}
