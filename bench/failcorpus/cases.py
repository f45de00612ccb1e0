"""The failing runs of the corpus: how each is set up, the command that fails, and the rule that says
which lines of its output a person needs to fix the problem (written before any scoring).

Each case is a dict:
  name      short id
  what      one line: what fails
  setup     bash run once in the case's scratch directory (writes sources, installs tools)
  command   the command run through `bashrt run --json` (in the same directory)
  needed    regexes: every output line matching one of them is a needed line; an entry [regex, n] takes
            only the first n lines it matches (for outputs with more errors than anyone reads at once)
  first     regex: the first output line matching it is the first error (the root cause)
"""

PYTEST = "8.3.3"
TYPESCRIPT = "5.6.3"

# A venv with pinned pytest, shared by the pytest cases (made in the corpus work dir).
PY_ENV = f"""
if [ ! -x ../.venv/bin/pytest ]; then
  python3 -m venv ../.venv && ../.venv/bin/pip install -q pytest=={PYTEST}
fi
"""

CARGO_TOML = """cat > Cargo.toml <<'EOF'
[package]
name = "demo"
version = "0.1.0"
edition = "2021"
EOF
mkdir -p src
"""

CASES = [
    {
        "name": "cargo-many-errors",
        "what": "cargo build: 250 type errors spread over a generated module",
        "setup": CARGO_TOML + r"""
python3 - <<'EOF'
lines = ["pub fn f%d() -> i32 { let s: &str = \"x\"; let _n: u8 = %d; s }" % (i, i % 200) for i in range(250)]
open("src/gen.rs", "w").write("\n".join(lines) + "\n")
open("src/main.rs", "w").write("mod gen;\nfn main() { println!(\"{}\", gen::f0()); }\n")
EOF
""",
        "command": "cargo build --color never 2>&1",
        "needed": [[r"^error\[E\d+\]: |^\s+--> src/", 40], r"^error: could not compile"],
        "first": r"^error\[E\d+\]: ",
    },
    {
        "name": "rustc-1-error-800-warnings",
        "what": "cargo build: one type error in the middle of 800 unused-variable warnings",
        "setup": CARGO_TOML + r"""
python3 - <<'EOF'
body = []
for i in range(800):
    body.append("pub fn w%d() { let unused_%d = %d; }" % (i, i, i))
    if i == 400:
        body.append("pub fn broken() -> u32 { \"not a number\" }")
open("src/main.rs", "w").write("\n".join(body) + "\nfn main() {}\n")
EOF
""",
        "command": "cargo build --color never 2>&1",
        "needed": [r"^error\[E\d+\]: ", r"^\s+--> src/main\.rs:402:", r"^error: could not compile"],
        "first": r"^error\[E\d+\]: ",
    },
    {
        "name": "cargo-test-failures",
        "what": "cargo test: 3000 tests, 3 fail with assertion panics",
        "setup": CARGO_TOML + r"""
python3 - <<'EOF'
tests = []
for i in range(3000):
    want = i + 1 if i in (200, 1700, 2600) else i
    tests.append("    #[test] fn t%04d() { assert_eq!(super::id(%d), %d); }" % (i, i, want))
open("src/lib.rs", "w").write("pub fn id(x: u32) -> u32 { x }\n#[cfg(test)]\nmod tests {\n" + "\n".join(tests) + "\n}\n")
EOF
cargo test --no-run -q 2>/dev/null || true
""",
        "command": "cargo test --color never -- --test-threads=1 2>&1",
        "needed": [r"panicked at src/lib\.rs", r"^\s+left: ", r"^\s+right: ", r"^test result: FAILED", r"^    tests::t\d+$"],
        "first": r"panicked at src/lib\.rs",
    },
    {
        "name": "pytest-warnings-summary",
        "what": "pytest: one failing assertion, then a warnings summary of 1500 DeprecationWarnings",
        "setup": PY_ENV + r"""
cat > test_warn.py <<'EOF'
import warnings
import pytest

def add(a, b):
    return a + b

@pytest.mark.parametrize("i", range(1500))
def test_noisy(i):
    warnings.warn(f"old api used in case {i}", DeprecationWarning)

def test_add():
    assert add(1, 2) == 4
EOF
""",
        "command": "../.venv/bin/pytest -p no:cacheprovider -q test_warn.py 2>&1",
        "needed": [r"^E\s+assert 3 == 4", r"^test_warn\.py:\d+: AssertionError", r"^FAILED test_warn\.py::test_add",
                   r"^>\s+assert add\(1, 2\) == 4"],
        "first": r"^E\s+assert 3 == 4",
    },
    {
        "name": "pytest-captured-log",
        "what": "pytest: a failing test that logged 2000 lines before failing (captured log section)",
        "setup": PY_ENV + r"""
cat > test_log.py <<'EOF'
import logging
log = logging.getLogger("sync")

def sync(n):
    for i in range(n):
        log.info("synced record %d of %d, checksum ok", i, n)
    return n - 1

def test_sync():
    assert sync(2000) == 2000
EOF
""",
        "command": "../.venv/bin/pytest -p no:cacheprovider --log-level=INFO test_log.py 2>&1",
        "needed": [r"^E\s+assert 1999 == 2000", r"^test_log\.py:\d+: AssertionError", r"^FAILED test_log\.py::test_sync",
                   r"^>\s+assert sync\(2000\) == 2000"],
        "first": r"^E\s+assert 1999 == 2000",
    },
    {
        "name": "make-k-midway",
        "what": "make -k: 60 C files compiled verbosely, one fails in the middle",
        "setup": r"""
for i in $(seq 1 60); do
  if [ "$i" = 30 ]; then
    printf 'int f%d(void) { return undefined_thing + 1; }\n' "$i" > f$i.c
  else
    printf 'int f%d(void) { return %d; }\n' "$i" "$i" > f$i.c
  fi
done
cat > Makefile <<'EOF'
SRCS := $(wildcard f*.c)
OBJS := $(SRCS:.c=.o)
all: $(OBJS)
%.o: %.c
	gcc -v -c $< -o $@
clean:
	rm -f *.o
EOF
""",
        "command": "make clean >/dev/null; make -k 2>&1",
        "needed": [r"f30\.c:\d+:\d+: error: ", r"^make: \*\*\* \[Makefile:\d+: f30\.o\]", r"^make: Target 'all' not remade"],
        "first": r"f30\.c:\d+:\d+: error: ",
    },
    {
        "name": "tsc-errors",
        "what": "tsc --explainFiles over 600 files: 3 type errors, then the long explanation of every file",
        "setup": f"""
if [ ! -x node_modules/.bin/tsc ]; then npm install --silent --no-audit --no-fund typescript@{TYPESCRIPT} >/dev/null 2>&1; fi
mkdir -p src
for i in $(seq 1 600); do printf 'export const value%d: number = %d;\n' "$i" "$i" > src/mod$i.ts; done
cat > src/a.ts <<'EOF'
export const n: number = "one";
export function f(x: string): number {{ return x; }}
f(42);
EOF
cat > tsconfig.json <<'EOF'
{{"compilerOptions": {{"strict": true, "noEmit": true, "lib": ["es2022", "dom"]}}, "include": ["src"]}}
EOF
""",
        "command": "node_modules/.bin/tsc -p . --explainFiles --pretty false 2>&1",
        "needed": [r"error TS\d+: "],
        "first": r"error TS\d+: ",
    },
    {
        "name": "gcc-error-then-warnings",
        "what": "gcc -Wall -Wextra: an early error, then 900 warnings",
        "setup": r"""
python3 - <<'EOF'
out = ["int early(void) { return missing_symbol; }"]
for i in range(900):
    out.append("int w%d(int a, int b) { int unused%d; return a; }" % (i, i))
open("big.c", "w").write("\n".join(out) + "\n")
EOF
""",
        "command": "gcc -Wall -Wextra -fmax-errors=0 -c big.c -o /dev/null 2>&1",
        "needed": [r"big\.c:1:\d+: error: ", r"^\s*1 \| int early"],
        "first": r"big\.c:1:\d+: error: ",
    },
    {
        "name": "python-traceback-then-logging",
        "what": "python: a worker raises early, the traceback is printed, then 3000 log lines",
        "setup": r"""
cat > app.py <<'EOF'
import logging, sys, traceback
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stdout)
log = logging.getLogger("app")

def parse(record):
    return int(record["size"])

def load():
    return parse({"size": "12kb"})

try:
    load()
except Exception:
    traceback.print_exc(file=sys.stdout)
    failed = True
for i in range(3000):
    log.info("processing batch %d with the fallback loader", i)
sys.exit(1 if failed else 0)
EOF
""",
        "command": "python3 -u app.py 2>&1",
        "needed": [r"^Traceback \(most recent call last\)", r'^\s+File ".*app\.py", line \d+, in parse',
                   r"^ValueError: invalid literal for int"],
        "first": r"^ValueError: invalid literal for int",
    },
    {
        "name": "find-permission-errors",
        "what": "find as an unprivileged user over 4000 files, 5 unreadable directories",
        "setup": r"""
rm -rf tree
for d in $(seq 1 40); do mkdir -p tree/d$d; for f in $(seq 1 100); do : > tree/d$d/file_$f.txt; done; done
for d in 5 12 20 27 33; do chmod 000 tree/d$d; done
chmod -R o+rX tree 2>/dev/null; for d in 5 12 20 27 33; do chmod 000 tree/d$d; done
chmod o+x . ..
""",
        "command": "setpriv --reuid=65534 --regid=65534 --clear-groups find tree 2>&1",
        "needed": [r"Permission denied"],
        "first": r"Permission denied",
    },
    {
        "name": "set-x-early-failure",
        "what": "a bash script under set -x whose early cp fails; it goes on and fails at the end",
        "setup": r"""
cat > deploy.sh <<'EOF'
set -x
mkdir -p out
cp config/settings.yaml out/settings.yaml
for i in $(seq 1 1500); do
  echo "rendering page $i" > /dev/null
done
test -f out/settings.yaml
EOF
""",
        "command": "bash deploy.sh 2>&1",
        "needed": [r"^\+ cp config/settings\.yaml", r"cannot stat 'config/settings\.yaml'", r"^\+ test -f out/settings\.yaml"],
        "first": r"cannot stat 'config/settings\.yaml'",
    },
    {
        "name": "npm-install-native-build",
        "what": "npm install: a dependency's install script (a native build) fails in the middle of its log",
        "setup": r"""
rm -rf node_modules package-lock.json native
mkdir -p native
cat > native/package.json <<'EOF'
{"name": "native-thing", "version": "1.0.0", "scripts": {"install": "node build.js"}}
EOF
cat > native/build.js <<'EOF'
for (let i = 0; i < 1500; i++) console.log(`  CXX(target) Release/obj.target/native/src/unit${i}.o`);
console.error("../src/binding.cc:12:10: fatal error: libfoo.h: No such file or directory");
for (let i = 0; i < 1500; i++) console.log(`  CXX(target) Release/obj.target/native/src/late${i}.o`);
console.error("gyp ERR! build error");
process.exit(1);
EOF
cat > package.json <<'EOF'
{"name": "demo", "version": "1.0.0", "dependencies": {"native-thing": "file:./native"}}
EOF
""",
        "command": "npm install --no-audit --no-fund --foreground-scripts 2>&1",
        "needed": [r"fatal error: libfoo\.h: No such file or directory", r"npm (ERR!|error) code 1",
                   r"npm (ERR!|error) command failed"],
        "first": r"fatal error: libfoo\.h",
    },
    {
        "name": "pip-install-build-failure",
        "what": "pip install -v of a package whose build fails halfway through a long compile log",
        "setup": PY_ENV + r"""
mkdir -p pkg
cat > pkg/setup.py <<'EOF'
import sys
from setuptools import setup
for i in range(1500):
    print(f"gcc -pthread -fPIC -I/usr/include/python3 -c src/part{i}.c -o build/temp/src/part{i}.o")
print("src/core.c:4:10: fatal error: yaml.h: No such file or directory", file=sys.stderr)
for i in range(1500):
    print(f"gcc -pthread -fPIC -I/usr/include/python3 -c src/extra{i}.c -o build/temp/src/extra{i}.o")
sys.exit("error: command 'gcc' failed with exit code 1")
setup(name="pkg", version="1.0")
EOF
""",
        "command": "../.venv/bin/pip install -v --no-cache-dir --no-build-isolation ./pkg 2>&1",
        "needed": [r"fatal error: yaml\.h: No such file or directory", r"error: command 'gcc' failed",
                   r"^\s*error: subprocess-exited-with-error"],
        "first": r"fatal error: yaml\.h",
    },
    {
        "name": "javac-error-among-warnings",
        "what": "javac -Xlint:all: 300 rawtypes/unchecked warnings around one missing symbol",
        "setup": r"""
python3 - <<'EOF'
body = ["import java.util.*;", "public class Big {"]
for i in range(300):
    body.append("  static List m%d() { List l = new ArrayList(); l.add(%d); return l; }" % (i, i))
    if i == 150:
        body.append("  static int broken() { return undefinedCounter; }")
body.append("  public static void main(String[] a) {} }")
open("Big.java", "w").write("\n".join(body) + "\n")
EOF
""",
        "command": "javac -Xlint:all -Xmaxwarns 10000 -d out Big.java 2>&1",
        "needed": [r"Big\.java:\d+: error: cannot find symbol", r"^\s+symbol:\s+variable undefinedCounter"],
        "first": r"Big\.java:\d+: error: ",
    },
    {
        "name": "node-test-runner",
        "what": "node --test: 3000 passing tests and 2 failing ones",
        "setup": r"""
python3 - <<'EOF'
out = ["const test = require('node:test');", "const assert = require('node:assert');"]
for i in range(3000):
    out.append("test('case %d', () => { assert.strictEqual(%d, %d); });" % (i, i, i))
    if i in (300, 2200):
        out.append("test('total %d', () => { assert.strictEqual(%d + 1, %d); });" % (i, i, i))
open("all.test.js", "w").write("\n".join(out) + "\n")
EOF
""",
        "command": "node --test --test-reporter=spec all.test.js 2>&1",
        "needed": [r"✖ total 300", r"✖ total 2200", r"AssertionError.*Expected values to be strictly equal",
                   r"^\s*at TestContext.<anonymous> \(.*all\.test\.js:\d+"],
        "first": r"✖ total 300",
    },
    {
        "name": "node-error-then-logs",
        "what": "node: a handler throws early (stack printed), the service goes on logging 3000 lines",
        "setup": r"""
cat > server.js <<'EOF'
function handle(req) { return req.body.user.name; }
try { handle({}); } catch (e) { console.error(e); process.exitCode = 1; }
for (let i = 0; i < 3000; i++) console.log(`served request ${i} in ${i % 17} ms`);
EOF
""",
        "command": "node server.js 2>&1",
        "needed": [r"^TypeError: Cannot read properties of undefined", r"^\s+at handle \(.*server\.js:1:"],
        "first": r"^TypeError: Cannot read properties of undefined",
    },
]
