//! The reference's own RPC client drives `bashrt rpc` unchanged: the `RpcClient` class of the npm
//! package `@mariozechner/pi-coding-agent`, pinned, installed by this test into a scratch npm prefix
//! under `target/` (kept there, so later runs do not download it again). The client spawns
//! `node <cliPath> --mode rpc`; `pi_client/shim.mjs` stands in for that CLI and runs `bashrt rpc`.
//! `pi_client/driver.mjs` holds the checks (echo, state across calls, exit codes, truncation with the
//! full output read through `fullOutputPath`, `abortBash()` during a sleep, `stop()` leaving no
//! process). Needs `node` (>= 20.6, the package's engines) and `npm`; `.ci/run` installs them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Env;

const PACKAGE: &str = "@mariozechner/pi-coding-agent";
const VERSION: &str = "0.73.1";

/// The package's directory in the cached prefix, installed on first use.
fn installed_client() -> PathBuf {
    let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pi-coding-agent-{VERSION}"));
    let package = prefix.join("node_modules").join(PACKAGE);
    if package.join("package.json").is_file() {
        return package;
    }
    // Installed beside, then moved in place: an interrupted install is never taken for a finished one.
    let partial = prefix.with_extension("partial");
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial).unwrap();
    let status = Command::new("npm")
        .args(["install", "--prefix"])
        .arg(&partial)
        .args(["--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=optional", "--omit=dev"])
        .arg(format!("{PACKAGE}@{VERSION}"))
        .status()
        .unwrap_or_else(|e| panic!("cannot run npm ({e}); .ci/run installs node and npm"));
    assert!(status.success(), "npm install {PACKAGE}@{VERSION} failed: {status}");
    let _ = std::fs::remove_dir_all(&prefix);
    std::fs::rename(&partial, &prefix).unwrap();
    package
}

#[test]
fn the_reference_rpc_client_drives_bashrt_unchanged() {
    let package = installed_client();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("pi_client");
    let env = Env::new();
    let work = env.work().canonicalize().unwrap();
    let out = Command::new("node")
        .arg(here.join("driver.mjs"))
        .current_dir(&work)
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
        .unwrap_or_else(|e| panic!("cannot run node ({e}); .ci/run installs node and npm"));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the driver failed ({}):\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains(r#""ok":true"#), "{stdout}\n{stderr}");
}
