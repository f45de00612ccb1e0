//! bashrt-mcp: `bashrt mcp`, the bash tool as a Model Context Protocol server on stdio, for any agent
//! that takes tools from MCP servers (Claude Code, Codex CLI, Gemini CLI, …). The protocol and the
//! client setup: `docs/mcp.md`.
//!
//! It is one more front over the runtime of `bashrt-core`, like `bashrt run` and `bashrt rpc`: a
//! `bash` call is the same tool call (normalization, interception, cwd, timeout, head/tail, the 50 KB
//! view, artifacts), and its result is the same text and details.
//!
//! Promises: stdout carries only protocol messages (logs go to stderr); requests are served
//! concurrently, a long command never holds up another call; a cancelled call kills its command's
//! whole process tree; every line of input that is not a message is answered with a JSON-RPC error
//! (with the request's id when the line says it); a client that does not read its answers makes the
//! server hold at most [`MAX_PENDING_ANSWERS`] of them; when the client goes away (end of stdin, a
//! broken stdout) or a shutdown is asked for, every running command is cancelled and every process
//! the server started is killed before [`Server::serve_stdio`] returns, which it does even when the
//! client never reads stdout again ([`OUTPUT_GRACE`]) — and the runtime's reaper kills them even if
//! the server is SIGKILLed.
//!
//! Inside: `handler` answers the protocol's requests, `state` is what they share, `tools` declares the
//! tools, `call` runs a `bash` call, `progress` turns live output into progress notifications,
//! `resources` serves artifacts, `calls` tracks running calls for shutdown, `pipes` is the transport
//! on stdin/stdout (it notices a client that went away), `lines` decodes a line of input or answers
//! it, `pending` counts the answers owed, and `client_config` prints the setup snippet of each client.

#![warn(missing_docs)]

mod call;
mod calls;
mod client_config;
mod elicit;
mod handler;
mod lines;
mod pending;
mod pipes;
mod progress;
mod resources;
mod server;
mod shape;
mod state;
mod tools;

pub use calls::MAX_RUNNING;
pub use client_config::{client_config, Client, ClientConfig, Profile};
pub use lines::MAX_LINE_BYTES;
pub use pending::{MAX_PENDING_ANSWERS, MAX_PENDING_READS};
pub use pipes::OUTPUT_GRACE;
pub use progress::{PROGRESS_INTERVAL, PROGRESS_LINES};
pub use resources::MAX_RESOURCE_BYTES;
pub use server::{Ending, ServeError, Server, ServerConfig, ShutdownHandle};
pub use shape::{ResultShape, DETAILS_META};
pub use tools::{BASH_TOOL, READ_OUTPUT_TOOL};

/// The input decoder's promises, for the fuzz target `mcp_lines` (`fuzz/`); compiled only with the
/// `testing` feature. Not an API: nothing here is promised to stay.
#[cfg(feature = "testing")]
pub mod testing {
    /// Decodes `line` as the server reads a line of its input and asserts the decoder's promises
    /// (see `lines`): panics when one is broken.
    pub fn check_line(line: &[u8]) {
        crate::lines::check(line);
    }
}
