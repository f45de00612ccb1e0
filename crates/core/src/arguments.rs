//! The tool's parameters ([`BashParams`], and their JSON Schema), and reading them from a model's
//! tool-call arguments: tolerant of form, strict of meaning.
//!
//! What is read and how is on [`read_arguments`].

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::validate::MAX_TIMEOUT_SECS;

/// The tool's parameters, as the model sends them. A front reads them from JSON with
/// [`read_arguments`], which takes the forms models really send
/// and records what it changed in [`BashParams::notes`].
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(description = "The tool's parameters, as the model sends them.")]
pub struct BashParams {
    /// Command to execute
    pub command: String,
    /// Timeout in seconds (default: 300, at most 3600)
    #[serde(default)]
    pub timeout: Option<f64>,
    /// Working directory (default: cwd)
    #[serde(default)]
    pub cwd: Option<String>,
    /// Return only first N lines of output
    #[serde(default)]
    pub head: Option<u64>,
    /// Return only last N lines of output
    #[serde(default)]
    pub tail: Option<u64>,
    /// Return after this many milliseconds if the command still runs (default 30000); it goes on as a job that the job tool waits for, reads and kills. Servers return as soon as they listen.
    #[serde(default)]
    pub yield_ms: Option<u64>,
    /// Start the command as a job and return at once (a server, a watcher): after its first output, or as soon as it listens on a port
    #[serde(default)]
    pub background: Option<bool>,
    /// "null" (default: nothing can wait for input), "pipe" (the command reads a pipe) or "pty" (it runs in a terminal: prompts, sudo, pagers, REPLs); when it waits for input the call returns as a job, and the job tool's write answers it (keys too, in a terminal)
    #[serde(default)]
    pub stdin: Option<StdinMode>,
    /// Ask the user for more than the sandbox allows, for this call (only after a denial, or when the command surely needs it): {"write": ["~/.cache/uv"], "reason": "uv keeps its wheels there"}; also "read", "network": "on", "loopbackPorts", "off": true. The user approves it once or for the session, or refuses; the result says which
    #[serde(default)]
    pub sandbox: Option<Box<crate::sandbox::SandboxRequest>>,
    /// The front's own decision on `sandbox`, made before the call (an MCP client's permission
    /// prompt for `bash_escalated`, its user's answer to an elicitation): never read from a
    /// model's arguments.
    #[serde(skip)]
    #[schemars(skip)]
    pub decided: Option<crate::sandbox::Approval>,
    /// What reading the arguments changed or ignored; the result says it.
    #[serde(skip)]
    #[schemars(skip)]
    pub notes: ArgumentNotes,
}

/// The JSON Schema of [`BashParams`], for tool registration: plain JSON Schema that every client
/// takes as it is (see [`portable_schema`](crate::portable_schema)).
pub fn params_schema() -> serde_json::Value {
    let mut schema = crate::schema::portable_schema(
        serde_json::to_value(schemars::schema_for!(BashParams)).unwrap_or(serde_json::Value::Null),
    );
    // The Rust type's name means nothing to a model, which sees the schema as it is.
    if let serde_json::Value::Object(map) = &mut schema {
        map.remove("title");
    }
    schema
}

/// What a command's stdin is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StdinMode {
    /// `/dev/null`: a read gets end-of-file at once, so nothing waits for input.
    #[default]
    Null,
    /// A pipe the `job` tool writes to; a command blocked reading it makes the call return as a job.
    Pipe,
    /// A terminal the `job` tool types into (keys included), for programs that want one (`read -p`
    /// prompts, `sudo`, pagers, REPLs); a program blocked reading it makes the call return as a job.
    Pty,
}

/// What reading the arguments changed or left out; the result says so (see [`read_arguments`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArgumentNotes {
    /// The `timeout` as given, when it was read as milliseconds because it could not be seconds.
    pub timeout_read_as_ms: Option<f64>,
    /// The `timeout` was 0, read as "the default".
    pub timeout_zero: bool,
    /// Arguments ignored, by name in sorted order.
    pub ignored: Vec<String>,
    /// The name the call asked to run in the background by (`run_in_background`, `background`), for
    /// a refusal where nothing can run in the background.
    pub background_flag: Option<String>,
}

impl ArgumentNotes {
    /// The notices these notes make, in the order the result shows them.
    pub fn notices(&self) -> Vec<String> {
        let zero = self.timeout_zero.then(|| ZERO_TIMEOUT_NOTICE.to_string());
        self.timeout_read_as_ms
            .map(timeout_notice)
            .into_iter()
            .chain(zero)
            .chain(ignored_notice(&self.ignored))
            .collect()
    }
}

