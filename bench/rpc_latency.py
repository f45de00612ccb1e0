#!/usr/bin/env python3
"""`bashrt rpc` latency and memory, against the floors measured by the same client in the same run.

Measures (run pinned, e.g. `taskset -c 0 bench/rpc_latency.py --bashrt target/release/bashrt`):

1. Start to first response, --starts times each (a fresh server per start, stdin closed after the
   answer; exit time and VmHWM after the answer are recorded too):
   - `get_state`: spawn -> its response (the server's own start-up: nothing but a ping);
   - `bash true`: spawn -> the response of `{"type":"bash","command":"true"}` (the first command
     starts a long-lived shell and, with the default `bash.snapshot`, captures the snapshot of the
     user's rc in an interactive bash first);
   - the same with `--set bash.snapshot=false`;
   - `tool_call true`: spawn -> its `tool_execution_end`.
   Every request is written right after spawn, before the server could read it (there is no greeting).
2. Per call through one warm server (default settings): N round trips each (after --warmup), in
   blocks of --block, round-robin over the rows with rotating order:
   - `bash true`, `bash /bin/true`: write the request, read to its `response` (session level,
     the session's warm shell);
   - `tool_call true`, `tool_call /bin/true`: write the request, read to its `tool_execution_end`
     (the accepted response and `tool_execution_start` come first);
   - `get_state` (diagnostic): the transport alone (input thread, dispatch, JSON both ways, one line
     back), no command, no worker thread;
   - floors, same client code: `floor-driven` (a bare `bash --noprofile --norc` on pipes: write
     `CMD; printf '\\n__END_%d_%s__\\n' $? ID`, read to the sentinel) for both
     commands, and `floor-fresh` (posix_spawn `bash -c CMD`, wait) for both.
   Each round trip is timed alone (perf_counter_ns), the final line parsed and checked (exit 0).
   Per row, the client's own CPU time and that of the shell running the row's commands are summed
   too (means per call): on one CPU, where everything runs in turn, the mean round trip minus both
   is what the server and the kernel between the processes took.
3. Memory of that server: VmHWM (peak RSS) and VmRSS from /proc/PID/status after the warm calls,
   after one bulk `bash` (`head -c 100M /dev/zero | base64`, 141,649,744 bytes, its `bash_update`
   events read and dropped) and after the same command as a `tool_call`; plus the RSS of its shells.

The server runs with BASHRT_STATE_DIR in a fresh temporary directory (deleted at the end), in a
scratch working directory, with the environment given (bench/run.sh sets a scratch HOME holding
Debian's default .bashrc, so the snapshot is the same on every machine).

Output: a JSON object (--out FILE) and a table on stderr.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time

BULK = "head -c 100M /dev/zero | base64"
BULK_BYTES = 141_649_744


def quantile(xs, q):
    """Nearest rank, as the Rust harness."""
    xs = sorted(xs)
    rank = max(1, min(len(xs), math.ceil(q * len(xs))))
    return xs[rank - 1]


def summary(samples_ns):
    us = [s / 1e3 for s in samples_ns]
    return {"n": len(us), "p50_us": quantile(us, 0.5), "p90_us": quantile(us, 0.9), "p99_us": quantile(us, 0.99),
            "mean_us": statistics.fmean(us), "min_us": min(us), "max_us": max(us)}


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


def schedstat_ns(pid):
    """CPU time a single-threaded process has used so far (ns, from /proc/PID/schedstat); 0 if none."""
    if not pid:
        return 0
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0])
    except (FileNotFoundError, ProcessLookupError):
        return 0


def children(pid):
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
    except FileNotFoundError:
        pass
    return out


def role(pid):
    """What a child of the server is: the reaper (bashrt-reaper in its argv) or a long-lived shell."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except FileNotFoundError:
        return "gone"
    return "reaper" if b"bashrt-reaper" in argv else os.path.basename(argv[0].decode(errors="replace"))


