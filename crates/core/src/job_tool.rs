//! The `job` tool: its arguments as a model sends them, and what each action returns (the jobs
//! themselves are [`crate::job`]'s).
//!
//! Every action answers with a tool result. `read` and `wait` return the output printed since the
//! model's last read, through the same view as a `bash` result (the excerpt when it is long), then a
//! line that says where the job is; a job's end, once told this way, is not told again.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::cancel::CancelToken;
use crate::job::{format_secs, one_line, Job, JobId, JobInfo, JobState, Until};
use crate::result::{append_notices, refused, shape_output, Details, RunReport, TextContent, ToolResult};
use crate::runtime::Runtime;
use crate::validate::Timeout;
use crate::view::ViewOptions;

/// What the `job` tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JobAction {
    /// Every job of the session, with its state.
    List,
    /// The job's output since the last read, at once.
    Read,
    /// Waits for the job's end (or a line matching `until`, or a listening `port`), then reads.
    Wait,
    /// Kills the job's processes, then reads what it printed last.
    Kill,
    /// Writes `input` to the job's stdin (a `stdin: "pipe"` job) or types it and presses `keys` in
    /// its terminal (a `stdin: "pty"` job), then waits until it reads again or ends (or prints a line
    /// matching `until`), and reads.
    Write,
}

/// The `job` tool's arguments.
#[derive(Debug, Clone, Default, PartialEq, schemars::JsonSchema)]
pub struct JobParams {
    /// list: every job; read: a job's new output now; wait: until the job ends (or prints a line
    /// matching `until`, or listens on `port`), then its new output; write: send `input` to its stdin
    /// (a job started with stdin "pipe" or "pty") and press `keys` (stdin "pty"), then its new output
    /// once it reads again or ends; kill: stop it. Default: read when an id is given, else list.
    pub action: Option<JobAction>,
    /// The job's id, as the result that started it said
    pub id: Option<u64>,
    /// wait: return as soon as a new output line matches this regular expression
    pub until: Option<String>,
    /// wait: return as soon as the job listens on this TCP port (0: any port)
    pub port: Option<u16>,
    /// wait, write: the most seconds to wait (default 30 for wait, 10 for write; at most 300)
    pub timeout: Option<f64>,
    /// write: the text to send, newline included ("y\n")
    pub input: Option<String>,
    /// write: keys to press after the input, in a job started with stdin "pty": Enter, Tab, Escape,
    /// Backspace, Up, Down, Left, Right, PageUp, PageDown, Home, End, C-c (ctrl), or one character
    pub keys: Option<Vec<String>>,
    /// write: end the job's input after it (close its stdin pipe; ctrl-d on a terminal)
    pub close: Option<bool>,
    /// any action: give the job more time — its timeout kills it this many seconds from now instead
    /// (at most 3600); only later than now, never sooner (kill stops it sooner)
    pub deadline: Option<f64>,
}

/// The JSON Schema of [`JobParams`], for tool registration.
pub fn job_params_schema() -> Value {
    let mut schema =
        crate::schema::portable_schema(serde_json::to_value(schemars::schema_for!(JobParams)).unwrap_or(Value::Null));
    if let Value::Object(map) = &mut schema {
        map.remove("title");
    }
    schema
}

/// Why the `job` tool's arguments could not be read. The text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JobArgumentError {
    /// The arguments are not a JSON object.
    #[error("Invalid arguments for tool job: expected an object such as {{\"action\": \"wait\", \"id\": 3}}")]
    NotAnObject,
    /// An argument of the wrong kind.
    #[error("Invalid arguments for tool job: `{name}` must be {expected}")]
    WrongType {
        /// The argument.
        name: String,
        /// What it must be.
        expected: &'static str,
    },
    /// `until` is not a regular expression.
    #[error("Invalid arguments for tool job: `until` is not a valid regular expression: {0}")]
    Pattern(String),
    /// A key name not known.
    #[error("Invalid arguments for tool job: `keys` has {0:?}, not a key; keys are {keys}", keys = crate::job::KEY_NAMES)]
    Key(String),
}