/// What a `timeout` of 0 became.
pub(crate) const ZERO_TIMEOUT_NOTICE: &str = "[Timeout 0 read as the default: a call always has a deadline]";

/// `[Timeout 120000 read as milliseconds (120s): timeout is in seconds]`.
fn timeout_notice(given: f64) -> String {
    format!(
        "[Timeout {} read as milliseconds ({}s): timeout is in seconds]",
        number_text(given),
        number_text(given / 1000.0)
    )
}

/// `[Ignored unknown argument: `env`]`, for the ignored arguments a model may have meant to change
/// what runs: every one except those that only describe the call (`description`) or steer the client
/// (`wait_for_previous`).
fn ignored_notice(ignored: &[String]) -> Option<String> {
    let worth: Vec<String> =
        ignored.iter().filter(|name| !QUIETLY_IGNORED.contains(&name.as_str())).map(|n| format!("`{n}`")).collect();
    let s = if worth.len() == 1 { "" } else { "s" };
    (!worth.is_empty()).then(|| format!("[Ignored unknown argument{s}: {}]", worth.join(", ")))
}

/// Arguments that only describe the call or steer the client, ignored without a notice.
const QUIETLY_IGNORED: &[&str] = &["description", "wait_for_previous", "explanation", "reason", "summary"];

/// Other names for `cwd`, as other agents' shell tools call it (Codex, Gemini CLI).
const CWD_ALIASES: &[&str] = &["workdir", "dir_path", "directory", "working_directory"];

/// Other names for `timeout` in milliseconds.
const TIMEOUT_MS_ALIASES: &[&str] = &["timeout_ms", "timeoutMs"];

/// Other names for `timeout` in seconds.
const TIMEOUT_SECS_ALIASES: &[&str] = &["timeout_secs", "timeout_seconds", "timeoutSecs"];

/// The yield time in milliseconds, as callers name it (Codex: `yield_time_ms`).
const YIELD_ALIASES: &[&str] = &["yield_ms", "yieldMs", "yield_time_ms"];

/// Requests to leave the command running after the call returns.
const BACKGROUND_FLAGS: &[&str] = &["run_in_background", "background", "is_background"];

/// Why arguments could not be read. The text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentError {
    /// The arguments are not a JSON object.
    #[error("Invalid arguments for tool bash: expected an object with a `command`, got {0}")]
    NotAnObject(&'static str),
    /// No `command`.
    #[error("Invalid arguments for tool bash: `command` is required (the command to run)")]
    MissingCommand,
    /// An argument of the wrong kind.
    #[error("Invalid arguments for tool bash: `{name}` must be {expected}, got {got}")]
    WrongType {
        /// The argument.
        name: String,
        /// What it must be.
        expected: &'static str,
        /// What came, shortened.
        got: String,
    },
    /// A request bashrt cannot honour; the text says what to do instead.
    #[error(
        "Not run: `{0}` is not supported: a call runs until its command ends or its timeout passes. To leave \
a process running (a server, a watcher), end the command with `&` and send its output to a file, e.g. \
`npm run dev > /tmp/dev.log 2>&1 &`, then read the file in later calls."
    )]
    Background(String),
    /// A `sandbox` request that is not one.
    #[error(
        "Invalid arguments for tool bash: `sandbox` must be an object like {{\"write\": [\"~/.cache/uv\"], \"reason\": \"…\"}} (keys: write, read, network, loopbackPorts, off, reason): {0}"
    )]
    Sandbox(String),
    /// A `stdin` bashrt does not give.
    #[error("Invalid arguments for tool bash: `stdin` must be \"null\", \"pipe\" or \"pty\" (input through the job tool's write), got {0}")]
    Stdin(String),
}

