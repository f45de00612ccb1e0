//! bashrt inside a container, driven from outside through `podman exec -i` — how each agent's
//! workspace runs on a cluster (Kubernetes: `kubectl exec -i`). The root filesystem is built here in
//! a second from the binary, bash, coreutils and their libraries (no image registry); the sandbox is
//! on inside the container (Landlock and seccomp work under podman's default profile).
//!
//! A slow test: podman and runc are Debian packages, installed here when missing (as root). On this
//! machine kind podman needs runc (its crun refuses hybrid cgroups) and rlimits no higher than root's
//! hard ones; both go in a `containers.conf` of the test's own.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::common;

const BASHRT: &str = env!("CARGO_BIN_EXE_bashrt");

/// Binaries the root filesystem carries, with their libraries.
const TOOLS: &[&str] = &[
    "bash", "sh", "ls", "cat", "env", "id", "mkdir", "rm", "cp", "mv", "head", "tail", "wc", "sort", "tr", "sleep",
    "true", "false", "pwd", "stat", "touch", "printf", "seq", "grep", "sed",
];

fn ensure_podman() {
    let have = |tool: &str| {
        Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().is_ok_and(|o| o.status.success())
    };
    if have("podman") && have("runc") {
        return;
    }
    // SAFETY: geteuid has no preconditions.
    assert!(unsafe { libc::geteuid() } == 0, "the container test needs podman and runc (apt-get install podman runc)");
    let ok = Command::new("sh")
        .arg("-c")
        .arg("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "could not install podman and runc");
}

/// The root filesystem: `/bashrt`, the tools and every library `ldd` names, a passwd, a workspace.
fn root_filesystem(dir: &Path) {
    for sub in ["etc", "tmp", "root", "proc", "sys", "dev", "run", "var/tmp", "work", "usr"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    // The host's merged-/usr links (`/bin -> usr/bin`), so that every path a library or a script
    // names resolves as on the host.
    for top in ["bin", "sbin", "lib", "lib64"] {
        match std::fs::read_link(Path::new("/").join(top)) {
            Ok(target) => {
                std::fs::create_dir_all(dir.join(&target)).unwrap();
                std::os::unix::fs::symlink(target, dir.join(top)).unwrap();
            }
            Err(_) => std::fs::create_dir_all(dir.join(top)).unwrap(),
        }
    }
    let mut files: Vec<PathBuf> = vec![PathBuf::from(BASHRT)];
    for tool in TOOLS {
        // `which`, not `command -v`: the path of the program, never the name of a shell builtin.
        let out = Command::new("which").arg(tool).output().unwrap();
        let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(path.starts_with('/'), "no {tool} on PATH");
        files.push(PathBuf::from(path));
    }
    let copy = |from: &Path, to: &Path| {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        if !to.exists() {
            std::fs::copy(from, to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        }
    };
    for file in &files {
        let target =
            if file == Path::new(BASHRT) { dir.join("bashrt") } else { dir.join(file.strip_prefix("/").unwrap()) };
        copy(file, &target);
        let ldd = Command::new("ldd").arg(file).output().unwrap();
        for library in String::from_utf8_lossy(&ldd.stdout).split_whitespace().filter(|w| w.starts_with('/')) {
            let library = Path::new(library);
            copy(&std::fs::canonicalize(library).unwrap(), &dir.join(library.strip_prefix("/").unwrap()));
        }
    }
    std::fs::write(
        dir.join("etc/passwd"),
        "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534::/nonexistent:/bin/sh\n",
    )
    .unwrap();
    std::fs::write(dir.join("etc/group"), "root:x:0:\nnogroup:x:65534:\n").unwrap();
    let ok =
        Command::new("chmod").args(["1777"]).arg(dir.join("tmp")).arg(dir.join("var/tmp")).status().unwrap().success();
    assert!(ok);
}

/// podman with the test's storage and configuration.
struct Podman {
    dir: tempfile::TempDir,
    name: String,
}

impl Podman {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes one rlimit.
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
        let nofile = limit.rlim_max.min(1 << 20);
        std::fs::write(
            dir.path().join("containers.conf"),
            format!(
                "[containers]\ndefault_ulimits = [\"nofile={nofile}:{nofile}\", \"nproc=32768:32768\"]\n[engine]\nruntime = \"runc\"\n"
            ),
        )
        .unwrap();
        Self { dir, name: format!("bashrt-test-{}", std::process::id()) }
    }

    fn command(&self) -> Command {
        let mut command = Command::new("podman");
        command
            .env("CONTAINERS_CONF", self.dir.path().join("containers.conf"))
            .arg("--root")
            .arg(self.dir.path().join("storage"))
            .arg("--runroot")
            .arg(self.dir.path().join("run"));
        command
    }

    fn run(&self, args: &[&str]) -> String {
        let out = self.command().args(args).output().unwrap();
        assert!(out.status.success(), "podman {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Podman {
    fn drop(&mut self) {
        let _ = self.command().args(["rm", "-f", "-t", "0", &self.name]).output();
    }
}

/// A request, and how to tell the line that answers it (`None`: a notification, nothing answers).
type Step<'a> = (Value, Option<&'a dyn Fn(&Value) -> bool>);

/// Sends each request, waits for its answer, and returns the answers; closes stdin only at the end
/// (an early end of input would cancel what still runs).
fn drive(mut command: Command, steps: &[Step<'_>]) -> Vec<Value> {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answers = Vec::new();
    for (request, done) in steps {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let Some(done) = done else { continue };
        loop {
            let line = lines.next().expect("an answer").unwrap();
            let value: Value = serde_json::from_str(&line).unwrap();
            if done(&value) {
                answers.push(value);
                break;
            }
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    answers
}

#[test]
fn bashrt_in_a_container_driven_through_exec_confines_its_commands() {
    if !common::slow("podman, a root filesystem, a container") {
        return;
    }
    ensure_podman();
    let root = tempfile::tempdir().unwrap();
    root_filesystem(root.path());
    let podman = Podman::new();
    let rootfs = format!("{}:O", root.path().display());
    podman.run(&["run", "-d", "--name", &podman.name, "--network", "none", "--rootfs", &rootfs, "sleep", "1000"]);

    // RPC: a tool call's command is confined inside the container too.
    let mut rpc = podman.command();
    rpc.args(["exec", "-i", "-w", "/work", "-e", "HOME=/root", &podman.name, "/bashrt", "rpc"]);
    let check = "grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status; touch /etc/planted; echo done";
    let ended = |v: &Value| v["type"] == "tool_execution_end" && v["toolCallId"] == "a";
    let call =
        json!({"id": "1", "type": "tool_call", "toolCallId": "a", "name": "bash", "arguments": {"command": check}});
    let answers = drive(rpc, &[(call, Some(&ended))]);
    let text = answers[0]["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string();
    assert!(text.contains("NoNewPrivs:\t1") && text.contains("Seccomp:\t2"), "{text}");
    assert!(text.contains("touch: cannot touch '/etc/planted': Permission denied"), "{text}");
    assert!(text.contains("[Sandbox denied: write to /etc/planted (outside the writable roots"), "{text}");
    assert!(text.contains("done"), "{text}");

    // MCP, as `kubectl exec -i … /bashrt mcp` would be driven.
    let mut mcp = podman.command();
    mcp.args(["exec", "-i", "-w", "/work", "-e", "HOME=/root", &podman.name, "/bashrt", "mcp"]);
    let (first, second) = (|v: &Value| v["id"] == 0, |v: &Value| v["id"] == 1);
    let mcp_answers = drive(
        mcp,
        &[
            (
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
                    "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}),
                Some(&first),
            ),
            (json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), None),
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "bash",
                    "arguments": {"command": "echo from inside; ls / | head -n 3"}}}),
                Some(&second),
            ),
        ],
    );
    assert_eq!(mcp_answers[0]["result"]["serverInfo"]["name"], "bashrt", "{}", mcp_answers[0]);
    let shown = mcp_answers[1]["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(shown.starts_with("from inside\nbashrt\nbin\n"), "{shown}");
    // Nothing the calls started is left in the container.
    let top = podman.run(&["top", &podman.name, "args"]);
    assert!(!top.contains("bash"), "{top}");
}
