//! The MCP server's input decoder: any bytes as one line of its input are passed on as a message,
//! answered with a JSON-RPC error (with the request's id when the line says it), or, for a
//! notification, dropped; never a panic. The invariants are `bashrt_mcp`'s own (`lines::check`), also
//! run by its unit tests.
#![no_main]

libfuzzer_sys::fuzz_target!(|line: &[u8]| {
    bashrt_mcp::testing::check_line(line);
});
