"""Held-out failing runs: a second corpus of kinds that neither cases.py nor cases_fresh.py holds
(debuggers and tracers, TAP and doctest runners, doc builders, config and schema validators, web build
tools, deploy and migration tools, other languages' runtimes). Same format as cases.py: name, what,
setup, command, needed, first.

Each setup installs what it uses itself, pinned: Python tools into a venv in the corpus work dir (`..`),
npm packages into the case's directory, Debian packages with `apt-get install -y` when missing.
The needed/first rules were written from each command's real full output, run plainly in bash, by
someone who had not seen how the excerpt picks lines, before any view was scored.
"""

# Python packages (venvs made with the machine's python3, 3.11).
PYTEST = "8.3.3"
BLACK = "26.10.1"
PYLINT = "4.1.5"
ANSIBLE = "2.19.14"
DJANGO = "5.2.20"
SPHINX = "9.0.4"
MKDOCS = "1.6.1"
SQLFLUFF = "4.5.0"
YAMLLINT = "1.38.0"
GUNICORN = "27.0.1"
FLASK = "3.1.3"
# npm packages.
TYPESCRIPT = "5.9.3"
WEBPACK = "5.112.2"
WEBPACK_CLI = "7.3.1"
MOCHA = "12.0.3"
PRETTIER = "3.10.2"

# Debian bookworm packages the cases use, pinned (installed only when the command is missing).
GCC = ("gcc", "gcc=4:12.2.0-3", "libc6-dev=2.36-9+deb12u14")
GDB = ("gdb", "gdb=13.1-3")
STRACE = ("strace", "strace=6.1-0.1")
OPENSSL = ("openssl", "openssl")
BATS = ("bats", "bats=1.8.2-1")
RUBY = ("ruby", "ruby=1:3.1")
PHP = ("php", "php-cli=2:8.2+93")
LUA = ("lua5.4", "lua5.4=5.4.4-3+deb12u1")
AUTOCONF = ("autoconf", "autoconf=2.71-3")
XMLLINT = ("xmllint", "libxml2-utils=2.9.14+dfsg-1.3~deb12u6")
CPPCHECK = ("cppcheck", "cppcheck=2.10-2")
GO = ("go", "golang-go=2:1.19~1")
PERL = ("prove", "perl")


from cases_fresh import apt, npm, venv  # noqa: E402  (the same setup helpers as the fresh cases)


CARGO_TOML = """rm -rf src && mkdir -p src
cat > Cargo.toml <<'EOF'
[package]
name = "demo"
version = "0.1.0"
edition = "2021"
EOF
"""

