//! bashrt-core: everything between "run this shell command" and "here is what the model sees, and where
//! the full output is kept". No UI, no protocol: the modes (print, RPC, MCP, TUI) depend on this crate,
//! never the other way round.
//!
//! The tool-call pipeline, one module per stage, data flowing one way:
//! [`normalize`] → [`intercept`] → [`validate`] → [`artifact`] (allocated lazily) → [`exec`] →
//! [`sink`] (+ [`view`] for what a model may read) → [`result`]. [`tool`] wires the stages together.

pub mod agent_session;
pub mod artifact;
pub mod cancel;
pub mod env;
pub mod excerpt;
pub mod exec;
pub mod feed;
pub mod intercept;
pub mod normalize;
pub mod outcome;
pub(crate) mod parse;
pub mod reaper;
pub mod result;
pub mod scan;
pub mod session;
pub mod settings;
pub mod signatures;
pub mod sink;
pub mod tool;
pub mod validate;
pub mod view;

pub use cancel::CancelToken;
pub use outcome::Outcome;
