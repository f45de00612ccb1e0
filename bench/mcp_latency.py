#!/usr/bin/env python3
"""`bashrt mcp` latency and memory, against `bashrt rpc` measured by the same client in the same run.

Usage: bench/mcp_latency.py --bashrt target/release/bashrt [--starts 20] [--calls 500] [--out FILE.json]

A bare JSON-lines client (no SDK, so the figures are the server's), over pipes:

1. Start to first answer, --starts times each, a fresh server per start:
   - `mcp initialize`: spawn -> the `initialize` result (the server's own start-up);
   - `mcp tools/call true`: spawn, write `initialize`, `notifications/initialized` and a `tools/call`
     of `bash` with `true` at once -> the call's result (the first call starts the long-lived shell);
   - `rpc tool_call true`: spawn -> the `tool_execution_end` of a `tool_call` of `true` (the same tool
     call through `bashrt rpc`).
   Both with the default settings (the snapshot of $HOME's rc files: bench/run.sh gives a scratch HOME
   holding Debian's default .bashrc) and with `bash.snapshot=false`.
2. Warm round trips through one server each, --calls times, interleaved MCP/RPC: `tools/call` of `true`
   to its result, against `tool_call` of `true` to its `tool_execution_end`.
3. Peak RSS (VmHWM) of each server after its warm calls.

Targets (issue 10): first answer <= 20 ms, warm call <= 2x the RPC round trip, RSS <= 20 MiB.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def spawn(bashrt, mode, env, extra=()):
    return subprocess.Popen(
        [bashrt, mode, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, bufsize=0
    )


def send(proc, message):
    proc.stdin.write((json.dumps(message) + "\n").encode())


def read_until(proc, done):
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the server closed stdout")
        message = json.loads(line)
        if done(message):
            return message


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def mcp_call(i, command="true"):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "bash", "arguments": {"command": command}}}


def rpc_call(i, command="true"):
    return {"type": "tool_call", "id": f"r{i}", "toolCallId": f"t{i}", "name": "bash", "arguments": {"command": command}}


def is_result(i):
    return lambda m: m.get("id") == i and ("result" in m or "error" in m)


def is_end(i):
    return lambda m: m.get("type") == "tool_execution_end" and m.get("toolCallId") == f"t{i}"


def stop(proc):
    proc.stdin.close()
    proc.wait()


def vm_hwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def ms(ns):
    return ns / 1e6


def summary(samples):
    xs = sorted(samples)
    return {"median_ms": ms(statistics.median(xs)), "p90_ms": ms(xs[int(0.9 * (len(xs) - 1))]), "min_ms": ms(xs[0]), "n": len(xs)}


def starts(bashrt, env, n, extra):
    rows = {"mcp initialize": [], "mcp tools/call true": [], "rpc tool_call true": []}
    for _ in range(n):
        t0 = time.perf_counter_ns()
        p = spawn(bashrt, "mcp", env, extra)
        send(p, INIT)
        read_until(p, is_result(0))
        rows["mcp initialize"].append(time.perf_counter_ns() - t0)
        stop(p)

        t0 = time.perf_counter_ns()
        p = spawn(bashrt, "mcp", env, extra)
        send(p, INIT)
        send(p, INITIALIZED)
        send(p, mcp_call(1))
        answer = read_until(p, is_result(1))
        rows["mcp tools/call true"].append(time.perf_counter_ns() - t0)
        assert answer["result"]["_meta"]["bashrt/details"]["exitCode"] == 0, answer
        stop(p)

        t0 = time.perf_counter_ns()
        p = spawn(bashrt, "rpc", env, extra)
        send(p, rpc_call(1))
        end = read_until(p, is_end(1))
        rows["rpc tool_call true"].append(time.perf_counter_ns() - t0)
        assert not end["isError"], end
        stop(p)
    return {k: summary(v) for k, v in rows.items()}


def warm(bashrt, env, calls):
    mcp = spawn(bashrt, "mcp", env)
    send(mcp, INIT)
    read_until(mcp, is_result(0))
    send(mcp, INITIALIZED)
    rpc = spawn(bashrt, "rpc", env)
    times = {"mcp tools/call true": [], "rpc tool_call true": []}
    for i in range(1, calls + 21):
        order = [("mcp", mcp), ("rpc", rpc)] if i % 2 else [("rpc", rpc), ("mcp", mcp)]
        for kind, proc in order:
            t0 = time.perf_counter_ns()
            if kind == "mcp":
                send(proc, mcp_call(i))
                read_until(proc, is_result(i))
            else:
                send(proc, rpc_call(i))
                read_until(proc, is_end(i))
            if i > 20:  # warm-up
                times[f"{kind} tools/call true" if kind == "mcp" else "rpc tool_call true"].append(time.perf_counter_ns() - t0)
    rss = {"mcp VmHWM MiB": vm_hwm_kib(mcp.pid) / 1024, "rpc VmHWM MiB": vm_hwm_kib(rpc.pid) / 1024}
    stop(mcp)
    stop(rpc)
    result = {k: summary(v) for k, v in times.items()}
    result["ratio of medians (mcp/rpc)"] = result["mcp tools/call true"]["median_ms"] / result["rpc tool_call true"]["median_ms"]
    result.update(rss)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bashrt", default="target/release/bashrt")
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--out")
    args = parser.parse_args()
    args.bashrt = os.path.abspath(args.bashrt)
    scratch = tempfile.mkdtemp(prefix="bashrt-mcp-bench-")
    try:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", scratch),
            "BASHRT_STATE_DIR": os.path.join(scratch, "state"),
        }
        os.chdir(scratch)
        report = {
            "loadavg": open("/proc/loadavg").read().split()[:3],
            "starts (default settings)": starts(args.bashrt, env, args.starts, ()),
            "starts (bash.snapshot=false)": starts(args.bashrt, env, args.starts, ("--set", "bash.snapshot=false")),
            "warm": warm(args.bashrt, env, args.calls),
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    text = json.dumps(report, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
