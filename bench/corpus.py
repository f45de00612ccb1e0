#!/usr/bin/env python3
"""Fidelity of `bashrt run` against plain bash on a corpus of real commands nobody here wrote.

Usage: bench/corpus.py CORPUS.jsonl [--bashrt PATH] [--timeout SECS] [--limit N] [--only ID,...]
                       [--show N] [--out FILE.jsonl] [--set KEY=VALUE]...

CORPUS.jsonl has one command per line, `{"id", "src", "cmd"}` (the differential corpus of NL2Bash and
tldr-pages commands: it is not part of this repository). Each command runs twice through
`bash -c CMD 2>&1` (two runs that disagree make the command nondeterministic) and once through
`bashrt run --json -- CMD`, each time in a freshly made scratch tree at the same path. The text the
model reads, with bashrt's notices taken off its end, is compared with bash's output (final newlines
trimmed), and the exit statuses are compared. Prints the match rate and the categories of mismatches.

The commands are real and can be destructive (`rm -rf`, `kill`, `chmod -R`): every run is made as the
user `nobody`, in a new network namespace (no network), with limits on processes, file size and CPU
time, in a scratch directory, under a per-command timeout that kills its whole process group. Needs
root (to switch to `nobody` and unshare the network), `setpriv` and `unshare` (util-linux).
"""

import argparse
import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import zipfile

NOBODY = 65534
TREE_FILES = {
    "file": "first line\nsecond line\nthird line\n",
    "file.txt": "hello world\nfoo bar\nbaz qux\nfoo again\n",
    "file1.txt": "a\nb\nc\n",
    "file2.txt": "b\nc\nd\n",
    "filename": "some content\n",
    "infile": "line one\nline two\n",
    "input.txt": "3\n1\n2\n",
    "output.txt": "old output\n",
    "data.json": '{"name": "x", "items": [1, 2, 3]}\n',
    "data.csv": "name,age\nann,31\nbob,25\n",
    "script.sh": "#!/bin/sh\necho from script\n",
    "main.c": "int main(void) { return 0; }\n",
    "test.py": "print('hi')\n",
    "index.html": "<html><body>hi</body></html>\n",
    "notes.md": "# Notes\n- one\n- two\n",
    "log.txt": "INFO start\nERROR failed\nINFO end\n",
    "dir/a.txt": "in dir\n",
    "dir/b.log": "log line\n",
    "dir/sub/c.txt": "deep\n",
    "path/to/file": "nested file\n",
    "path/to/dir/x.txt": "x\n",
    "src/main.rs": "fn main() {}\n",
    "src/lib.js": "module.exports = 1;\n",
    "images/a.jpg": "",
    "images/b.png": "",
    "empty": "",
}


FIXED_TIME = 1_700_000_000  # every file of the tree has this mtime, so listings do not depend on the run


def make_template(root):
    """The scratch tree's template: files with the names the corpus uses, and a few archives."""
    os.makedirs(root)
    for name, text in TREE_FILES.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    os.chmod(os.path.join(root, "script.sh"), 0o755)
    with tarfile.open(os.path.join(root, "archive.tar"), "w") as t:
        info = t.gettarinfo(os.path.join(root, "file.txt"), arcname="file.txt")
        info.mtime, info.uid, info.gid, info.uname, info.gname = FIXED_TIME, 0, 0, "", ""
        with open(os.path.join(root, "file.txt"), "rb") as f:
            t.addfile(info, f)
    subprocess.run(["gzip", "-k", "-n", os.path.join(root, "file")], check=True)
    with zipfile.ZipFile(os.path.join(root, "archive.zip"), "w") as z:
        z.write(os.path.join(root, "file1.txt"), arcname="file1.txt")
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for n in dirnames + filenames:
            path = os.path.join(dirpath, n)
            os.chown(path, NOBODY, NOBODY)
            os.utime(path, (FIXED_TIME, FIXED_TIME))
    os.chown(root, NOBODY, NOBODY)
    os.utime(root, (FIXED_TIME, FIXED_TIME))


def make_tree(template, root):
    """A fresh copy of the template at `root` (commands change the tree)."""
    if os.path.exists(root):
        subprocess.run(["chmod", "-R", "u+rwx", root], stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)
    subprocess.run(["cp", "-a", template, root], check=True)


