//! One command in the transcript: what was typed, how it runs (a tool call or a session command), its
//! live tail while it runs, and its result once it ended.

use std::path::PathBuf;
use std::time::Instant;

use bashrt_core::{format_size, BashResult, ToolResult};

use crate::live::LiveTail;
use crate::pager::doc::Source;
use crate::pager::Pager;

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
    /// Not finished yet.
    Running {
        /// When it started.
        started: Instant,
    },
    /// A tool call's result.
    Tool(Box<ToolResult>),
    /// A session command's result.
    Bang(Box<BashResult>),
    /// The command's thread failed (a bug in bashrt, not in the command).
    Failed(String),
}

/// One command of the transcript: what ran, its live output, and how it ended.
#[derive(Debug, Clone)]
pub struct Entry {
    /// A tool call or a session command.
    pub kind: Kind,
    /// The command as typed.
    pub command: String,
    /// For a tool call: its `cwd`, shown when it is not the directory the UI started in.
    pub cwd: Option<String>,
    /// The last lines of its output, as it arrives.
    pub live: LiveTail,
    /// Where the command is.
    pub state: State,
    /// The directory of this entry's artifacts, to page the full output.
    pub artifacts: Option<PathBuf>,
}

impl Entry {
    /// A command that starts now.
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

    /// The command has not finished.
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
        let dir = bashrt_core::ArtifactDir::new(self.artifacts.clone()?);
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

/// The pager of `entry`: its artifact, else the output the UI kept, else only what the model saw.
pub fn open_pager(entry: &Entry) -> std::io::Result<Pager> {
    let sigil = if entry.kind == Kind::Tool { "$" } else { "!" };
    let title = format!("{sigil} {}", entry.command);
    let model = entry.model_text().unwrap_or_default();
    let (full, note) = match entry.artifact_path() {
        Some(path) => {
            let size = std::fs::metadata(&path).map(|m| format_size(m.len())).unwrap_or_default();
            let id = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.split('.').next()).unwrap_or("?");
            (Some((Source::open(&path)?, format!("full output, artifact://{id} ({size})"))), None)
        }
        None => match entry.live.captured() {
            Some(bytes) => (Some((Source::Memory(bytes.into()), "full output".to_string())), None),
            None => (None, Some("the full output was not kept (no artifact)".to_string())),
        },
    };
    Pager::new(title, full, model, note)
}
