"""Fresh failing runs of kinds cases.py does not hold (linters, JS test runners, memory checkers, configure
steps, git, package managers, process supervisors, today's runtime panics, downloads, early errors in huge
outputs). Same format as cases.py: name, what, setup, command, needed, first.

Each setup installs what it uses itself, pinned: Python tools into a venv in the corpus work dir (`..`),
npm packages into the case's directory, Debian packages with `apt-get install -y` when missing.
The needed/first rules were written from each command's real full output, run plainly in bash, before
any view was scored.
"""

RUFF = "0.17.6"
MYPY = "2.4.1"
PYTEST = "8.3.3"
ESLINT = "10.16.0"
ESLINT_JS = "10.0.1"
JEST = "30.5.2"
CONCURRENTLY = "10.1.0"

CARGO_TOML = """rm -rf src && mkdir -p src
cat > Cargo.toml <<'EOF'
[package]
name = "demo"
version = "0.1.0"
edition = "2021"
EOF
"""

# Debian bookworm packages the cases use, pinned (installed only when the command is missing).
GCC = ("gcc", "gcc=4:12.2.0-3", "libc6-dev=2.36-9+deb12u14")
GXX = ("g++", "g++=4:12.2.0-3")
MAKE = ("make", "make=4.3-4.1")
GIT = ("git", "git=1:2.39.5-0+deb12u3")
WGET = ("wget", "wget=1.21.3-1+deb12u1")
SQLITE = ("sqlite3", "sqlite3=3.40.1-2+deb12u2")
JDK = ("javac", "openjdk-17-jdk-headless=17.0.15+6-1~deb12u1")
VALGRIND = ("valgrind", "valgrind=1:3.19.0-1")
RSYNC = ("rsync", "rsync=3.5.0+ds1-0+deb12u1")
SHELLCHECK = ("shellcheck", "shellcheck=0.9.0-1")
CMAKE = ("cmake", "cmake=3.25.1-1", "cmake-data=3.25.1-1")
NINJA = ("ninja", "ninja-build=1.11.1-2~deb12u1")
GO = ("go", "golang-go=2:1.19~1")


def venv(name, *pins):
    """bash: make ../NAME (a venv in the corpus work dir) holding the pinned packages, once."""
    want = " ".join(pins)
    return f"""
if [ ! -f ../{name}/.pins ] || [ "$(cat ../{name}/.pins)" != "{want}" ]; then
  rm -rf ../{name} && python3 -m venv ../{name} && ../{name}/bin/pip install -q {want} || exit 1
  echo "{want}" > ../{name}/.pins
fi
"""


def apt(*needs):
    """bash: for each (command, pinned package...) whose command is missing, apt-get install the packages."""
    out = ""
    for command, *pkgs in needs:
        out += f"""
if ! command -v {command} >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q {" ".join(pkgs)} >/dev/null || exit 1
fi
"""
    return out


def npm(*pins):
    """bash: npm install the pinned packages into ./node_modules, once."""
    want = " ".join(pins)
    return f"""
if [ ! -f node_modules/.pins ] || [ "$(cat node_modules/.pins)" != "{want}" ]; then
  rm -rf node_modules package-lock.json
  [ -f package.json ] || echo '{{"name": "case", "version": "1.0.0", "private": true}}' > package.json
  npm install --no-audit --no-fund --save-exact {want} >npm-install.log 2>&1 || {{ cat npm-install.log >&2; exit 1; }}
  echo "{want}" > node_modules/.pins
fi
"""


