//! The integration tests of the `bashrt` binary, as one test binary (one link, one process to start):
//! a module per area, run the real `bashrt` (`env!("CARGO_BIN_EXE_bashrt")`) against real bash.
//! `cargo test -p bashrt -- hostile::` runs one area. The slow areas (real agents and clients from npm
//! and PyPI, load, the differential corpus) run only with `BASHRT_SLOW_TESTS=1`: see [`common::slow`].

// Shared helpers.
mod common;
mod tui_support;

mod agents;
mod cli_usage;
mod container;
mod differential;
mod disk;
mod failcorpus;
mod faults;
mod hostile;
mod intercept_cmd;
mod load;
mod mcp_clients;
mod mcp_stdio;
mod pi_client;
mod rpc_bash;
mod rpc_bounds;
mod rpc_doc_example;
mod rpc_hostile;
mod rpc_jobs;
mod rpc_protocol;
mod rpc_tool;
mod run_excerpt;
mod run_lifecycle;
mod run_output;
mod run_pipeline;
mod sandbox;
mod security;
mod sessions;
mod tui_exit;
mod tui_jobs;
mod tui_pty;
mod tui_tool;
