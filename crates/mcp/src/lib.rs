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
//! whole process tree; when the client goes away (end of stdin, a broken stdout) or a shutdown is
//! asked for, every running command is cancelled and every process the server started is killed
//! before [`Server::serve_stdio`] returns — and the runtime's reaper kills them even if the server is
//! SIGKILLed.
//!
//! Inside: `handler` answers the protocol's requests, `tools` declares the tools, `call` runs a `bash`
//! call, `progress` turns live output into progress notifications, `resources` serves artifacts,
//! `calls` tracks running calls for shutdown, `pipes` notices a client that went away, and
//! `client_config` prints the setup snippet of each client.

#![warn(missing_docs)]

mod call;
mod calls;
mod client_config;
mod handler;
mod pipes;
mod progress;
mod resources;
mod server;
mod shape;
mod tools;

pub use calls::MAX_RUNNING;
pub use client_config::{client_config, Client, ClientConfig, Profile};
pub use progress::{PROGRESS_INTERVAL, PROGRESS_LINES};
pub use resources::MAX_RESOURCE_BYTES;
pub use server::{Ending, ServeError, Server, ServerConfig, ShutdownHandle};
pub use shape::{ResultShape, DETAILS_META};
pub use tools::{BASH_TOOL, READ_OUTPUT_TOOL};