def limits():
    import resource
    os.setsid()
    resource.setrlimit(resource.RLIMIT_NPROC, (512, 512))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def sandboxed(argv, cwd, env, timeout):
    """Runs argv as nobody without network; returns (stdout bytes, status or None on timeout)."""
    full = ["unshare", "--net", "--", "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    p = subprocess.Popen(full + argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, preexec_fn=limits)
    try:
        out, _ = p.communicate(timeout=timeout)
        # Killed by a signal: the status a shell reports for it (128 + N), as bashrt reports it.
        return out, p.returncode if p.returncode >= 0 else 128 - p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
        return out, None
    finally:
        # Whatever the command left running as nobody in its session goes too.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def is_notice(line):
    return ((line.startswith("[") and line.endswith("]")) or line.startswith("Command exited with code ")
            or line.startswith("Command failed: "))


def body(text):
    """The output without the block of notices bashrt appends after a blank line."""
    at = text.rfind("\n\n")
    if at >= 0 and text[at + 2:] and all(is_notice(l) for l in text[at + 2:].split("\n")):
        text = text[:at]
    elif text and all(is_notice(l) for l in text.split("\n")):
        text = ""
    return "" if text == "(no output)" else text


def lossy(b):
    return b.decode("utf-8", "replace")


LINE_NO = re.compile(r"^(/bin/bash|/usr/bin/bash|bash)(: -c)?: line \d+: ", re.M)
ENV_WORDS = ("BASHRT_", "ARTIFACTS=", "GIT_EDITOR", "GIT_TERMINAL_PROMPT", "PAGER=", "CI=", "DEBIAN_FRONTEND")


def classify(cmd, bash1, bash2, rt):
    """The category of one command: match, or why not."""
    (o1, s1), (o2, s2), (ort, srt, details) = bash1, bash2, rt
    if s1 is None or s2 is None or srt is None:
        return "timeout"
    w, g = o1.rstrip("\n"), ort.rstrip("\n")
    if w == g and s1 == srt:
        return "match"
    if o1 != o2 or s1 != s2:
        return "nondet"
    if LINE_NO.sub("bash: line N: ", w) == LINE_NO.sub("bash: line N: ", g) and s1 == srt:
        return "lineno"
    if any(word in g for word in ENV_WORDS):
        return "env-by-design"
    if details.get("normalization"):
        return "extracted-limit"
    if w == g:
        return "status-only"
    if "&" in cmd and w.startswith(g):
        return "background-output-lost"
    if "<(" in cmd or ">(" in cmd:
        return "process-substitution"
    if g.startswith(w) or w.startswith(g):
        return "output-cut"
    return "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--bashrt", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "bashrt"))
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per run (bashrt gets the same --timeout)")
    ap.add_argument("--limit", type=int, help="only the first N commands")
    ap.add_argument("--only", help="only these ids, comma separated")
    ap.add_argument("--show", type=int, default=3, help="examples to print per mismatch category")
    ap.add_argument("--out", help="write one JSON line per command here")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting for bashrt (e.g. sandbox.mode=off to compare with the sandbox off)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("corpus.py must run as root: every command runs as nobody, without network")

    rows = [json.loads(l) for l in open(args.corpus) if l.strip()]
    if args.only:
        ids = {s.strip() for s in args.only.split(",")}
        rows = [r for r in rows if str(r["id"]) in ids]
    if args.limit:
        rows = rows[: args.limit]

    top = tempfile.mkdtemp(prefix="bashrt-corpus-")
    os.chmod(top, 0o755)
    binary = os.path.join(top, "bashrt")
    shutil.copy(args.bashrt, binary)
    os.chmod(binary, 0o755)
    dirs = {n: os.path.join(top, n) for n in ("home", "state", "tmp")}
    for d in dirs.values():
        os.makedirs(d)
        os.chown(d, NOBODY, NOBODY)
    tree = os.path.join(top, "work")
    template = os.path.join(top, "template")
    make_template(template)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": dirs["home"], "TMPDIR": dirs["tmp"], "LANG": "C.UTF-8",
           "USER": "nobody", "SHELL": shutil.which("bash"), "BASHRT_STATE_DIR": dirs["state"]}

    counts = collections.Counter()
    examples = collections.defaultdict(list)
    out = open(args.out, "w") if args.out else None
    try:
        for n, row in enumerate(rows, 1):
            cmd = row["cmd"]
            runs = []
            for _ in range(2):
                make_tree(template, tree)
                o, s = sandboxed(["bash", "-c", 'exec 2>&1; exec bash -c "$1"', "bash", cmd], tree, env,
                                 args.timeout)
                runs.append((lossy(o), s))
            make_tree(template, tree)
            sets = [part for kv in args.set for part in ("--set", kv)]
            o, s = sandboxed([binary, "run", "--json", "--timeout", str(int(args.timeout)), *sets, "--", cmd], tree, env,
                             args.timeout + 5)
            try:
                result = json.loads(lossy(o))
                text, details = result["content"][0]["text"], result.get("details", {})
            except (ValueError, KeyError, IndexError):
                text, details = lossy(o), {}
            if details.get("timedOut"):
                s = None
            rt = (body(text), s, details)
            cls = classify(cmd, runs[0], runs[1], rt)
            counts[cls] += 1
            record = {"id": row.get("id"), "src": row.get("src"), "cmd": cmd, "class": cls,
                      "normalization": details.get("normalization"),
                      "bash": {"status": runs[0][1], "output": runs[0][0][:2000]},
                      "bashrt": {"status": rt[1], "output": rt[0][:2000]}}
            if cls != "match" and len(examples[cls]) < args.show:
                examples[cls].append(record)
            if out:
                out.write(json.dumps(record) + "\n")
            if n % 100 == 0:
                print(f"  {n}/{len(rows)}: {counts['match']} match", file=sys.stderr)
    finally:
        if out:
            out.close()
        subprocess.run(["chmod", "-R", "u+rwx", top], stderr=subprocess.DEVNULL)
        shutil.rmtree(top, ignore_errors=True)

    total = sum(counts.values())
    det = total - counts["nondet"] - counts["timeout"]
    print(f"commands: {total}")
    print(f"match: {counts['match']} ({100.0 * counts['match'] / max(total, 1):.1f}% of all, "
          f"{100.0 * counts['match'] / max(det, 1):.1f}% of the {det} deterministic ones that finished)")
    print("mismatches by category:")
    for cls, c in counts.most_common():
        if cls != "match":
            print(f"  {cls:24} {c}")
    for cls, recs in examples.items():
        print(f"\n{cls}:")
        for r in recs:
            print(f"  [{r['id']}] {r['cmd'][:120]}")
            print(f"    bash   ({r['bash']['status']}): {r['bash']['output'][:200]!r}")
            print(f"    bashrt ({r['bashrt']['status']}): {r['bashrt']['output'][:200]!r}")


if __name__ == "__main__":
    main()
