//! What the model is told of jobs in other results: that a call goes on as a job, and which jobs
//! ended since it last heard of them.

use std::time::Duration;

use super::table::{format_secs, JobInfo};

/// A command on one line, shortened.
pub(crate) fn one_line(command: &str) -> String {
    let line: String = command.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// What a call that yielded tells the model: it still runs as a job, and how to go on.
pub(crate) fn yield_notice(info: &JobInfo) -> String {
    let so_far = format_secs(Duration::from_millis(info.elapsed_ms));
    let deadline = info
        .deadline_in_ms
        .map(|ms| format!("; its timeout kills it in {}", format_secs(Duration::from_millis(ms))))
        .unwrap_or_default();
    let listening =
        if info.listening.is_empty() { String::new() } else { format!(", listening on {}", info.listening.join(", ")) };
    let id = info.id;
    if let Some(reader) = &info.reading {
        return format!(
            "[Waiting for input as job {id}: {reader} reads its stdin ({so_far} so far{deadline}). With the `job` \
tool: {{\"action\": \"write\", \"id\": {id}, \"input\": \"y\\n\"}} answers it and returns what it prints next, \
{{\"action\": \"kill\", \"id\": {id}}} stops it]"
        );
    }
    format!(
        "[Still running as job {id}{listening} ({so_far} so far{deadline}). With the `job` tool: \
{{\"action\": \"wait\", \"id\": {id}}} waits for its end and returns its new output (\"until\": a regex of a \
line to stop at), {{\"action\": \"kill\", \"id\": {id}}} stops it]"
    )
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
