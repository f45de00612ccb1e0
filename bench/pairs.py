#!/usr/bin/env python3
"""Interleaved whole-process timer: runs K commands round-robin, N rounds, and reports medians.

Each command is an argv (split like a shell would, with shlex); leading NAME=VALUE words set the
environment of that command only. It is started with posix_spawn (stdout and stdin on /dev/null,
stderr kept for errors) and reaped with wait4, so each run yields wall time (perf_counter_ns around
spawn..reap), CPU time (user + sys of the command and the descendants it waited for) and peak RSS
(ru_maxrss: the largest single process of that tree, not their sum).

Interleaving (round r starts with command r mod K) makes the ratios robust to load that comes and
goes on a shared machine: every round sees the same conditions for all commands. The ratio of a
command against the first one (the floor) is given two ways: the ratio of the medians, and the
median of the per-round ratios.

Before every single run, each --fresh DIR is deleted and recreated (not timed), so spill files and
state never accumulate and every run writes a fresh file.

usage: pairs.py --name NAME --runs N [--warmup W] [--fresh DIR]... [--out FILE.json] \
           LABEL=CMD [LABEL=CMD ...]
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import sys
import time


def parse_command(spec):
    label, sep, cmd = spec.partition("=")
    if not sep or not label or not cmd:
        sys.exit(f"pairs.py: expected LABEL=CMD, got {spec!r}")
    words = shlex.split(cmd)
    env = dict(os.environ)
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    if not words:
        sys.exit(f"pairs.py: empty command in {spec!r}")
    path = shutil.which(words[0]) or sys.exit(f"pairs.py: not found: {words[0]}")
    return {"label": label, "cmd": cmd, "path": path, "argv": words, "env": env}


def reset(dirs):
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)


def run_once(c):
    """One run: (wall seconds, cpu seconds, peak RSS KiB)."""
    err_r, err_w = os.pipe()
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
        (os.POSIX_SPAWN_DUP2, err_w, 2),
        (os.POSIX_SPAWN_CLOSE, err_r),
    ]
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(c["path"], c["argv"], c["env"], file_actions=actions)
    os.close(err_w)
    # stderr is small (warnings at most); read it to EOF so a chatty command never blocks on it.
    err = b""
    while chunk := os.read(err_r, 65536):
        err += chunk
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter_ns()
    os.close(err_r)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"pairs.py: {c['label']} exited {code}: {c['cmd']}\n{err.decode(errors='replace')}")
    return (t1 - t0) / 1e9, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", required=True)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds first")
    ap.add_argument("--fresh", action="append", default=[], help="dir to recreate before every run")
    ap.add_argument("--out", help="write the results as JSON here")
    ap.add_argument("commands", nargs="+", help="LABEL=CMD; the first one is the floor")
    a = ap.parse_args()
    cmds = [parse_command(s) for s in a.commands]
    k = len(cmds)
    samples = {c["label"]: [] for c in cmds}
    for r in range(a.warmup + a.runs):
        for i in range(k):
            c = cmds[(r + i) % k]
            reset(a.fresh)
            s = run_once(c)
            if r >= a.warmup:
                samples[c["label"]].append(s)
    reset(a.fresh)

    floor = cmds[0]["label"]
    floor_wall = [s[0] for s in samples[floor]]
    out = {"name": a.name, "runs": a.runs, "warmup": a.warmup, "affinity": sorted(os.sched_getaffinity(0)),
           "floor": floor, "commands": []}
    for c in cmds:
        wall = [s[0] for s in samples[c["label"]]]
        cpu = [s[1] for s in samples[c["label"]]]
        rss = [s[2] for s in samples[c["label"]]]
        # Round r of this command is paired with round r of the floor (same conditions).
        per_round = [w / f for w, f in zip(wall, floor_wall)]
        out["commands"].append({
            "label": c["label"], "cmd": c["cmd"],
            "wall_median": statistics.median(wall), "wall_p10": quantile(wall, 0.1),
            "wall_p90": quantile(wall, 0.9), "cpu_median": statistics.median(cpu),
            "maxrss_kib_median": statistics.median(rss),
            "ratio_of_medians": statistics.median(wall) / statistics.median(floor_wall),
            "median_paired_ratio": statistics.median(per_round),
            "paired_ratio_p10": quantile(per_round, 0.1), "paired_ratio_p90": quantile(per_round, 0.9),
            "wall": wall, "cpu": cpu,
        })
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)
    cpus = ",".join(map(str, out["affinity"]))
    print(f"{a.name}  (CPUs {cpus}; {a.runs} interleaved rounds after {a.warmup} warm-up)")
    print(f"  {'command':<22} {'median':>9} {'p10-p90':>17} {'CPU':>8} {'x floor':>8} {'paired (p10-p90)':>20}")
    for c in out["commands"]:
        print(f"  {c['label']:<22} {c['wall_median']*1e3:7.1f}ms "
              f"{c['wall_p10']*1e3:7.1f}-{c['wall_p90']*1e3:7.1f}ms {c['cpu_median']*1e3:6.0f}ms "
              f"{c['ratio_of_medians']:7.2f}x {c['median_paired_ratio']:6.2f}x "
              f"({c['paired_ratio_p10']:.2f}-{c['paired_ratio_p90']:.2f})")


if __name__ == "__main__":
    main()
