#!/usr/bin/env python3
"""The sandbox's denial reports on cases nobody who wrote the sandbox picked (`cases.json`: 20 commands
the default policy refuses, each with the kind and the path or address it is about, and 20 ordinary
permission errors inside the workspace, written down before any scoring).

Each case runs through `bashrt run --json` in a fresh git workspace under /tmp, with HOME a fresh
directory outside every writable root (holding the credentials and config files the cases name), after
its `setup` (run unconfined). A refused case counts when a denial of its kind names its path (or a path
it leads to: `~/.gitconfig.lock` for `~/.gitconfig`, a directory above a file) or its address; an
ordinary case counts when no denial is reported (no false blame).

    python3 bench/sandbox_denials/run.py --bashrt target/release/bashrt   (as root: HOME goes under /var/lib)
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

HOME_FILES = {
    ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n",
    ".aws/credentials": "[default]\naws_access_key_id = AKIAEXAMPLE\n",
    ".bashrc": "# rc\n",
    ".gitconfig": "[user]\n\tname = t\n\temail = t@t\n",
    ".config/gh/hosts.yml": "github.com:\n  oauth_token: x\n",
    ".netrc": "machine example.com login me password pw\n",
    "notes.txt": "notes\n",
}
HOME_DIRS = [".cache", ".cargo/registry", ".cargo/bin", ".local/bin", ".npm"]


def make_home(parent):
    home = tempfile.mkdtemp(prefix="denial-home-", dir=parent)
    for d in HOME_DIRS:
        os.makedirs(os.path.join(home, d), exist_ok=True)
    for name, text in HOME_FILES.items():
        path = os.path.join(home, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return home


def matches(case, denial, home):
    if denial.get("kind") != case["kind"]:
        return False
    expected = case["path"] or ""
    if case["kind"] == "network":
        return denial.get("address") == expected
    got = denial.get("path") or ""
    norm = lambda p: p.replace(home, "~")
    got, expected = norm(got), norm(expected)
    return got == expected or got.startswith(expected) or expected.startswith(got.rstrip("/") + "/")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bashrt", default="target/release/bashrt")
    parser.add_argument("--cases", default=os.path.join(os.path.dirname(__file__), "cases.json"))
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    bashrt = os.path.abspath(args.bashrt)
    cases = json.load(open(args.cases))
    parent = "/var/lib" if os.geteuid() == 0 else os.path.expanduser("~")
    right = {"denied": 0, "ordinary": 0}
    total = {"denied": 0, "ordinary": 0}
    for case in cases:
        home = make_home(parent)
        work = tempfile.mkdtemp(prefix="denial-ws-")
        env = dict(os.environ, HOME=home, BASHRT_STATE_DIR=os.path.join(work, ".state"))
        env.pop("BASHRT_SETTINGS", None)
        try:
            subprocess.run(["git", "init", "-q"], cwd=work, env=env, check=True)
            if case.get("setup"):
                subprocess.run(["bash", "-c", case["setup"]], cwd=work, env=env, capture_output=True, timeout=30)
            out = subprocess.run([bashrt, "run", "--json", "--timeout", "20", "--", case["command"]],
                                 cwd=work, env=env, capture_output=True, text=True, timeout=60)
            result = json.loads(out.stdout)
            denials = ((result.get("details") or {}).get("sandbox") or {}).get("denials") or []
            total[case["expect"]] += 1
            if case["expect"] == "denied":
                ok = any(matches(case, d, home) for d in denials)
            else:
                ok = not denials
            right[case["expect"]] += ok
            if args.verbose or not ok:
                shown = result["content"][0]["text"].replace("\n", " | ")[:300]
                print(f"{'ok ' if ok else 'MISS'} {case['id']}: expected {case['kind']} {case['path']}; got {denials}\n     {shown}")
        finally:
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
    print(f"refusals reported with the right kind and path or address: {right['denied']}/{total['denied']}")
    print(f"ordinary permission errors not blamed on the sandbox: {right['ordinary']}/{total['ordinary']}")


if __name__ == "__main__":
    main()
