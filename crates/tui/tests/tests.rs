//! The integration tests of `bashrt-tui`, as one test binary: a module per area.

mod render;
