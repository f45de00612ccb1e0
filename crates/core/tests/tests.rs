//! The integration tests of `bashrt-core`, as one test binary (one link, one process to start): a
//! module per area, through the public API with the real bash (and `module_graph`, which reads every
//! crate's sources for module cycles). `cargo test -p bashrt-core -- shell_runner::` runs one area.

// Shared helpers: `support` (running commands), `invariants` (the fuzz targets' checks, also
// included by `fuzz/`).
mod invariants;
mod support;

mod escape;
mod excerpt;
mod exec_kill;
mod exec_oneshot;
mod exec_script;
mod fidelity;
mod fuzz_findings;
mod fuzz_invariants;
mod intercept;
mod jobs;
mod module_graph;
mod normalize;
mod pool_escape;
mod pty;
mod runtime;
mod script_file_dir;
mod session_cwd;
mod session_log;
mod shell_lifecycle;
mod shell_protocol;
mod shell_runner;
mod shell_state;
mod sink;
mod snapshot;
mod tool;
mod view;
