//! bashrt-core: the bash tool runtime of a coding agent — everything between "run this shell command"
//! and "here is what the model sees, and where the full output is kept". No UI and no protocol: the
//! modes (print, RPC, MCP, terminal UI) depend on this crate, never the other way round.
//!
//! # Using it
//!
//! Build a [`Runtime`] (it owns the shells, the reaper, the snapshot cache and the state directory),
//! then call the [`BashTool`] as a model would, or run a user's own commands in an [`AgentSession`]:
//!
//! ```
//! use bashrt_core::{BashParams, CallContext, CancelToken, Runtime, Settings};
//!
//! let state = tempfile::tempdir()?;
//! let runtime = Runtime::builder(Settings::default()).state_dir(state.path()).build();
//! let tool = runtime.tool();
//! let params = BashParams { command: "seq 1 3 | tail -n 1".into(), ..Default::default() };
//! let ctx = CallContext {
//!     session_cwd: std::env::current_dir()?,
//!     artifacts: None,
//!     tool_names: vec![],
//!     cancel: CancelToken::new()?,
//!     on_update: None,
//! };
//! let result = tool.execute(&params, ctx);
//! assert!(!result.is_error);
//! assert!(result.text().starts_with("3\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `examples/embed.rs` shows live updates, cancelling a call from another thread and reading an
//! artifact window.
//!
//! # The pipeline
//!
//! A tool call goes through one stage per module, data flowing one way: `normalize` (a trailing
//! `| head`/`| tail` becomes a structured limit) → `intercept` (commands a dedicated tool does better)
//! → `validate` (cwd, timeout clamp) → the run stage, shared with session commands: `artifact`
//! allocation (lazy) → `exec` (a one-shot shell, or a long-lived one from the `shell` pool) →
//! `sink` (bounded tail, full output spilled to the artifact) → `result` (what the model reads,
//! notices at the end, details that say exactly how the command ended). The design, the result
//! contract and the process model are described in `docs/design.md`.
//!
//! "The reference", in these docs, is the bash tool of the pi / oh-my-pi coding agent, whose behaviour
//! bashrt first reproduced; its shapes are kept where its clients depend on them (`docs/design.md`).
//!
//! # The API
//!
//! Every module is private; what other crates may use is re-exported here, in one list, by what it is
//! for: running commands, their results, settings and state, artifacts, the stages of the pipeline,
//! the output's sink and view, and executors (for an embedder that brings its own, or a test that
//! drives one directly). With the `testing` feature, `testing` also exposes internals that the
//! crate's own tests and the fuzz targets check.

#![warn(missing_docs)]

mod agent_session;
mod arguments;
mod artifact;
mod cancel;
mod env;
mod escalate;
mod excerpt;
mod exec;
mod feed;
mod intercept;
mod job;
mod job_tool;
mod json;
mod lines;
mod locked_file;
mod normalize;
mod outcome;
mod parse;
mod private_dir;
mod process;
mod reaper;
mod result;
mod retention;
mod run;
mod runtime;
mod sandbox;
mod scan;
mod schema;
mod session;
mod settings;
mod shape;
mod shell;
mod signatures;
mod sink;
mod tool;
mod utf8;
mod validate;
mod view;

// Running commands: the runtime, the tool a model calls, a user's session, and how a call ends.
pub use agent_session::{
    log_file, read_log_page, AgentSession, BashOptions, BashResult, LogEntry, LogPage, LOG_COMMAND_MAX,
};
pub use arguments::{
    params_schema, read_arguments, read_count_field, ArgumentError, ArgumentNotes, BashParams, StdinMode,
};
pub use cancel::CancelToken;
pub use exec::pty::{PtyControl, PtySize, ToolUi};
pub use feed::{ChunkCallback, UpdateCallback, UPDATE_INTERVAL};
pub use job::{JobId, JobInfo, JobObserver, JobState, Jobs, Prompt, PromptKind, YieldNow};
pub use job_tool::{job_params_schema, read_job_arguments, JobAction, JobArgumentError, JobParams};
pub use outcome::{signal_name, Outcome};
pub use runtime::{Runtime, RuntimeBuilder};
pub use tool::{details_schema, BashTool, CallContext, Yielding, MAX_RUNNING_JOBS};

