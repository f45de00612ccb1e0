//! What a job is, as a list, a result's details and a notice show it: its id, its state, and the
//! facts a model acts on (what it listens on, what it waits for, when its timeout comes).

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::artifact::ArtifactId;
use crate::outcome::Outcome;

/// A job's id: a number, unique within its runtime and never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
pub struct JobId(pub u64);

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where a job is: running (and what it is doing, when bashrt can tell), or how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum JobState {
    /// Running; not waiting for input and not listening, as far as the kernel says.
    Running,
    /// Running, and a process of it holds a listening TCP socket (a server that is up).
    Listening,
    /// Running, and a program of it is blocked reading its stdin pipe (a prompt): the `job` tool's
    /// `write` answers it.
    AwaitingInput,
    /// Ended by itself with an exit status.
    Exited,
    /// Its shell was killed by a signal nobody in bashrt sent.
    Signalled,
    /// Its own deadline (`timeout`) passed: its tree was killed.
    TimedOut,
    /// Killed on request (`job` kill, an abort, the session's end).
    Cancelled,
    /// The runtime lost it (no exit status).
    Failed,
    /// Its processes ended by themselves, with no status bashrt can read: they were left running by
    /// a call that ended (`server &`), and their statuses went to the shell that started them.
    Ended,
}

impl JobState {
    /// Whether the job has ended.
    pub fn ended(self) -> bool {
        !matches!(self, JobState::Running | JobState::Listening | JobState::AwaitingInput)
    }

    pub(super) fn of(outcome: Option<Outcome>) -> Self {
        let Some(outcome) = outcome else { return JobState::Ended };
        match outcome {
            Outcome::Exited { .. } => JobState::Exited,
            Outcome::Signalled { .. } => JobState::Signalled,
            Outcome::TimedOut => JobState::TimedOut,
            Outcome::Cancelled => JobState::Cancelled,
            Outcome::Error => JobState::Failed,
        }
    }
}

/// What a job is, as a list or a result's details show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobInfo {
    /// The job's id.
    pub id: JobId,
    /// The command, as the call gave it.
    pub command: String,
    /// Where it is.
    pub state: JobState,
    /// Its exit status, once it exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that killed it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// The addresses it listens on (`127.0.0.1:5173`, `[::]:8080`), while it runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub listening: Vec<String>,
    /// The program blocked reading the job's stdin (or its terminal), while it waits for input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// What it asks, while it waits for input: the last line it printed, and the kind of answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<super::Prompt>,
    /// Whether the job's stdin is a pipe the `job` tool writes to (`stdin: "pipe"`), still open, or
    /// its terminal (`stdin: "pty"`).
    pub stdin_open: bool,
    /// The job runs in a terminal (`stdin: "pty"`): the `job` tool types into it, keys included.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub terminal: bool,
    /// Since its call started (until its end, once it ended).
    pub elapsed_ms: u64,
    /// When its deadline kills it, from now; `None` once it ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_in_ms: Option<u64>,
    /// The artifact that holds its whole output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<ArtifactId>,
    /// Bytes and lines of output so far.
    pub total_bytes: u64,
    /// Lines of output so far.
    pub total_lines: u64,
    /// Bytes printed since the model last read it.
    pub unread_bytes: u64,
}

impl JobInfo {
    /// What the job reads its input from, as its notices name it: `stdin` or `terminal`.
    pub(crate) fn input_name(&self) -> &'static str {
        if self.terminal {
            "terminal"
        } else {
            "stdin"
        }
    }

    /// `running for 45s`, `listening on 127.0.0.1:5173`, `exited with code 1 after 52s`.
    pub fn describe(&self) -> String {
        let secs = |ms: u64| format_secs(Duration::from_millis(ms));
        match self.state {
            JobState::Running => format!("running for {}", secs(self.elapsed_ms)),
            JobState::Listening => {
                format!("running for {}, listening on {}", secs(self.elapsed_ms), self.listening.join(", "))
            }
            JobState::AwaitingInput => format!(
                "waiting for input ({} reads its {}) after {}",
                self.reading.as_deref().unwrap_or("a program"),
                self.input_name(),
                secs(self.elapsed_ms)
            ),
            JobState::Exited => {
                format!("exited with code {} after {}", self.exit_code.unwrap_or(-1), secs(self.elapsed_ms))
            }
            JobState::Signalled => format!(
                "was killed by {} after {}",
                self.signal.as_deref().unwrap_or("a signal"),
                secs(self.elapsed_ms)
            ),
            JobState::TimedOut => format!("was killed at its timeout after {}", secs(self.elapsed_ms)),
            JobState::Cancelled => format!("was killed on request after {}", secs(self.elapsed_ms)),
            JobState::Failed => format!("was lost by the runtime after {} (no exit status)", secs(self.elapsed_ms)),
            JobState::Ended => {
                format!("ended after {} (started with `&`: its exit status went to its shell)", secs(self.elapsed_ms))
            }
        }
    }
}

/// `850ms`, `12s`, `2m05s`.
pub(crate) fn format_secs(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let secs = d.as_secs();
    if secs < 60 {
        let tenths = (ms % 1000) / 100;
        return if secs < 10 && tenths > 0 { format!("{secs}.{tenths}s") } else { format!("{secs}s") };
    }
    format!("{}m{:02}s", secs / 60, secs % 60)
}
