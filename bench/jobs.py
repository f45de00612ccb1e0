#!/usr/bin/env python3
"""Jobs through `bashrt rpc`: how precisely a call yields, how soon a server is seen listening, and the
server's memory while many jobs print.

    bench/jobs.py [--bashrt target/release/bashrt] [--runs 50] [--out FILE]

1. Yield precision: `tool_call` of `sleep 30` with `yield_ms` 1000 and 300, --runs times each; the time
   from writing the request to reading its `tool_execution_end`, less the yield time. Target: p95 within
   yield + 100 ms.
2. Ready detection: `tool_call` of a Python server that sleeps a random 0.3-1.5 s, then listens on an
   ephemeral port of 127.0.0.1 and writes the wall-clock time it called listen() to a file; half the
   runs then print a line (as most servers do), half stay silent; the time from listen() to reading
   the call's `tool_execution_end` (which must say `listening`). Target: p50 <= 350 ms, p95 <= 500 ms.
   Each job is killed with the `job` tool after.
3. Prompt to model told: on a stdin pipe (or, with --stdin pty, a terminal), a Python `input`, a Python `getpass`, a Node `readline`
   question and a bash `read` after a `printf`, --runs times each: from the time the command wrote just
   before it prompted to reading the call's `tool_execution_end` (state `awaitingInput`). Target: p50 <=
   350 ms, p95 <= 500 ms. On a terminal, bash's `read -p` and a hidden `read -s -p` as well.
4. False "waiting for input": quiet commands that read no input (sleep, `tail -f`, a Node timer, a busy
   loop, an idle server, a make rule that sleeps), on a stdin pipe (or terminal) with `yield_ms` 1500, --quiet-runs
   times each: how many came back as `awaitingInput`. Target: 0.
5. Input round trip: a `cat` job on a stdin pipe, --writes times `write` of `x\n` with `until` `^x$`;
   from writing the request to reading its `tool_execution_end` (which holds the echoed `x`). Target:
   p50 <= 5 ms.
6. Memory: 16 jobs, each printing 1 MB/s for --flood-secs (default 60) seconds (a Python loop of 64 KiB
   lines), started with `background: true`; the server's VmRSS/VmHWM from /proc after they end. Target:
   RSS <= 16 MiB.

The server runs with BASHRT_STATE_DIR in a fresh temporary directory. Output: a table on stderr and a
JSON object (--out).
"""

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time

SERVER = r"""
import random, socket, sys, time
time.sleep(random.uniform(0.3, 1.5))
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
open(sys.argv[1], "w").write(repr(time.time()))
if sys.argv[2] == "say":
    print("listening on", s.getsockname(), flush=True)
time.sleep(600)
"""

FLOOD = r"""
import sys, time
line = b"x" * 65535 + b"\n"
end = time.time() + float(sys.argv[1])
while time.time() < end:
    t = time.time()
    for _ in range(16):
        sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
    time.sleep(max(0.0, 1.0 - (time.time() - t)))
"""