// What a call returns: the text, and the details that say the same as data.
pub use excerpt::ErrorLines;
pub use lines::LineRange;
pub use result::{
    append_notices, refused, Details, Direction, Failure, Meta, Normalization, TextContent, ToolResult, TruncatedBy,
    Truncation,
};

// Settings and state: what a runtime is told, where it keeps sessions, and what it leaves on disk.
pub use private_dir::open_regular;
pub use process::marker::MARKER_VAR;

// A program that owns its process (the `bashrt` binary): a watchdog forked at start, orphans adopted.
pub use process::children::{adopt_orphans, AdoptError};
pub use reaper::{prefork_watchdog, PreforkError};
pub use retention::{GcPlan, Removal};
pub use sandbox::{
    Approval, ApprovalAsk, ApprovalPolicy, Approver, CacheRoots, Certainty, Denial, DenialKind, Fallback,
    Mode as SandboxMode, Network as SandboxNetwork, RequestedNetwork, Sandbox, SandboxError, SandboxRequest,
    SandboxSettings,
};
pub use session::{Session, SessionError, SessionName, StateDir};
pub use settings::{Settings, SettingsError, ViewMode, VirtualTerminal};

// Artifacts: the whole output of a call, kept on disk, and windows on it.
pub use artifact::{
    read_window, write_window_from, ArtifactContent, ArtifactDir, ArtifactError, ArtifactId, ArtifactSize,
    ArtifactSummary, IdRange, ReadError, Window, WindowRequest, GREP_LINE_CAP, MAX_READ_BYTES, SUMMARY_NEWEST,
    SUMMARY_RANGES,
};

// The stages of a tool call, each usable alone.
pub use intercept::{
    default_rules, Block, Form, FormError, FormStdin, FormStdout, Interceptor, Rule, KNOWN_TOOL_NAMES,
};
pub use normalize::{normalize_bash_command, ExtractedLimit, LimitKind, Normalized};
pub use validate::{CommandError, Timeout};

// Output: the sink that keeps it, what a model may read of it, and helpers for fronts that shape
// their own.
pub use artifact::{AllocateError, ArtifactAllocator, ArtifactBudget, DirAllocator, NewArtifact};
pub use json::strict_json;
pub use schema::portable_schema;
pub use signatures::{Severity, Signature, SignatureSet};
pub use sink::{Head, OutputSink, SinkConfig, SinkOutput, Spill, DEFAULT_MAX_BYTES};
pub use utf8::complete_utf8_len;
pub use view::{format_size, model_view, text_view, View, ViewOptions, DEFAULT_MAX_LINE_CHARS};

// Executors: what runs a script, for an embedder that brings its own ([`RuntimeBuilder::executor`]).
pub use env::Vars;
pub use exec::{
    compose, resolve_shell, Carry, CwdMode, ExecError, ExecRequest, Execution, Executor, Flow, LeftRunning,
    OneShotExecutor, OneShotReason, OutputConsumer, ReplaceReason, ShellError, ShellEvent, ShellLoan, StatusMode,
};
pub use shell::{PoolConfig, ShellKey, ShellPool};

/// Internals that the crate's own tests and the fuzz targets (`fuzz/`) check, compiled only with the
/// `testing` feature. Not an API: nothing here is promised to stay.
#[cfg(feature = "testing")]
pub mod testing {
    pub use crate::excerpt::{build as build_excerpt, ExcerptView};
    pub use crate::exec::pty::selected_by as pty_selected_by;
    pub use crate::scan::{head_share, Excerpt, LINE_CAP};
    pub use crate::shell::snapshot::{capture as capture_snapshot, Snapshot, SnapshotError, CAPTURE_TIMEOUT};
    pub use crate::view::{describe_binary_tail, model_view_detailed, DESCRIBED_CHARS};

    /// The error index the sink built of `output` (with signatures in its config): what the excerpt
    /// view is made from.
    pub fn excerpt_of(output: &crate::SinkOutput) -> Option<&Excerpt> {
        output.excerpt()
    }
}
