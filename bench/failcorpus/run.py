#!/usr/bin/env python3
"""Scores what a model sees of real failing runs: the excerpt view (`bash.view=smart`, the default)
against the plain tail (`bash.view=tail`), and, computed here for reference, a 25 KB head + 25 KB
tail split.

For each case of cases.py: set it up in a scratch directory, run its command through
`bashrt run --json`, take the full output from the call's artifact, then run the tail view over the
same bytes (`bashrt run --json --set bash.view=tail -- cat ARTIFACT`). A needed line (from the case's
rule) counts as present when a line of the view has the same text (a leading `N:`/`N-` line number
of the excerpt is ignored). Prints a Markdown table.

    bench/failcorpus/run.py [--bashrt target/release/bashrt] [--work /tmp/bashrt-failcorpus] [--only NAME]...
"""

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES  # noqa: E402

NUMBERED = re.compile(r"^\d+[:-]")
BUDGET = 50 * 1024


def view_lines(text):
    """The lines of a view, each also without the excerpt's line number."""
    counts = collections.Counter()
    for line in text.split("\n"):
        counts[line.strip()] += 1
        if NUMBERED.match(line):
            counts[NUMBERED.sub("", line, count=1).strip()] += 1
    return counts


def score(full_lines, case, text):
    rules = [(r, None) if isinstance(r, str) else (r[0], r[1]) for r in case["needed"]]
    taken = [0] * len(rules)
    needed = []
    for line in full_lines:
        for i, (pattern, limit) in enumerate(rules):
            if re.search(pattern, line) and (limit is None or taken[i] < limit):
                taken[i] += 1
                needed.append(line)
                break
    counts = view_lines(text)
    present = 0
    for line in needed:
        key = line.strip()
        if counts[key] > 0:
            counts[key] -= 1
            present += 1
    first = next((l for l in full_lines if re.search(case["first"], l)), None)
    first_shown = first is not None and view_lines(text)[first.strip()] > 0
    return {"needed": len(needed), "present": present, "first": first, "first_shown": first_shown,
            "view_bytes": len(text.encode())}


def head_tail(full, budget):
    """A 50/50 head + tail split of `budget` bytes, cut on lines."""
    half = budget // 2
    head = full[:half]
    head = head[: head.rfind(b"\n") + 1] if b"\n" in head else head
    tail = full[-half:]
    tail = tail[tail.find(b"\n") + 1:] if b"\n" in tail else tail
    return (head + b"\n...\n" + tail).decode("utf-8", "replace")


def run_json(bashrt, env, cwd, args):
    proc = subprocess.run([bashrt, "run", "--json", "--session", "failcorpus"] + args, cwd=cwd, env=env,
                          capture_output=True)
    return json.loads(proc.stdout)


def clean(line):
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line).replace("\r", "")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bashrt", default=os.path.join(repo, "target/release/bashrt"))
    ap.add_argument("--work", default="/tmp/bashrt-failcorpus")
    ap.add_argument("--only", action="append")
    ap.add_argument("--json", help="write the raw results here")
    args = ap.parse_args()
    bashrt = os.path.abspath(args.bashrt)
    os.makedirs(args.work, exist_ok=True)
    state = os.path.join(args.work, "state")
    env = dict(os.environ, BASHRT_STATE_DIR=state, CARGO_TERM_COLOR="never", NO_COLOR="1")
    env.pop("BASHRT_SETTINGS", None)

    results = []
    for case in CASES:
        if args.only and case["name"] not in args.only:
            continue
        cwd = os.path.join(args.work, case["name"])
        os.makedirs(cwd, exist_ok=True)
        setup = subprocess.run(["bash", "-c", case["setup"]], cwd=cwd, env=env, capture_output=True, text=True)
        if setup.returncode != 0:
            print(f"{case['name']}: setup failed:\n{setup.stderr[-2000:]}", file=sys.stderr)
            continue
        smart = run_json(bashrt, env, cwd, ["--", case["command"]])
        trunc = (smart.get("details", {}).get("meta") or {}).get("truncation")
        if not trunc or trunc.get("artifactId") is None:
            print(f"{case['name']}: output not truncated ({smart['details']}); skipped", file=sys.stderr)
            continue
        paths = glob.glob(os.path.join(state, "sessions", "*", "artifacts", f"{trunc['artifactId']}.bash.log"))
        with open(paths[0], "rb") as f:
            full = f.read()
        tail = run_json(bashrt, env, cwd, ["--set", "bash.view=tail", "--", f"cat {paths[0]}"])
        full_lines = [clean(l) for l in full.decode("utf-8", "replace").split("\n")]
        row = {
            "name": case["name"],
            "what": case["what"],
            "lines": len(full_lines),
            "bytes": len(full),
            "exit": smart["details"].get("exitCode"),
            "smart": score(full_lines, case, smart["content"][0]["text"]),
            "tail": score(full_lines, case, tail["content"][0]["text"]),
            "headtail": score(full_lines, case, head_tail(full, BUDGET)),
            "error_lines": trunc.get("errorLines"),
        }
        if row["smart"]["needed"] == 0:
            print(f"{case['name']}: the rule matched no line of the output; skipped", file=sys.stderr)
            continue
        results.append(row)
        print(f"{case['name']}: done", file=sys.stderr)

    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print_table(results)


def print_table(results):
    def cell(s):
        share = 100.0 * s["present"] / s["needed"]
        return f"{share:.0f}% ({s['present']}/{s['needed']})", "yes" if s["first_shown"] else "**no**"

    print("| case | output | needed lines | excerpt: needed | first error | view | tail: needed | first error "
          "| view | head+tail 25+25 KB: needed | first error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    totals = {k: [0, 0, 0, 0] for k in ("smart", "tail", "headtail")}
    for r in results:
        cells = []
        for k in ("smart", "tail", "headtail"):
            s = r[k]
            t = totals[k]
            t[0] += s["present"]
            t[1] += s["needed"]
            t[2] += s["first_shown"]
            t[3] = max(t[3], s["view_bytes"])
            cells.append(cell(s))
        print(f"| {r['name']} | {r['lines']} lines, {r['bytes'] / 1024:.0f} KB | {r['smart']['needed']} "
              f"| {cells[0][0]} | {cells[0][1]} | {r['smart']['view_bytes'] / 1024:.1f} KB "
              f"| {cells[1][0]} | {cells[1][1]} | {r['tail']['view_bytes'] / 1024:.1f} KB "
              f"| {cells[2][0]} | {cells[2][1]} |")
    n = len(results)
    line = "| **all {n} cases** | | {need} | **{s:.0f}%** | **{sf}/{n}** | max {sb:.1f} KB | **{t:.0f}%** | **{tf}/{n}** " \
           "| max {tb:.1f} KB | **{h:.0f}%** | **{hf}/{n}** |"
    share = lambda k: 100.0 * totals[k][0] / max(totals[k][1], 1)  # noqa: E731
    print(line.format(n=n, need=totals["smart"][1], s=share("smart"), sf=totals["smart"][2],
                      sb=totals["smart"][3] / 1024, t=share("tail"), tf=totals["tail"][2],
                      tb=totals["tail"][3] / 1024, h=share("headtail"), hf=totals["headtail"][2]))
    mean = lambda k: 100.0 * sum(r[k]["present"] / r[k]["needed"] for r in results) / max(n, 1)  # noqa: E731
    print(f"\nMean per-case share of needed lines: excerpt {mean('smart'):.0f}%, tail {mean('tail'):.0f}%, "
          f"head+tail {mean('headtail'):.0f}%.")


if __name__ == "__main__":
    main()