class Rpc:
    def __init__(self, bashrt, state):
        env = dict(os.environ, BASHRT_STATE_DIR=state)
        self.proc = subprocess.Popen([bashrt, "rpc"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.n = 0

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put((time.time(), json.loads(line)))
        self.lines.put((time.time(), None))

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def call(self, name, arguments):
        self.n += 1
        call_id = f"c{self.n}"
        sent = time.time()
        self.send({"id": call_id, "type": "tool_call", "toolCallId": call_id, "name": name, "arguments": arguments})
        while True:
            at, message = self.lines.get(timeout=120)
            if message is None:
                raise SystemExit("the server ended")
            if message.get("type") == "tool_execution_end" and message.get("toolCallId") == call_id:
                return sent, at, message["result"]

    def rss(self):
        status = open(f"/proc/{self.proc.pid}/status").read()
        value = lambda key: int(next(l for l in status.splitlines() if l.startswith(key)).split()[1]) / 1024
        return value("VmRSS:"), value("VmHWM:")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bashrt", default="target/release/bashrt")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--flood-secs", type=float, default=60)
    ap.add_argument("--writes", type=int, default=1000)
    ap.add_argument("--parts", default="yield,ready,prompt,quiet,input,flood", help="which measurements, comma-separated")
    ap.add_argument("--stdin", default="pipe", choices=("pipe", "pty"), help="the prompts' and quiet commands' stdin")
    ap.add_argument("--quiet-runs", type=int, default=20)
    ap.add_argument("--out")
    args = ap.parse_args()
    report = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load": open("/proc/loadavg").read().split()[:3]}
    with tempfile.TemporaryDirectory() as state:
        rpc = Rpc(args.bashrt, state)
        # Warm the shell and the snapshot.
        rpc.call("bash", {"command": "true"})

        parts = args.parts.split(",")
        stamp = os.path.join(state, "listened")
        for yield_ms in ((1000, 300) if "yield" in parts else ()):
            late = []
            for _ in range(args.runs):
                sent, at, result = rpc.call("bash", {"command": "sleep 30", "yield_ms": yield_ms})
                job = result["details"]["job"]
                late.append((at - sent) * 1000 - yield_ms)
                rpc.call("job", {"action": "kill", "id": job["id"]})
            report[f"yield_{yield_ms}ms_late_ms"] = {"p50": statistics.median(late), "p95": pct(late, 95), "max": max(late)}

        for mode in (("say", "silent") if "ready" in parts else ()):
            ready = []
            for _ in range(args.runs // 2 or 1):
                command = f"exec python3 -c '{SERVER}' {stamp} {mode}"
                sent, at, result = rpc.call("bash", {"command": command, "yield_ms": 600000})
                job = result["details"]["job"]
                assert job["state"] == "listening", result
                ready.append((at - float(open(stamp).read())) * 1000)
                rpc.call("job", {"action": "kill", "id": job["id"]})
            report[f"ready_{mode}_ms"] = {"p50": statistics.median(ready), "p95": pct(ready, 95), "max": max(ready)}

        # Prompt to model told: a command on a stdin pipe writes the time, prints a prompt and reads;
        # from that time to reading the call's `tool_execution_end` (state `awaitingInput`).
        prompts = {
            "python-input": f"exec python3 -c 'import time; open(\"{stamp}\", \"w\").write(repr(time.time())); input(\"Proceed? [y/N] \")'",
            "python-getpass": f"exec python3 -W ignore -c 'import time, getpass; open(\"{stamp}\", \"w\").write(repr(time.time())); getpass.getpass(\"Password: \")'",
            "node-readline": f"exec node -e 'require(\"fs\").writeFileSync(\"{stamp}\", String(Date.now() / 1000)); const rl = require(\"readline\").createInterface({{input: process.stdin, output: process.stdout}}); rl.question(\"Name? \", (a) => {{ console.log(a); rl.close(); }})'",
            "bash-read": f"date +%s.%N > {stamp}; printf 'Continue? '; read -r a",
        }
        if args.stdin == "pty":
            # On a terminal bash's own prompt shows, and a hidden read is a secret.
            prompts["bash-read"] = f"date +%s.%N > {stamp}; read -r -p 'Continue? ' a"
            prompts["bash-read-secret"] = f"date +%s.%N > {stamp}; read -r -s -p 'Code: ' a"
        suffix = "" if args.stdin == "pipe" else "_pty"
        for name, command in (prompts.items() if "prompt" in parts else ()):
            told = []
            for _ in range(args.runs):
                sent, at, result = rpc.call("bash", {"command": command, "stdin": args.stdin, "yield_ms": 600000})
                job = result["details"]["job"]
                assert job["state"] == "awaitingInput", result
                told.append((at - float(open(stamp).read())) * 1000)
                rpc.call("job", {"action": "kill", "id": job["id"]})
            report[f"prompt_{name}{suffix}_ms"] = {"p50": statistics.median(told), "p95": pct(told, 95), "max": max(told)}

        # Input round trips: a `cat` job on a stdin pipe; each `write` of `x` returns once the echoed
        # line is in (`until`), with the output since the last read.
        # Quiet commands that read no input, on a stdin pipe: none may be told as waiting for input.
        quiet = {
            "sleep": "sleep 30",
            "tail-f": f"touch {stamp}.log; tail -f {stamp}.log",
            "node-timer": "node -e 'setInterval(() => {}, 1000)'",
            "busy-loop": "python3 -c 'while True: pass'",
            "idle-server": "exec python3 -m http.server 0 --bind 127.0.0.1",
            "make-sleep": f"printf 'all:\\n\\tsleep 30\\n' > {stamp}.mk; make -s -f {stamp}.mk",
        }
        for name, command in (quiet.items() if "quiet" in parts else ()):
            false = 0
            for _ in range(args.quiet_runs):
                _, _, result = rpc.call("bash", {"command": command, "stdin": args.stdin, "yield_ms": 1500})
                job = result["details"]["job"]
                false += job["state"] == "awaitingInput"
                rpc.call("job", {"action": "kill", "id": job["id"]})
            report[f"quiet_{name}{suffix}_false_waiting"] = f"{false}/{args.quiet_runs}"
        if "input" in parts:
            input_round_trips(rpc, args, report)
        if "flood" in parts:
            flood(rpc, args, report, state)
        rpc.close()
    for key, value in report.items():
        print(f"{key}: {value}", file=sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)


def input_round_trips(rpc, args, report):
    """A `cat` job on a stdin pipe; each `write` of `x` returns once the echoed line is in."""
    _, _, result = rpc.call("bash", {"command": "cat", "stdin": "pipe", "yield_ms": 600000})
    cat = result["details"]["job"]
    assert cat["state"] == "awaitingInput", result
    trips = []
    for _ in range(args.writes):
        sent, at, answer = rpc.call("job", {"action": "write", "id": cat["id"], "input": "x\n", "until": "^x$"})
        assert answer["content"][0]["text"].startswith("x\n"), answer
        trips.append((at - sent) * 1000)
    rpc.call("job", {"action": "write", "id": cat["id"], "close": True})
    report["input_round_trip_ms"] = {"writes": args.writes, "p50": statistics.median(trips), "p95": pct(trips, 95)}


def flood(rpc, args, report, state):
    """16 jobs printing 1 MB/s each; the server's memory once they ended."""
    path = os.path.join(state, "flood.py")
    with open(path, "w") as f:
        f.write(FLOOD)
    ids = []
    for _ in range(16):
        _, _, result = rpc.call("bash", {"command": f"python3 {path} {args.flood_secs}", "background": True})
        ids.append(result["details"]["job"]["id"])
    peak = 0.0
    for job_id in ids:
        rpc.call("job", {"action": "wait", "id": job_id, "timeout": args.flood_secs + 60})
        peak = max(peak, rpc.rss()[0])
    rss, hwm = rpc.rss()
    report["flood"] = {"jobs": 16, "mb_per_s": 1, "secs": args.flood_secs, "rss_mib_after": rss,
                       "rss_mib_max_seen": peak, "hwm_mib": hwm}


if __name__ == "__main__":
    main()
