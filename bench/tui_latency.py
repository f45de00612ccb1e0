#!/usr/bin/env python3
"""Keystroke-to-redraw latency of `bashrt tui`, idle and during a `yes` flood.

bashrt runs in a pseudo-terminal this script owns (120x40), exactly as in a terminal emulator: the
script writes a key to the terminal and times how long it takes until the character it typed comes
back in bashrt's screen output. Everything between is measured: the terminal, bashrt's input thread,
its event loop, the frame drawn with ratatui, and the write back. The typed characters are circled
digits, which no other part of the screen contains, so the first time one comes back is its redraw.

    python3 bench/tui_latency.py [path/to/bashrt] [--keys N] [--cpus 0,1]

Prints one row per phase (idle, flood) with p50/p90/p99/max in milliseconds and the flood's rate.
"""

import argparse
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import threading
import time

MARKS = "①②③④⑤⑥⑦⑧⑨⑩"
COLS, ROWS = 120, 40


class Screen:
    """Reads everything bashrt writes (so it never blocks on a full terminal) and answers its device
    attribute and cursor position queries, as a terminal emulator does."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.closed = False
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while True:
            try:
                r, _, _ = select.select([self.fd], [], [], 1.0)
                if not r:
                    continue
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            if not data:
                with self.cond:
                    self.closed = True
                    self.cond.notify_all()
                return
            if b"\x1b[c" in data:
                os.write(self.fd, b"\x1b[?62c")
            if b"\x1b[6n" in data:
                os.write(self.fd, b"\x1b[1;1R")
            with self.cond:
                self.buf += data
                self.cond.notify_all()

    def mark(self):
        with self.lock:
            return len(self.buf)

    def wait_for(self, needle, start, timeout=30.0):
        """Waits until `needle` appears after offset `start`; returns the time it was seen."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                if self.buf.find(needle, start) >= 0:
                    return time.perf_counter()
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise TimeoutError(f"{needle!r} never appeared")
                self.cond.wait(left)


def ppid_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def yes_under(root):
    """The pid of the `yes` that `root` (bashrt) started, if it runs."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/comm") as f:
                if f.read().strip() != "yes":
                    continue
            pid = int(name)
            while pid > 1:
                pid = ppid_of(pid)
                if pid == root:
                    return int(name)
        except OSError:
            continue
    return None


def written(pid):
    """Bytes the process has written so far (`wchar` of /proc/PID/io)."""
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def artifact_bytes(state):
    return sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(state) for f in fs if f.endswith(".bash.log"))


def percentile(values, p):
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100 * (len(values) - 1)))))
    return values[k]


def measure(fd, screen, keys):
    """Types `keys` circled digits one at a time; returns each one's keystroke-to-redraw time in ms."""
    out = []
    typed = 0
    for i in range(keys):
        mark = MARKS[i % len(MARKS)].encode()
        start = screen.mark()
        t0 = time.perf_counter()
        os.write(fd, mark)
        t1 = screen.wait_for(mark, start)
        out.append((t1 - t0) * 1000)
        typed += 1
        if typed == 40:  # keep the input line short: clear it, let the frame settle
            os.write(fd, b"\x15")
            time.sleep(0.05)
            typed = 0
    os.write(fd, b"\x15")
    time.sleep(0.05)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bashrt", nargs="?", default="target/release/bashrt")
    ap.add_argument("--keys", type=int, default=300)
    ap.add_argument("--cpus", default=None, help="taskset CPU list for bashrt and its commands")
    args = ap.parse_args()
    state = tempfile.mkdtemp(prefix="bashrt-tui-bench-")
    # A home without rc files: the snapshot capture is quick and the user's rc does not matter.
    env = dict(os.environ, BASHRT_STATE_DIR=state, HOME=state, TERM="xterm-256color")
    argv = [args.bashrt, "tui"]
    if args.cpus:
        argv = ["taskset", "-c", args.cpus] + argv
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        os.execvpe(argv[0], argv, env)
    screen = Screen(fd)
    try:
        screen.wait_for(b"bashrt", 0)
        time.sleep(0.3)
        idle = measure(fd, screen, args.keys)
        os.write(fd, b"yes\r")
        # The flood is on once its artifact grows (it is capped at artifacts.maxBytes, so the flood's
        # size is what `yes` wrote, from /proc).
        deadline = time.monotonic() + 30
        while artifact_bytes(state) < 8 * 2**20:
            if time.monotonic() > deadline:
                raise TimeoutError("the flood never started")
            time.sleep(0.01)
        yes = yes_under(pid)
        before = written(yes)
        flood_start = time.perf_counter()
        flood = measure(fd, screen, args.keys)
        flood_secs = time.perf_counter() - flood_start
        flooded = written(yes) - before
        start = screen.mark()
        os.write(fd, b"\x1b")
        screen.wait_for("⊘ cancelled".encode(), start)
        os.write(fd, b"\x04")
        os.waitpid(pid, 0)
    finally:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        shutil.rmtree(state, ignore_errors=True)
    print(f"bashrt tui keystroke-to-redraw, {COLS}x{ROWS} pty, {args.keys} keys per phase"
          + (f", taskset -c {args.cpus}" if args.cpus else ""))
    print("| phase | p50 ms | p90 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    slow = [(i, round(v, 1)) for i, v in enumerate(flood) if v > 16]
    if slow:
        print(f"flood keys over 16 ms (index, ms): {slow}")
    for name, values in (("idle", idle), ("during `yes` flood", flood)):
        print(f"| {name} | {percentile(values, 50):.2f} | {percentile(values, 90):.2f} | "
              f"{percentile(values, 99):.2f} | {max(values):.2f} |")
    print(f"flood: while the keys were typed, `yes` pushed {flooded / 2**20:.0f} MiB through the sink "
          f"in {flood_secs:.1f} s ({flooded / 2**20 / flood_secs:.0f} MiB/s)")


if __name__ == "__main__":
    sys.exit(main())
