#!/usr/bin/env python3
"""User-space instructions per warm call, counted by valgrind's callgrind: a figure of the work a
call costs that, unlike a time, does not move with the machine's other load (the same binary, calls
and environment give the same count within a fraction of a percent).

    bench/instructions.py [--calls N] [--bin PATH ...] [--bash PATH] [--keep DIR]

For each bashrt binary (default target/release/bashrt) it runs `bashrt rpc` twice, with a few and
with N more `bash` calls of `true`, and reports the difference divided by N for
  - the long-lived shell (the shell bashrt starts is a wrapper that runs bash under callgrind), and
  - the server process (bashrt itself under callgrind, all its threads, with a plain bash);
and once, as the floor, the shell of the least runner that keeps calls apart (the `runner` relay of
crates/cli/benches/rpc_latency.rs: a `read -N` loop given with `-c`, its call pipe and report pipe
held for good, an output pipe per call opened by `/proc` path), driven from here.

Instructions are not time: a system call counts as the few instructions around it, whatever the
kernel spends, and a cache miss as one. Use it to see what a change to the runner or the server's
per-call path costs in the shell's or the server's own work; time the result with rpc_latency.
Needs valgrind and bash. About 1 minute per binary.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

FEW = 20


def summary(path):
    """The total instruction count of one callgrind output file."""
    with open(path) as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit(f"no summary in {path}")


def drive(binary, calls, scratch, shell=None, server_out=None):
    """Runs `bashrt rpc` for `calls` calls of `true`, then one `exit 0` so that a shell under
    callgrind ends normally and writes its counts."""
    state = tempfile.mkdtemp(dir=scratch, prefix="state-")
    argv = [binary, "rpc", "--set", "bash.snapshot=false"]
    if shell:
        argv += ["--set", f"shellPath={shell}"]
    if server_out:
        argv = ["valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={server_out}"] + argv
    env = dict(os.environ, BASHRT_STATE_DIR=state)
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=env)
    for i, command in enumerate(["true"] * calls + ["exit 0"]):
        request = {"id": str(i), "type": "bash", "command": command}
        server.stdin.write(json.dumps(request).encode() + b"\n")
        server.stdin.flush()
        while True:
            line = server.stdout.readline()
            if not line:
                raise SystemExit("the server ended early")
            if b'"type":"response"' in line:
                break
        if i >= 2 and command == "true" and b"reused the shell" not in line:
            raise SystemExit(f"call {i} did not reuse its shell: {line[:300]!r}")
    server.stdin.close()
    server.wait()


def bashrt_counts(binary, calls, scratch, bash, keep=None, label="bashrt"):
    """(shell, server) instructions per call of `binary`; with `keep`, the callgrind files of the
    longer runs are copied there as `<label>.shell.callgrind` and `<label>.server.callgrind*`."""
    wrap_dir = tempfile.mkdtemp(dir=scratch, prefix="wrap-")
    out_dir = tempfile.mkdtemp(dir=scratch, prefix="cg-")
    # Named `bash`: bashrt keeps only a bash as a long-lived shell.
    wrapper = os.path.join(wrap_dir, "bash")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec valgrind -q --tool=callgrind "
                f"--callgrind-out-file={out_dir}/shell.%p {bash} \"$@\"\n")
    os.chmod(wrapper, 0o755)

    def shell_total(n):
        for old in glob.glob(f"{out_dir}/shell.*"):
            os.remove(old)
        drive(binary, n, scratch, shell=wrapper)
        # The long-lived shell did the most work of the shells started (a snapshot capture or a
        # one-shot shell would be smaller).
        longest = max(glob.glob(f"{out_dir}/shell.*"), key=summary)
        if keep and n > FEW:
            shutil.copy(longest, os.path.join(keep, f"{label}.shell.callgrind"))
        return summary(longest)

    def server_total(n):
        out = os.path.join(out_dir, f"server.{n}")
        drive(binary, n, scratch, server_out=out)
        files = glob.glob(out + "*")
        if keep and n > FEW:
            for path in files:
                suffix = os.path.basename(path)[len(os.path.basename(out)):]
                shutil.copy(path, os.path.join(keep, f"{label}.server.callgrind{suffix}"))
        return sum(summary(p) for p in files)

    shell = (shell_total(FEW + calls) - shell_total(FEW)) / calls
    server = (server_total(FEW + calls) - server_total(FEW)) / calls
    return shell, server


LEAST_RUNNER = (
    "while read -r -N 16 h; do read -r -N \"${{h:0:4}}\" c; "
    "eval \"$c\" </dev/null >{fd_dir}\"${{h:4}}\" 2>&1; printf '%s %s\\0' \"$?\" \"$PWD\"; done"
)


def least_runner_count(calls, scratch, bash):
    """Instructions per call of the least runner's shell, driven over its protocol from here."""
    out_dir = tempfile.mkdtemp(dir=scratch, prefix="cg-least-")

    def total(n):
        out = os.path.join(out_dir, f"least.{n}")
        runner = LEAST_RUNNER.format(fd_dir=f"/proc/{os.getpid()}/fd/")
        shell = subprocess.Popen(
            ["valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={out}", bash,
             "--noprofile", "--norc", "-c", runner],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for _ in range(n):
            read_end, write_end = os.pipe()
            shell.stdin.write(b"0004" + str(write_end).rjust(12, "/").encode() + b"true")
            shell.stdin.flush()
            got = b""
            while not got.endswith(b"\0"):
                chunk = shell.stdout.read1(4096)
                if not chunk:
                    raise SystemExit("the least runner ended early")
                got += chunk
            os.close(write_end)
            while os.read(read_end, 65536):
                pass
            os.close(read_end)
        shell.stdin.close()
        shell.wait()
        return summary(out)

    return (total(FEW + calls) - total(FEW)) / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls measured (default 1000)")
    parser.add_argument("--bin", action="append", default=[],
                        help="a bashrt binary, LABEL=PATH or PATH (default target/release/bashrt)")
    parser.add_argument("--bash", help="the bash to count (default: the one on PATH); a build with "
                        "symbols lets callgrind_annotate name its functions")
    parser.add_argument("--keep", help="a directory to copy the callgrind files of the measured runs to, "
                        "for callgrind_annotate")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is needed")
    bash = os.path.realpath(args.bash or shutil.which("bash") or "")
    if not os.access(bash, os.X_OK):
        raise SystemExit("bash is needed")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binaries = args.bin or [os.path.join(repo, "target", "release", "bashrt")]
    with tempfile.TemporaryDirectory(prefix="bashrt-instructions-") as scratch:
        rows = [("floor: the least runner, shell", least_runner_count(args.calls, scratch, bash), None)]
        for entry in binaries:
            label, _, path = entry.rpartition("=")
            label = label or os.path.basename(path)
            shell, server = bashrt_counts(os.path.abspath(path), args.calls, scratch, bash, args.keep, label)
            rows.append((f"{label}: bash true", shell, server))
    print(f"user-space instructions per warm call ({args.calls} calls, callgrind):")
    for name, shell, server in rows:
        server_text = "" if server is None else f"   server {server / 1000:7.1f} K"
        print(f"  {name:<40} shell {shell / 1000:7.1f} K{server_text}")


if __name__ == "__main__":
    sys.exit(main())