class Lines:
    """Reads whole lines from a pipe fd with large reads (never one byte at a time)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()
        self.pos = 0

    def next(self):
        while True:
            nl = self.buf.find(b"\n", self.pos)
            if nl >= 0:
                line = bytes(self.buf[self.pos:nl])
                self.pos = nl + 1
                if self.pos > 1 << 20:
                    del self.buf[:self.pos]
                    self.pos = 0
                return line
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise EOFError("the server closed its stdout")
            self.buf += chunk


class Server:
    def __init__(self, bashrt, extra, env, cwd):
        self.r_in, w_in = os.pipe()
        r_out, self.w_out = os.pipe()
        self.stdin_w = w_in
        self.stdout_r = r_out
        err = open(os.path.join(cwd, "..", "rpc-stderr.log"), "ab")
        actions = [
            (os.POSIX_SPAWN_DUP2, self.r_in, 0),
            (os.POSIX_SPAWN_DUP2, self.w_out, 1),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
            (os.POSIX_SPAWN_CLOSE, w_in),
            (os.POSIX_SPAWN_CLOSE, r_out),
        ]
        argv = [bashrt, "rpc", "--session", "bench", *extra]
        old = os.getcwd()
        os.chdir(cwd)
        try:
            self.t0 = time.perf_counter_ns()
            self.pid = os.posix_spawn(bashrt, argv, env, file_actions=actions)
        finally:
            os.chdir(old)
        os.close(self.r_in)
        os.close(self.w_out)
        err.close()
        self.lines = Lines(self.stdout_r)
        self.next_id = 0

    def send(self, obj):
        data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[os.write(self.stdin_w, data):]

    def bash(self, command):
        """Sends a `bash` request; returns its response (events before it are dropped)."""
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "type": "bash", "command": command})
        tag = b'"type":"response"'
        while True:
            line = self.lines.next()
            if tag in line:
                msg = json.loads(line)
                if msg.get("id") == rid:
                    return msg

    def tool_call(self, command):
        """Sends a `tool_call`; returns its `tool_execution_end` event."""
        self.next_id += 1
        rid = self.next_id
        call_id = f"c{rid}"
        self.send({"id": rid, "type": "tool_call", "toolCallId": call_id, "name": "bash",
                   "arguments": {"command": command}})
        needle = f'"toolCallId":"{call_id}"'.encode()
        while True:
            line = self.lines.next()
            if b'"tool_execution_end"' in line and needle in line:
                return json.loads(line)
            if b'"success":false' in line:
                raise RuntimeError(f"tool_call refused: {line!r}")

    def get_state(self):
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "type": "get_state"})
        while True:
            msg = json.loads(self.lines.next())
            if msg.get("id") == rid and msg.get("type") == "response":
                return msg

    def close(self):
        """Closes stdin and waits; returns (exit code, seconds to exit)."""
        t = time.perf_counter_ns()
        os.close(self.stdin_w)
        # Drain stdout so the server never blocks on a full pipe while shutting down.
        while os.read(self.stdout_r, 1 << 20):
            pass
        _, status = os.waitpid(self.pid, 0)
        os.close(self.stdout_r)
        return os.waitstatus_to_exitcode(status), (time.perf_counter_ns() - t) / 1e9


def check_bash(msg, want_exit=0):
    if not msg.get("success") or msg["data"].get("exitCode") != want_exit:
        raise RuntimeError(f"bash failed: {msg}")
    return msg


def check_tool(msg):
    if msg.get("isError") or msg["result"]["details"].get("exitCode") != 0:
        raise RuntimeError(f"tool_call failed: {msg}")
    return msg


class Driven:
    """The driven-shell floor (docs/design.md, "Delivering a command"): one bash on pipes, command + sentinel printf on stdin."""

    def __init__(self, cmd, cwd):
        self.cmd = cmd
        r_in, self.w = os.pipe()
        self.r, w_out = os.pipe()
        devnull = os.open("/dev/null", os.O_WRONLY)
        bash = shutil.which("bash")
        self.pid = os.posix_spawn(bash, [bash, "--noprofile", "--norc"], dict(os.environ), file_actions=[
            (os.POSIX_SPAWN_DUP2, r_in, 0), (os.POSIX_SPAWN_DUP2, w_out, 1), (os.POSIX_SPAWN_DUP2, devnull, 2),
            (os.POSIX_SPAWN_CLOSE, self.w), (os.POSIX_SPAWN_CLOSE, self.r)])
        for fd in (r_in, w_out, devnull):
            os.close(fd)
        self.id = 0

    def call(self):
        self.id += 1
        os.write(self.w, f"{self.cmd}; printf '\\n__END_%d_%s__\\n' $? {self.id}\n".encode())
        got = b""
        while not got.endswith(b"__\n"):
            chunk = os.read(self.r, 4096)
            if not chunk:
                raise EOFError("driven bash closed its stdout")
            got += chunk
        if got != f"\n__END_0_{self.id}__\n".encode():
            raise RuntimeError(f"driven bash: {got!r}")

    def close(self):
        os.close(self.w)
        os.waitpid(self.pid, 0)
        os.close(self.r)


class Fresh:
    """A fresh `bash -c CMD` per call: posix_spawn, wait."""

    def __init__(self, cmd):
        self.bash = shutil.which("bash")
        self.argv = [self.bash, "-c", cmd]
        self.env = dict(os.environ)
        self.actions = [(os.POSIX_SPAWN_OPEN, fd, "/dev/null", os.O_RDWR, 0) for fd in (0, 1, 2)]

    def call(self):
        pid = os.posix_spawn(self.bash, self.argv, self.env, file_actions=self.actions)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            raise RuntimeError(f"bash -c exited {status}")

    def close(self):
        pass


def starts(args, env, work, extra, kind):
    """spawn -> first response of `kind`, fresh state dir each time."""
    rows = []
    for i in range(args.starts):
        state = tempfile.mkdtemp(prefix="state.", dir=work)
        env = dict(env, BASHRT_STATE_DIR=state)
        srv = Server(args.bashrt, extra, env, os.path.join(work, "cwd"))
        if kind == "get_state":
            msg = srv.get_state()
            ok = msg.get("success")
        elif kind == "tool_call":
            ok = not check_tool(srv.tool_call("true")).get("isError")
        else:
            ok = check_bash(srv.bash("true")).get("success")
        t1 = time.perf_counter_ns()
        hwm = status_kib(srv.pid, "VmHWM")
        code, exit_s = srv.close()
        shutil.rmtree(state, ignore_errors=True)
        if not ok or code != 0:
            raise RuntimeError(f"start {kind}: ok={ok} exit={code}")
        rows.append({"ms": (t1 - srv.t0) / 1e6, "hwm_kib": hwm, "exit_ms": exit_s * 1e3})
    ms = [r["ms"] for r in rows]
    return {"n": len(ms), "p50_ms": quantile(ms, 0.5), "p90_ms": quantile(ms, 0.9), "max_ms": max(ms),
            "min_ms": min(ms), "hwm_kib_median": statistics.median(r["hwm_kib"] for r in rows),
            "exit_ms_median": statistics.median(r["exit_ms"] for r in rows), "runs": rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bashrt", required=True, help="the bashrt binary (release)")
    ap.add_argument("--n", type=int, default=1000, help="timed round trips per row")
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--block", type=int, default=100)
    ap.add_argument("--starts", type=int, default=15, help="fresh servers per start-up row")
    ap.add_argument("--no-bulk", action="store_true", help="skip the bulk commands (RSS after bulk)")
    ap.add_argument("--label", default="")
    ap.add_argument("--out", help="write the results as JSON here")
    a = ap.parse_args()
    a.bashrt = os.path.abspath(a.bashrt)

    work = tempfile.mkdtemp(prefix="bashrt-rpc-bench.")
    os.makedirs(os.path.join(work, "cwd"))
    env = dict(os.environ)
    env.pop("BASHRT_LOG", None)
    result = {"label": a.label, "affinity": sorted(os.sched_getaffinity(0)), "n": a.n, "warmup": a.warmup,
              "block": a.block, "home": env.get("HOME"), "start": {}, "calls": [], "memory": {}}
    try:
        # 1. Start to first response.
        for name, kind, extra in [("get_state", "get_state", []), ("bash true", "bash", []),
                                  ("bash true, snapshot off", "bash", ["--set", "bash.snapshot=false"]),
                                  ("tool_call true", "tool_call", [])]:
            result["start"][name] = starts(a, env, work, extra, kind)

        # 2. Warm round trips.
        state = tempfile.mkdtemp(prefix="state.", dir=work)
        srv = Server(a.bashrt, [], dict(env, BASHRT_STATE_DIR=state), os.path.join(work, "cwd"))
        rows = [
            ("floor-driven", "true", Driven("true", work).call),
            ("floor-fresh", "true", Fresh("true").call),
            ("rpc bash", "true", lambda: check_bash(srv.bash("true"))),
            ("rpc tool_call", "true", lambda: check_tool(srv.tool_call("true"))),
            ("floor-driven", "/bin/true", Driven("/bin/true", work).call),
            ("floor-fresh", "/bin/true", Fresh("/bin/true").call),
            ("rpc bash", "/bin/true", lambda: check_bash(srv.bash("/bin/true"))),
            ("rpc tool_call", "/bin/true", lambda: check_tool(srv.tool_call("/bin/true"))),
            ("rpc get_state", "-", lambda: srv.get_state()["success"] or sys.exit("get_state failed")),
        ]
        samples = {i: [] for i in range(len(rows))}
        # Whose shell runs each row's commands: the one that appears while the row warms up (the
        # driven floors own theirs). Its CPU time (schedstat, ns) and the client's own (process_time)
        # are summed per row, so that on one CPU, where everything runs in turn, a round trip splits
        # into client + shell + the rest (the server and the kernel between them).
        shells = {}
        known = set(children(srv.pid))
        for i, (_, _, call) in enumerate(rows):
            for _ in range(a.warmup):
                call()
            owner = getattr(call, "__self__", None)
            if isinstance(owner, Driven):
                shells[i] = owner.pid
            else:
                new = [k for k in children(srv.pid) if k not in known and role(k) != "reaper"]
                known.update(new)
                if len(new) == 1:
                    shells[i] = new[0]
                elif rows[i][0] in ("rpc bash", "rpc tool_call"):
                    # A row whose commands run in the shell an earlier row started.
                    shells[i] = next((shells[j] for j in range(i) if rows[j][0] == rows[i][0] and j in shells), None)
        client_ns = {i: 0 for i in range(len(rows))}
        shell_ns = {i: 0 for i in range(len(rows))}
        rounds = -(-a.n // a.block)
        for r in range(rounds):
            for j in range(len(rows)):
                i = (r + j) % len(rows)
                call = rows[i][2]
                c0, s0 = time.process_time_ns(), schedstat_ns(shells.get(i))
                for _ in range(min(a.block, a.n - len(samples[i]))):
                    t = time.perf_counter_ns()
                    call()
                    samples[i].append(time.perf_counter_ns() - t)
                client_ns[i] += time.process_time_ns() - c0
                shell_ns[i] += schedstat_ns(shells.get(i)) - s0
        for i, (row, cmd, _) in enumerate(rows):
            stats = summary(samples[i])
            # CPU per call, means; the shell's own, without the programs it forks (/bin/true).
            stats["client_cpu_us"] = client_ns[i] / len(samples[i]) / 1e3
            stats["shell_cpu_us"] = shell_ns[i] / len(samples[i]) / 1e3 if i in shells and shells[i] else None
            result["calls"].append({"row": row, "cmd": cmd, **stats})

        # 3. Memory.
        mem = result["memory"]
        mem["after_calls"] = {"hwm_kib": status_kib(srv.pid, "VmHWM"), "rss_kib": status_kib(srv.pid, "VmRSS")}
        if not a.no_bulk:
            t = time.perf_counter_ns()
            msg = check_bash(srv.bash(BULK))
            d = msg["data"]
            if d.get("totalBytes") != BULK_BYTES:
                raise RuntimeError(f"bulk bash: {d.get('totalBytes')} bytes")
            mem["after_bulk_bash"] = {"hwm_kib": status_kib(srv.pid, "VmHWM"), "rss_kib": status_kib(srv.pid, "VmRSS"),
                                      "seconds": (time.perf_counter_ns() - t) / 1e9}
            t = time.perf_counter_ns()
            check_tool(srv.tool_call(BULK))
            mem["after_bulk_tool_call"] = {"hwm_kib": status_kib(srv.pid, "VmHWM"),
                                           "rss_kib": status_kib(srv.pid, "VmRSS"),
                                           "seconds": (time.perf_counter_ns() - t) / 1e9}
        kids = children(srv.pid)
        mem["children"] = [{"pid": k, "role": role(k), "rss_kib": status_kib(k, "VmRSS")} for k in kids]
        code, _ = srv.close()
        if code != 0:
            raise RuntimeError(f"server exited {code}")
        for _, _, call in rows:
            owner = getattr(call, "__self__", None)
            if owner is not None:
                owner.close()
    except BaseException:
        log = os.path.join(work, "rpc-stderr.log")
        if os.path.exists(log):
            with open(log, errors="replace") as f:
                sys.stderr.write("server stderr (tail):\n" + f.read()[-4000:])
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)
    cpus = ",".join(map(str, result["affinity"]))
    p = lambda *x: print(*x, file=sys.stderr)
    p(f"rpc latency (CPUs {cpus}; {a.n} calls per row after {a.warmup} warm-up, blocks of {a.block})")
    p(f"  {'start to first response':<28} {'p50':>9} {'p90':>9} {'max':>9} {'VmHWM':>9} {'exit':>8}")
    for name, s in result["start"].items():
        p(f"  {name:<28} {s['p50_ms']:7.2f}ms {s['p90_ms']:7.2f}ms {s['max_ms']:7.2f}ms "
          f"{s['hwm_kib_median'] / 1024:6.1f}MiB {s['exit_ms_median']:6.1f}ms")
    p(f"  {'row':<16} {'cmd':<10} {'p50 µs':>9} {'p90 µs':>9} {'p99 µs':>9} {'mean µs':>9} {'client':>7} {'shell':>7}")
    for c in result["calls"]:
        shell = f"{c['shell_cpu_us']:7.1f}" if c["shell_cpu_us"] is not None else "      -"
        p(f"  {c['row']:<16} {c['cmd']:<10} {c['p50_us']:9.1f} {c['p90_us']:9.1f} {c['p99_us']:9.1f} {c['mean_us']:9.1f} "
          f"{c['client_cpu_us']:7.1f} {shell}")
    for k, v in result["memory"].items():
        if k != "children":
            p(f"  memory {k:<22} VmHWM {v['hwm_kib'] / 1024:.1f} MiB, VmRSS {v['rss_kib'] / 1024:.1f} MiB"
              + (f", {v['seconds']:.2f} s" if "seconds" in v else ""))
    p("  children: " + ", ".join(f"{c['role']} {c['rss_kib'] / 1024:.1f} MiB" for c in result["memory"]["children"]))


if __name__ == "__main__":
    main()
