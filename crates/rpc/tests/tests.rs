//! The integration tests of `bashrt-rpc`, as one test binary: a module per area.

// Shared helpers: the fuzz target's checks (also included by `fuzz/`).
mod invariants;

mod fuzz_invariants;
