#!/usr/bin/env python3
"""Warm `tool_call true` over `bashrt rpc`, confined (the default sandbox) and unconfined
(`sandbox.mode=off`), alternating runs in one process tree: the sandbox's cost per warm call.

    python3 bench/sandbox.py --bashrt target/release/bashrt [--calls 2000] [--rounds 4]
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bashrt", default="target/release/bashrt")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
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
    print(f"median ratio {statistics.median(ratios):.3f}x")


if __name__ == "__main__":
    main()
