#!/usr/bin/env python3
"""Precision and block rate of the interceptor's built-in rules on a judged corpus of real commands.

Usage: bench/intercept_precision.py CORPUS_DIR [--bashrt PATH] [--settings FILE] [--min-precision 0.95]

CORPUS_DIR holds the differential corpus (NL2Bash and tldr-pages commands; it is not part of this
repository): `corpus_meta.json` (counts), `intercept_blocked_judged.jsonl` (every command the earlier
rules blocked with --tools read,grep,find,edit,write,ls, with a heuristic verdict), `corpus_executed.jsonl`
(a sample of all commands, blocked or not), `intercept_manual_sample.md` (blocks checked by hand).

Nothing is executed: the commands go through `bashrt intercept`, which only parses them. The verdict
of a block is, in order: ours below (OWN, by corpus id, with the reason), the hand check, the heuristic.
A block of a command outside the judged files must have an OWN verdict, else the run fails, so a rule
change that blocks something new is judged before its figure is recorded.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOLS = "read,grep,find,edit,write,ls"

# Our verdicts where the heuristic's differs, keyed by corpus id.
OWN = {
    4967: ("justified", "one literal replacement in one file: one exact-text edit (it also replaces later lines' "
                        "first `foo`; the edit tool then asks for a unique match)"),
    6502: ("justified", "--include GLOB is the grep tool's glob"),
    15757: ("justified", "--context N is the grep tool's context"),
    21196: ("justified", "`--` only ends the options"),
    8785: ("justified", "cd DIR && find . -name X is the find tool with a path (as the hand check says of 8729)"),
    9743: ("justified", "a trailing `;` ends the only command"),
}
# `find [DIR] -name A -o -name B …` is one glob with alternatives (`**/{A,B}`), as the hand check says
# of 7931; `sed -i 's/OLD/NEW/g'` of literal text is an edit that replaces every occurrence.
OWN.update({i: ("justified", "-name A -o -name B is one brace glob") for i in (1991, 7975, 9032, 9393, 9415, 10028, 10057)})
OWN.update({i: ("justified", "every occurrence of literal text replaced: the edit tool's replace-all") for i in (4966, 7025)})
# `egrep` is `grep -E`: the grep tool takes extended regular expressions.
OWN.update({i: ("justified", "egrep PATTERN FILE is the grep tool with a regex and a path") for i in range(13650, 13657)})
OWN[17502] = ("justified", "ls -1 lists the names in one directory: the ls tool")


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def hand_verdicts(path):
    """id -> (verdict, note) from the table of the hand check."""
    verdicts = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if len(cells) < 5 or not cells[0].isdigit():
                continue
            mine = cells[3]
            verdict = "justified" if mine.startswith("justified") else "false-positive"
            verdicts[int(cells[0])] = (verdict, mine)
    return verdicts


def find_bashrt(explicit):
    if explicit:
        return explicit
    here = os.path.dirname(os.path.abspath(__file__))
    built = [os.path.join(here, "..", "target", profile, "bashrt") for profile in ("release", "debug")]
    built = [path for path in built if os.path.exists(path)]
    if built:
        return max(built, key=os.path.getmtime)  # the one built last, of whichever profile
    found = shutil.which("bashrt")
    if not found:
        sys.exit("bashrt not found: build it (cargo build --release -p bashrt) or pass --bashrt")
    return found


def verdicts_of(bashrt, settings, commands):
    """id -> bashrt's verdict object, from one `bashrt intercept` run over all commands."""
    lines = "".join(json.dumps({"id": i, "command": c}) + "\n" for i, c in commands.items())
    run = subprocess.run(
        [bashrt, "intercept", "--settings", settings, "--tools", TOOLS],
        input=lines, capture_output=True, text=True, check=False,
    )
    if run.returncode not in (0, 1):
        sys.exit(f"bashrt intercept failed ({run.returncode}): {run.stderr}")
    return {v["id"]: v for v in map(json.loads, run.stdout.splitlines())}


