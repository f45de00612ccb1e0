//! bashrt-rpc: the JSON-lines RPC mode — requests on one stream, responses and events on another, one
//! JSON object per line, in the shapes of the reference's RPC mode (the pi / oh-my-pi coding agent, see
//! `docs/design.md`) so its clients work. The protocol: `docs/rpc.md`.
//!
//! Promises: input is read independently of running commands (an abort reaches a running command);
//! every request line gets exactly one `response`, malformed ones included, and the server keeps
//! serving; memory is bounded per line and per command; at the end of the input every command is
//! aborted and answered, and every process the server started is killed, before [`Server::serve`]
//! returns.
//!
//! Every module is private; the server and the limits it keeps are re-exported below.
//!
//! Inside: `lines` frames the input, `request` parses it, `server` dispatches and runs commands (quick
//! ones on the reading thread while `baton` lets a second thread read on),
//! `queue` orders a session's `bash` commands, `live` coalesces their output into events, `output`
//! writes every line, `workers` runs commands on reused threads; artifacts are read (and summed up
//! for `get_state`) and every process left behind is stopped by the runtime of `bashrt-core`.

#![warn(missing_docs)]

mod baton;
mod lines;
mod live;
mod output;
mod queue;
mod request;
mod server;
mod workers;

pub use bashrt_core::MAX_READ_BYTES;
pub use baton::{REARM_SLACK, TAKE_OVER_AFTER};
pub use lines::MAX_LINE_BYTES;
pub use live::{LIVE_INTERVAL, LIVE_MAX_BYTES};
pub use request::MAX_NESTING;
pub use server::{Ending, ServeError, Server, ServerConfig, ShutdownHandle, MAX_RUNNING, MAX_SESSIONS};

/// The input's framing and request parsing, for this crate's invariant tests and the fuzz target
/// `rpc_lines` (`fuzz/`); compiled only with the `testing` feature. Not an API: nothing here is
/// promised to stay.
#[cfg(feature = "testing")]
pub mod testing {
    pub use crate::lines::{Frame, LineReader};
    pub use crate::request::{parse, RequestError};
}
