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
//! → `validate` (cwd, timeout clamp) → the run stage, shared with session commands: [`artifact`]
//! allocation (lazy) → [`exec`] (a one-shot shell, or a long-lived one from the [`shell`] pool) →
//! `sink` (bounded tail, full output spilled to the artifact) → [`result`] (what the model reads,
//! notices at the end, details that say exactly how the command ended). The design, the result
//! contract and the process model are described in `docs/design.md`.

#![warn(missing_docs)]

pub mod agent_session;
pub mod arguments;
pub mod artifact;
mod cancel;
#[doc(hidden)]
pub mod env;
#[doc(hidden)]
pub mod excerpt;
pub mod exec;
#[doc(hidden)]
pub mod feed;
#[doc(hidden)]
pub mod intercept;
mod json;
mod lines;
mod locked_file;
#[doc(hidden)]
pub mod normalize;
mod outcome;
mod parse;
mod private_dir;
mod process;
mod reaper;
pub mod result;
pub mod retention;
mod run;
mod runtime;
#[doc(hidden)]
pub mod scan;
pub mod schema;
pub mod session;
pub mod settings;
pub mod shell;
pub mod signatures;
#[doc(hidden)]
pub mod sink;
pub mod tool;
mod utf8;
#[doc(hidden)]
pub mod validate;
#[doc(hidden)]
pub mod view;

pub use agent_session::{AgentSession, BashOptions, BashResult};
pub use arguments::{read_arguments, ArgumentError, ArgumentNotes};
pub use artifact::ArtifactId;
pub use cancel::CancelToken;
pub use intercept::{Block, Rule};
pub use json::strict_json;
pub use normalize::{ExtractedLimit, LimitKind};
pub use outcome::{signal_name, Outcome};
pub use private_dir::open_regular;
pub use reaper::MARKER_VAR;
pub use result::ToolResult;
pub use runtime::{Runtime, RuntimeBuilder};
pub use session::{SessionName, StateDir};
pub use settings::Settings;
pub use tool::{BashParams, BashTool, CallContext};
pub use utf8::complete_utf8_len;
pub use validate::{CommandError, Timeout};