/// The default and the longest wait, in seconds.
const WAIT_DEFAULT_SECS: f64 = 30.0;
const WAIT_MAX_SECS: f64 = 300.0;
/// How long a write waits, by default, for the command to read again or end.
const WRITE_WAIT_SECS: f64 = 10.0;
/// How long a kill waits for the job's end (the tree's grace and the executor's report).
const KILL_WAIT: Duration = Duration::from_secs(10);

/// Reads the `job` tool's arguments: ids as numbers or text (`3`, `"3"`, `"job 3"`), actions in any
/// case and by their common other names (`status`, `poll` → read; `stop`, `cancel` → kill).
pub fn read_job_arguments(arguments: &Value) -> Result<JobParams, JobArgumentError> {
    let map = match arguments {
        Value::Object(map) => map,
        Value::Null => return Ok(JobParams::default()),
        _ => return Err(JobArgumentError::NotAnObject),
    };
    let wrong = |name: &str, expected| JobArgumentError::WrongType { name: name.to_string(), expected };
    let mut params = JobParams::default();
    for (name, value) in map {
        if value.is_null() {
            continue;
        }
        match name.as_str() {
            "action" | "op" | "operation" => {
                let text = value.as_str().ok_or_else(|| wrong(name, "one of list, read, wait, write, kill"))?;
                params.action = Some(match text.trim().to_ascii_lowercase().as_str() {
                    "list" | "ls" | "jobs" => JobAction::List,
                    "read" | "status" | "poll" | "output" | "get" | "extend" | "deadline" => JobAction::Read,
                    "wait" | "await" | "follow" => JobAction::Wait,
                    "kill" | "stop" | "cancel" | "terminate" => JobAction::Kill,
                    "write" | "send" | "input" | "answer" | "keys" | "press" | "send_keys" | "type" => JobAction::Write,
                    "close" | "eof" => {
                        params.close = Some(true);
                        JobAction::Write
                    }
                    _ => return Err(wrong(name, "one of list, read, wait, write, kill")),
                });
            }
            "id" | "job" | "job_id" | "jobId" => {
                params.id = Some(read_id(value).ok_or_else(|| wrong(name, "a job id, such as 3"))?)
            }
            "until" | "pattern" => {
                let text = value.as_str().ok_or_else(|| wrong(name, "a regular expression"))?;
                regex::Regex::new(text).map_err(|e| JobArgumentError::Pattern(e.to_string()))?;
                params.until = Some(text.to_string());
            }
            "port" => {
                let port = read_number(value).filter(|p| p.fract() == 0.0 && (0.0..=65535.0).contains(p));
                params.port = Some(port.ok_or_else(|| wrong(name, "a TCP port number"))? as u16);
            }
            "input" | "text" | "data" | "chars" => {
                params.input = Some(value.as_str().ok_or_else(|| wrong(name, "a string"))?.to_string())
            }
            "keys" | "key" | "send_keys" | "sendKeys" => {
                let keys = match value {
                    Value::String(key) => vec![key.clone()],
                    Value::Array(items) => items
                        .iter()
                        .map(|k| k.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| wrong(name, "a list of key names, such as [\"Enter\"]"))?,
                    _ => return Err(wrong(name, "a list of key names, such as [\"Enter\"]")),
                };
                crate::job::encode_keys(&keys).map_err(JobArgumentError::Key)?;
                params.keys = Some(keys);
            }
            "close" | "eof" | "close_stdin" => {
                params.close = Some(value.as_bool().ok_or_else(|| wrong(name, "true or false"))?)
            }
            "deadline" | "extend" | "timeout_secs" | "new_timeout" => {
                params.deadline = Some(read_number(value).ok_or_else(|| wrong(name, "a number of seconds"))?)
            }
            "timeout" => params.timeout = Some(read_number(value).ok_or_else(|| wrong(name, "a number of seconds"))?),
            "timeout_ms" | "timeoutMs" => {
                params.timeout =
                    Some(read_number(value).ok_or_else(|| wrong(name, "a number of milliseconds"))? / 1000.0)
            }
            _ => {}
        }
    }
    Ok(params)
}