CASES = [
    {
        "name": "compileall-syntax-error",
        "what": "python -m compileall over 2000 modules: one has an unclosed bracket, among 2000 'Compiling' lines",
        "setup": r"""
rm -rf app && mkdir -p app
python3 - <<'EOF'
import os
for p in range(50):
    d = "app/part_%02d" % p
    os.makedirs(d)
    open(d + "/__init__.py", "w").write("")
    for m in range(40):
        src = ["def transform_%d(items):" % m, "    out = []", "    for k, v in items:",
               "        out.append((k, v * %d))" % (m + 1), "    return out", ""]
        if (p, m) == (27, 13):
            src = ["def transform_13(items):", "    lookup = {k: v for k, v in items",
                   "    return [lookup[k] for k in sorted(lookup)]", ""]
        open("%s/mod_%02d.py" % (d, m), "w").write("\n".join(src))
EOF
""",
        "command": "python3 -m compileall app 2>&1",
        "needed": [r"^\*\*\*\s+File \"app/part_27/mod_13\.py\", line 2$", r"^\s+lookup = \{k: v for k, v in items$",
                   r"^SyntaxError: '\{' was never closed$"],
        "first": r"^\*\*\*\s+File \"app/part_27/mod_13\.py\", line 2$",
    },
    {
        "name": "doctest-verbose-failure",
        "what": "python -m doctest -v over a module of 1200 examples: one example in the middle prints the wrong value",
        "setup": r"""
cat > normalize.txt <<'EOF'
def normalize_path(p):
    '''Collapse a path.

    >>> normalize_path('a/b/c')
    'a/b/c'
    >>> normalize_path('a//b/../c')
    'a/c'
    >>> normalize_path('./x')
    'x'
    '''
    parts = []
    for part in p.split('/'):
        if part in ('', '.'):
            continue
        if part == '..' and parts:
            parts.pop()
            continue
        parts.append(part)
    return '/'.join(parts[:-1] if len(parts) > 2 else parts)
EOF
python3 - <<'EOF'
funcs = []
for i in range(300):
    pre = "amount" if i < 150 else "weight"
    examples = []
    for k in range(4):
        examples.append("    >>> %s_%d(%d)\n    %d" % (pre, i, k, k * (i + 1)))
    funcs.append("def %s_%d(x):\n    '''Scale by %d.\n\n%s\n    '''\n    return x * %d\n" % (pre, i, i + 1, "\n".join(examples), i + 1))
funcs.insert(150, open("normalize.txt").read())
open("pathutil.py", "w").write("\n".join(funcs))
EOF
""",
        "command": "python3 -m doctest -v pathutil.py 2>&1",
        "needed": [r"^File \".*/pathutil\.py\", line \d+, in pathutil\.normalize_path$", r"^Failed example:$",
                   [r"^\s+normalize_path\('a/b/c'\)$", 1], r"^Expected:$", [r"^\s+'a/b/c'$", 1], r"^Got:$", r"^\s+'a/b'$",
                   r"^1 items had failures:$", r"^\s+1 of\s+3 in pathutil\.normalize_path$", r"^\*\*\*Test Failed\*\*\* 1 failures\.$"],
        "first": r"^File \".*/pathutil\.py\", line \d+, in pathutil\.normalize_path$",
    },
    {
        "name": "pytest-fixture-setup-error",
        "what": "pytest -v -x: 300 tests pass, then a fixture's connect is refused at setup, with 400 lines of captured setup log",
        "setup": venv(".venv-pytest", f"pytest=={PYTEST}") + r"""
rm -rf tests && mkdir -p tests
cat > tests/conftest.py <<'EOF'
import logging
import socket

import pytest

log = logging.getLogger("orders.db")


@pytest.fixture
def db():
    for i in range(400):
        log.info("loading fixture table orders_%03d (%d rows)", i, i * 17)
    sock = socket.socket()
    sock.settimeout(2)
    sock.connect(("127.0.0.1", 1))
    yield sock
    sock.close()
EOF
python3 - <<'EOF'
tests = ["def test_price_%03d():\n    assert round(%d * 1.5, 1) == %r\n" % (i, i, round(i * 1.5, 1)) for i in range(300)]
open("tests/test_pricing.py", "w").write("\n".join(tests))
open("tests/test_store.py", "w").write('''
def test_create_order(db):
    db.sendall(b"INSERT order")


def test_list_orders(db):
    db.sendall(b"SELECT orders")
''')
EOF
""",
        "command": "../.venv-pytest/bin/pytest -p no:cacheprovider -v -x --log-level=INFO tests 2>&1",
        "needed": [r"^tests/test_store\.py::test_create_order ERROR", r"^_+ ERROR at setup of test_create_order _+$",
                   r"^>\s+sock\.connect\(\(\"127\.0\.0\.1\", 1\)\)$", r"^E\s+ConnectionRefusedError: \[Errno 111\] Connection refused$",
                   r"^tests/conftest\.py:15: ConnectionRefusedError$",
                   r"^ERROR tests/test_store\.py::test_create_order - ConnectionRefusedError", r"^!+ stopping after 1 failures !+$",
                   r"^=+ 300 passed, 1 error in "],
        "first": r"^E\s+ConnectionRefusedError: \[Errno 111\] Connection refused$",
    },
    {
        "name": "strace-enoent-settings",
        "what": "strace -f of a Python tool that silently falls back when its settings file is missing, reads 300 spool files and exits with 'no remote configured': the settings openat's ENOENT sits among ~3700 syscalls with 60 other ENOENTs (module and locale lookups)",
        "setup": apt(STRACE) + r"""
rm -rf spool && mkdir -p spool
for i in $(seq 1 300); do printf '{"id": %d, "bytes": %d}\n' "$i" "$((i * 31))" > "spool/batch_$(printf %03d "$i").json"; done
cat > tool.py <<'EOF'
import argparse
import json
import logging
import os
import sys

SEARCH = ["/etc/acme-sync/settings.json"]


def load_settings():
    for path in SEARCH:
        try:
            with open(path) as fh:
                return json.load(fh)
        except OSError:
            continue
    return {}


def main():
    argparse.ArgumentParser(prog="acme-sync").parse_args([])
    logging.basicConfig(level=logging.WARNING)
    settings = load_settings()
    batches = []
    for name in sorted(os.listdir("spool")):
        with open(os.path.join("spool", name)) as fh:
            batches.append(json.load(fh))
    total = sum(b["bytes"] for b in batches)
    remote = settings.get("remote", {}).get("url", "")
    if not remote:
        print(f"acme-sync: {len(batches)} batches ({total} bytes) ready but no remote configured", file=sys.stderr)
        sys.exit(3)


main()
EOF
""",
        "command": "strace -f /usr/bin/python3 tool.py 2>&1",
        "needed": [r"^openat\(AT_FDCWD, \"/etc/acme-sync/settings\.json\", .*= -1 ENOENT", r"no remote configured",
                   r"^exit_group\(3\)", r"^\+\+\+ exited with 3 \+\+\+$"],
        "first": r"^openat\(AT_FDCWD, \"/etc/acme-sync/settings\.json\", .*= -1 ENOENT",
    },
    {
        "name": "gdb-thread-segfault",
        "what": "gdb -batch run + thread apply all bt: a C program with 40 idle threads prints 2400 progress lines, then its pricing thread dereferences NULL; backtraces of all 42 threads follow",
        "setup": apt(GCC, GDB) + r"""
cat > ledger.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct field { const char *name; const char *value; };
struct record { int id; int nfields; struct field *fields[4]; };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static const char *lookup_field(const struct record *rec, const char *name) {
    for (int i = 0; i < 4; i++) {
        if (strcmp(rec->fields[i]->name, name) == 0)
            return rec->fields[i]->value;
    }
    return NULL;
}

static double price_of(const struct record *rec) {
    return atof(lookup_field(rec, "price"));
}

static void *idle_worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    pthread_cond_wait(&never, &mu);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *pricing_worker(void *arg) {
    (void)arg;
    static struct field f_sku = {"sku", "A-1"}, f_price = {"price", "9.50"};
    struct record recs[3000];
    for (int i = 0; i < 3000; i++) {
        recs[i].id = i;
        recs[i].nfields = 2;
        recs[i].fields[0] = &f_sku;
        recs[i].fields[1] = &f_price;
        recs[i].fields[2] = NULL;
        recs[i].fields[3] = NULL;
    }
    recs[2417].fields[1] = NULL;
    double total = 0;
    for (int i = 0; i < 3000; i++) {
        total += price_of(&recs[i]);
        printf("record %d priced, running total %.2f\n", i, total);
    }
    return NULL;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    pthread_t idle[40], pricing;
    for (int i = 0; i < 40; i++)
        pthread_create(&idle[i], NULL, idle_worker, NULL);
    sleep(1);
    pthread_create(&pricing, NULL, pricing_worker, NULL);
    pthread_join(pricing, NULL);
    return 0;
}
EOF
gcc -g -O0 -pthread -o ledger ledger.c
""",
        "command": "gdb -q -batch -iex 'set debuginfod enabled off' -ex run -ex 'thread apply all bt' ./ledger 2>&1",
        "needed": [r"^record 2416 priced", r"^Thread \d+ \"ledger\" received signal SIGSEGV, Segmentation fault\.$",
                   r"^lookup_field \(rec=0x[0-9a-f]+, name=0x[0-9a-f]+ \"price\"\) at ledger\.c:15$",
                   r"^15\s+if \(strcmp\(rec->fields\[i\]->name, name\) == 0\)$",
                   r"^#0  lookup_field \(.*\) at ledger\.c:15$", r"^#1  0x[0-9a-f]+ in price_of \(.*\) at ledger\.c:22$",
                   r"^#2  0x[0-9a-f]+ in pricing_worker \(.*\) at ledger\.c:48$"],
        "first": r"^Thread \d+ \"ledger\" received signal SIGSEGV",
    },
    {
        "name": "prove-tap-failure",
        "what": "prove -v over 40 Perl test files of 50 tests each: one test in the middle file fails on got/expected",
        "setup": apt(PERL) + r"""
rm -rf t lib && mkdir -p t lib/Money
cat > lib/Money/Format.pm <<'EOF'
package Money::Format;
use strict;
use warnings;

sub amount {
    my ($cents) = @_;
    my $s = sprintf("%d.%02d", int($cents / 100), $cents % 100);
    $s =~ s/\.00$// if $cents >= 100000;
    return $s;
}

1;
EOF
python3 - <<'EOF'
for f in range(40):
    lines = ["use strict;", "use warnings;", "use Test::More tests => 50;", "use Money::Format;", ""]
    for k in range(50):
        cents = f * 10000 + k * 7 + 3
        if (f, k) == (22, 31):
            cents = 250000
        want = "%d.%02d" % (cents // 100, cents % 100)
        lines.append("is(Money::Format::amount(%d), '%s', 'formats %d cents');" % (cents, want, cents))
    open("t/%02d-format.t" % f, "w").write("\n".join(lines) + "\n")
EOF
""",
        "command": "prove -v -Ilib t 2>&1",
        "needed": [r"^#\s+Failed test 'formats 250000 cents'$", r"^#\s+at t/22-format\.t line 37\.$", r"^#\s+got: '2500'$",
                   r"^#\s+expected: '2500\.00'$", r"^not ok 32 - formats 250000 cents$",
                   r"^t/22-format\.t \(Wstat: 256", r"^\s+Failed test:\s+32$", r"^Result: FAIL$"],
        "first": r"^#\s+Failed test 'formats 250000 cents'$",
    },
    {
        "name": "ruby-nomethod-deep-tree",
        "what": "ruby: a recursive walk over a 3000-node service tree prints each node it visits (stdout buffered), then NoMethodError on nil 140 levels deep; 420 'from' lines follow the message",
        "setup": apt(RUBY) + r"""
cat > walk.rb <<'EOF'
Node = Struct.new(:name, :children, :settings)

def build(depth)
  leaves = (1..19).map { |i| Node.new("svc-#{depth}-#{i}", [], { timeout: 30 + i }) }
  kids = depth < 150 ? leaves + [build(depth + 1)] : leaves
  Node.new("group-#{depth}", kids, depth == 140 ? nil : { timeout: 60 })
end

def visit(node, depth)
  puts "visit #{node.name} (depth #{depth}, #{node.children.size} children)"
  node.children.each do |child|
    visit(child, depth + 1)
  end
  node.settings.fetch(:timeout)
end

visit(build(0), 0)
EOF
""",
        "command": "ruby walk.rb 2>&1",
        "needed": [r"walk\.rb:14:in `visit': undefined method `fetch' for nil:NilClass \(NoMethodError\)$",
                   r"^\s+node\.settings\.fetch\(:timeout\)$", [r"^\s+from walk\.rb:12:in `block in visit'$", 1],
                   r"^\s+from walk\.rb:17:in `<main>'$"],
        "first": r"walk\.rb:14:in `visit': undefined method `fetch' for nil:NilClass",
    },
    {
        "name": "php-uncaught-typeerror",
        "what": "php: an invoice import logs 840 'Undefined array key' warnings among 1100 row lines, then dies on an uncaught TypeError with a stack trace",
        "setup": apt(PHP) + r"""
python3 - <<'EOF'
rows = []
for i in range(1200):
    if i == 1117:
        rows.append("SKU-%04d;3;n/a" % i)
    elif i % 4 == 0:
        rows.append("SKU-%04d;%d;%d.25" % (i, i % 7 + 1, i % 50))
    else:
        rows.append("SKU-%04d;%d" % (i, i % 7 + 1))
open("invoices.csv", "w").write("\n".join(rows) + "\n")
EOF
cat > import.php <<'EOF'
<?php
declare(strict_types=1);

function money(float $v): string
{
    return number_format($v, 2);
}

function line_total(array $row): string
{
    $qty = (int) $row[1];
    $price = is_numeric($row[2]) ? (float) $row[2] : $row[2];
    return money($qty * (is_string($price) ? $price : $price));
}

function import_file(string $path): void
{
    foreach (file($path, FILE_IGNORE_NEW_LINES) as $n => $line) {
        $row = explode(';', $line);
        $price = $row[2] ?? null;
        echo "row $n: {$row[0]} x {$row[1]}" . ($row[2] === null ? " (no price)" : "") . "\n";
        if ($price !== null) {
            echo "  total " . line_total($row) . "\n";
        }
    }
}

import_file(__DIR__ . '/invoices.csv');
EOF
""",
        "command": "php import.php 2>&1",
        "needed": [r"^row 1117: SKU-1117 x 3$",
                   r"^PHP Fatal error:  Uncaught TypeError: Unsupported operand types: int \* string in .*/import\.php:13$",
                   r"^Stack trace:$", r"^#0 .*/import\.php\(23\): line_total\(\)$", r"^#1 .*/import\.php\(28\): import_file\(\)$",
                   r"^\s+thrown in .*/import\.php on line 13$"],
        "first": r"^PHP Fatal error:  Uncaught TypeError",
    },
    {
        "name": "lua-error-traceback",
        "what": "lua5.4: a build script runs 2500 steps under xpcall; step 1100 fails indexing a nil field, its traceback is printed and the build goes on to a failing summary",
        "setup": apt(LUA) + r"""
cat > build.lua <<'EOF'
local targets = {}
for i = 1, 2500 do
  targets[i] = { name = "target_" .. i, deps = { "lib_" .. (i % 7) }, opts = { opt = "O2" } }
end
targets[1100].opts = nil

local function flags(t)
  return "-" .. t.opts.opt
end

local function compile(t)
  print(string.format("[%4d/2500] cc %s %s", t.index, flags(t), t.name))
end

local function run_all()
  local failed = 0
  for i, t in ipairs(targets) do
    t.index = i
    local ok, err = xpcall(compile, debug.traceback, t)
    if not ok then
      failed = failed + 1
      print("FAILED " .. t.name .. ": " .. err)
    end
  end
  print(string.format("build finished: %d ok, %d failed", #targets - failed, failed))
  if failed > 0 then os.exit(1) end
end

run_all()
EOF
""",
        "command": "lua5.4 build.lua 2>&1",
        "needed": [r"^FAILED target_1100: build\.lua:8: attempt to index a nil value \(field 'opts'\)$", r"^stack traceback:$",
                   r"^\s+build\.lua:8: in upvalue 'flags'$", r"^\s+build\.lua:12: in function <build\.lua:11>$",
                   r"^build finished: 2499 ok, 1 failed$"],
        "first": r"^FAILED target_1100: build\.lua:8: attempt to index a nil value",
    },
    {
        "name": "bats-one-failure",
        "what": "bats over 300 generated tests of a config parser (TAP output, short): test 147 fails on its output comparison",
        "setup": apt(BATS) + r"""
rm -rf test && mkdir -p test
python3 - <<'EOF'
conf = []
for i in range(300):
    if i == 146:
        conf.append("key_%d = value_%d   # legacy, see ticket 812" % (i, i))
    else:
        conf.append("key_%d = value_%d" % (i, i))
open("app.conf", "w").write("\n".join(conf) + "\n")
tests = ["setup() {\n  cd \"$BATS_TEST_DIRNAME/..\"\n}\n"]
for i in range(300):
    tests.append('@test "reads key_%d" {\n  run ./getconf.sh app.conf key_%d\n  [ "$status" -eq 0 ]\n  echo "got: $output"\n  [ "$output" = "value_%d" ]\n}\n' % (i, i, i))
open("test/getconf.bats", "w").write("\n".join(tests))
EOF
cat > getconf.sh <<'EOF'
#!/bin/sh
# getconf.sh FILE KEY: print the value of KEY
sed -n "s/^$2 = //p" "$1"
EOF
chmod +x getconf.sh
""",
        "command": "bats test 2>&1",
        "needed": [r"^not ok 147 reads key_146$", r"^# \(in test file test/getconf\.bats, line \d+\)$",
                   r"^#\s+`\[ \"\$output\" = \"value_146\" \]' failed$", r"^# got: value_146\s+# legacy, see ticket 812$"],
        "first": r"^not ok 147 reads key_146$",
    },
    {
        "name": "openssl-verify-chain",
        "what": "openssl verify of 2800 service certificates: one was signed by another CA and one is expired; 2798 print OK",
        "setup": apt(OPENSSL) + r"""
rm -rf certs ca other && mkdir -p certs ca other
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca/ca.key -out ca/ca.pem -days 3650 -subj "/CN=Acme Root CA" 2>/dev/null || exit 1
openssl req -x509 -newkey rsa:2048 -nodes -keyout other/ca.key -out other/ca.pem -days 3650 -subj "/CN=Staging Root CA" 2>/dev/null || exit 1
openssl genrsa -out leaf.key 2048 2>/dev/null
openssl req -new -key leaf.key -subj "/CN=placeholder" -out leaf.csr
touch ca/index.txt
cat > ca/ca.cnf <<'EOF'
[ca]
default_ca = acme
[acme]
dir = ./ca
database = $dir/index.txt
new_certs_dir = ./ca
certificate = $dir/ca.pem
private_key = $dir/ca.key
serial = $dir/serial
default_md = sha256
policy = anything
unique_subject = no
[anything]
commonName = supplied
EOF
echo 1000 > ca/serial
for i in $(seq -w 1 2800); do
  if [ "$i" = "1517" ]; then
    openssl ca -batch -config ca/ca.cnf -in leaf.csr -subj "/CN=svc-$i.internal" -startdate 20240101000000Z -enddate 20250101000000Z -out certs/svc-$i.pem 2>/dev/null || exit 1
  elif [ "$i" = "1290" ]; then
    openssl x509 -req -in leaf.csr -subj "/CN=svc-$i.internal" -CA other/ca.pem -CAkey other/ca.key -set_serial "$((10#$i))" -days 365 -out certs/svc-$i.pem 2>/dev/null || exit 1
  else
    openssl x509 -req -in leaf.csr -subj "/CN=svc-$i.internal" -CA ca/ca.pem -CAkey ca/ca.key -set_serial "$((10#$i))" -days 365 -out certs/svc-$i.pem 2>/dev/null || exit 1
  fi
done
""",
        "command": "openssl verify -CAfile ca/ca.pem certs/*.pem 2>&1",
        "needed": [r"CN = svc-1290\.internal$", r"^error 20 at 0 depth lookup: unable to get local issuer certificate$",
                   r"^error certs/svc-1290\.pem: verification failed$", r"CN = svc-1517\.internal$",
                   r"^error 10 at 0 depth lookup: certificate has expired$", r"^error certs/svc-1517\.pem: verification failed$"],
        "first": r"^error 20 at 0 depth lookup: unable to get local issuer certificate$",
    },
    {
        "name": "configure-missing-lib-config-log",
        "what": "autoconf ./configure || cat config.log: 220 header/function checks, libsodium is not found; config.log (2500 lines) holds the linker's 'cannot find -lsodium' past its middle",
        "setup": apt(GCC, AUTOCONF) + r"""
rm -rf autom4te.cache configure config.log config.status config.h config.h.in
cat > configure.ac <<'EOF'
AC_INIT([ledgerd], [2.4.0])
AC_CONFIG_HEADERS([config.h])
AC_PROG_CC
AC_CHECK_HEADERS([stdio.h stdlib.h string.h strings.h inttypes.h stdint.h unistd.h fcntl.h errno.h signal.h \
  sys/types.h sys/stat.h sys/time.h sys/socket.h sys/uio.h sys/mman.h sys/resource.h sys/wait.h sys/select.h \
  netinet/in.h netinet/tcp.h arpa/inet.h netdb.h poll.h pthread.h dlfcn.h limits.h locale.h langinfo.h \
  termios.h time.h utime.h pwd.h grp.h syslog.h getopt.h glob.h fnmatch.h regex.h zlib.h])
AC_CHECK_FUNCS([strdup strndup strlcpy strlcat memmem memrchr stpcpy strsep strtok_r strerror_r \
  getline getdelim asprintf vasprintf fork vfork execvp waitpid pipe2 dup3 accept4 poll ppoll epoll_create1 \
  clock_gettime nanosleep gettimeofday localtime_r gmtime_r timegm setenv unsetenv realpath mkostemp mkdtemp \
  fdatasync fsync posix_fallocate posix_fadvise pread pwrite readv writev sendfile splice getrandom \
  arc4random explicit_bzero reallocarray getauxval prctl sched_getaffinity pthread_setname_np])
AC_CHECK_FUNCS([abs atoi atol strtol strtoul strtoll strtoull strtod strtof qsort bsearch memcpy memmove memset memcmp memchr strchr strrchr strstr strspn strcspn strpbrk strcoll strxfrm isalnum isalpha isdigit isspace tolower toupper fopen fclose fread fwrite fseek ftell fflush fgets fputs open close read write lseek stat fstat lstat mkdir rmdir unlink rename link symlink readlink chmod chown getpid getppid getuid geteuid getgid setuid setgid kill sigaction sigprocmask alarm sleep usleep socket bind listen accept connect send recv sendto recvfrom shutdown setsockopt getsockopt getaddrinfo freeaddrinfo gai_strerror inet_pton inet_ntop htons ntohs select mmap munmap mprotect msync madvise dlopen dlsym dlclose dlerror pthread_create pthread_join pthread_mutex_lock pthread_cond_wait iconv_open nl_langinfo setlocale wcwidth mbrtowc wcrtomb strftime strptime mktime difftime])
AC_CHECK_SIZEOF([long])
AC_CHECK_SIZEOF([size_t])
AC_CHECK_SIZEOF([off_t])
AC_SEARCH_LIBS([deflate], [z])
AC_SEARCH_LIBS([sodium_init], [sodium], [], [AC_MSG_ERROR([libsodium is required (install libsodium-dev or pass --with-sodium=PATH)])])
AC_SEARCH_LIBS([crypto_box_seal], [sodium])
AC_OUTPUT
EOF
autoconf 2>&1 || exit 1
autoheader 2>&1 || exit 1
""",
        "command": "./configure 2>&1 || { echo '=== config.log ==='; cat config.log; }",
        "needed": [r"^checking for library containing sodium_init\.\.\. no$", r"^configure: error: libsodium is required",
                   r"^configure:\d+: checking for library containing sodium_init$",
                   r"^configure:\d+: gcc -o conftest .* conftest\.c -lsodium", r"^/usr/bin/ld: cannot find -lsodium: No such file or directory$",
                   r"^configure:\d+: error: libsodium is required"],
        "first": r"^checking for library containing sodium_init\.\.\. no$",
    },
    {
        "name": "xmllint-schema-invalid",
        "what": "xmllint --schema over 2000 order files: 1998 validate, one has a non-integer quantity and one a missing element",
        "setup": apt(XMLLINT) + r"""
rm -rf orders && mkdir -p orders
cat > order.xsd <<'EOF'
<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="order">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="customer" type="xs:string"/>
        <xs:element name="line" maxOccurs="unbounded">
          <xs:complexType>
            <xs:sequence>
              <xs:element name="sku" type="xs:string"/>
              <xs:element name="quantity" type="xs:positiveInteger"/>
              <xs:element name="price" type="xs:decimal"/>
            </xs:sequence>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
      <xs:attribute name="id" type="xs:string" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
EOF
python3 - <<'EOF'
for i in range(2000):
    qty = "two" if i == 1234 else str(i % 9 + 1)
    price = "" if i == 611 else "<price>%d.99</price>" % (i % 40)
    xml = ("<?xml version='1.0'?>\n<order id='o-%04d'>\n  <customer>customer %d</customer>\n  <line>\n"
           "    <sku>SKU-%04d</sku>\n    <quantity>%s</quantity>\n    %s\n  </line>\n</order>\n") % (i, i, i, qty, price)
    open("orders/o_%04d.xml" % i, "w").write(xml)
EOF
""",
        "command": "xmllint --noout --schema order.xsd orders/*.xml 2>&1",
        "needed": [r"^orders/o_0611\.xml:4: element line: Schemas validity error : Element 'line': Missing child element\(s\)\. Expected is \( price \)\.$",
                   r"^orders/o_0611\.xml fails to validate$",
                   r"^orders/o_1234\.xml:6: element quantity: Schemas validity error : Element 'quantity': 'two' is not a valid value",
                   r"^orders/o_1234\.xml fails to validate$"],
        "first": r"^orders/o_0611\.xml:4: element line: Schemas validity error",
    },
    {
        "name": "cppcheck-error-among-style",
        "what": "cppcheck --enable=all --error-exitcode=1 over 120 C files: ~480 style messages with code snippets and one out-of-bounds array write",
        "setup": apt(CPPCHECK) + r"""
rm -rf src && mkdir -p src
python3 - <<'EOF'
for i in range(120):
    src = ["#include <stdio.h>", "#include <string.h>", "",
           "int helper_%d(int *values, int n)" % i, "{", "    int total = 0;", "    int unused_%d;" % i,
           "    int i;", "    for (i = 0; i < n; i++) {", "        int scratch = values[i] * 2;",
           "        total += scratch;", "    }", "    return total;", "}", "",
           "void report_%d(char *name)" % i, "{", "    char line[64];",
           "    sprintf(line, \"%%s: %%d\", name, %d);" % i, "    puts(line);", "}", ""]
    if i == 83:
        src += ["void clear_header(void)", "{", "    char header[16];", "    int k;",
                "    for (k = 0; k <= 16; k++) {", "        header[k] = 0;", "    }", "    puts(header);", "}", ""]
    open("src/unit_%03d.c" % i, "w").write("\n".join(src))
EOF
""",
        "command": "cppcheck --enable=all --inconclusive --error-exitcode=1 src 2>&1",
        "needed": [r"^src/unit_083\.c:28:15: error: Array 'header\[16\]' accessed at index 16, which is out of bounds\. \[arrayIndexOutOfBounds\]$",
                   [r"^\s+header\[k\] = 0;$", 1], r"^src/unit_083\.c:27:19: note: Assuming that condition 'k<=16' is not redundant$",
                   [r"^\s+for \(k = 0; k <= 16; k\+\+\) \{$", 1], r"^src/unit_083\.c:28:15: note: Array index out of bounds$"],
        "first": r"^src/unit_083\.c:28:15: error: ",
    },
    {
        "name": "go-test-race",
        "what": "go test -race -v: 900 tests log and pass, one in the middle trips the race detector (WARNING: DATA RACE with both goroutines' stacks)",
        "setup": apt(GCC, GO) + r"""
cat > go.mod <<'EOF'
module example.com/cache

go 1.19
EOF
cat > cache.go <<'EOF'
package cache

// Cache counts its hits.
type Cache struct {
	m    map[string]int
	hits int
}

// New returns an empty cache.
func New() *Cache { return &Cache{m: map[string]int{}} }

// Put stores v under k.
func (c *Cache) Put(k string, v int) { c.m[k] = v }

// Get returns the value under k and counts a hit.
func (c *Cache) Get(k string) int {
	c.hits++
	return c.m[k]
}

// Hits is the number of Get calls.
func (c *Cache) Hits() int { return c.hits }
EOF
python3 - <<'EOF'
tests = ['package cache\n\nimport (\n\t"fmt"\n\t"sync"\n\t"testing"\n)\n\nvar _ = fmt.Sprint\nvar _ sync.Mutex\n']
for i in range(900):
    if i == 450:
        tests.append('''func TestConcurrentGet(t *testing.T) {
	c := New()
	c.Put("a", 1)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 100; n++ {
				c.Get("a")
			}
		}()
	}
	wg.Wait()
	t.Logf("hits: %d", c.Hits())
}
''')
    tests.append('''func TestPutGet%03d(t *testing.T) {
	c := New()
	c.Put("k%d", %d)
	if got := c.Get("k%d"); got != %d {
		t.Fatalf("got %%d", got)
	}
	t.Logf("key k%d ok after %%d hits", c.Hits())
}
''' % (i, i, i, i, i, i))
open("cache_test.go", "w").write("\n".join(tests))
EOF
go vet . >/dev/null 2>&1; go test -race -count=1 -run XXX . >/dev/null 2>&1 || true
""",
        "command": "go test -race -count=1 -v . 2>&1",
        "needed": [r"^WARNING: DATA RACE$", r"^(Read|Write) at 0x[0-9a-f]+ by goroutine \d+:$",
                   r"^Previous (read|write) at 0x[0-9a-f]+ by goroutine \d+:$", [r"^\s+example\.com/cache\.\(\*Cache\)\.Get\(\)$", 2],
                   r"/cache\.go:17 \+0x[0-9a-f]+$", [r"/cache_test\.go:4071 \+0x[0-9a-f]+$", 1], r"^--- FAIL: TestConcurrentGet ",
                   [r"^\s+testing\.go:\d+: race detected during execution of test$", 1], r"^FAIL\texample\.com/cache\t"],
        "first": r"^WARNING: DATA RACE$",
    },
    {
        "name": "systemd-analyze-verify",
        "what": "systemd-analyze verify of 30 unit files: a misspelled key, a missing executable and a bad dependency among clean units",
        "setup": r"""
command -v systemd-analyze >/dev/null || exit 1
rm -rf units && mkdir -p units
python3 - <<'EOF'
for i in range(30):
    exec_line = "ExecStart=/bin/sleep %d" % (i + 1)
    extra = ""
    if i == 9:
        exec_line = "ExecStart=/usr/local/bin/ledger-sync --daemon"
    if i == 17:
        extra = "RestartSecs=5\n"
    if i == 23:
        extra = "Requires=ledger-db.service\nAfter=ledger-db.service\n"
    unit = "[Unit]\nDescription=Worker %d\n%s\n[Service]\nType=simple\n%s\nRestart=on-failure\n\n[Install]\nWantedBy=multi-user.target\n" % (i, extra if i == 23 else "", exec_line + ("\n" + extra if i == 17 else ""))
    open("units/worker-%02d.service" % i, "w").write(unit)
EOF
""",
        "command": "systemd-analyze verify units/*.service 2>&1",
        "needed": [r"worker-17\.service:7: Unknown key 'RestartSecs' in section \[Service\]",
                   r"^worker-09\.service: Command /usr/local/bin/ledger-sync is not executable: No such file or directory$",
                   r"^worker-23\.service: Failed to create worker-23\.service/start: Unit ledger-db\.service not found\.$"],
        "first": r"worker-17\.service:7: Unknown key 'RestartSecs'",
    },
    {
        "name": "black-check-parse-error",
        "what": "black --check --diff over 150 modules: 149 long reformatting diffs, one file cannot be parsed (a Python 2 print statement)",
        "setup": venv(".venv-black", f"black=={BLACK}") + r"""
rm -rf pkg && mkdir -p pkg
python3 - <<'EOF'
for i in range(150):
    d = "pkg"
    src = ["import os,sys", "from typing import Dict,List", "",
           "def load_%d(path,retries=3,timeout=10.0,verbose=False,encoding='utf-8',errors='strict',callback=None):" % i,
           "    data={'path':path,'retries':retries,'timeout':timeout}",
           "    if verbose: print('loading',path)",
           "    result=[x*2 for x in range(retries) if x%2==0]",
           "    return data,result", "",
           "class Loader%d(object):" % i, "    def __init__(self,path):", "        self.path=path",
           "    def run(self):", "        return load_%d(self.path,verbose=True)" % i, ""]
    if i == 87:
        src[5] = "    if verbose: print 'loading', path"
    open("%s/mod_%03d.py" % (d, i), "w").write("\n".join(src))
EOF
""",
        "command": "../.venv-black/bin/black --check --diff pkg 2>&1",
        "needed": [r"^error: cannot parse: .*/pkg/mod_087\.py:6:22$", r"^\s+if verbose: print 'loading', path$",
                   r"^ParseError: bad input$", r"^149 files would be reformatted, 1 file would fail to reformat\.$"],
        "first": r"^error: cannot parse: .*/pkg/mod_087\.py:6:22$",
    },
    {
        "name": "pylint-errors-among-conventions",
        "what": "pylint over 60 modules: ~900 convention/refactor/warning messages (duplicate-code blocks last) and two E-class errors (a missing argument, a no-member)",
        "setup": venv(".venv-pylint", f"pylint=={PYLINT}") + r"""
rm -rf billing && mkdir -p billing
python3 - <<'EOF'
open("billing/__init__.py", "w").write("")
for i in range(60):
    src = ["import os", "import sys", "import json", "", "def compute_%d(a, b, c, d, e, f, g):" % i,
           "    x = a + b", "    y = c + d", "    z = e + f", "    w = g", "    unused = 1",
           "    if x > 0:", "        if y > 0:", "            if z > 0:", "                if w > 0:",
           "                    return x + y + z + w", "    return 0", "",
           "class invoice_%d:" % i, "    def total(self, items):", "        t = 0", "        for i in range(len(items)):",
           "            t = t + items[i]", "        return t", "",
           "def tax(amount, rate):", "    return amount * rate", ""]
    if i == 23:
        src += ["def late_fee(amount):", "    return tax(amount)", ""]
    if i == 41:
        src += ["def render():", "    return invoice_41().total_with_tax([1, 2, 3])", ""]
    open("billing/mod_%02d.py" % i, "w").write("\n".join(src))
EOF
""",
        "command": "../.venv-pylint/bin/pylint --jobs=1 --persistent=n billing/*.py 2>&1",
        "needed": [r"^billing/mod_23\.py:29:11: E1120: No value for argument 'rate' in function call \(no-value-for-parameter\)$",
                   r"^billing/mod_41\.py:29:11: E1101: Instance of 'invoice_41' has no 'total_with_tax' member \(no-member\)$"],
        "first": r"^billing/mod_23\.py:29:11: E1120: ",
    },
    {
        "name": "ansible-one-host-fails",
        "what": "ansible-playbook -v over 8 local hosts and 162 tasks: one host's release directory has a typo, its command task fails early; the other hosts run on to the recap",
        "setup": venv(".venv-ansible", f"ansible-core=={ANSIBLE}") + r"""
rm -rf releases && mkdir -p releases/2.4.0 && touch releases/2.4.0/ledgerd
python3 - <<'EOF'
hosts = ["web-%02d" % i for i in range(1, 9)]
inv = ["[web]"]
for h in hosts:
    rel = "releases/2.4.0" if h != "web-05" else "relases/2.4.0"
    inv.append("%s ansible_connection=local ansible_python_interpreter=../.venv-ansible/bin/python release_dir=%s" % (h, rel))
open("inventory.ini", "w").write("\n".join(inv) + "\n")
tasks = []
for k in range(40):
    tasks.append("    - name: announce step %d\n      ansible.builtin.debug:\n        msg: \"{{ inventory_hostname }} preparing step %d of the ledger rollout\"\n" % (k, k))
tasks.append("    - name: check release directory\n      ansible.builtin.command: ls {{ playbook_dir }}/{{ release_dir }}\n      changed_when: false\n")
for k in range(40, 160):
    tasks.append("    - name: announce step %d\n      ansible.builtin.debug:\n        msg: \"{{ inventory_hostname }} running step %d of the ledger rollout\"\n" % (k, k))
tasks.append("    - name: record release\n      ansible.builtin.set_fact:\n        deployed: \"{{ release_dir }}\"\n")
play = "- name: roll out ledger 2.4.0\n  hosts: web\n  gather_facts: false\n  tasks:\n" + "\n".join(tasks)
open("site.yml", "w").write(play)
open("ansible.cfg", "w").write("[defaults]\nnocolor = True\nretry_files_enabled = False\nforks = 4\nlocal_tmp = ./.ansible-tmp\n")
EOF
""",
        "command": "ANSIBLE_NOCOLOR=1 ../.venv-ansible/bin/ansible-playbook -v -i inventory.ini site.yml 2>&1",
        "needed": [r"^\[ERROR\]: Task failed: Module failed: non-zero return code$", r"^Origin: .*/site\.yml:165:7$",
                   r"^165\s+- name: check release directory$",
                   r"^fatal: \[web-05\]: FAILED! => .*ls: cannot access '.*/relases/2\.4\.0': No such file or directory",
                   r"^web-05\s+: ok=40\s+changed=0\s+unreachable=0\s+failed=1"],
        "first": r"^\[ERROR\]: Task failed: Module failed: non-zero return code$",
    },
    {
        "name": "django-migrate-not-null",
        "what": "django migrate -v 2: the built-in apps' migrations apply, then an AlterField to NOT NULL fails on rows a data migration left null (sqlite IntegrityError, chained traceback)",
        "setup": venv(".venv-django", f"Django=={DJANGO}") + r"""
rm -rf shop ledgersite db.sqlite3 manage.py && mkdir -p shop/migrations ledgersite
touch shop/__init__.py shop/migrations/__init__.py ledgersite/__init__.py
cat > manage.py <<'EOF'
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ledgersite.settings")
    from django.core.management import execute_from_command_line
    execute_from_command_line(sys.argv)
EOF
cat > ledgersite/settings.py <<'EOF'
from pathlib import Path
BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY = "corpus"
DEBUG = True
INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions", "shop"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
EOF
cat > shop/models.py <<'EOF'
from django.db import models


class Order(models.Model):
    number = models.CharField(max_length=20)
    customer_email = models.EmailField()
EOF
cat > shop/migrations/0001_initial.py <<'EOF'
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        migrations.CreateModel(
            name="Order",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("number", models.CharField(max_length=20)),
                ("customer_email", models.EmailField(max_length=254, null=True)),
            ],
        ),
    ]
EOF
cat > shop/migrations/0002_import_legacy_orders.py <<'EOF'
from django.db import migrations


def load(apps, schema_editor):
    Order = apps.get_model("shop", "Order")
    for i in range(50):
        Order.objects.create(number="L-%04d" % i, customer_email=None if i % 10 == 3 else "c%d@example.com" % i)


class Migration(migrations.Migration):
    dependencies = [("shop", "0001_initial")]
    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
EOF
cat > shop/migrations/0003_require_customer_email.py <<'EOF'
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("shop", "0002_import_legacy_orders")]
    operations = [
        migrations.AlterField(model_name="order", name="customer_email", field=models.EmailField(max_length=254)),
    ]
EOF
""",
        "command": "../.venv-django/bin/python manage.py migrate -v 2 2>&1",
        "needed": [r"^\s+Applying shop\.0002_import_legacy_orders\.\.\. OK", r"^\s+Applying shop\.0003_require_customer_email\.\.\.",
                   r"^sqlite3\.IntegrityError: NOT NULL constraint failed: new__shop_order\.customer_email$",
                   r"^The above exception was the direct cause of the following exception:$",
                   r"^django\.db\.utils\.IntegrityError: NOT NULL constraint failed: new__shop_order\.customer_email$"],
        "first": r"^sqlite3\.IntegrityError: NOT NULL constraint failed",
    },
    {
        "name": "sphinx-warning-as-error",
        "what": "sphinx-build -W --keep-going over 400 pages: one :ref: to an undefined label among the reading/writing progress lines",
        "setup": venv(".venv-sphinx", f"sphinx=={SPHINX}") + r"""
rm -rf docs _build && mkdir -p docs/guide
cat > docs/conf.py <<'EOF'
project = "Ledger"
extensions = []
html_theme = "alabaster"
EOF
python3 - <<'EOF'
pages = []
for i in range(400):
    name = "guide/page_%03d" % i
    pages.append(name)
    body = ".. _page-%d:\n\nTopic %d\n=========\n\nThis page covers topic %d. See :ref:`page-%d` for the previous one.\n\n" % (i, i, i, max(i - 1, 0))
    body += "\n".join("Paragraph %d of topic %d explains the ledger format in detail." % (k, i) for k in range(5)) + "\n"
    if i == 263:
        body += "\nBefore you start, follow :ref:`install-guide`.\n"
    open("docs/%s.rst" % name, "w").write(body)
open("docs/index.rst", "w").write("Ledger\n======\n\n.. toctree::\n   :maxdepth: 1\n\n" + "\n".join("   " + p for p in pages) + "\n")
EOF
""",
        "command": "../.venv-sphinx/bin/sphinx-build -W --keep-going -b html docs _build/html 2>&1",
        "needed": [r"docs/guide/page_263\.rst:14: WARNING: undefined label: 'install-guide' \[ref\.ref\]$",
                   r"^build finished with problems, 1 warning \(with warnings treated as errors\)\.$"],
        "first": r"docs/guide/page_263\.rst:14: WARNING: undefined label: 'install-guide'",
    },
    {
        "name": "mkdocs-strict-broken-link",
        "what": "mkdocs build --strict -v over 450 pages: DEBUG lines for every page, one link to a missing page aborts the build",
        "setup": venv(".venv-mkdocs", f"mkdocs=={MKDOCS}") + r"""
rm -rf docs site && mkdir -p docs/guide docs/setup
python3 - <<'EOF'
nav = []
for i in range(450):
    body = "# Topic %d\n\nSee [the previous topic](page_%03d.md).\n\n" % (i, max(i - 1, 0))
    body += "\n\n".join("Paragraph %d about ledgers." % k for k in range(4)) + "\n"
    if i == 380:
        body += "\nFirst [install the agent](../setup/install-agent.md).\n"
    open("docs/guide/page_%03d.md" % i, "w").write(body)
open("docs/setup/install.md", "w").write("# Install\n\nRun the installer.\n")
open("docs/index.md", "w").write("# Ledger\n\nWelcome.\n")
open("mkdocs.yml", "w").write("site_name: Ledger\n")
EOF
""",
        "command": "../.venv-mkdocs/bin/mkdocs build --strict -v 2>&1",
        "needed": [r"^WARNING -  Doc file 'guide/page_380\.md' contains a link '\.\./setup/install-agent\.md', but the target 'setup/install-agent\.md' is not found",
                   r"^Aborted with 1 warnings in strict mode!$"],
        "first": r"^WARNING -  Doc file 'guide/page_380\.md' contains a link",
    },
    {
        "name": "sqlfluff-unparsable",
        "what": "sqlfluff lint --dialect postgres over 40 SQL files: ~2900 layout/capitalisation violations and one unparsable statement",
        "setup": venv(".venv-sqlfluff", f"sqlfluff=={SQLFLUFF}") + r"""
rm -rf sql && mkdir -p sql
python3 - <<'EOF'
for i in range(40):
    stmts = []
    for k in range(6):
        stmts.append("select id,amount , Customer_Id from orders_%d where amount>%d and status='open'  order by id;" % (i, k * 10))
    if i == 26:
        stmts.insert(3, "select id, amount from orders_26 where amount > 10 group order by id;")
    open("sql/report_%02d.sql" % i, "w").write("\n".join(stmts) + "\n")
EOF
""",
        "command": "../.venv-sqlfluff/bin/sqlfluff lint --dialect postgres --processes 1 sql 2>&1",
        "needed": [r"^== \[sql/report_26\.sql\] FAIL$", r"^L:   4 \| P:  52 \|  PRS \| Line 4, Position 52: Found unparsable section: 'group$",
                   r"^\s+\| order by id'\. Expected: Nothing here\. Found$", r"^\s+\| <WordSegment: \(\[L:  4, P: 52\]\) 'group'>$",
                   r"^WARNING: Parsing errors found and dialect is set to 'postgres'"],
        "first": r"^L:   4 \| P:  52 \|  PRS \| ",
    },
    {
        "name": "yamllint-syntax-error",
        "what": "yamllint over 250 Kubernetes-style manifests: 750 warnings (document start, truthy, comment spacing) and one syntax error",
        "setup": venv(".venv-yamllint", f"yamllint=={YAMLLINT}") + r"""
rm -rf manifests && mkdir -p manifests
python3 - <<'EOF'
for i in range(250):
    doc = ["apiVersion: apps/v1", "kind: Deployment", "metadata:", "  name: svc-%03d" % i, "spec:", "  replicas: 2",
           "  template:", "    spec:", "      containers:", "        - name: app",
           "          image: registry.local/ledger/svc-%03d:2.4.0  #pinned" % i,
           "          env:", "            - name: DEBUG", "              value: yes", "            - name: PORT",
           "              value: \"80%02d\"" % (i % 100)]
    if i == 60:
        doc[12] = "            - name: DEBUG value: yes"
        doc[13] = "              value: yes"
    open("manifests/svc-%03d.yaml" % i, "w").write("\n".join(doc) + "\n")
EOF
""",
        "command": "../.venv-yamllint/bin/yamllint manifests 2>&1",
        "needed": [r"^manifests/svc-060\.yaml$", r"^\s+13:32\s+error\s+syntax error: mapping values are not allowed here \(syntax\)$"],
        "first": r"^\s+13:32\s+error\s+syntax error: ",
    },
    {
        "name": "gunicorn-worker-boot",
        "what": "gunicorn --log-level debug with 1 worker (a short output): the worker's app import fails (ImportError deep in the app), the master gives up",
        "setup": venv(".venv-gunicorn", f"gunicorn=={GUNICORN}", f"flask=={FLASK}") + r"""
rm -rf ledger && mkdir -p ledger
cat > ledger/__init__.py <<'EOF'
EOF
cat > ledger/db.py <<'EOF'
def get_engine(url):
    return url
EOF
cat > ledger/views.py <<'EOF'
from flask import Blueprint

from ledger.db import get_session

bp = Blueprint("ledger", __name__)


@bp.route("/")
def index():
    return "ok"
EOF
cat > app.py <<'EOF'
from flask import Flask

from ledger.views import bp

app = Flask(__name__)
app.register_blueprint(bp)
EOF
""",
        "command": "timeout 60 ../.venv-gunicorn/bin/gunicorn --log-level debug -w 1 -b 127.0.0.1:18431 app:app 2>&1",
        "needed": [[r"\[ERROR\] Exception in worker process$", 1], [r"^\s+File \".*/gunicorn-worker-boot/app\.py\", line 3, in <module>$", 1],
                   [r"^\s+from ledger\.views import bp$", 1], [r"^\s+File \".*/gunicorn-worker-boot/ledger/views\.py\", line 3, in <module>$", 1],
                   [r"^\s+from ledger\.db import get_session$", 1],
                   [r"^ImportError: cannot import name 'get_session' from 'ledger\.db'", 1],
                   r"\[ERROR\] Worker \(pid:\d+\) exited with code 3\.$", r"\[ERROR\] Shutting down: Master$",
                   r"\[ERROR\] Reason: Worker failed to boot\.$"],
        "first": r"^ImportError: cannot import name 'get_session' from 'ledger\.db'",
    },
    {
        "name": "tsc-build-references",
        "what": "tsc --build over a solution of 4 referenced projects (emitted files listed): api has a type error (emitted anyway), then web and worker build and list their files",
        "setup": npm(f"typescript@{TYPESCRIPT}") + r"""
rm -rf packages tsconfig.json tsconfig.base.json
mkdir -p packages/core/src packages/api/src packages/web/src packages/worker/src
cat > tsconfig.base.json <<'EOF'
{ "compilerOptions": { "composite": true, "strict": true, "target": "ES2020", "module": "commonjs",
                       "declaration": true, "listEmittedFiles": true } }
EOF
cat > tsconfig.json <<'EOF'
{ "files": [], "references": [{ "path": "packages/core" }, { "path": "packages/api" },
                              { "path": "packages/web" }, { "path": "packages/worker" }] }
EOF
for p in core api web worker; do
  case $p in core) refs='[]';; api) refs='[{ "path": "../core" }]';; web) refs='[{ "path": "../api" }]';; worker) refs='[{ "path": "../core" }]';; esac
  cat > packages/$p/tsconfig.json <<EOF
{ "extends": "../../tsconfig.base.json", "compilerOptions": { "rootDir": "src", "outDir": "dist" },
  "include": ["src"], "references": $refs }
EOF
done
python3 - <<'EOF'
for i in range(150):
    open("packages/core/src/money_%03d.ts" % i, "w").write(
        "export interface Amount%d { cents: number; currency: string }\n"
        "export function add%d(a: Amount%d, b: Amount%d): Amount%d {\n  return { cents: a.cents + b.cents, currency: a.currency };\n}\n" % ((i,) * 5))
    open("packages/worker/src/job_%03d.ts" % i, "w").write(
        "import { add%d } from '../../core/src/money_%03d';\n"
        "export const job%d = () => add%d({ cents: %d, currency: 'EUR' }, { cents: 1, currency: 'EUR' });\n" % (i, i, i, i, i))
for i in range(20):
    body = "import { add%d, Amount%d } from '../../core/src/money_%03d';\n" % (i, i, i)
    if i == 12:
        body += "export function total%d(a: Amount%d): Amount%d {\n  return add%d(a, { cents: '100', currency: 'EUR' });\n}\n" % (i, i, i, i)
    else:
        body += "export function total%d(a: Amount%d): Amount%d {\n  return add%d(a, { cents: 100, currency: 'EUR' });\n}\n" % (i, i, i, i)
    open("packages/api/src/route_%02d.ts" % i, "w").write(body)
open("packages/web/src/page.ts", "w").write("import { total0 } from '../../api/src/route_00';\nexport const page = total0;\n")
EOF
""",
        "command": "rm -rf packages/*/dist packages/*/tsconfig.tsbuildinfo; npx tsc --build --verbose 2>&1",
        "needed": [r"Building project '.*/packages/api/tsconfig\.json'\.\.\.$",
                   r"^packages/api/src/route_12\.ts\(3,21\): error TS2322: Type 'string' is not assignable to type 'number'\.$"],
        "first": r"^packages/api/src/route_12\.ts\(3,21\): error TS2322: ",
    },
    {
        "name": "webpack-module-not-found",
        "what": "webpack --stats detailed over 400 modules (a short output): one import differs in case from the file on disk ('Module not found' with the resolver's log)",
        "setup": npm(f"webpack@{WEBPACK}", f"webpack-cli@{WEBPACK_CLI}") + r"""
rm -rf src dist && mkdir -p src/views src/utils
python3 - <<'EOF'
imports = []
for i in range(400):
    dep = "../utils/formatDate" if i == 233 else "../utils/format-date"
    open("src/views/view_%03d.js" % i, "w").write(
        "import { formatDate } from '%s';\nexport function render%d(d) {\n  return '<p>view %d ' + formatDate(d) + '</p>';\n}\n" % (dep, i, i))
    imports.append("import { render%d } from './views/view_%03d';" % (i, i))
open("src/utils/format-date.js", "w").write("export function formatDate(d) {\n  return d.toISOString().slice(0, 10);\n}\n")
open("src/index.js", "w").write("\n".join(imports) + "\nexport const all = [" + ", ".join("render%d" % i for i in range(400)) + "];\n")
EOF
cat > webpack.config.js <<'EOF'
module.exports = { entry: './src/index.js', output: { path: __dirname + '/dist', filename: 'main.js' } };
EOF
""",
        "command": "npx webpack --mode production --stats detailed 2>&1",
        "needed": [r"^ERROR in \./src/views/view_233\.js 1:0-49$",
                   r"^Module not found: Error: Can't resolve '\.\./utils/formatDate' in '.*/src/views'$",
                   r"^Did you mean '\.\./utils/format-date\.js'\?$", r"^ @ \./src/index\.js 234:0-45",
                   r"webpack 5\.112\.2 compiled with 1 error in "],
        "first": r"^ERROR in \./src/views/view_233\.js",
    },
    {
        "name": "mocha-two-failures",
        "what": "mocha over 30 spec files (1200 tests) that log while they run: two assertion failures, reported with diffs at the end",
        "setup": npm(f"mocha@{MOCHA}") + r"""
rm -rf test lib && mkdir -p test lib
cat > lib/cart.js <<'EOF'
function total(items, discount) {
  const sum = items.reduce((s, it) => s + it.price * it.qty, 0);
  return discount ? Math.round(sum * (1 - discount)) : sum;
}
function lines(items) {
  return items.map((it) => ({ sku: it.sku, qty: it.qty }));
}
module.exports = { total, lines };
EOF
python3 - <<'EOF'
for f in range(30):
    tests = ["const assert = require('assert');", "const { total, lines } = require('../lib/cart');", "",
             "describe('cart suite %d', function () {" % f]
    for k in range(40):
        items = "[{ sku: 'A%d', price: %d, qty: 2 }, { sku: 'B%d', price: 5, qty: 1 }]" % (k, k + 10, k)
        want = 2 * (k + 10) + 5
        if (f, k) == (4, 17):
            tests.append("  it('applies a 10%% discount to cart %d', function () {\n    console.log('seeding cart %d.%d');\n"
                         "    assert.strictEqual(total(%s, 0.1), %d);\n  });" % (k, f, k, items, want - 5))
        elif (f, k) == (9, 3):
            tests.append("  it('lists the lines of cart %d', function () {\n    console.log('seeding cart %d.%d');\n"
                         "    assert.deepStrictEqual(lines(%s), [{ sku: 'A%d', qty: 2 }, { sku: 'B%d', qty: 2 }]);\n  });" % (k, f, k, items, k, k))
        else:
            tests.append("  it('totals cart %d', function () {\n    console.log('seeding cart %d.%d with 2 items');\n"
                         "    assert.strictEqual(total(%s), %d);\n  });" % (k, f, k, items, want))
    tests.append("});")
    open("test/cart_%02d.spec.js" % f, "w").write("\n".join(tests) + "\n")
EOF
""",
        "command": "npx mocha --reporter spec 'test/*.spec.js' 2>&1",
        "needed": [r"^\s+1198 passing", r"^\s+2 failing$", r"^\s+1\) cart suite 4$", r"^\s+applies a 10% discount to cart 17:$",
                   r"^\s+AssertionError \[ERR_ASSERTION\]: Expected values to be strictly equal:$", r"^53 !== 54$",
                   r"^\s+at Context\.<anonymous> \(test/cart_04\.spec\.js:75:12\)$", r"^\s+2\) cart suite 9$",
                   r"^\s+lists the lines of cart 3:$", r"^\s+AssertionError \[ERR_ASSERTION\]: Expected values to be strictly deep-equal:$",
                   r"^\+\s+qty: 1,$", r"^-\s+qty: 2,$", r"^\s+at Context\.<anonymous> \(test/cart_09\.spec\.js:19:12\)$"],
        "first": r"^\s+AssertionError \[ERR_ASSERTION\]: Expected values to be strictly equal:$",
    },
    {
        "name": "prettier-check-syntax-error",
        "what": "prettier --check over 1600 files: 1599 need formatting ([warn] per file), one has a syntax error with a code frame",
        "setup": npm(f"prettier@{PRETTIER}") + r"""
rm -rf src && mkdir -p src/components
python3 - <<'EOF'
for i in range(1600):
    body = "export function Widget%d(props){\n  const {title,items}=props\n  return items.map(function(it){return title+': '+it.name})\n}\n" % i
    if i == 900:
        body = "export function Widget%d(props){\n  const {title,items}=props\n  return items.map(function(it){return title+': '+it.name)\n}\n" % i
    open("src/components/widget_%04d.js" % i, "w").write(body)
EOF
""",
        "command": "npx prettier --check 'src/**/*.js' 2>&1",
        "needed": [r"^\[error\] src/components/widget_0900\.js: SyntaxError: Unexpected token \(3:58\)$",
                   r"^\[error\] > 3 \|   return items\.map\(function\(it\)\{return title\+': '\+it\.name\)$",
                   r"^Error occurred when checking code style in the above file\.$"],
        "first": r"^\[error\] src/components/widget_0900\.js: SyntaxError: ",
    },
    {
        "name": "clippy-deny-among-pedantic",
        "what": "cargo clippy -W clippy::pedantic over 200 functions: 1001 pedantic warnings and one deny-by-default correctness error (approx_constant)",
        "setup": CARGO_TOML + r"""
python3 - <<'EOF'
fns = []
for i in range(200):
    fns.append("pub fn scale_%d(values: Vec<u64>, factor: f64) -> u32 {\n"
               "    let total: u64 = values.iter().sum();\n"
               "    (total as f64 * factor) as u32\n}\n" % i)
    if i == 137:
        fns.append("pub fn circle_area(r: f64) -> f64 {\n    3.14159 * r * r\n}\n")
open("src/lib.rs", "w").write("\n".join(fns))
EOF
cargo clippy --version >/dev/null 2>&1 || exit 1
""",
        "command": "cargo clippy --color never -- -W clippy::pedantic 2>&1",
        "needed": [r"^error: approximate value of `f\{32, 64\}::consts::PI` found$", r"^\s+--> src/lib\.rs:692:5$",
                   r"^692 \|\s+3\.14159 \* r \* r$", r"^\s+= help: consider using the constant directly$",
                   r"^\s+= note: `#\[deny\(clippy::approx_constant\)\]` on by default$",
                   r"^error: could not compile `demo` \(lib\) due to 1 previous error; 1001 warnings emitted$"],
        "first": r"^error: approximate value of `f\{32, 64\}::consts::PI` found$",
    },
]