/// Reads the `bash` tool's arguments as a model sent them: tolerant of form, strict of meaning.
///
/// Models and their clients send what other agents' shell tools take: numbers as strings
/// (`"timeout": "30"`), a Claude-style timeout in milliseconds (`120000`), Codex's `workdir` and
/// `timeout_ms`, Gemini's `dir_path`, extra fields a client adds to every tool (`wait_for_previous`),
/// a `description`. A refused call costs the model a turn and teaches it nothing, so every form
/// whose meaning is certain is read, and every reading that changes a value is said in the result:
///
/// - unknown arguments are ignored (JSON Schema's default) and named in `details.ignoredArguments`;
///   those that might have been meant to change what runs (`env`, say) are also named in a notice;
/// - a number may come as a JSON number or a string holding one (`"30"`, `"30s"`, `"120000ms"`);
/// - `timeout` is in seconds; a value that can only be milliseconds (above the maximum and a whole
///   number of seconds in milliseconds, like `120000`) is read as milliseconds, with a notice;
/// - a command given as an argument vector (`["bash", "-lc", "make"]`) runs as that command;
/// - a request bashrt cannot honour (`run_in_background: true`) is refused with what to do instead,
///   never run as something else.
pub fn read_arguments(arguments: &Value) -> Result<BashParams, ArgumentError> {
    let map = match arguments {
        Value::Object(map) => map,
        Value::Null => return Err(ArgumentError::MissingCommand),
        other => return Err(ArgumentError::NotAnObject(kind_of(other))),
    };
    let mut params = BashParams::default();
    let mut notes = ArgumentNotes::default();
    let mut command = None;
    let mut cwd_alias = None;
    let mut timeout = None;
    let mut timeout_ms = None;
    for (name, value) in map {
        let name = name.as_str();
        if value.is_null() {
            continue;
        }
        match name {
            "command" | "cmd" => command = Some(read_command(name, value)?),
            "cwd" => params.cwd = Some(read_string(name, value, "a directory path")?),
            "timeout" => timeout = Some((read_number(name, value, "a number of seconds")?, true)),
            "head" => params.head = Some(read_count(name, value)?),
            "tail" => params.tail = Some(read_count(name, value)?),
            _ if CWD_ALIASES.contains(&name) => cwd_alias = Some(read_string(name, value, "a directory path")?),
            _ if TIMEOUT_MS_ALIASES.contains(&name) => {
                timeout_ms = Some(read_number(name, value, "a number of milliseconds")?.seconds_or_ms(true))
            }
            // Named as seconds: never taken for milliseconds.
            _ if TIMEOUT_SECS_ALIASES.contains(&name) => {
                timeout = Some((read_number(name, value, "a number of seconds")?, false))
            }
            _ if BACKGROUND_FLAGS.contains(&name) => {
                if read_flag(name, value)? {
                    params.background = Some(true);
                    notes.background_flag = Some(name.to_string());
                }
            }
            "stdin" => {
                params.stdin = match value.as_str().map(|s| s.trim().to_ascii_lowercase()).as_deref() {
                    Some("null" | "none" | "devnull" | "/dev/null") => Some(StdinMode::Null),
                    Some("pipe") => Some(StdinMode::Pipe),
                    Some("pty" | "tty" | "terminal") => Some(StdinMode::Pty),
                    _ => return Err(ArgumentError::Stdin(shorten(value))),
                }
            }
            "sandbox" => {
                params.sandbox =
                    Some(serde_json::from_value(value.clone()).map_err(|e| ArgumentError::Sandbox(e.to_string()))?)
            }
            _ if YIELD_ALIASES.contains(&name) => {
                let number = read_number(name, value, "a number of milliseconds")?;
                params.yield_ms = Some(number.value_in_ms().min(u64::MAX as f64) as u64);
            }
            _ => notes.ignored.push(name.to_string()),
        }
    }
    params.command = command.ok_or(ArgumentError::MissingCommand)?;
    if params.cwd.is_none() {
        params.cwd = cwd_alias;
    }
    params.timeout = match (timeout, timeout_ms) {
        // No deadline at all is not on offer, and one of zero would end the command before it ran:
        // a model that writes 0 means "no particular one", the default.
        (Some((given, _)), _) if given.value == 0.0 => {
            notes.timeout_zero = true;
            None
        }
        (Some((given, guess)), _) => {
            let secs = if guess { given.seconds_or_ms(false) } else { given.value_in_seconds() };
            if given.unit == Unit::Plain && secs != given.value {
                notes.timeout_read_as_ms = Some(given.value);
            }
            Some(secs)
        }
        (None, ms) => ms,
    };
    params.notes = notes;
    Ok(params)
}

/// The unit a number came with, when it came as a string with one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Plain,
    Seconds,
    Milliseconds,
}

#[derive(Debug, Clone, Copy)]
struct Number {
    value: f64,
    unit: Unit,
}

impl Number {
    /// The value in milliseconds, a plain number being milliseconds.
    fn value_in_ms(self) -> f64 {
        match self.unit {
            Unit::Seconds => self.value * 1000.0,
            Unit::Milliseconds | Unit::Plain => self.value,
        }
    }

    /// The value in seconds, a plain number being seconds.
    fn value_in_seconds(self) -> f64 {
        match self.unit {
            Unit::Milliseconds => self.value / 1000.0,
            Unit::Plain | Unit::Seconds => self.value,
        }
    }