def pct(part, whole):
    return f"{100.0 * part / whole:.2f}%" if whole else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--bashrt")
    parser.add_argument("--settings", help="settings file (default: none, i.e. the built-in rules)")
    parser.add_argument("--min-precision", type=float, default=0.95)
    args = parser.parse_args()

    meta = json.load(open(os.path.join(args.corpus, "corpus_meta.json"), encoding="utf-8"))
    judged = {r["id"]: r for r in load_jsonl(os.path.join(args.corpus, "intercept_blocked_judged.jsonl"))}
    executed = {r["id"]: r for r in load_jsonl(os.path.join(args.corpus, "corpus_executed.jsonl"))}
    hand = hand_verdicts(os.path.join(args.corpus, "intercept_manual_sample.md"))
    commands = {i: r["cmd"] for i, r in {**executed, **judged}.items()}
    source = {i: r["src"] for i, r in {**executed, **judged}.items()}

    with tempfile.TemporaryDirectory() as scratch:
        settings = args.settings
        if settings is None:
            settings = os.path.join(scratch, "settings.json")
            with open(settings, "w", encoding="utf-8") as f:
                f.write("{}")
        verdicts = verdicts_of(find_bashrt(args.bashrt), settings, commands)

    total = meta["counts"]["all"]
    per_source_total = {"nl2bash": meta["counts"]["nl2bash"], "tldr": meta["counts"]["tldr_resolved"]}
    blocks = sorted(i for i, v in verdicts.items() if v.get("blocked"))
    rows, disputed, unjudged = [], [], []
    for i in blocks:
        heuristic = judged[i]["verdict"] if i in judged else None
        if i in OWN:
            final, why, by = *OWN[i], "ours"
        elif i in hand:
            final, why, by = *hand[i], "hand check"
        elif heuristic:
            final, why, by = heuristic, judged[i]["why"], "heuristic"
        else:
            final, why, by = None, "", "-"
            unjudged.append(i)
        rows.append((i, verdicts[i]["rule"], heuristic, final))
        if final != heuristic or final != "justified":
            disputed.append((i, verdicts[i]["rule"], heuristic or "(not judged)", final or "UNJUDGED", by, why))

    justified = sum(1 for r in rows if r[3] == "justified")
    heuristic_justified = sum(1 for r in rows if r[2] == "justified")
    old_justified = [i for i, r in judged.items() if hand.get(i, (r["verdict"],))[0] == "justified"]
    kept = sum(1 for i in old_justified if i in verdicts and verdicts[i].get("blocked"))

    print(f"# Interception precision (`--tools {TOOLS}`)\n")
    print("| | commands | blocked | block rate |")
    print("|---|---|---|---|")
    print(f"| earlier rules (the judged file) | {total} | {len(judged)} | {pct(len(judged), total)} |")
    print(f"| these rules | {total} | {len(blocks)} | **{pct(len(blocks), total)}** |")
    for name, count in per_source_total.items():
        blocked = sum(1 for i in blocks if source[i] == name)
        print(f"| these rules, {name} only | {count} | {blocked} | {pct(blocked, count)} |")
    print()
    print("| rule | blocks | justified | not justified | justified by the heuristic alone |")
    print("|---|---|---|---|---|")
    for rule in sorted({r[1] for r in rows}):
        mine = [r for r in rows if r[1] == rule]
        good = sum(1 for r in mine if r[3] == "justified")
        print(f"| {rule} | {len(mine)} | {good} | {len(mine) - good} | {sum(1 for r in mine if r[2] == 'justified')} |")
    print(f"| **all** | **{len(rows)}** | **{justified}** | **{len(rows) - justified}** | {heuristic_justified} |")
    print()
    precision = justified / len(rows) if rows else 1.0
    print(f"Precision: **{justified}/{len(rows)} = {pct(justified, len(rows))}** of blocks justified "
          f"({pct(heuristic_justified, len(rows))} by the heuristic verdicts alone).")
    print(f"Justified blocks of the earlier rules still blocked: {kept}/{len(old_justified)} "
          f"({pct(kept, len(old_justified))}).")
    outside = [i for i in blocks if i not in judged]
    print(f"Blocks outside the judged file: {len(outside)}.\n")
    if disputed:
        print("Blocks whose verdict is not the heuristic's, or not justified:\n")
        print("| id | rule | heuristic | verdict | by | why | command |")
        print("|---|---|---|---|---|---|---|")
        for i, rule, heuristic, final, by, why in disputed:
            command = commands[i].replace("|", "\\|").replace("\n", "\\n")
            print(f"| {i} | {rule} | {heuristic} | {final} | {by} | {why} | `{command}` |")
    if unjudged:
        sys.exit(f"\n{len(unjudged)} blocks have no verdict (ids {unjudged}): judge them and add them to OWN")
    if precision < args.min_precision:
        sys.exit(f"\nprecision {precision:.4f} is below {args.min_precision}")


if __name__ == "__main__":
    main()