fn read_id(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(text) => {
            let digits = text.trim().trim_start_matches(|c: char| !c.is_ascii_digit());
            digits.parse().ok()
        }
        _ => None,
    }
}

fn read_number(value: &Value) -> Option<f64> {
    let n = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(text) => text.trim().trim_end_matches('s').trim().parse().ok(),
        _ => None,
    }?;
    (n.is_finite() && n >= 0.0).then_some(n)
}

/// Runs one `job` call on `runtime`'s jobs. Never fails: a refusal is an error result.
pub(crate) fn run(runtime: &Arc<Runtime>, params: &JobParams, cancel: &CancelToken) -> ToolResult {
    let jobs = runtime.jobs();
    let action = params.action.unwrap_or(if params.id.is_some() { JobAction::Read } else { JobAction::List });
    if action == JobAction::List {
        return list(jobs.list());
    }
    let Some(id) = params.id else {
        return refused(
            format!("`id` is required for `{}`. {}", action_name(action), known(&jobs.list())),
            Details::default(),
        );
    };
    let Some(job) = jobs.get(JobId(id)) else {
        return refused(format!("No job {id}. {}", known(&jobs.list())), Details::default());
    };
    if let Some(secs) = params.deadline {
        let secs = secs.clamp(1.0, crate::validate::MAX_TIMEOUT_SECS);
        if let Err(why) = job.extend(std::time::Instant::now() + Duration::from_secs_f64(secs)) {
            return refused(format!("Deadline of job {id} not changed: {why}."), Details::default());
        }
    }
    // What a wait waits for when no `until` is given, and how long by default.
    let (otherwise, default_secs) = match action {
        JobAction::Wait => match params.port {
            Some(port) => (Until::Listening((port != 0).then_some(port)), WAIT_DEFAULT_SECS),
            None => (Until::Exit, WAIT_DEFAULT_SECS),
        },
        JobAction::Write => (Until::Settled, WRITE_WAIT_SECS),
        JobAction::Kill => {
            job.kill();
            job.wait(&Until::Exit, KILL_WAIT, None);
            return read(runtime, &job, action, None);
        }
        JobAction::Read | JobAction::List => return read(runtime, &job, action, None),
    };
    let until = match params.until.as_deref().map(regex::Regex::new) {
        Some(Ok(regex)) => Until::Pattern(regex),
        Some(Err(e)) => return refused(JobArgumentError::Pattern(e.to_string()).to_string(), Details::default()),
        None => otherwise,
    };
    if action == JobAction::Write {
        let input = params.input.as_deref().unwrap_or_default();
        let keys = match crate::job::encode_keys(params.keys.as_deref().unwrap_or_default()) {
            Ok(keys) => keys,
            Err(key) => return refused(JobArgumentError::Key(key).to_string(), Details::default()),
        };
        if let Err(e) = job.write(input.as_bytes(), &keys, params.close == Some(true)) {
            return refused(format!("Not written to job {id}: {e}. {}", known(&jobs.list())), Details::default());
        }
    }
    let secs = params.timeout.filter(|s| *s > 0.0).unwrap_or(default_secs).min(WAIT_MAX_SECS);
    let (met, _) = job.wait(&until, Duration::from_secs_f64(secs), Some(cancel));
    read(runtime, &job, action, Some((met, secs, until)))
}

fn action_name(action: JobAction) -> &'static str {
    match action {
        JobAction::List => "list",
        JobAction::Read => "read",
        JobAction::Wait => "wait",
        JobAction::Kill => "kill",
        JobAction::Write => "write",
    }
}

/// `The jobs are 3 (running for 12s), 5 (exited with code 0 after 2s).`
fn known(jobs: &[JobInfo]) -> String {
    if jobs.is_empty() {
        return "No job has been started in this session: a `bash` call becomes a job when it runs past its \
                yield time (`yield_ms`) or with `background: true`."
            .to_string();
    }
    let each: Vec<String> = jobs.iter().map(|j| format!("{} ({})", j.id, j.describe())).collect();
    format!("The jobs are {}.", each.join(", "))
}