CASES = [
    {
        "name": "ruff-undefined-name",
        "what": "ruff check over 80 modules: ~300 fixable import diagnostics, an undefined name and two bare excepts",
        "setup": venv(".venv-ruff", f"ruff=={RUFF}") + r"""
rm -rf pkg && mkdir -p pkg
python3 - <<'EOF'
for i in range(80):
    src = ["import os", "import sys", "import json", "import re", "from typing import Any", "",
           "", "def handler_%d(event: dict) -> int:" % i, "    total = 0"]
    for k in range(6):
        src.append("    total += len(event.get(%r, ()))" % ("key%d" % k))
    if i == 47:
        src.append("    with open(config_path) as fh:")
        src.append("        total += len(fh.read())")
    if i in (12, 63):
        src += ["    try:", "        total += int(event['n'])", "    except:", "        return -1"]
    src.append("    return total")
    open("pkg/mod_%03d.py" % i, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "../.venv-ruff/bin/ruff check --no-cache pkg 2>&1",
        "needed": [r"^(F821|E722) ", r"--> pkg/mod_047\.py:16:", r"--> pkg/mod_0(12|63)\.py:18:",
                   r"^16 \|\s+with open\(config_path\)", r"^Found \d+ errors\.", r"fixable with `--fix`"],
        "first": r"^F821 Undefined name `config_path`",
    },
    {
        "name": "shellcheck-error-among-infos",
        "what": "shellcheck over 40 deploy scripts: ~400 info/warning notes and one error (a quoted loop list)",
        "setup": apt(SHELLCHECK) + r"""
rm -rf scripts && mkdir -p scripts
python3 - <<'EOF'
for i in range(40):
    src = ["#!/bin/bash", "# deploy step %d" % i, "set -e", "TARGET=${1:-/srv/app%d}" % i, "LOGDIR=$TARGET/logs"]
    for k in range(10):
        src.append("cp $TARGET/conf/file%d.conf $LOGDIR/" % k)
    src.append("cd $TARGET")
    if i == 23:
        src += ['for f in "$(ls $LOGDIR/*.log)"; do', '  gzip "$f"', "done"]
    src.append("echo finished step %d in `pwd`" % i)
    open("scripts/step_%02d.sh" % i, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "shellcheck scripts/*.sh 2>&1",
        "needed": [r"^In scripts/step_23\.sh line 17:", r'^for f in "\$\(ls \$LOGDIR/\*\.log\)"; do', r"SC2066 \(error\)"],
        "first": r"SC2066 \(error\)",
    },
    {
        "name": "eslint-no-undef",
        "what": "eslint (stylish) over 60 files: ~500 unused-variable warnings and one no-undef error",
        "setup": npm(f"eslint@{ESLINT}", f"@eslint/js@{ESLINT_JS}") + r"""
rm -rf src && mkdir -p src
cat > eslint.config.js <<'EOF'
const js = require("@eslint/js");
module.exports = [
  js.configs.recommended,
  {
    languageOptions: { sourceType: "commonjs", globals: { require: "readonly", module: "writable", console: "readonly" } },
    rules: { "no-unused-vars": "warn", "no-empty": "warn" },
  },
];
EOF
python3 - <<'EOF'
for i in range(60):
    src = ["const fs = require('fs');", "const path = require('path');", "const util = require('util');", ""]
    for k in range(8):
        src.append("function helper%d_%d(a, b, c) {" % (i, k))
        src.append("  const unused%d = a + 1;" % k)
        src.append("  return b;")
        src.append("}")
    if i == 41:
        src += ["function loadUser(id) {", "  return usersCache.get(id);", "}"]
    src.append("module.exports = { helper%d_0 };" % i)
    open("src/file_%02d.js" % i, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "node_modules/.bin/eslint src 2>&1",
        "needed": [r"/src/file_41\.js$", r"^\s+38:10\s+error\s+'usersCache' is not defined\s+no-undef",
                   r"^✖ \d+ problems \(1 error, \d+ warnings\)"],
        "first": r"error\s+'usersCache' is not defined",
    },
    {
        "name": "mypy-errors-among-notes",
        "what": "mypy over 50 modules of untyped code: ~400 annotation-unchecked notes around two real errors",
        "setup": venv(".venv-mypy", f"mypy=={MYPY}") + r"""
rm -rf app && mkdir -p app && touch app/__init__.py
python3 - <<'EOF'
for i in range(50):
    src = ["from typing import Optional", ""]
    for k in range(8):
        src += ["def step_%d(rows):" % k, "    seen: dict[str, int] = {}", "    for r in rows:",
                "        seen[r] = seen.get(r, 0) + 1", "    return seen", ""]
    if i == 17:
        src += ["def port(value: Optional[str]) -> int:", "    return int(value) + 1", ""]
    if i == 33:
        src += ["def retries(n: int) -> str:", "    return n * 2", ""]
    open("app/mod_%02d.py" % i, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "../.venv-mypy/bin/mypy --no-incremental --cache-dir=/dev/null app 2>&1",
        "needed": [r"^app/mod_\d+\.py:\d+: error: ", r"^Found 2 errors in 2 files"],
        "first": r"^app/mod_\d+\.py:\d+: error: ",
    },
    {
        "name": "jest-one-failing",
        "what": "jest --verbose --runInBand: 40 suites, 2000 passing tests and one failing expectation in suite 27",
        "setup": npm(f"jest@{JEST}") + r"""
rm -rf test && mkdir -p test
python3 - <<'EOF'
for i in range(40):
    src = ["const price = (base, tier) => base - base * tier * 0.05;", "",
           "describe('pricing %d', () => {" % i]
    for k in range(20 + (i * 37) % 60):
        src.append("  test('rounds order %d', () => { expect(Math.round(%d * 1.5)).toBe(%d); });" % (k, 2 * k, 3 * k))
    if i == 27:
        src += ["  test('applies the tier 3 discount', () => {",
                "    const total = Math.round(price(100, 3));",
                "    expect(total).toBe(90);",
                "  });"]
    src.append("});")
    open("test/pricing_%02d.test.js" % i, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "rm -rf .jest-cache; node_modules/.bin/jest --verbose --runInBand --ci --cacheDirectory=.jest-cache test 2>&1",
        "needed": [[r"^FAIL test/pricing_27\.test\.js", 1], [r"^\s+● pricing 27 › applies the tier 3 discount", 1],
                   [r"^\s+Expected: 90", 1], [r"^\s+Received: 85", 1], [r"^\s+> 65 \|\s+expect\(total\)\.toBe\(90\)", 1],
                   [r"^\s+at Object\.toBe \(test/pricing_27\.test\.js:65:19\)", 1], r"^Tests:\s+1 failed"],
        "first": r"● pricing 27 › applies the tier 3 discount",
    },
    {
        "name": "valgrind-invalid-read",
        "what": "valgrind memcheck on a C program that logs 3000 lines and reads one element past a malloc'd table",
        "setup": apt(GCC, VALGRIND) + r"""
cat > table.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

struct table { int n; int *slots; };

static int lookup(const struct table *t, int key)
{
    if (key < 0 || key > t->n)
        return -1;
    return t->slots[key];
}

static struct table *table_new(int n)
{
    struct table *t = malloc(sizeof *t);
    t->n = n;
    t->slots = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        t->slots[i] = i * 7;
    return t;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct table *t = table_new(100);
    FILE *in = fopen("requests.txt", "r");
    long sum = 0;
    int key, n = 0;
    while (fscanf(in, "%d", &key) == 1) {
        sum += lookup(t, key);
        printf("request %d: key=%d sum=%ld\n", n++, key, sum);
    }
    fclose(in);
    free(t->slots);
    free(t);
    return 0;
}
EOF
python3 -c "print('\n'.join(str(100 if i == 1700 else (i * 37) % 100) for i in range(3000)))" > requests.txt
gcc -g -O0 -o table table.c
""",
        "command": "valgrind --error-exitcode=1 ./table 2>&1",
        "needed": [r"==\d+== Invalid read of size 4", r"==\d+==\s+(at|by) 0x[0-9A-F]+: \w+ \(table\.c:\d+\)",
                   r"==\d+==\s+Address 0x[0-9a-f]+ is 0 bytes after a block of size 400 alloc'd",
                   r"==\d+== ERROR SUMMARY: 1 errors"],
        "first": r"==\d+== Invalid read of size 4",
    },
    {
        "name": "cmake-missing-package",
        "what": "cmake configure: compiler and header checks, then find_package(yaml-cpp REQUIRED) finds nothing",
        "setup": apt(GCC, GXX, CMAKE) + r"""
rm -rf build && mkdir -p src
cat > CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(inventory VERSION 2.3.0 LANGUAGES C CXX)
include(CheckIncludeFile)
include(CheckFunctionExists)
foreach(h unistd.h fcntl.h sys/epoll.h sys/eventfd.h pthread.h dlfcn.h stdint.h inttypes.h)
  string(MAKE_C_IDENTIFIER "HAVE_${h}" var)
  string(TOUPPER "${var}" var)
  check_include_file(${h} ${var})
endforeach()
check_function_exists(clock_gettime HAVE_CLOCK_GETTIME)
find_package(Threads REQUIRED)
find_package(ZLIB)
find_package(yaml-cpp REQUIRED)
add_executable(inventory src/main.cpp)
target_link_libraries(inventory PRIVATE yaml-cpp Threads::Threads)
EOF
echo 'int main() { return 0; }' > src/main.cpp
""",
        "command": "cmake -S . -B build 2>&1",
        "needed": [r"^CMake Error at CMakeLists\.txt:13 \(find_package\):",
                   r'^\s+Could not find a package configuration file provided by "yaml-cpp"',
                   r"^-- Configuring incomplete, errors occurred!"],
        "first": r"^CMake Error at CMakeLists\.txt:13",
    },
    {
        "name": "git-merge-conflict",
        "what": "git merge of a branch touching 3000 files: auto-merges, two content conflicts in the middle",
        "setup": apt(GIT) + r"""
rm -rf repo
export GIT_AUTHOR_NAME=corpus GIT_AUTHOR_EMAIL=corpus@example.invalid GIT_COMMITTER_NAME=corpus GIT_COMMITTER_EMAIL=corpus@example.invalid
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
git -c init.defaultBranch=main init -q repo
cd repo
python3 - <<'EOF'
import os
os.makedirs("src", exist_ok=True)
for i in range(3000):
    open("src/unit_%04d.txt" % i, "w").write("".join("line %d of unit %d\n" % (k, i) for k in range(20)))
EOF
git add -A && git commit -q -m base
git checkout -q -b feature
python3 - <<'EOF'
for i in range(3000):
    p = "src/unit_%04d.txt" % i
    lines = open(p).read().splitlines(True)
    lines[2] = "feature edit of unit %d\n" % i
    if i in (1234, 2071):
        lines[15] = "feature value for unit %d\n" % i
    open(p, "w").writelines(lines)
EOF
git commit -q -am "feature: rework units"
git checkout -q main
python3 - <<'EOF'
for i in range(3000):
    p = "src/unit_%04d.txt" % i
    lines = open(p).read().splitlines(True)
    lines[17 if i not in (1234, 2071) else 15] = "main edit of unit %d\n" % i
    open(p, "w").writelines(lines)
EOF
git commit -q -am "main: rework units"
""",
        "command": "cd repo && git -c merge.conflictStyle=merge merge --no-edit feature 2>&1",
        "needed": [r"^CONFLICT \(content\): Merge conflict in src/unit_(1234|2071)\.txt",
                   r"^Automatic merge failed; fix conflicts and then commit the result\."],
        "first": r"^CONFLICT \(content\): Merge conflict in src/unit_1234\.txt",
    },
    {
        "name": "dpkg-overwrite-conflict",
        "what": "dpkg -i of 400 locally built .debs into a scratch root: one ships a file another package owns",
        "setup": r"""
rm -rf debs root && mkdir -p debs root/var/lib/dpkg/info root/var/lib/dpkg/updates root/var/lib/dpkg/triggers
touch root/var/lib/dpkg/status root/var/lib/dpkg/available
for i in $(seq -w 1 400); do
  d=build/acme-plugin-$i
  rm -rf $d && mkdir -p $d/DEBIAN $d/usr/share/acme/plugins/$i $d/usr/lib/acme/plugins
  printf 'Package: acme-plugin-%s\nVersion: 1.%s.0\nArchitecture: all\nMaintainer: Corpus <corpus@example.invalid>\nDescription: acme plugin %s\n' $i $i $i > $d/DEBIAN/control
  for f in $(seq 1 5); do echo "plugin $i part $f" > $d/usr/share/acme/plugins/$i/part$f.conf; done
  echo "plugin $i" > $d/usr/lib/acme/plugins/plugin-$i.so
  if [ $i = 231 ]; then echo "shared" > $d/usr/lib/acme/plugins/plugin-102.so; fi
  dpkg-deb --root-owner-group -Zxz --build $d debs/acme-plugin-${i}_1.${i}.0_all.deb >/dev/null
done
rm -rf build
""",
        "command": "dpkg --root=$PWD/root --force-not-root --force-script-chrootless --log=/dev/null -i debs/*.deb 2>&1",
        "needed": [r"^dpkg: error processing archive debs/acme-plugin-231_1\.231\.0_all\.deb \(--install\):",
                   r"^ trying to overwrite '/usr/lib/acme/plugins/plugin-102\.so', which is also in package acme-plugin-102",
                   r"^Errors were encountered while processing:", r"^ debs/acme-plugin-231_1\.231\.0_all\.deb$"],
        "first": r"^dpkg: error processing archive ",
    },
    {
        "name": "pip-resolution-impossible",
        "what": "pip install -v of pinned requirements whose pins conflict (flask 3.0.0 needs Werkzeug>=3.0.0)",
        "setup": venv(".venv-pipres", "pip==24.3.1") + r"""
cat > requirements.txt <<'EOF'
flask==3.0.0
werkzeug==2.3.8
jinja2==3.1.4
itsdangerous==2.2.0
click==8.1.7
requests==2.32.3
EOF
""",
        "command": "../.venv-pipres/bin/pip install -v --dry-run --no-cache-dir -r requirements.txt 2>&1",
        "needed": [r"^ERROR: Cannot install .* because these package versions have conflicting dependencies",
                   r"^\s+The user requested werkzeug==2\.3\.8", r"^\s+flask 3\.0\.0 depends on Werkzeug>=3\.0\.0",
                   r"^ERROR: ResolutionImpossible"],
        "first": r"^ERROR: Cannot install ",
    },
    {
        "name": "npm-eresolve",
        "what": "npm install --loglevel verbose: react-dom 17 wants react 17, the project pins react 18 (ERESOLVE)",
        "setup": r"""
rm -rf node_modules package-lock.json
cat > package.json <<'EOF'
{"name": "shop-ui", "version": "1.4.0", "private": true,
 "dependencies": {"react": "18.2.0", "react-dom": "17.0.2", "scheduler": "0.20.2", "prop-types": "15.8.1"}}
EOF
""",
        "command": "npm install --no-audit --no-fund --loglevel verbose 2>&1",
        "needed": [r"^npm error code ERESOLVE", r"^npm error While resolving: shop-ui@1\.4\.0", r"^npm error Found: react@18\.2\.0",
                   r"^npm error Could not resolve dependency:", r'^npm error peer react@"17\.0\.2" from react-dom@17\.0\.2'],
        "first": r"^npm error code ERESOLVE",
    },
    {
        "name": "concurrently-one-exits",
        "what": "npx concurrently running a web server, a worker and a migration: the migration dies amid their chatter",
        "setup": npm(f"concurrently@{CONCURRENTLY}") + r"""
cat > web.js <<'EOF'
for (let i = 0; i < 2500; i++) console.log(`GET /api/items/${i} 200 ${(i * 7) % 40} ms`);
EOF
cat > worker.js <<'EOF'
for (let i = 0; i < 2500; i++) console.log(`job ${i} processed (queue=default, attempts=1)`);
EOF
cat > migrate.js <<'EOF'
const steps = [];
for (let i = 1; i <= 40; i++) steps.push(`2024_${String(i).padStart(4, "0")}_add_columns`);
function apply(name, i) {
  if (i === 27) throw new Error(`relation "order_items" does not exist (while applying ${name})`);
  console.log(`applied migration ${name}`);
}
steps.forEach((s, i) => apply(s, i));
EOF
""",
        "command": "npx --no-install concurrently 'node web.js' 'node worker.js' 'node migrate.js' 2>&1",
        "needed": [r"^\[2\] /.*/migrate\.js:4$", r"^\[2\]\s+if \(i === 27\) throw",
                   r'^\[2\] Error: relation "order_items" does not exist', r"^\[2\]\s+at apply \(.*migrate\.js:4:\d+\)",
                   r"^\[2\] node migrate\.js exited with code 1"],
        "first": r'^\[2\] Error: relation "order_items" does not exist',
    },
    {
        "name": "rust-worker-panic",
        "what": "cargo run: 4 worker threads log 6000 lines; worker-2 panics mid-run (thread id in the panic line), main's join panics at the end",
        "setup": CARGO_TOML + r"""
cat > src/main.rs <<'EOF'
use std::thread;

fn checksum(batch: &[u32], slot: usize) -> u32 {
    batch[slot].wrapping_mul(31)
}

fn process(worker: usize, items: usize) -> u64 {
    let batch: Vec<u32> = (0..16).collect();
    let mut total = 0u64;
    for i in 0..items {
        let slot = if worker == 2 && i == 917 { 16 } else { i % 16 };
        total += checksum(&batch, slot) as u64;
        println!("[worker-{worker}] item {i} ok total={total}");
    }
    total
}

fn main() {
    let handles: Vec<_> = (0..4)
        .map(|w| thread::Builder::new().name(format!("worker-{w}")).spawn(move || process(w, 1500)).unwrap())
        .collect();
    let mut sum = 0;
    for h in handles {
        sum += h.join().expect("worker thread panicked");
    }
    println!("all workers done: {sum}");
}
EOF
cargo build -q 2>/dev/null
""",
        "command": "RUST_BACKTRACE=1 cargo run --color never 2>&1",
        "needed": [r"^thread '(worker-2|main)' \(\d+\) panicked at src/main\.rs:", r"^index out of bounds: the len is 16 but the index is 16",
                   r"^worker thread panicked: Any", r"^\s+\d+: demo::(checksum|process)$", r"^\s+at \./src/main\.rs:(4:5|12:18)$"],
        "first": r"^thread 'worker-2' \(\d+\) panicked at src/main\.rs:4:5:",
    },
    {
        "name": "python-deep-traceback-end",
        "what": "python ETL: 4000 INFO log lines, then a JSONDecodeError raised 8 frames deep (5 of them ours)",
        "setup": r"""
cat > etl.py <<'EOF'
import json
import logging
import sys

logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("etl.pipeline")


def parse_payload(text):
    return json.loads(text)


def transform(row):
    payload = parse_payload(row["payload"])
    return {"id": row["id"], "amount": payload["amount"] * 100}


class Pipeline:
    def __init__(self, rows):
        self.rows = rows

    def process(self, row):
        record = transform(row)
        log.info("loaded record %s amount=%s", record["id"], record["amount"])

    def run(self):
        for row in self.rows:
            self.process(row)


def main():
    rows = [{"id": i, "payload": '{"amount": %d}' % i} for i in range(4000)]
    rows.append({"id": 4000, "payload": "{'amount': 4000}"})
    Pipeline(rows).run()


if __name__ == "__main__":
    main()
EOF
""",
        "command": "python3 -u etl.py 2>&1",
        "needed": [r"^Traceback \(most recent call last\):", r'^\s+File ".*/etl\.py", line \d+, in ',
                   r"^json\.decoder\.JSONDecodeError: Expecting property name enclosed in double quotes"],
        "first": r"^json\.decoder\.JSONDecodeError: ",
    },
    {
        "name": "python-chained-exception",
        "what": "python service: one tenant's start fails mid-run with a chained exception (KeyError during handling → RuntimeError), 3000 more log lines follow",
        "setup": r"""
cat > service.py <<'EOF'
import logging
import sys

logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("tenants")

SETTINGS = {f"acme-{i:02d}": {"DATABASE_URL": f"postgres://db/{i}", "POOL": 4} for i in range(40)}
del SETTINGS["acme-23"]["DATABASE_URL"]


def setting(tenant, key):
    return SETTINGS[tenant][key]


def connect(tenant):
    try:
        url = setting(tenant, "DATABASE_URL")
    except KeyError:
        raise RuntimeError(f"tenant {tenant}: no database configured")
    return url


def start(tenant):
    url = connect(tenant)
    for k in range(75):
        log.info("%s: warmed cache shard %d from %s", tenant, k, url)


failed = 0
for tenant in sorted(SETTINGS):
    try:
        start(tenant)
    except Exception:
        log.exception("tenant %s failed to start", tenant)
        failed += 1
log.info("%d of %d tenants started", len(SETTINGS) - failed, len(SETTINGS))
sys.exit(1 if failed else 0)
EOF
""",
        "command": "python3 -u service.py 2>&1",
        "needed": [r"^ERROR tenants: tenant acme-23 failed to start", r'^\s+File ".*/service\.py", line (13|18|20), in ',
                   r"^KeyError: 'DATABASE_URL'", r"^During handling of the above exception, another exception occurred:",
                   r"^RuntimeError: tenant acme-23: no database configured", r"^INFO tenants: 39 of 40 tenants started"],
        "first": r"^KeyError: 'DATABASE_URL'",
    },
    {
        "name": "java-caused-by-chain",
        "what": "a real JVM service (java.util.logging, one line per record): a request fails mid-run with a 3-level Caused by chain, 2000 more requests follow",
        "setup": apt(JDK) + r"""
mkdir -p src out
cat > src/OrderService.java <<'EOF'
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;

public class OrderService {
    private static final Logger LOG = Logger.getLogger("orders.OrderService");

    static class PricingRules {
        static String load(String region) {
            try {
                return Files.readString(Path.of("/srv/orders/pricing-" + region + ".yaml"));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read pricing rules for " + region, e);
            }
        }
    }

    static long price(int order) {
        if (order == 1800) {
            try {
                return PricingRules.load("eu-west").length();
            } catch (UncheckedIOException e) {
                throw new IllegalStateException("pricing unavailable for order " + order, e);
            }
        }
        return order * 3L;
    }

    static void handle(int order) {
        long p = price(order);
        LOG.info("order " + order + " priced at " + p + " cents");
    }

    public static void main(String[] args) {
        int failed = 0;
        for (int order = 0; order < 3800; order++) {
            try {
                handle(order);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "request for order " + order + " failed", e);
                failed++;
            }
        }
        LOG.severe(failed + " of 3800 requests failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
EOF
javac -d out src/OrderService.java
""",
        "command": "java -Djava.util.logging.SimpleFormatter.format='%1$tF %1$tT %4$s %3$s %5$s%6$s%n' -cp out OrderService 2>&1",
        "needed": [r"SEVERE orders\.OrderService request for order 1800 failed", r"^java\.lang\.IllegalStateException: pricing unavailable",
                   r"^Caused by: ", r"^\s+at OrderService(\$PricingRules)?\.(price|load)\(OrderService\.java:(26|16|14)\)",
                   r"SEVERE orders\.OrderService 1 of 3800 requests failed"],
        "first": r"^Caused by: java\.nio\.file\.NoSuchFileException: ",
    },
    {
        "name": "wget-404-among-downloads",
        "what": "wget -i of 80 release tarballs from a local http.server (dot progress): one URL 404s in the middle",
        "setup": apt(WGET) + r"""
if [ ! -f files/releases/.done ]; then
  rm -rf files && mkdir -p files/releases
  python3 - <<'EOF'
for i in range(1, 81):
    if i == 37:
        continue
    size = (i * 97 % 15 + 3) * 64 * 1024
    block = (b"release %03d " % i) * 4096
    with open("files/releases/pkg-%03d.tar.gz" % i, "wb") as f:
        f.write((block * (size // len(block) + 1))[:size])
EOF
  touch files/releases/.done
fi
printf 'http://127.0.0.1:PORT/releases/pkg-%03d.tar.gz\n' $(seq 1 80) > urls.txt.in
cat > fetch.sh <<'EOF'
# Serve ./files on a free port; the server's first line says which (read before wget starts).
exec 3< <(exec python3 -u -m http.server 0 --bind 127.0.0.1 --directory files 2>/dev/null)
server=$!
read -r banner <&3
port=$(printf '%s\n' "$banner" | sed -E 's/.* port ([0-9]+) .*/\1/')
sed "s/PORT/$port/" urls.txt.in > urls.txt
rm -rf downloads
wget --progress=dot -P downloads -i urls.txt
rc=$?
kill "$server"
exit $rc
EOF
""",
        "command": "bash fetch.sh 2>&1",
        "needed": [r"^--[0-9-]+ [0-9:]+--  http://127\.0\.0\.1:\d+/releases/pkg-037\.tar\.gz$",
                   r"^HTTP request sent, awaiting response\.\.\. 404 ", r"ERROR 404: File not found\.",
                   r"^Downloaded: 79 files"],
        "first": r"ERROR 404: File not found\.",
    },
    {
        "name": "rsync-early-permission-denied",
        "what": "rsync -av of 15000 files as an unprivileged user: one unreadable file fails early, then ~700 KB of file names; the end only says 'see previous errors'",
        "setup": apt(RSYNC) + r"""
if [ ! -f src.done ]; then
  rm -rf src
  python3 - <<'EOF'
import os
for d in range(60):
    base = "src/assets/bundle_%02d/static/images/thumbnails" % d
    os.makedirs(base, exist_ok=True)
    for f in range(250):
        open(os.path.join(base, "product_%02d_%04d_thumbnail_320x240.webp" % (d, f)), "w").write("x")
os.makedirs("src/assets/bundle_01/config", exist_ok=True)
open("src/assets/bundle_01/config/credentials.env", "w").write("TOKEN=secret\n")
EOF
  touch src.done
fi
chmod -R a+rX src && chmod 000 src/assets/bundle_01/config/credentials.env
rm -rf dst && mkdir dst && chown 65534:65534 dst
chmod o+x . ..
""",
        "command": "setpriv --reuid=65534 --regid=65534 --clear-groups rsync -av src/ dst/ 2>&1",
        "needed": [r'^rsync: \[sender\] send_files failed to open ".*/credentials\.env": Permission denied \(13\)',
                   r"^rsync error: some files/attrs were not transferred \(see previous errors\) \(code 23\)"],
        "first": r"send_files failed to open .*credentials\.env",
    },
    {
        "name": "make-recursive-test-failure",
        "what": "make -k check over 40 library dirs (compile lines, 60 test results each): one test fails in lib23",
        "setup": apt(GCC, MAKE) + r"""
rm -rf lib*
python3 - <<'EOF'
import os
subs = ["lib%02d" % i for i in range(40)]
with open("Makefile", "w") as f:
    f.write("SUBDIRS := %s\n\ncheck: $(SUBDIRS)\n\n$(SUBDIRS):\n\t$(MAKE) -C $@ check\n\n.PHONY: check $(SUBDIRS)\n" % " ".join(subs))
for s in subs:
    os.makedirs(s)
    for k in range(6):
        open("%s/unit%d.c" % (s, k), "w").write("int %s_unit%d(int x) { return x * %d; }\n" % (s, k, k + 1))
    with open(s + "/Makefile", "w") as f:
        f.write("OBJS := $(patsubst %.c,%.o,$(wildcard *.c))\n\ncheck: $(OBJS)\n\t./run_tests.sh\n\n"
                "%.o: %.c\n\tgcc -O2 -Wall -c $< -o $@\n")
    bad = s == "lib23"
    with open(s + "/run_tests.sh", "w") as f:
        f.write("#!/bin/sh\nfailed=0\nfor t in $(seq -w 1 60); do\n")
        if bad:
            f.write("  if [ $t = 41 ]; then echo \"FAIL: t_parse_$t: expected 'ok', got 'error: unexpected token \\\"}\\\" at 3:17'\"; failed=$((failed+1)); continue; fi\n")
        f.write("  echo \"PASS: t_parse_$t\"\ndone\necho \"%s: $((60-failed)) passed, $failed failed\"\n[ $failed = 0 ]\n" % s)
    os.chmod(s + "/run_tests.sh", 0o755)
EOF
""",
        "command": "make -k check 2>&1",
        "needed": [r"^FAIL: t_parse_41: expected 'ok', got 'error: unexpected token", r"^lib23: 59 passed, 1 failed",
                   r"^make\[1\]: \*\*\* \[Makefile:4: check\] Error 1", r"^make: \*\*\* \[Makefile:6: lib23\] Error 2",
                   r"^make: Target 'check' not remade because of errors\."],
        "first": r"^FAIL: t_parse_41",
    },
    {
        "name": "gxx-template-error",
        "what": "g++ -std=c++17: std::sort over a struct without operator<, the error deep in <bits/predefined_ops.h> with its instantiation chain and candidate notes",
        "setup": apt(GXX) + r"""
cat > inventory.cpp <<'EOF'
#include <algorithm>
#include <map>
#include <string>
#include <vector>

struct Item {
    std::string sku;
    int quantity;
};

std::map<std::string, int> totals(const std::vector<Item>& items) {
    std::map<std::string, int> out;
    for (const auto& it : items) out[it.sku] += it.quantity;
    return out;
}

void sort_items(std::vector<Item>& items) {
    std::sort(items.begin(), items.end());
}

int main() {
    std::vector<Item> items{{"a-1", 3}, {"b-2", 5}};
    sort_items(items);
    return totals(items).size() == 2 ? 0 : 1;
}
EOF
""",
        "command": "g++ -std=c++17 -Wall -Wextra -c inventory.cpp -o inventory.o 2>&1",
        "needed": [[r"^inventory\.cpp:18:14:\s+required from here", 1],
                   [r"^/usr/include/c\+\+/\d+/bits/stl_algo\.h:\d+:\d+:\s+required from ‘void std::sort\(", 1],
                   [r"error: no match for ‘operator<’ \(operand types are ‘Item’ and ‘Item’\)", 1]],
        "first": r"error: no match for ‘operator<’",
    },
    {
        "name": "pytest-collection-error",
        "what": "pytest over 120 test modules: one imports a module that is not installed, collection is interrupted",
        "setup": venv(".venv-pytest", f"pytest=={PYTEST}") + r"""
rm -rf tests && mkdir -p tests
python3 - <<'EOF'
for i in range(120):
    src = ["import json", ""]
    if i == 77:
        src = ["import json", "import responses", ""]
    for k in range(25):
        src += ["def test_roundtrip_%d():" % k, "    assert json.loads(json.dumps(%d)) == %d" % (k, k), ""]
    open("tests/test_client_%03d.py" % i, "w").write("\n".join(src))
EOF
""",
        "command": "../.venv-pytest/bin/pytest -p no:cacheprovider tests 2>&1",
        "needed": [r"^_+ ERROR collecting tests/test_client_077\.py _+$", r"^tests/test_client_077\.py:2: in <module>",
                   r"^E\s+ModuleNotFoundError: No module named 'responses'", r"^ERROR tests/test_client_077\.py",
                   r"Interrupted: 1 error during collection"],
        "first": r"^E\s+ModuleNotFoundError: No module named 'responses'",
    },
    {
        "name": "unittest-verbose-failures",
        "what": "python -m unittest -v: 3000 tests in 30 modules, one assertion failure and one error",
        "setup": r"""
rm -rf tests && mkdir -p tests && touch tests/__init__.py
python3 - <<'EOF'
for m in range(30):
    src = ["import unittest", "", "", "def slugify(s):", "    return s.strip().lower().replace(' ', '-')", "", "",
           "class TestSlug%02d(unittest.TestCase):" % m]
    for k in range(100):
        src += ["    def test_case_%03d(self):" % k,
                "        self.assertEqual(slugify(' Item %d '), 'item-%d')" % (k, k), ""]
    if m == 11:
        src += ["    def test_unicode_title(self):", "        self.assertEqual(slugify('Crème Brûlée'), 'creme-brulee')", ""]
    if m == 19:
        src += ["    def test_none_title(self):", "        self.assertEqual(slugify(None), '')", ""]
    open("tests/test_slug_%02d.py" % m, "w").write("\n".join(src))
EOF
""",
        "command": "python3 -m unittest -v 2>&1",
        "needed": [r"^(ERROR|FAIL): test_(none|unicode)_title ", r'^\s+File ".*/tests/test_slug_(19|11)\.py", line \d+, in ',
                   r"^AttributeError: 'NoneType' object has no attribute 'strip'",
                   r"^AssertionError: 'crème-brûlée' != 'creme-brulee'", r"^FAILED \(failures=1, errors=1\)"],
        "first": r"^(ERROR|FAIL): test_",
    },
    {
        "name": "asan-heap-overflow",
        "what": "a C program built with -fsanitize=address logs 3000 lines, then reads past a heap block: the ASan report with frames and shadow bytes",
        "setup": apt(GCC) + r"""
cat > ring.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

struct ring { int cap; int *buf; };

static struct ring *ring_new(int cap)
{
    struct ring *r = malloc(sizeof *r);
    r->cap = cap;
    r->buf = calloc(cap, sizeof(int));
    return r;
}

static int ring_get(const struct ring *r, int pos)
{
    return r->buf[pos % (r->cap + 1)];
}

int main(void)
{
    struct ring *r = ring_new(64);
    long sum = 0;
    for (int i = 0; i < 3000; i++)
        fprintf(stderr, "[ingest] frame %d buffered (cap=%d)\n", i, r->cap);
    for (int i = 0; i < 65; i++)
        sum += ring_get(r, i);
    printf("%ld\n", sum);
    return 0;
}
EOF
gcc -g -O0 -fsanitize=address -fno-omit-frame-pointer -o ring ring.c
""",
        "command": "ASAN_OPTIONS=detect_leaks=0 ./ring 2>&1",
        "needed": [r"==\d+==ERROR: AddressSanitizer: heap-buffer-overflow", r"^READ of size 4 at 0x[0-9a-f]+ thread T0",
                   r"^\s+#\d+ 0x[0-9a-f]+ in (ring_get|main|ring_new) .*/ring\.c:\d+",
                   r"is located 0 bytes to the right of 256-byte region", r"^allocated by thread T0 here:",
                   r"^SUMMARY: AddressSanitizer: heap-buffer-overflow .*ring\.c:16 in ring_get"],
        "first": r"==\d+==ERROR: AddressSanitizer: heap-buffer-overflow",
    },
    {
        "name": "ld-undefined-reference",
        "what": "make of 150 C files with -Wall -Wextra (a warning each), then the link fails: undefined reference",
        "setup": apt(GCC, MAKE) + r"""
rm -rf src obj && mkdir -p src obj
python3 - <<'EOF'
names = []
for i in range(150):
    n = "net_%03d" % i
    names.append(n)
    body = "int %s_init(int flags, int unused_%d) {\n    int spare;\n    return flags + %d;\n}\n" % (n, i, i)
    if i == 71:
        body = ("struct tls_context;\nstruct tls_context *tls_context_new(int mode);\n"
                "int %s_init(int flags, int unused_%d) {\n    int spare;\n    return tls_context_new(flags) != 0;\n}\n" % (n, i))
    open("src/%s.c" % n, "w").write(body)
main = "".join("int %s_init(int, int);\n" % n for n in names)
main += "int main(void) {\n    int s = 0;\n" + "".join("    s += %s_init(1, 0);\n" % n for n in names) + "    return s == 0;\n}\n"
open("src/main.c", "w").write(main)
EOF
cat > Makefile <<'EOF'
SRCS := $(wildcard src/*.c)
OBJS := $(patsubst src/%.c,obj/%.o,$(SRCS))

app: $(OBJS)
	gcc -o $@ $(OBJS)

obj/%.o: src/%.c
	gcc -O0 -Wall -Wextra -c $< -o $@
EOF
""",
        "command": "make 2>&1",
        "needed": [r"^/usr/bin/ld: obj/net_071\.o: in function `net_071_init':", r"undefined reference to `tls_context_new'",
                   r"^collect2: error: ld returned 1 exit status", r"^make: \*\*\* \[Makefile:5: app\] Error 1"],
        "first": r"undefined reference to `tls_context_new'",
    },
    {
        "name": "sqlite-migration-error",
        "what": "sqlite3 running a 2500-statement migration with .echo on: one UPDATE names a column that does not exist",
        "setup": apt(SQLITE) + r"""
rm -f app.db
python3 - <<'EOF'
out = ["PRAGMA synchronous = OFF;", ".echo on", "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, name TEXT);"]
for i in range(2500):
    out.append("INSERT INTO users (id, email, name) VALUES (%d, 'User%d@Example.com', 'user %d');" % (i, i, i))
    if i == 1400:
        out.append("UPDATE users SET emial = lower(email) WHERE id < 1000;")
out.append("SELECT count(*) FROM users;")
open("migrate.sql", "w").write("\n".join(out) + "\n")
EOF
""",
        "command": "rm -f app.db; sqlite3 app.db < migrate.sql 2>&1",
        "needed": [r"^Parse error near line \d+: no such column: emial", r"^UPDATE users SET emial = lower\(email\)"],
        "first": r"^Parse error near line \d+: no such column: emial",
    },
    {
        "name": "ninja-early-error-long-tail",
        "what": "cmake + ninja -v -k 0 over 1200 C files: one compile error at ~18 KB, then ~450 KB of command lines; the end names no file",
        "setup": apt(GCC, CMAKE, NINJA) + r"""
if [ ! -f build/build.ninja ]; then
  rm -rf src build && mkdir -p src
  python3 - <<'EOF'
for i in range(1200):
    body = "#include <string.h>\nint codec_%04d(const char *s) { return (int)strlen(s) + %d; }\n" % (i, i)
    if i == 45:
        body = "#include <string.h>\nint codec_%04d(const char *s) {\n    char buf[FRAME_SIZE];\n    return (int)strlen(strncpy(buf, s, sizeof buf));\n}\n" % i
    open("src/codec_%04d.c" % i, "w").write(body)
open("src/main.c", "w").write("int main(void) { return 0; }\n")
EOF
  cat > CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(codecs C)
file(GLOB SRCS ${CMAKE_SOURCE_DIR}/src/*.c)
list(SORT SRCS)
add_executable(codecs ${SRCS})
target_compile_options(codecs PRIVATE -O1 -Wall -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE)
target_include_directories(codecs PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/third_party/include)
EOF
  cmake -S . -B build -G Ninja >/dev/null
fi
""",
        "command": "ninja -C build -t clean >/dev/null; ninja -C build -j1 -v -k 0 2>&1",
        "needed": [r"^FAILED: CMakeFiles/codecs\.dir/src/codec_0045\.c\.o", r"codec_0045\.c:3:14: error: ‘FRAME_SIZE’ undeclared",
                   [r"^\s+3 \|\s+char buf\[FRAME_SIZE\];", 1],
                   r"^ninja: build stopped: cannot make progress due to previous errors\."],
        "first": r"codec_0045\.c:3:14: error: ",
    },
    {
        "name": "go-deadlock-dump",
        "what": "go run: a dispatcher logs 2000 lines, then 'all goroutines are asleep - deadlock!' and a dump of 200 blocked goroutines",
        "setup": apt(GO) + r"""
cat > go.mod <<'EOF'
module example.com/dispatch

go 1.19
EOF
cat > main.go <<'EOF'
package main

import (
	"fmt"
	"sync"
)

func worker(id int, jobs <-chan int, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		if j%1000 == 0 {
			fmt.Printf("worker %d finished job %d\n", id, j)
		}
	}
}

func main() {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 200; w++ {
		wg.Add(1)
		go worker(w, jobs, &wg)
	}
	for j := 0; j < 2000; j++ {
		fmt.Printf("dispatch job %d\n", j)
		jobs <- j
	}
	wg.Wait()
	close(jobs)
}
EOF
go build -o /dev/null . 2>/dev/null || true
""",
        "command": "go run . 2>&1",
        "needed": [r"^fatal error: all goroutines are asleep - deadlock!", r"^goroutine 1 \[semacquire\]:", r"^main\.main\(\)$",
                   r"^\s+/.*/main\.go:28 \+0x", [r"^main\.worker\(", 1], [r"^\s+/.*/main\.go:10 \+0x", 1], r"^exit status 2"],
        "first": r"^fatal error: all goroutines are asleep - deadlock!",
    },
]
