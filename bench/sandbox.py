#!/usr/bin/env python3
"""The sandbox's cost, confined (the default sandbox) against unconfined (`sandbox.mode=off`),
alternating in one run:

- warm `tool_call true` over `bashrt rpc` (the paired per-round figure is best taken with
  `crates/cli/benches/rpc_latency.rs --bin confined=… --bin off=<a wrapper adding --set sandbox.mode=off>`);
- `bashrt run -- true` (a one-shot call: the policy compiled, the shell forked and confined);
- inside one call: 2,000 loopback connects to a server the call started, and 50 `git status` in a
  repository (`--repo`, default this one).

    python3 bench/sandbox.py --bashrt target/release/bashrt [--calls 2000] [--rounds 4] [--repo DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


def run(bashrt, extra, calls, cwd):
    p = subprocess.Popen([bashrt, "rpc", *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=cwd)
    n = 0

    def call(command):
        nonlocal n
        n += 1
        request = {"id": f"c{n}", "type": "tool_call", "toolCallId": f"t{n}", "name": "bash",
                   "arguments": {"command": command}}
        p.stdin.write(json.dumps(request) + "\n")
        p.stdin.flush()
        while True:
            message = json.loads(p.stdout.readline())
            if message.get("type") == "tool_execution_end":
                return message["result"]

    for _ in range(200):
        call("true")
    started = time.perf_counter()
    for _ in range(calls):
        call("true")
    elapsed = (time.perf_counter() - started) / calls * 1e6
    p.stdin.close()
    p.wait()
    return elapsed


CONNECTS = r"""
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(128)
port = s.getsockname()[1]; n = 2000
t = time.perf_counter()
for _ in range(n):
    c = socket.create_connection(("127.0.0.1", port)); a, _ = s.accept(); a.close(); c.close()
print((time.perf_counter() - t) / n * 1e6)
"""

GIT_STATUS = "s=$(date +%s%N); for i in $(seq 50); do git status >/dev/null; done; e=$(date +%s%N); echo $(( (e - s) / 50000 ))"


def inside(bashrt, extra, command, cwd):
    """The number the command prints, run through `bashrt run`."""
    out = subprocess.run([bashrt, "run", *extra, "--", command], cwd=cwd, capture_output=True, text=True)
    return float(out.stdout.split()[0])


def one_shot(bashrt, extra, cwd, n=40):
    times = []
    for _ in range(n):
        started = time.perf_counter()
        subprocess.run([bashrt, "run", *extra, "--", "true"], cwd=cwd, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bashrt", default="target/release/bashrt")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = parser.parse_args()
    args.bashrt = os.path.abspath(args.bashrt)
    ratios = []
    with tempfile.TemporaryDirectory() as work:
        for i in range(args.rounds):
            confined = run(args.bashrt, [], args.calls, work)
            unconfined = run(args.bashrt, ["--set", "sandbox.mode=off"], args.calls, work)
            ratios.append(confined / unconfined)
            print(f"round {i}: confined {confined:.1f} us/call, unconfined {unconfined:.1f} us/call, "
                  f"{confined / unconfined:.3f}x")
    print(f"warm tool_call true: median ratio {statistics.median(ratios):.3f}x")
    off = ["--set", "sandbox.mode=off"]
    with tempfile.TemporaryDirectory() as work:
        runs = [(one_shot(args.bashrt, [], work), one_shot(args.bashrt, off, work)) for _ in range(args.rounds)]
        print("bashrt run -- true, ms (confined, unconfined):", [(round(a, 2), round(b, 2)) for a, b in runs],
              f"median ratio {statistics.median(a / b for a, b in runs):.3f}x")
        runs = [(inside(args.bashrt, [], f"python3 -c '{CONNECTS}'", work),
                 inside(args.bashrt, off, f"python3 -c '{CONNECTS}'", work)) for _ in range(args.rounds)]
        print("loopback connect+accept, us (confined, unconfined):", [(round(a, 1), round(b, 1)) for a, b in runs],
              f"median difference {statistics.median(a - b for a, b in runs):+.1f} us")
    runs = [(inside(args.bashrt, [], GIT_STATUS, args.repo), inside(args.bashrt, off, GIT_STATUS, args.repo))
            for _ in range(args.rounds)]
    print("git status, us (confined, unconfined):", runs, f"median ratio {statistics.median(a / b for a, b in runs):.3f}x")


if __name__ == "__main__":
    main()
