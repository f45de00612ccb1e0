#!/usr/bin/env python3
"""Scores what a model sees of real failing runs: the excerpt view (`bash.view=smart`, the default)
against the plain tail (`bash.view=tail`), and, computed here over the same full output, three
head + tail splits: 25 KB + 25 KB (a reference of bashrt's size), Codex's (the first and the last
20,000 bytes, cut on lines: about 40,000 bytes, half head, half tail) and Claude Code's (30,000
characters with the middle cut: the first and the last 15,000 characters).

Six sets of cases: cases.py (`old`), cases_fresh.py (`fresh`, of other kinds, with rules written by
someone who had not seen how the excerpt picks lines), cases_heldout.py (`heldout`, a second such set of
yet other kinds), cases_third.py (`third`, a third such set, scored first after the excerpt had been
tuned on the other three), cases_fourth.py (`fourth`, a fourth, scored first after the tuning on the
third) and cases_fifth.py (`fifth`, a fifth, scored first after the tuning on the fourth).
For each case: set it up in a scratch
directory, run its command through `bashrt run --json`, take the full output from the call's
artifact, then run the tail view over the same bytes (`bashrt run --json --set bash.view=tail -- cat
ARTIFACT`). An output that fits bashrt's budget is shown whole by bashrt (both views are the output);
it is still scored, since the peers' budgets are smaller. A needed line (from the case's rule) counts
as present when a line of the view has the same text (a leading `N:`/`N-` line number of the excerpt
is ignored). Prints one Markdown table per set.

    bench/failcorpus/run.py [--bashrt target/release/bashrt] [--work /tmp/bashrt-failcorpus]
                            [--cases all|old|fresh|heldout|third|fourth|fifth] [--only NAME]... [--json FILE]
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
from cases import CASES as OLD_CASES  # noqa: E402
from cases_fresh import CASES as FRESH_CASES  # noqa: E402
from cases_heldout import CASES as HELDOUT_CASES  # noqa: E402
from cases_third import CASES as THIRD_CASES  # noqa: E402
from cases_fourth import CASES as FOURTH_CASES  # noqa: E402
from cases_fifth import CASES as FIFTH_CASES  # noqa: E402

NUMBERED = re.compile(r"^\d+[:-]")
BUDGET = 50 * 1024
CODEX_HALF_BYTES = 20_000
CLAUDE_HALF_CHARS = 15_000

# The views scored, in table order: key, column title.
VIEWS = [
    ("smart", "excerpt"),
    ("tail", "tail"),
    ("headtail", "head+tail 25+25 KB"),
    ("codex", "Codex 20+20 KB"),
    ("claude", "Claude Code 15k+15k chars"),
]


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


def head_tail(full, half):
    """The first and the last `half` bytes, cut on lines (the whole output when it fits in 2 * half)."""
    if len(full) <= 2 * half:
        return clean_text(full.decode("utf-8", "replace"))
    head = full[:half]
    head = head[: head.rfind(b"\n") + 1] if b"\n" in head else head
    tail = full[-half:]
    tail = tail[tail.find(b"\n") + 1:] if b"\n" in tail else tail
    return clean_text((head + b"\n...\n" + tail).decode("utf-8", "replace"))


def middle_cut_chars(full, half):
    """The first and the last `half` characters, cut anywhere (the whole output when it fits)."""
    text = full.decode("utf-8", "replace")
    if len(text) <= 2 * half:
        return clean_text(text)
    cut = len(text) - 2 * half
    return clean_text(text[:half] + f"\n\n... [{cut} characters truncated] ...\n\n" + text[-half:])


def run_json(bashrt, env, cwd, args):
    proc = subprocess.run([bashrt, "run", "--json", "--session", "failcorpus"] + args, cwd=cwd, env=env,
                          capture_output=True)
    return json.loads(proc.stdout)


def clean(line):
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line).replace("\r", "")


def clean_text(text):
    return "\n".join(clean(l) for l in text.split("\n"))


NOTICE = re.compile(r"\n\n((?:Command exited with code -?\d+|Command (?:was )?killed by signal .*|\[.*\])\n?)+$")


def whole_output(text):
    """The output of a result that was not cut: its text without the notices bashrt adds at the end."""
    return NOTICE.sub("\n", text)


def run_case(case, bashrt, env, work, state):
    cwd = os.path.join(work, case["name"])
    os.makedirs(cwd, exist_ok=True)
    setup = subprocess.run(["bash", "-c", case["setup"]], cwd=cwd, env=env, capture_output=True, text=True)
    if setup.returncode != 0:
        print(f"{case['name']}: setup failed:\n{setup.stderr[-2000:]}", file=sys.stderr)
        return None
    smart = run_json(bashrt, env, cwd, ["--", case["command"]])
    smart_text = smart["content"][0]["text"]
    trunc = (smart.get("details", {}).get("meta") or {}).get("truncation")
    if trunc and trunc.get("artifactId") is not None:
        paths = glob.glob(os.path.join(state, "sessions", "*", "artifacts", f"{trunc['artifactId']}.bash.log"))
        with open(paths[0], "rb") as f:
            full = f.read()
        tail = run_json(bashrt, env, cwd, ["--set", "bash.view=tail", "--", f"cat {paths[0]}"])
        tail_text = tail["content"][0]["text"]
        whole = False
    elif trunc:
        print(f"{case['name']}: output cut but not kept ({smart['details']}); skipped", file=sys.stderr)
        return None
    else:
        # Shown whole: both of bashrt's views are the output itself.
        full = whole_output(smart_text).encode()
        tail_text = smart_text
        whole = True
    full_lines = [clean(l) for l in full.decode("utf-8", "replace").split("\n")]
    row = {
        "name": case["name"],
        "what": case["what"],
        "lines": len(full_lines),
        "bytes": len(full),
        "whole": whole,
        "exit": smart["details"].get("exitCode"),
        "smart": score(full_lines, case, smart_text),
        "tail": score(full_lines, case, tail_text),
        "headtail": score(full_lines, case, head_tail(full, BUDGET // 2)),
        "codex": score(full_lines, case, head_tail(full, CODEX_HALF_BYTES)),
        "claude": score(full_lines, case, middle_cut_chars(full, CLAUDE_HALF_CHARS)),
        "error_lines": (trunc or {}).get("errorLines"),
    }
    if row["smart"]["needed"] == 0:
        print(f"{case['name']}: the rule matched no line of the output; skipped", file=sys.stderr)
        return None
    if row["smart"]["first"] is None:
        print(f"{case['name']}: the first-error rule matched no line of the output", file=sys.stderr)
    return row


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bashrt", default=os.path.join(repo, "target/release/bashrt"))
    ap.add_argument("--work", default="/tmp/bashrt-failcorpus")
    ap.add_argument("--cases", choices=("all", "old", "fresh", "heldout", "third", "fourth", "fifth"), default="all",
                    help="old: cases.py, fresh: cases_fresh.py, heldout: cases_heldout.py, third: cases_third.py, "
                         "fourth: cases_fourth.py, fifth: cases_fifth.py, all: the six (reported apart)")
    ap.add_argument("--only", action="append")
    ap.add_argument("--json", help="write the raw results here")
    args = ap.parse_args()
    bashrt = os.path.abspath(args.bashrt)
    os.makedirs(args.work, exist_ok=True)
    state = os.path.join(args.work, "state")
    env = dict(os.environ, BASHRT_STATE_DIR=state, CARGO_TERM_COLOR="never", NO_COLOR="1")
    env.pop("BASHRT_SETTINGS", None)

    sets = []
    if args.cases in ("all", "old"):
        sets.append(("old", "cases.py", OLD_CASES))
    if args.cases in ("all", "fresh"):
        sets.append(("fresh", "cases_fresh.py", FRESH_CASES))
    if args.cases in ("all", "heldout"):
        sets.append(("heldout", "cases_heldout.py", HELDOUT_CASES))
    if args.cases in ("all", "third"):
        sets.append(("third", "cases_third.py", THIRD_CASES))
    if args.cases in ("all", "fourth"):
        sets.append(("fourth", "cases_fourth.py", FOURTH_CASES))
    if args.cases in ("all", "fifth"):
        sets.append(("fifth", "cases_fifth.py", FIFTH_CASES))

    results = {}
    for key, _, cases in sets:
        results[key] = []
        for case in cases:
            if args.only and case["name"] not in args.only:
                continue
            row = run_case(case, bashrt, env, args.work, state)
            if row is not None:
                results[key].append(row)
                print(f"{case['name']}: done", file=sys.stderr)

    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    for key, source, _ in sets:
        if results[key]:
            print(f"\n### {key} cases ({source}): {len(results[key])}\n")
            print_table(results[key])


def print_table(results):
    def cell(s):
        share = 100.0 * s["present"] / s["needed"]
        return f"{share:.0f}% ({s['present']}/{s['needed']})", "yes" if s["first_shown"] else "**no**"

    head = "| case | output | needed lines "
    rule = "|---|---|---"
    for k, title in VIEWS:
        head += f"| {title}: needed | first error "
        rule += "|---|---"
        if k in ("smart", "tail"):
            head += "| view "
            rule += "|---"
    print(head + "|")
    print(rule + "|")
    totals = {k: [0, 0, 0, 0] for k, _ in VIEWS}
    for r in results:
        size = f"{r['lines']} lines, {r['bytes'] / 1024:.0f} KB" + (" (shown whole)" if r["whole"] else "")
        line = f"| {r['name']} | {size} | {r['smart']['needed']} "
        for k, _ in VIEWS:
            s = r[k]
            t = totals[k]
            t[0] += s["present"]
            t[1] += s["needed"]
            t[2] += s["first_shown"]
            t[3] = max(t[3], s["view_bytes"])
            need, first = cell(s)
            line += f"| {need} | {first} "
            if k in ("smart", "tail"):
                line += f"| {s['view_bytes'] / 1024:.1f} KB "
        print(line + "|")
    n = len(results)
    line = f"| **all {n} cases** | | {totals['smart'][1]} "
    for k, _ in VIEWS:
        t = totals[k]
        line += f"| **{100.0 * t[0] / max(t[1], 1):.0f}%** ({t[0]}/{t[1]}) | **{t[2]}/{n}** "
        if k in ("smart", "tail"):
            line += f"| max {t[3] / 1024:.1f} KB "
    print(line + "|")
    mean = lambda k: 100.0 * sum(r[k]["present"] / r[k]["needed"] for r in results) / max(n, 1)  # noqa: E731
    print("\nMean per-case share of needed lines: "
          + ", ".join(f"{title} {mean(k):.0f}%" for k, title in VIEWS) + ".")


if __name__ == "__main__":
    main()
