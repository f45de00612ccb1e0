//! The reference's own RPC client drives `bashrt rpc` unchanged: the `RpcClient` class of the npm
//! package `@mariozechner/pi-coding-agent`, pinned, installed by this test into a scratch npm prefix
//! under `target/` (kept there, so later runs do not download it again). The client spawns
//! `node <cliPath> --mode rpc`; `pi_client/shim.mjs` stands in for that CLI and runs `bashrt rpc`.
//! `pi_client/driver.mjs` holds the checks (echo, state across calls, exit codes, truncation with the
//! full output read through `fullOutputPath`, `abortBash()` during a sleep, `stop()` leaving no
//! process). The package runs on Node 22 from the npm registry, installed with it (the package needs
//! Node >= 20.6, newer than Debian 12's); the first run needs `npm` and the network.
//!
//! A slow test: it runs with `BASHRT_SLOW_TESTS=1` (`common::slow`), as CI runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::npm::Prefix;
use crate::common::{self, Env};

const PACKAGE: &str = "@mariozechner/pi-coding-agent";
const VERSION: &str = "0.73.1";

/// The package's directory, installed on first use, with the Node that runs it.
fn installed_client() -> (PathBuf, Prefix) {
    let prefix = Prefix::install("pi-coding-agent", &[&format!("{PACKAGE}@{VERSION}")], &[]);
    (prefix.modules.join(PACKAGE), prefix)
}

#[test]
fn the_reference_rpc_client_drives_bashrt_unchanged() {
    if !common::slow("the reference's RPC client, installed from npm on the first run") {
        return;
    }
    let (package, prefix) = installed_client();
    let node = prefix.node();
    // The client starts its CLI (the shim) as `node`: the prefix's, first on PATH.
    let path = format!("{}:{}", prefix.bin().display(), std::env::var("PATH").unwrap_or_default());
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("pi_client");
    let env = Env::new();
    let work = env.work().canonicalize().unwrap();
    let out = Command::new(&node)
        .arg(here.join("driver.mjs"))
        .current_dir(&work)
        .env("PATH", path)
        .env("PI_PACKAGE", &package)
        .env("PI_VERSION", VERSION)
        .env("SHIM", here.join("shim.mjs"))
        .env("BASHRT_BIN", env!("CARGO_BIN_EXE_bashrt"))
        .env("WORK", &work)
        .env("BASHRT_STATE_DIR", env.state())
        .env("XDG_CONFIG_HOME", env.root.path().join("config"))
        .env("HOME", env.home())
        .env("TMPDIR", env.root.path().join("tmp"))
        .env_remove("BASHRT_SETTINGS")
        .env_remove("BASHRT_LOG")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} ({e})", node.display()));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the driver failed ({}):\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains(r#""ok":true"#), "{stdout}\n{stderr}");
}