fn list(jobs: Vec<JobInfo>) -> ToolResult {
    let text = if jobs.is_empty() {
        "(no jobs)".to_string()
    } else {
        let lines: Vec<String> = jobs
            .iter()
            .map(|j| {
                let unread =
                    if j.unread_bytes > 0 { format!("; {} bytes unread", j.unread_bytes) } else { String::new() };
                format!("job {}: {}{unread} — {}", j.id, j.describe(), one_line(&j.command))
            })
            .collect();
        lines.join("\n")
    };
    let details = Details { jobs, ..Details::default() };
    ToolResult { is_error: false, content: vec![TextContent { kind: "text", text }], details }
}

/// The job's new output through the view, and where it is.
fn read(runtime: &Arc<Runtime>, job: &Job, action: JobAction, waited: Option<(bool, f64, Until)>) -> ToolResult {
    let settings = runtime.settings();
    let (output, first_line, info) = job.read();
    let failed = matches!(info.state, JobState::Exited if info.exit_code != Some(0))
        || matches!(info.state, JobState::Signalled | JobState::TimedOut | JobState::Failed);
    let budget = settings.view_budget(failed && action != JobAction::Kill);
    let new_lines = output.total_lines();
    let view = ViewOptions { max_line_chars: settings.max_line_chars };
    let timeout = Timeout::clamp(None, settings.default_timeout_secs);
    let report = RunReport {
        duration_ms: info.elapsed_ms,
        artifacts_available: info.artifact_id.is_some(),
        ..RunReport::of_output(output, Path::new(""), timeout, budget, view)
    };
    let shaped = shape_output(&report);
    let mut text = shaped.body;
    if text.is_empty() && !shaped.binary {
        text = "(no new output)".to_string();
    }
    let mut notices = shaped.notices;
    // Line numbers in a shortened view count from the window's start: say where that is.
    if first_line > 1 && new_lines > 0 && shaped.truncation.is_some() {
        notices.push(format!("[Output since the last read, from line {first_line} of the job's output]"));
    }
    if let Some((met, secs, until)) = &waited {
        if !met {
            let what = match until {
                Until::Pattern(regex) => format!("no new line matched `{regex}`"),
                Until::Listening(Some(port)) => format!("it is not listening on port {port}"),
                Until::Listening(None) => "it is not listening on any port".to_string(),
                Until::Exit => "it has not ended".to_string(),
                Until::Settled => "it has neither read its input again nor ended".to_string(),
            };
            notices.push(format!("[Waited {}: {what}]", format_secs(Duration::from_secs_f64(*secs))));
        }
    }
    notices.push(status_notice(&info));
    append_notices(&mut text, &notices);
    let is_error = failed && action != JobAction::Kill;
    let details = Details {
        job: Some(Box::new(info)),
        meta: shaped.truncation.map(|truncation| crate::result::Meta { truncation }),
        ..Details::default()
    };
    ToolResult { is_error, content: vec![TextContent { kind: "text", text }], details }
}

/// `[Job 3 is still running (45s so far; its timeout kills it in 4m15s). Full output: artifact://7]`.
fn status_notice(info: &JobInfo) -> String {
    let full = info.artifact_id.map(|id| format!(" Full output: {}", id.url())).unwrap_or_default();
    let (so_far, deadline) = crate::job::so_far_and_deadline(info);
    match info.state {
        JobState::Running => format!("[Job {} is still running ({so_far} so far{deadline}).{full}]", info.id),
        JobState::Listening => format!(
            "[Job {} is running and listening on {} ({so_far} so far{deadline}).{full}]",
            info.id,
            info.listening.join(", ")
        ),
        JobState::AwaitingInput => format!(
            "[Job {id} is waiting for input: {} reads its {} ({so_far} so far{deadline}). {}.{full}]",
            info.reading.as_deref().unwrap_or("a program"),
            info.input_name(),
            crate::job::answer(info),
            id = info.id,
        ),
        _ => format!("[Job {} {}.{full}]", info.id, info.describe()),
    }
}
