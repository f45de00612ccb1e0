//! One command in the transcript: what was typed, how it runs (a tool call or a session command), its
//! live tail while it runs, and its result once it ended.

use std::path::PathBuf;
use std::time::Instant;

use bashrt_core::result::ToolResult;
use bashrt_core::BashResult;

use crate::live::LiveTail;

/// Which surface ran the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Typed as is: a tool call, exactly as a model makes it.
    Tool,
    /// `!cmd`: a session command (cwd and shell state persist).
    Bang,
}

/// Where the command is.
#[derive(Debug, Clone)]
pub enum State {
    Running {
        started: Instant,
    },
    Tool(Box<ToolResult>),
    Bang(Box<BashResult>),
    /// The command's thread failed (a bug in bashrt, not in the command).
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub kind: Kind,
    pub command: String,
    /// For a tool call: its `cwd`, shown when it is not the directory the UI started in.
    pub cwd: Option<String>,
    pub live: LiveTail,
    pub state: State,
    /// The directory of this entry's artifacts, to page the full output.
    pub artifacts: Option<PathBuf>,
}

impl Entry {
    pub fn new(kind: Kind, command: &str, cwd: Option<String>, artifacts: Option<PathBuf>) -> Self {
        Self {
            kind,
            command: command.to_string(),
            cwd,
            live: LiveTail::default(),
            state: State::Running { started: Instant::now() },
            artifacts,
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self.state, State::Running { .. })
    }

    /// The artifact holding the full raw output, when one was written.
    pub fn artifact_path(&self) -> Option<PathBuf> {
        let id = match &self.state {
            State::Tool(r) => r.details.meta.as_ref().and_then(|m| m.truncation.artifact_id),
            State::Bang(r) => r.artifact_id,
            State::Running { .. } | State::Failed(_) => None,
        }?;
        let dir = bashrt_core::artifact::ArtifactDir::new(self.artifacts.clone()?);
        dir.resolve(&id.url()).ok().map(|(_, path)| path)
    }

    /// What the model saw (a tool call) or would see (a session command's `output`).
    pub fn model_text(&self) -> Option<String> {
        match &self.state {
            State::Tool(r) => Some(r.text()),
            State::Bang(r) => Some(match &r.error {
                Some(e) => e.clone(),
                None => r.text(),
            }),
            State::Failed(e) => Some(e.clone()),
            State::Running { .. } => None,
        }
    }
}