    /// The value in seconds. A plain number is in milliseconds when `ms` says so, or when it can only
    /// be milliseconds: above the longest timeout, and a whole number of seconds in milliseconds.
    fn seconds_or_ms(self, ms: bool) -> f64 {
        match self.unit {
            Unit::Seconds => self.value,
            Unit::Milliseconds => self.value / 1000.0,
            Unit::Plain if ms || only_milliseconds(self.value) => self.value / 1000.0,
            Unit::Plain => self.value,
        }
    }
}

/// A timeout that cannot be meant as seconds: over the 3600 s maximum and a multiple of 1000, the
/// way milliseconds are written (`120000`, `600000`). `7200` or `10800` (hours in seconds) stay
/// seconds, and are clamped.
fn only_milliseconds(value: f64) -> bool {
    value > MAX_TIMEOUT_SECS && value <= MAX_TIMEOUT_SECS * 1000.0 && value % 1000.0 == 0.0
}

fn read_command(name: &str, value: &Value) -> Result<String, ArgumentError> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Array(items) => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            let words = words.ok_or_else(|| wrong(name, "a string (or a list of strings)", value))?;
            Ok(command_of_argv(&words))
        }
        other => Err(wrong(name, "a string", other)),
    }
}

/// An argument vector as one command: `[sh, -c, X]` (or `-lc`, `bash`, a full path) is `X`; other
/// vectors are their words quoted for bash.
fn command_of_argv(words: &[&str]) -> String {
    if let [shell, flag, script] = words {
        let shell = shell.rsplit('/').next().unwrap_or(shell);
        if matches!(shell, "bash" | "sh" | "zsh" | "dash") && matches!(*flag, "-c" | "-lc" | "-cl") {
            return (*script).to_string();
        }
    }
    words.iter().map(|word| quote(word)).collect::<Vec<_>>().join(" ")
}

/// `word` quoted for bash when it needs it.
fn quote(word: &str) -> String {
    if !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-,=:+@%".contains(&b)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn read_string(name: &str, value: &Value, expected: &'static str) -> Result<String, ArgumentError> {
    match value {
        Value::String(text) => Ok(text.clone()),
        other => Err(wrong(name, expected, other)),
    }
}

fn read_number(name: &str, value: &Value, expected: &'static str) -> Result<Number, ArgumentError> {
    let number = match value {
        Value::Number(n) => n.as_f64().map(|value| Number { value, unit: Unit::Plain }),
        Value::String(text) => parse_number(text),
        _ => None,
    };
    number.filter(|n| n.value.is_finite() && n.value >= 0.0).ok_or_else(|| wrong(name, expected, value))
}

/// `"30"`, `" 30 "`, `"30s"`, `"30 sec"`, `"120000ms"`.
fn parse_number(text: &str) -> Option<Number> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let value = digits.parse::<f64>().ok()?;
    let unit = match unit.trim() {
        "" => Unit::Plain,
        "s" | "sec" | "secs" | "second" | "seconds" => Unit::Seconds,
        "ms" | "millis" | "milliseconds" => Unit::Milliseconds,
        _ => return None,
    };
    Some(Number { value, unit })
}

fn read_count(name: &str, value: &Value) -> Result<u64, ArgumentError> {
    let expected = "a whole number of lines";
    let number = read_number(name, value, expected)?;
    if number.unit != Unit::Plain || number.value.fract() != 0.0 || number.value > u64::MAX as f64 {
        return Err(wrong(name, expected, value));
    }
    Ok(number.value as u64)
}

fn read_flag(name: &str, value: &Value) -> Result<bool, ArgumentError> {
    match value {
        Value::Bool(flag) => Ok(*flag),
        Value::String(text) if text.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(text) if text.eq_ignore_ascii_case("false") => Ok(false),
        other => Err(wrong(name, "true or false", other)),
    }
}

fn wrong(name: &str, expected: &'static str, got: &Value) -> ArgumentError {
    ArgumentError::WrongType { name: name.to_string(), expected, got: shorten(got) }
}

/// A value as JSON, cut to 60 bytes.
fn shorten(value: &Value) -> String {
    let mut got = value.to_string();
    if got.len() > 60 {
        let cut = (0..=57).rev().find(|&i| got.is_char_boundary(i)).unwrap_or(0);
        got.truncate(cut);
        got.push_str("...");
    }
    got
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A number as a person writes it: `120`, `0.5`, never `120.0`.
fn number_text(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// Reads an object's numeric field the tolerant way (a number, or a string holding one), for the
/// other tools of a front (`read_output`'s `head`): `Ok(None)` when absent or null.
pub fn read_count_field(map: &Map<String, Value>, name: &str) -> Result<Option<u64>, ArgumentError> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => read_count(name, value).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(value: Value) -> BashParams {
        read_arguments(&value).unwrap()
    }

    #[test]
    fn the_plain_form_is_read_as_is() {
        let p = read(json!({"command": "ls", "timeout": 30, "cwd": "src", "head": 5, "tail": 2}));
        assert_eq!(
            (p.command.as_str(), p.timeout, p.cwd.as_deref(), p.head, p.tail),
            ("ls", Some(30.0), Some("src"), Some(5), Some(2))
        );
        assert_eq!(p.notes, ArgumentNotes::default());
    }

    #[test]
    fn numbers_may_come_as_strings() {
        let p = read(json!({"command": "ls", "timeout": "30", "head": " 5 ", "tail": "2"}));
        assert_eq!((p.timeout, p.head, p.tail), (Some(30.0), Some(5), Some(2)));
        assert_eq!(read(json!({"command": "ls", "timeout": "90s"})).timeout, Some(90.0));
        assert_eq!(read(json!({"command": "ls", "timeout": "1500ms"})).timeout, Some(1.5));
    }

    #[test]
    fn a_timeout_that_can_only_be_milliseconds_is_read_so_and_said() {
        let p = read(json!({"command": "ls", "timeout": 120000}));
        assert_eq!(p.timeout, Some(120.0));
        assert_eq!(p.notes.notices(), ["[Timeout 120000 read as milliseconds (120s): timeout is in seconds]"]);
        // Hours in seconds stay seconds (and are clamped later).
        assert_eq!(read(json!({"command": "ls", "timeout": 7200})).timeout, Some(7200.0));
        assert_eq!(read(json!({"command": "ls", "timeout": 600})).timeout, Some(600.0));
        // Explicit milliseconds need no notice; a name that says seconds is never taken for ms.
        let p = read(json!({"command": "ls", "timeout_ms": 5000}));
        assert_eq!((p.timeout, p.notes.notices().len()), (Some(5.0), 0));
        assert_eq!(read(json!({"command": "ls", "timeout_seconds": 5000})).timeout, Some(5000.0));
        // Zero is the default, said.
        let p = read(json!({"command": "ls", "timeout": 0}));
        assert_eq!((p.timeout, p.notes.notices()), (None, vec![ZERO_TIMEOUT_NOTICE.to_string()]));
    }

    #[test]
    fn unknown_arguments_are_ignored_and_only_the_meaningful_ones_said() {
        let p = read(json!({"command": "ls", "description": "list", "wait_for_previous": true, "env": {"A": "1"}}));
        assert_eq!(p.notes.ignored, ["description", "env", "wait_for_previous"]);
        assert_eq!(p.notes.notices(), ["[Ignored unknown argument: `env`]"]);
    }

    #[test]
    fn other_agents_names_are_read() {
        let p = read(json!({"command": ["bash", "-lc", "make -j2"], "workdir": "/tmp"}));
        assert_eq!((p.command.as_str(), p.cwd.as_deref()), ("make -j2", Some("/tmp")));
        assert_eq!(read(json!({"command": ["ls", "a b"]})).command, "ls 'a b'");
        assert_eq!(read(json!({"command": "ls", "dir_path": "x", "cwd": "y"})).cwd.as_deref(), Some("y"));
    }

    #[test]
    fn a_background_request_is_read_under_any_of_its_names_and_yield_times_in_milliseconds() {
        let p = read(json!({"command": "npm run dev", "run_in_background": true}));
        assert_eq!((p.background, p.notes.background_flag.as_deref()), (Some(true), Some("run_in_background")));
        assert_eq!(read(json!({"command": "ls", "run_in_background": false})).background, None);
        assert_eq!(read(json!({"command": "ls", "yield_time_ms": 5000})).yield_ms, Some(5000));
        assert_eq!(read(json!({"command": "ls", "yieldMs": "2s"})).yield_ms, Some(2000));
    }

    #[test]
    fn wrong_kinds_are_refused_with_what_was_expected() {
        let e = read_arguments(&json!({"command": "ls", "timeout": "soon"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid arguments for tool bash: `timeout` must be a number of seconds, got \"soon\""
        );
        let e = read_arguments(&json!({"command": "ls", "head": 2.5})).unwrap_err();
        assert_eq!(e.to_string(), "Invalid arguments for tool bash: `head` must be a whole number of lines, got 2.5");
        assert_eq!(read_arguments(&json!({"timeout": 3})).unwrap_err(), ArgumentError::MissingCommand);
        assert_eq!(read_arguments(&json!("ls")).unwrap_err(), ArgumentError::NotAnObject("a string"));
        assert!(read_arguments(&json!({"command": "ls", "timeout": -1})).is_err());
    }
}
