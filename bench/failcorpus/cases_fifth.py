"""Fifth held-out corpus of failing runs, of kinds that none of cases.py, cases_fresh.py,
cases_heldout.py, cases_third.py and cases_fourth.py holds: runtime reports not yet present
(ThreadSanitizer's data race, asyncio's 'Task exception was never retrieved', a multiprocessing
RemoteTraceback, a pytest-timeout thread dump that ends the run), GCC's static analyzer (-fanalyzer)
under make -k, other build and doc tools (SCons, javadoc's doclint, rollup with many bundles, dart-sass
with deprecation warnings), archive and patch tools (tar over a corrupt gzip stream, GNU patch
--verbose with a failed hunk), other linters and test runners (luacheck, minitest, ava, go test's
built-in vet step), Python application stacks (a Jinja2 site build, SQLAlchemy with echo=True,
Django's system checks in manage.py test, papermill's --log-output) and pre-commit with local hooks.
Same format as cases.py: name, what, setup, command, needed, first.

Each setup installs what it uses itself, pinned: Python tools into a venv in the corpus work dir (`..`),
npm packages into the case's directory, Debian packages with `apt-get install -y` when the command
(or, for a library, its file) is missing. The needed/first rules were written from each command's
real full output, run plainly in bash, by someone who had not seen how the excerpt picks lines (nor
the code that picks them), before any view was scored.
"""

# Python packages (venvs made with the machine's python3, 3.11).
JINJA2 = "3.1.6"
PYTEST = "8.3.3"
PYTEST_TIMEOUT = "2.4.0"
SQLALCHEMY = "2.1.9"
PRE_COMMIT = "4.7.0"
PAPERMILL = "2.7.0"
IPYKERNEL = "7.4.0"
DJANGO = "5.2.20"  # 6.x needs Python 3.12; the machine has 3.11

# npm packages.
ROLLUP = "4.69.3"
SASS = "1.108.2"
AVA = "7.0.0"  # 8.x does not install here (a package it needs is not served)

# Debian bookworm packages the cases use, pinned (installed only when the command is missing).
GCC = ("gcc", "gcc=4:12.2.0-3", "libc6-dev=2.36-9+deb12u14")
MAKE = ("make", "make=4.3-4.1")
GO = ("go", "golang-go=2:1.19~1")
GIT = ("git", "git=1:2.39.5-0+deb12u3")
LUACHECK = ("luacheck", "lua-check=1.1.0-1")
RUBY = ("ruby", "ruby=1:3.1")
SCONS = ("scons", "scons=4.4.0+dfsg-1")
JDK = ("javadoc", "openjdk-17-jdk-headless=17.0.15+6-1~deb12u1")
LIBTSAN = ("/usr/lib/x86_64-linux-gnu/libtsan.so.2", "libtsan2=12.2.0-14+deb12u1")  # for apt_unless

from cases_fresh import apt, npm, venv  # noqa: E402  (the same setup helpers as the earlier corpora)


def apt_unless(path, *pkgs):
    """bash: apt-get install the pinned packages unless PATH exists (a library that brings no command)."""
    return f"""
if [ ! -e {path} ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q {" ".join(pkgs)} >/dev/null || exit 1
fi
"""


CASES = [
    {
        "name": "tsan-metrics-data-race",
        "what": "a 2-thread request server built with -fsanitize=thread logs 24000 access lines and a metrics snapshot every millisecond (~1.4 MB): TSan's data-race report (an unlocked bytes_out update against the locked snapshot copy) lands early, a few hundred lines in, between access lines; the run then ends normally with a shutdown line, only 'reported 1 warnings' at the very end, and exit 66",
        "setup": apt(GCC) + apt_unless(*LIBTSAN) + r"""
rm -rf src && mkdir -p src
cat > src/stats.h <<'EOF'
#ifndef STATS_H
#define STATS_H
struct stats {
    long requests;
    long errors;
    long bytes_out;
    long slow;
};
void record_request(int status, long bytes, int latency_us);
void snapshot(struct stats *out);
#endif
EOF
cat > src/stats.c <<'EOF'
#include <pthread.h>
#include "stats.h"

static struct stats totals;
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;

void record_request(int status, long bytes, int latency_us) {
    pthread_mutex_lock(&totals_lock);
    totals.requests++;
    if (status >= 500)
        totals.errors++;
    if (latency_us > 900)
        totals.slow++;
    pthread_mutex_unlock(&totals_lock);
    totals.bytes_out += bytes;
}

void snapshot(struct stats *out) {
    pthread_mutex_lock(&totals_lock);
    *out = totals;
    pthread_mutex_unlock(&totals_lock);
}
EOF
cat > src/server.c <<'EOF'
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include "stats.h"

#define REQUESTS 24000
static _Atomic int done;
static const char *paths[] = {"/api/items", "/api/orders", "/api/users", "/static/app.js", "/health"};

static void *serve(void *arg) {
    (void)arg;
    unsigned seed = 7;
    for (int i = 0; i < REQUESTS; i++) {
        seed = seed * 1103515245u + 12345u;
        int status = (seed >> 8) % 97 == 0 ? 503 : 200;
        long bytes = 200 + (seed >> 4) % 4000;
        int latency = (seed >> 12) % 1000;
        const char *path = paths[(seed >> 16) % 5];
        printf("access: conn=%05d %s %s/%u -> %d %ldB %dus\n", i, "GET", path, (seed >> 3) % 1000, status, bytes, latency);
        record_request(status, bytes, latency);
        if (i % 2000 == 1999)
            usleep(2000);
    }
    done = 1;
    return NULL;
}

static void *report(void *arg) {
    (void)arg;
    struct stats s;
    while (!done) {
        usleep(1000);
        snapshot(&s);
        printf("metrics: requests=%ld errors=%ld slow=%ld bytes_out=%ld\n", s.requests, s.errors, s.slow, s.bytes_out);
    }
    return NULL;
}

int main(void) {
    pthread_t server, metrics;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("starting server on 127.0.0.1:8080 (1 worker, metrics every 1ms)\n");
    pthread_create(&server, NULL, serve, NULL);
    pthread_create(&metrics, NULL, report, NULL);
    pthread_join(server, NULL);
    pthread_join(metrics, NULL);
    struct stats s;
    snapshot(&s);
    printf("shutdown: served %ld requests, %ld errors, %ld bytes\n", s.requests, s.errors, s.bytes_out);
    return 0;
}
EOF
gcc -g -O1 -fsanitize=thread -Wall -o server src/server.c src/stats.c -lpthread
""",
        "command": "./server 2>&1",
        "needed": [r"^WARNING: ThreadSanitizer: data race \(pid=\d+\)$", r"^\s+#0 snapshot src/stats\.c:20 \(server\+0x[0-9a-f]+\)$",
                   r"^\s+#0 record_request src/stats\.c:15 \(server\+0x[0-9a-f]+\)$", r"^\s+Location is global 'totals' of size 32 at ",
                   r"^SUMMARY: ThreadSanitizer: data race src/stats\.c:(15 in record_request|20 in snapshot)$"],
        "first": r"^WARNING: ThreadSanitizer: data race",
    },
    {
        "name": "tar-xzv-corrupt-gzip-midway",
        "what": "tar -xzvf of a 10 800-file tenant backup whose gzip stream was overwritten past its middle (~230 KB, one name a line): the listing runs to tenant-032, then tar skips a garbage header, gzip reports the CRC and length errors and tar gives up; the last name listed is the file that came out damaged",
        "setup": r"""
if [ ! -f backup.tar.gz ]; then
  rm -rf snapshot && mkdir -p snapshot
  python3 - <<'EOF'
import json, os, random
rng = random.Random(11)
for t in range(60):
    for kind in ("orders", "invoices", "events"):
        d = "snapshot/tenants/tenant-%03d/%s" % (t, kind)
        os.makedirs(d, exist_ok=True)
        for k in range(60):
            rec = {"id": "%s-%03d-%04d" % (kind, t, k), "amount": rng.randint(1, 99999),
                   "note": " ".join(rng.choice(["alpha", "bravo", "charlie", "delta", "echo", "fox"]) for _ in range(rng.randint(5, 60)))}
            open("%s/%04d.json" % (d, k), "w").write(json.dumps(rec, indent=2) + "\n")
EOF
  tar --sort=name --mtime=2024-05-01 --owner=0 --group=0 --numeric-owner -cf - -C snapshot . | gzip -n -6 > backup.tar.gz
  size=$(stat -c %s backup.tar.gz)
  printf '\x13\x37\xde\xad\xbe\xef\x00\x42\x42\x42\x42\x42\x42\x42\x42\x42' | dd of=backup.tar.gz bs=1 seek=$((size * 11 / 20)) conv=notrunc status=none
  rm -rf snapshot
fi
""",
        "command": "rm -rf restore && mkdir restore && tar -xzvf backup.tar.gz -C restore 2>&1",
        "needed": [r"^\./tenants/tenant-032/orders/0036\.json$", r"^tar: Skipping to next header$",
                   r"^gzip: stdin: invalid compressed data--crc error$", r"^tar: Error is not recoverable: exiting now$"],
        "first": r"^tar: Skipping to next header$",
    },
    {
        "name": "patch-verbose-hunk-failed",
        "what": "patch -p1 --verbose of a v2.4 update (240 changed C files, 3-4 hunks each) onto a 480-file tree that has drifted (~115 KB: for each file the 'text leading up to this', 'patching file' and a line per hunk): two files take their hunks at an offset, and one hunk of billing_148.c no longer applies, a quarter of the way in; patch goes on to the end, writes a .rej and exits 1 with no closing summary",
        "setup": r"""
rm -rf v1 v2 base && mkdir -p v1 v2
python3 - <<'EOF'
import os, random
rng = random.Random(5)
mods = ["net", "store", "auth", "billing", "report"]
for m in mods:
    for d in ("v1", "v2"):
        os.makedirs("%s/src/%s" % (d, m), exist_ok=True)
for i in range(480):
    m = mods[i % len(mods)]
    name = "src/%s/%s_%03d.c" % (m, m, i)
    lines = ['#include "common.h"', ""]
    for f in range(8):
        lines += ["int %s_%03d_step%d(struct ctx *c, int n)" % (m, i, f), "{",
                  "    int total = %d;" % f, "    for (int k = 0; k < n; k++) {",
                  "        total += c->weights[k %% %d] * %d;" % (f + 3, rng.randint(2, 90)),
                  "    }", "    c->calls++;", "    return total + %d;" % (f * 7 + i), "}", ""]
    open("v1/" + name, "w").write("\n".join(lines))
    new = list(lines)
    if i % 2 == 0:
        for f in (1, 4, 7):
            at = 2 + f * 10 + 6
            new[at] = "    c->calls += 1; /* counted per call since v2.4 */"
        if i % 6 == 0:
            new.insert(2 + 3 * 10 + 2, "    if (n <= 0)\n        return 0;")
    open("v2/" + name, "w").write("\n".join(new))
EOF
diff -ruN v1 v2 > update.patch || true
cp -r v1 base
python3 - <<'EOF'
# the local tree has drifted from v1: a retry loop edited by hand in one file (the hunk can no longer
# apply), and new helpers added at the top of others (their hunks apply at an offset)
p = "base/src/billing/billing_148.c"
s = open(p).read().split("\n")
s[2 + 4 * 10 + 6] = "    c->calls = c->calls + 1; /* local: see INC-2291 */"
open(p, "w").write("\n".join(s))
for p in ("base/src/net/net_070.c", "base/src/store/store_196.c"):
    s = open(p).read().split("\n")
    s[2:2] = ["static int local_helper(int x)", "{", "    return x * 2;", "}", ""]
    open(p, "w").write("\n".join(s))
EOF
rm -rf v1 v2
""",
        "command": "rm -rf work && cp -r base work && cd work && patch -p1 --verbose --no-backup-if-mismatch < ../update.patch 2>&1",
        "needed": [r"^patching file src/billing/billing_148\.c$", r"^Hunk #2 FAILED at 46\.$",
                   r"^1 out of 3 hunks FAILED -- saving rejects to file src/billing/billing_148\.c\.rej$"],
        "first": r"^Hunk #2 FAILED at 46\.$",
    },
    {
        "name": "gcc-fanalyzer-double-free-make-k",
        "what": "make -k over a 150-file C codec library built with -Wall -Wextra -fanalyzer -Werror=analyzer-double-free (~135 KB: each compile line with its sign-compare and unused-parameter warnings and source carets): GCC's static analyzer finds a double free in lz_77.c, three fifths of the way in, and prints its 10-event path diagram; make goes on with the other files and ends with 'not remade because of errors'",
        "setup": apt(GCC, MAKE) + r"""
rm -rf src include build Makefile && mkdir -p include
cat > include/codec.h <<'EOF'
#include <stddef.h>
struct frame { unsigned char *data; size_t len; int kind; };
int codec_checksum(const unsigned char *p, size_t n);
EOF
python3 - <<'EOF'
import os
mods = ["frame", "huff", "lz", "crc", "wire"]
for i in range(150):
    m = mods[i % len(mods)]
    os.makedirs("src/" + m, exist_ok=True)
    body = ['#include <stdlib.h>', '#include <string.h>', '#include "codec.h"', '']
    body += ['int %s_%02d_scan(const unsigned char *p, size_t n, int flags)' % (m, i), '{',
             '    int hits = 0;', '    for (int k = 0; k < n; k++)', '        hits += p[k] == 0x7e;', '    return hits;', '}', '']
    body += ['int %s_%02d_size(struct frame *f, int unused_hint)' % (m, i), '{',
             '    return f->len > 0 ? (int)f->len : -1;', '}', '']
    if i % 7 == 3:
        body += ['unsigned char *%s_%02d_copy(const struct frame *f)' % (m, i), '{',
                 '    unsigned char *out = malloc(f->len + 4);', '    if (!out)', '        return NULL;',
                 '    memcpy(out, f->data, f->len);', '    if (f->kind < 0)', '        return NULL;',
                 '    return out;', '}', '']
    if i == 77:
        body += ['int %s_%02d_decode(struct frame *f, const unsigned char *src, size_t n)' % (m, i), '{',
                 '    unsigned char *buf = malloc(n);', '    if (!buf)', '        return -1;',
                 '    memcpy(buf, src, n);', '    if (codec_checksum(buf, n) != 0) {', '        free(buf);',
                 '        f->kind = -1;', '    }', '    f->data = buf;', '    f->len = n;',
                 '    if (f->kind < 0) {', '        free(buf);', '        return -1;', '    }', '    return 0;', '}', '']
    open("src/%s/%s_%02d.c" % (m, m, i), "w").write("\n".join(body))
EOF
cat > Makefile <<'EOF'
CC = gcc
CFLAGS = -std=c11 -O0 -g -Wall -Wextra -Iinclude -fanalyzer -Werror=analyzer-double-free
SRCS = $(sort $(wildcard src/*/*.c))
OBJS = $(patsubst src/%.c,build/%.o,$(SRCS))

all: build/libcodec.a

build/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

build/libcodec.a: $(OBJS)
	ar rcs $@ $^
EOF
""",
        "command": "rm -rf build && make -k 2>&1",
        "needed": [r"^src/lz/lz_77\.c: In function .lz_77_decode.:$",
                   r"^src/lz/lz_77\.c:31:9: error: double-.free. of .buf. \[CWE-415\] \[-Werror=analyzer-double-free\]$",
                   r"^\s+\|\s+\|\s+\(7\) first .free. here$", r"^\s+\|\s+\|\s+\(10\) second .free. here; first .free. was at \(7\)$",
                   r"^make: \*\*\* \[Makefile:10: build/lz/lz_77\.o\] Error 1$", r"^make: Target 'all' not remade because of errors\.$"],
        "first": r"lz_77\.c:31:9: error: double-.free. of .buf.",
    },
    {
        "name": "luacheck-syntax-error-among-warnings",
        "what": "luacheck --codes over a 200-file Lua game mod (~390 KB: a 'Checking' header per file and 27 unused-variable/argument and non-standard-global warnings under each): one file has an if without its end, a third of the way in, reported as E011 under a '1 error' header; the total line at the end counts the error but does not name it",
        "setup": apt(LUACHECK) + r"""
rm -rf lua && mkdir -p lua
python3 - <<'EOF'
import os
areas = ["ui", "inventory", "quests", "combat", "net"]
for i in range(200):
    a = areas[i % len(areas)]
    os.makedirs("lua/" + a, exist_ok=True)
    src = ["local M = {}", "local util = require('util')", "local json = require('json')", ""]
    for f in range(5):
        src += ["function M.%s_%d_%d(state, opts, extra)" % (a, i, f),
                "  local tmp = {}",
                "  local count = 0",
                "  for idx, item in ipairs(state.items) do",
                "    count = count + item.weight * %d" % (f + 1),
                "  end",
                "  last_update = os.time()",
                "  return count",
                "end", ""]
    if i == 131:
        src += ["function M.refresh(state)",
                "  for _, q in ipairs(state.quests) do",
                "    if q.done then",
                "      state.finished = state.finished + 1",
                "  end",
                "  return state.finished",
                "end", ""]
    src += ["return M"]
    open("lua/%s/%s_%03d.lua" % (a, a, i), "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "luacheck --no-color --codes lua 2>&1",
        "needed": [r"^Checking lua/inventory/inventory_131\.lua\s+1 error$",
                   r"^\s+lua/inventory/inventory_131\.lua:59:3: \(E011\) expected 'end' \(to close 'if' on line 57\) near less indented 'end'",
                   r"^Total: 5373 warnings / 1 error in 200 files$"],
        "first": r"inventory_131\.lua:59:3: \(E011\)",
    },
    {
        "name": "minitest-verbose-failure-and-error",
        "what": "minitest --verbose --seed 4242 over 40 test classes of a shipping module (1600 tests, one 'Class#test = 0.00 s = .' line each, ~93 KB, in seeded random order): an E mid-run (nil postcode in a label) and an F later (a heavy-parcel rate); the end gives the NoMethodError with its code snippet and backtrace, the failure's Expected/Actual, then the counts",
        "setup": apt(RUBY) + r"""
rm -rf lib test && mkdir -p lib test
cat > lib/shipping.rb <<'EOF'
module Shipping
  ZONES = { "domestic" => 450, "eu" => 1250, "world" => 2400 }.freeze

  def self.rate(zone, weight_g)
    base = ZONES.fetch(zone)
    extra = weight_g > 1000 ? ((weight_g - 1000) / 500.0).ceil * 150 : 0
    base + extra
  end

  def self.eta_days(zone, express: false)
    days = { "domestic" => 2, "eu" => 5, "world" => 12 }[zone]
    express ? (days / 2.0).ceil : days
  end

  def self.label(order)
    "#{order[:name].upcase} / #{order[:city]} / #{order[:postcode].strip}"
  end
end
EOF
python3 - <<'EOF'
zones = ["domestic", "eu", "world"]
for t in range(40):
    out = ["require 'minitest/autorun'", "require 'shipping'", "", "class ShippingBatch%02dTest < Minitest::Test" % t]
    for k in range(40):
        z = zones[k % 3]
        w = 200 + 37 * k
        if t == 17 and k == 22:
            out += ["  def test_rate_%02d_%s_heavy_parcel" % (k, z), "    assert_equal 1550, Shipping.rate(%r, 2100)" % "eu", "  end", ""]
            continue
        if t == 29 and k == 5:
            out += ["  def test_label_%02d_without_postcode" % k,
                    "    order = { name: 'ada lovelace', city: 'London', postcode: nil }",
                    "    assert_match(/LONDON/, Shipping.label(order))", "  end", ""]
            continue
        out += ["  def test_rate_%02d_%s_%dg" % (k, z, w),
                "    expected = Shipping::ZONES[%r] + (%d > 1000 ? ((%d - 1000) / 500.0).ceil * 150 : 0)" % (z, w, w),
                "    assert_equal expected, Shipping.rate(%r, %d)" % (z, w), "  end", ""]
    out += ["end"]
    open("test/shipping_batch_%02d_test.rb" % t, "w").write("\n".join(out) + "\n")
EOF
""",
        "command": "ruby -Ilib -Itest -e 'Dir.glob(\"test/*_test.rb\").sort.each { |f| require File.expand_path(f) }' -- --verbose --seed 4242 2>&1",
        "needed": [r"^NoMethodError: undefined method `strip' for nil:NilClass$", r"^\s+/.*/lib/shipping\.rb:16:in `label'$",
                   r"^ShippingBatch17Test#test_rate_22_eu_heavy_parcel \[/.*/test/shipping_batch_17_test\.rb:116\]:$",
                   r"^Expected: 1550$", r"^\s+Actual: 1700$", r"^1600 runs, 1599 assertions, 1 failures, 1 errors, 0 skips$"],
        "first": r"^ShippingBatch29Test#test_label_05_without_postcode = [\d.]+ s = E$",
    },
    {
        "name": "scons-k-compile-error",
        "what": "scons -k -j1 over a 240-file sensor daemon in six static libraries (~260 KB: every gcc and ar command, each file's unused-variable warnings with carets): one file still reads a struct field renamed in 3.0, four fifths of the way in; scons prints its *** line, builds the rest and ends with 'errors occurred during build' without naming the file",
        "setup": apt(GCC, SCONS) + r"""
rm -rf src include build SConstruct .sconsign.dblite && mkdir -p include
cat > include/sensor.h <<'EOF'
struct reading {
    int sensor_id;
    long temp_mc;      /* millidegrees Celsius (was temp_c before 3.0) */
    long humidity_pm;  /* per mille */
    long ts;
};
long smooth(const struct reading *r, int n);
EOF
python3 - <<'EOF'
import os
groups = ["acquire", "calib", "filter", "export", "alarm", "store"]
for i in range(240):
    g = groups[i % len(groups)]
    os.makedirs("src/" + g, exist_ok=True)
    body = ['#include <stdio.h>', '#include "sensor.h"', '']
    for f in range(3):
        body += ['long %s_%03d_pass%d(const struct reading *r, int n)' % (g, i, f), '{',
                 '    long acc = 0;', '    int skipped;', '    char label[16];',
                 '    for (int k = 0; k < n; k++)', '        acc += r[k].temp_mc / %d + r[k].humidity_pm;' % (f + 2),
                 '    return acc;', '}', '']
    if i == 200:
        body += ['long %s_%03d_celsius(const struct reading *r)' % (g, i), '{',
                 '    return r->temp_c / 1000;', '}', '']
    open("src/%s/%s_%03d.c" % (g, g, i), "w").write("\n".join(body))
open("src/main.c", "w").write('#include "sensor.h"\nlong smooth(const struct reading *r, int n) { return n ? r[0].temp_mc : 0; }\nint main(void) { return 0; }\n')
EOF
cat > SConstruct <<'EOF'
env = Environment(CCFLAGS=['-O2', '-g', '-Wall'], CPPPATH=['#include'])
VariantDir('build', 'src', duplicate=0)
groups = ['acquire', 'calib', 'filter', 'export', 'alarm', 'store']
libs = []
for g in groups:
    srcs = sorted(str(f).replace('src/', 'build/', 1) for f in Glob('src/%s/*.c' % g, strings=True))
    libs.append(env.StaticLibrary('build/lib' + g, srcs))
env.Program('build/sensord', ['build/main.c'] + libs)
EOF
""",
        "command": "rm -rf build .sconsign.dblite && scons -k -j1 2>&1",
        "needed": [r"^src/filter/filter_200\.c: In function 'filter_200_celsius':$",
                   r"^src/filter/filter_200\.c:36:15: error: 'const struct reading' has no member named 'temp_c'; did you mean 'temp_mc'\?$",
                   r"^\s+36 \|\s+return r->temp_c / 1000;$", r"^scons: \*\*\* \[build/filter/filter_200\.o\] Error 1$",
                   r"^scons: done building targets \(errors occurred during build\)\.$"],
        "first": r"filter_200\.c:36:15: error: ",
    },
    {
        "name": "javadoc-doclint-reference-not-found",
        "what": "javadoc -Xdoclint:all -Xmaxwarns 5000 over 150 classes of a billing library (~108 KB: a 'Generating' line per page and 750 'no comment'/'no @return' warnings with source and caret): one doc comment links a method that does not exist, about a quarter of the way in; javadoc goes on and ends with '1 error' and '750 warnings'",
        "setup": apt(JDK) + r"""
rm -rf src docs && mkdir -p src
python3 - <<'EOF'
import os
pkgs = ["invoice", "ledger", "tax", "payment", "report"]
for p in pkgs:
    os.makedirs("src/com/acme/billing/" + p, exist_ok=True)
for i in range(150):
    p = pkgs[i % len(pkgs)]
    cls = "%s%03d" % (p.capitalize(), i)
    src = ["package com.acme.billing.%s;" % p, "", "/**", " * %s handles one step of the %s pipeline." % (cls, p), " */",
           "public class %s {" % cls, "    private long cents;", "",
           "    /** Creates an empty step. */", "    public %s() {}" % cls, ""]
    for m in range(4):
        src += ["    public long apply%d(long amount, int scale) {" % m,
                "        cents += amount * scale;", "        return cents;", "    }", ""]
    src += ["    /**", "     * Rounds the running total.", "     * @param mode the rounding mode", "     */",
            "    public long rounded(int mode) {", "        return mode == 0 ? cents : (cents + 50) / 100 * 100;", "    }", ""]
    if i == 61:
        src += ["    /**", "     * Books the running total; the tax part comes from {@link com.acme.billing.tax.Tax002#applyRate(long)}.",
                "     * @return the booked total in cents", "     */", "    public long book() {", "        return cents;", "    }", ""]
    src += ["}"]
    open("src/com/acme/billing/%s/%s.java" % (p, cls), "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "rm -rf docs && javadoc -d docs -Xdoclint:all -Xmaxwarns 5000 -sourcepath src -subpackages com.acme 2>&1",
        "needed": [r"^src/com/acme/billing/ledger/Ledger061\.java:41: error: reference not found$",
                   r"^\s+\* Books the running total; the tax part comes from \{@link com\.acme\.billing\.tax\.Tax002#applyRate\(long\)\}\.$",
                   r"^1 error$", r"^750 warnings$"],
        "first": r"Ledger061\.java:41: error: reference not found$",
    },
    {
        "name": "asyncio-task-exception-never-retrieved",
        "what": "an asyncio feed sync (600 feeds in batches of 50, a log line per page, ~150 KB) starts its token refresh with a fire-and-forget create_task; the refresh reads a key the token answer does not have, and asyncio logs 'Task exception was never retrieved' with the task's traceback early (~line 240) when the task is dropped; the sync goes on without a token and ends with every feed kept as a draft and exit 1",
        "setup": r"""
rm -rf feeds && mkdir -p feeds
cat > feeds/__init__.py <<'EOF'
EOF
cat > feeds/auth.py <<'EOF'
import asyncio
import logging

log = logging.getLogger("feeds.auth")


class TokenCache:
    def __init__(self):
        self.token = None
        self.expires_at = 0.0

    async def refresh(self, response: dict) -> None:
        await asyncio.sleep(0.01)
        log.info("refreshing upstream token (scope=%s)", response.get("scope"))
        self.token = response["access_token"]
        self.expires_at = asyncio.get_running_loop().time() + response["expires_in"]
        log.info("token refreshed, valid for %ss", response["expires_in"])
EOF
cat > feeds/sync.py <<'EOF'
import asyncio
import logging
import random

from feeds.auth import TokenCache

log = logging.getLogger("feeds.sync")


async def fetch_feed(cache: TokenCache, feed_id: int, rng: random.Random) -> int:
    items = 0
    for page in range(1, 4):
        await asyncio.sleep(rng.random() / 400)
        n = rng.randint(5, 40)
        items += n
        log.info("feed %04d page %d: %d items (token=%s)", feed_id, page, n, "set" if cache.token else "none")
    if cache.token is None:
        log.warning("feed %04d: no upstream token, items kept as drafts", feed_id)
        return -items
    return items


async def main() -> int:
    rng = random.Random(3)
    cache = TokenCache()
    # the token endpoint's answer is fetched once; its refresh runs in the background
    asyncio.create_task(cache.refresh({"scope": "feeds:read", "token": "tok-5f2c", "expires_in": 3600}))
    results = []
    for batch in range(0, 600, 50):
        log.info("batch %d-%d starting", batch, batch + 49)
        results += await asyncio.gather(*(fetch_feed(cache, f, rng) for f in range(batch, batch + 50)))
        log.info("batch %d-%d done", batch, batch + 49)
    drafts = sum(1 for r in results if r < 0)
    log.info("sync finished: %d feeds, %d published, %d kept as drafts", len(results), len(results) - drafts, drafts)
    return 1 if drafts else 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)-7s %(name)s: %(message)s")
    raise SystemExit(asyncio.run(main()))
EOF
""",
        "command": "python3 -m feeds.sync 2>&1",
        "needed": [r"^ERROR\s+asyncio: Task exception was never retrieved$",
                   r"^future: <Task finished name='Task-2' coro=<TokenCache\.refresh\(\) done, defined at .*/feeds/auth\.py:12> exception=KeyError\('access_token'\)>$",
                   r'^\s+File ".*/feeds/auth\.py", line 15, in refresh$', r'^\s+self\.token = response\["access_token"\]$',
                   r"^KeyError: 'access_token'$", r"^INFO\s+feeds\.sync: sync finished: 600 feeds, 0 published, 600 kept as drafts$"],
        "first": r"^ERROR\s+asyncio: Task exception was never retrieved$",
    },
    {
        "name": "multiprocessing-pool-remote-traceback",
        "what": "a 2-worker multiprocessing.Pool ETL over 900 CSV chunks (~110 KB: a line per chunk from the workers, a 'merged' line per chunk from the parent): one row of chunk 0611 has month 13; the worker's ValueError comes back through imap as a RemoteTraceback, followed by the parent's own traceback, at the very end; neither names the file, only the last 'merged' line before them tells which chunk failed",
        "setup": r"""
rm -rf etl && mkdir -p etl data
cat > etl/__init__.py <<'EOF'
EOF
cat > etl/transform.py <<'EOF'
import os
import sys
from datetime import datetime


def parse_row(line: str) -> dict:
    order_id, customer, amount, placed = line.rstrip("\n").split(",")
    row = {
        "order_id": int(order_id),
        "customer": customer.strip(),
        "amount_cents": round(float(amount) * 100),
        "placed": datetime.strptime(placed, "%Y-%m-%d").date(),
    }
    return row


def transform_chunk(path: str) -> dict:
    rows = 0
    total = 0
    with open(path) as fh:
        next(fh)
        for line in fh:
            row = parse_row(line)
            rows += 1
            total += row["amount_cents"]
    sys.stderr.write(f"[worker {os.getpid()}] {path}: {rows} rows, {total} cents\n")
    sys.stderr.flush()
    return {"path": path, "rows": rows, "total": total}
EOF
cat > run_etl.py <<'EOF'
import glob
import logging
import multiprocessing

from etl.transform import transform_chunk

log = logging.getLogger("etl")


def main() -> None:
    chunks = sorted(glob.glob("data/orders-*.csv"))
    log.info("transforming %d chunks with 2 workers", len(chunks))
    grand = 0
    with multiprocessing.Pool(2) as pool:
        for i, result in enumerate(pool.imap(transform_chunk, chunks), 1):
            grand += result["total"]
            log.info("chunk %d/%d merged: %s (%d rows, running total %d)", i, len(chunks), result["path"], result["rows"], grand)
    log.info("done: %d cents", grand)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    main()
EOF
python3 - <<'EOF'
import random
rng = random.Random(8)
for c in range(900):
    lines = ["order_id,customer,amount,placed"]
    for k in range(200):
        oid = c * 200 + k
        day = "2024-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        if c == 611 and k == 143:
            day = "2024-13-02"
        lines.append("%d,cust-%05d,%d.%02d,%s" % (oid, rng.randint(1, 99999), rng.randint(1, 900), rng.randint(0, 99), day))
    open("data/orders-%04d.csv" % c, "w").write("\n".join(lines) + "\n")
EOF
""",
        "command": "python3 run_etl.py 2>&1",
        "needed": [r" INFO etl: chunk 611/900 merged: data/orders-0610\.csv \(200 rows, running total \d+\)$",
                   r'^\s+File ".*/etl/transform\.py", line 12, in parse_row$', r'^\s+"placed": datetime\.strptime\(placed, "%Y-%m-%d"\)\.date\(\),$',
                   [r"^ValueError: time data '2024-13-02' does not match format '%Y-%m-%d'$", 1], r'^\s+File ".*/run_etl\.py", line 15, in main$'],
        "first": r"^ValueError: time data '2024-13-02' does not match format",
    },
    {
        "name": "jinja2-site-build-undefined-attribute",
        "what": "a Jinja2 static-site build (StrictUndefined) renders 3000 product pages, logging each page written (~115 KB): product 1874 has no supplier and its page raises UndefinedError at the end, a traceback through build.py, jinja2's internals and the template frames (product.html's block 'content' line with the source line); nothing names the product, only the last 'wrote' line before it",
        "setup": venv(".venv-jinja", f"jinja2=={JINJA2}") + r"""
rm -rf templates site && mkdir -p templates
cat > templates/base.html <<'EOF'
<!doctype html>
<html lang="en">
<head><title>{% block title %}Shop{% endblock %}</title></head>
<body>
<header><a href="/">Shop</a></header>
<main>
{% block content %}{% endblock %}
</main>
<footer>&copy; 2024 Shop</footer>
</body>
</html>
EOF
cat > templates/product.html <<'EOF'
{% extends "base.html" %}
{% block title %}{{ product.name }} | Shop{% endblock %}
{% block content %}
<article class="product">
  <h1>{{ product.name }}</h1>
  <p class="price">{{ "%.2f"|format(product.price_cents / 100) }} EUR</p>
  <ul class="tags">
  {% for tag in product.tags %}<li>{{ tag }}</li>{% endfor %}
  </ul>
  <p class="stock">{{ product.stock }} in stock</p>
  <p class="supplier">Supplied by {{ product.supplier.name|upper }} ({{ product.supplier.country }})</p>
</article>
{% endblock %}
EOF
cat > build.py <<'EOF'
import json
import logging
import os
import sys
import time

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

log = logging.getLogger("build")


def render_products(env, products, out_dir):
    template = env.get_template("product.html")
    for product in products:
        html = template.render(product=product)
        path = os.path.join(out_dir, "products", product["slug"] + ".html")
        with open(path, "w") as fh:
            fh.write(html)
        log.info("wrote %s (%d bytes)", path, len(html))


def main():
    started = time.time()
    products = json.load(open("catalog.json"))
    log.info("loaded %d products from catalog.json", len(products))
    env = Environment(loader=FileSystemLoader("templates"), autoescape=select_autoescape(), undefined=StrictUndefined)
    os.makedirs("site/products", exist_ok=True)
    render_products(env, products, "site")
    log.info("built %d pages in %.1fs", len(products), time.time() - started)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stdout)
    main()
EOF
python3 - <<'EOF'
import json, random
rng = random.Random(21)
suppliers = [{"name": "Nordic Goods", "country": "SE"}, {"name": "Iberia Trade", "country": "ES"}, {"name": "Alpen Supply", "country": "AT"}]
products = []
for i in range(3000):
    p = {"slug": "p-%04d-%s" % (i, rng.choice(["lamp", "chair", "desk", "shelf", "rug"])), "name": "Item %04d" % i,
         "price_cents": rng.randint(500, 90000), "tags": rng.sample(["oak", "steel", "eco", "sale", "new", "outdoor"], 3),
         "stock": rng.randint(0, 80), "supplier": rng.choice(suppliers)}
    if i == 1874:
        p["supplier"] = None
    products.append(p)
json.dump(products, open("catalog.json", "w"), indent=1)
EOF
""",
        "command": "rm -rf site && ../.venv-jinja/bin/python build.py 2>&1",
        "needed": [r"^INFO build: wrote site/products/p-1873-\w+\.html \(\d+ bytes\)$", r'^\s+File ".*/build\.py", line 15, in render_products$',
                   r'^\s+File "templates/product\.html", line 11, in block .content.$',
                   r'^\s+<p class="supplier">Supplied by \{\{ product\.supplier\.name\|upper \}\}',
                   r"^jinja2\.exceptions\.UndefinedError: 'None' has no attribute 'name'$"],
        "first": r"^jinja2\.exceptions\.UndefinedError: ",
    },
    {
        "name": "pytest-timeout-thread-dump-no-summary",
        "what": "pytest -v with pytest-timeout (--timeout=5, thread method) over 60 files of a worker-pool package (2400 tests, ~165 KB of PASSED lines): a test with a 6-thread pool hangs in close(), which sends only 4 sentinels; after 5 s the plugin dumps every thread's stack (two workers blocked in queue.get, the main thread in join) and kills the process: the output ends there, with no failure section and no summary",
        "setup": venv(".venv-timeout", f"pytest=={PYTEST}", f"pytest-timeout=={PYTEST_TIMEOUT}") + r"""
rm -rf jobq tests && mkdir -p jobq tests
cat > jobq/__init__.py <<'EOF'
EOF
cat > jobq/pool.py <<'EOF'
import queue
import threading


class WorkerPool:
    def __init__(self, size: int):
        self._q = queue.Queue()
        self._done = []
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._work, name=f"jobq-worker-{i}") for i in range(size)]
        for t in self._threads:
            t.start()

    def _work(self):
        while True:
            item = self._q.get()
            if item is None:
                return
            with self._lock:
                self._done.append(item * 2)

    def submit(self, item):
        self._q.put(item)

    def close(self):
        # one sentinel per worker ... unless the pool was resized
        for _ in range(min(len(self._threads), 4)):
            self._q.put(None)
        for t in self._threads:
            t.join()
        return sorted(self._done)
EOF
python3 - <<'EOF'
for f in range(60):
    out = ["from jobq.pool import WorkerPool", "", ""]
    for k in range(40):
        size = 2 + (k % 3)
        if f == 48 and k == 27:
            size = 6
        out += ["def test_pool_%02d_%02d_size_%d():" % (f, k, size),
                "    pool = WorkerPool(%d)" % size,
                "    for n in range(%d):" % (10 + k),
                "        pool.submit(n)",
                "    assert pool.close() == [2 * n for n in range(%d)]" % (10 + k), "", ""]
    open("tests/test_pool_%02d.py" % f, "w").write("\n".join(out))
EOF
""",
        "command": "../.venv-timeout/bin/python -m pytest -v -p no:cacheprovider --timeout=5 --timeout-method=thread tests 2>&1",
        "needed": [r"^tests/test_pool_48\.py::test_pool_48_27_size_6 \++ Timeout \++$",
                   r'^\s+File ".*/tests/test_pool_48\.py", line 197, in test_pool_48_27_size_6$', r'^\s+File ".*/jobq/pool\.py", line 30, in close$',
                   [r'^\s+File ".*/jobq/pool\.py", line 16, in _work$', 1], [r"^\s+item = self\._q\.get\(\)$", 1]],
        "first": r"^tests/test_pool_48\.py::test_pool_48_27_size_6 \++ Timeout",
    },
    {
        "name": "sqlalchemy-echo-integrity-error-midimport",
        "what": "a CSV import with SQLAlchemy 2 echo=True (~540 KB: every INSERT ... RETURNING and its parameters, one row at a time, a progress line per 50): row 1742's e-mail, lower-cased, repeats row 318's; the flush fails at the end with sqlite3's UNIQUE error chained into sqlalchemy's IntegrityError, whose [SQL: ...] and [parameters: ...] lines name the row",
        "setup": venv(".venv-sqla", f"sqlalchemy=={SQLALCHEMY}") + r"""
rm -rf crm && mkdir -p crm
cat > crm/__init__.py <<'EOF'
EOF
cat > crm/models.py <<'EOF'
from sqlalchemy import String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Customer(Base):
    __tablename__ = "customers"
    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(120), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    region: Mapped[str] = mapped_column(String(8))
    city: Mapped[str] = mapped_column(String(60))
EOF
cat > import_customers.py <<'EOF'
import csv

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from crm.models import Base, Customer


def import_file(path: str) -> int:
    engine = create_engine("sqlite:///crm.db", echo=True)
    Base.metadata.create_all(engine)
    count = 0
    with Session(engine) as session, open(path) as fh:
        batch = []
        for row in csv.DictReader(fh):
            batch.append(Customer(email=row["email"].strip().lower(), name=row["name"], region=row["region"], city=row["city"]))
            if len(batch) == 50:
                session.add_all(batch)
                session.flush()
                count += len(batch)
                print(f"import: {count} customers staged, last id {batch[-1].id}", flush=True)
                batch = []
        session.commit()
    return count


if __name__ == "__main__":
    print(f"import: done, {import_file('customers.csv')} customers")
EOF
python3 - <<'EOF'
import csv, random
rng = random.Random(4)
w = csv.writer(open("customers.csv", "w", newline=""))
w.writerow(["email", "name", "region", "city"])
for i in range(3000):
    email = "user%05d@example.com" % i
    if i == 1742:
        email = "User00318@Example.com"
    w.writerow([email, "Customer %d" % i, rng.choice(["eu", "us", "apac"]), rng.choice(["Lyon", "Porto", "Austin", "Osaka", "Leeds"])])
EOF
""",
        "command": "rm -f crm.db && ../.venv-sqla/bin/python import_customers.py 2>&1",
        "needed": [r'^\s+File ".*/import_customers\.py", line 19, in import_file$',
                   r"^sqlalchemy\.exc\.IntegrityError: \(sqlite3\.IntegrityError\) UNIQUE constraint failed: customers\.email$",
                   r"^\[SQL: INSERT INTO customers \(email, name, region, city\) VALUES \(\?, \?, \?, \?\) RETURNING id\]$",
                   r"^\[parameters: \('user00318@example\.com', 'Customer 1742', 'eu', 'Austin'\)\]$"],
        "first": r"^sqlite3\.IntegrityError: UNIQUE constraint failed: customers\.email$",
    },
    {
        "name": "django-test-system-check-clash",
        "what": "manage.py test -v 2 on a Django 5.2 site of 93 apps (624 tests found): the test database is created and ~1800 migrations are applied, one 'Applying ... OK' line each (~70 KB); then the system checks run and stop the run before any test: two apps' foreign keys to Customer share related_name='invoices', reported as four E304/E305 errors with hints at the very end",
        "setup": venv(".venv-django", f"django=={DJANGO}") + r"""
rm -rf shopsite apps manage.py && mkdir -p shopsite apps
touch shopsite/__init__.py apps/__init__.py
cat > manage.py <<'EOF'
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shopsite.settings")
    from django.core.management import execute_from_command_line
    execute_from_command_line(sys.argv)
EOF
python3 - <<'EOF'
import os
generic = ["app_%02d" % i for i in range(90)]
apps = ["crm", "billing", "quotes"] + generic
open("shopsite/settings.py", "w").write(
    "SECRET_KEY = 'test-only'\nDEBUG = False\nUSE_TZ = True\nDEFAULT_AUTO_FIELD = 'django.db.models.BigAutoField'\n"
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': 'db.sqlite3'}}\n"
    "INSTALLED_APPS = ['django.contrib.contenttypes', 'django.contrib.auth'] + %r\n" % ["apps." + a for a in apps])

def app(name, models_src, migrations, tests):
    d = "apps/" + name
    os.makedirs(d + "/migrations", exist_ok=True)
    open(d + "/__init__.py", "w").write("")
    open(d + "/migrations/__init__.py", "w").write("")
    open(d + "/models.py", "w").write("from django.db import models\n\n\n" + models_src)
    for i, (deps, ops) in enumerate(migrations, 1):
        open(d + "/migrations/%04d_%s.py" % (i, "initial" if i == 1 else "step_%d" % i), "w").write(
            "from django.db import migrations, models\nimport django.db.models.deletion\n\n\n"
            "class Migration(migrations.Migration):\n    dependencies = %r\n    operations = [\n%s\n    ]\n" % (deps, ops))
    open(d + "/tests.py", "w").write("from django.test import TestCase\n\n\nclass %sTests(TestCase):\n%s" % (
        name.title().replace("_", ""), "".join("    def test_%02d(self):\n        self.assertEqual(%d + 1, %d)\n\n" % (k, k, k + 1) for k in range(tests))))

app("crm", "class Customer(models.Model):\n    name = models.CharField(max_length=80)\n",
    [([], "        migrations.CreateModel(name='Customer', fields=[('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')), ('name', models.CharField(max_length=80))]),")], 8)
app("billing", "class Invoice(models.Model):\n    customer = models.ForeignKey('crm.Customer', on_delete=models.CASCADE, related_name='invoices')\n    total_cents = models.IntegerField()\n",
    [([("crm", "0001_initial")], "        migrations.CreateModel(name='Invoice', fields=[('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')), ('total_cents', models.IntegerField()), ('customer', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invoices', to='crm.customer'))]),")], 8)
app("quotes", "class Quote(models.Model):\n    customer = models.ForeignKey('crm.Customer', on_delete=models.CASCADE, related_name='invoices')\n    valid_days = models.IntegerField(default=30)\n",
    [([("crm", "0001_initial")], "        migrations.CreateModel(name='Quote', fields=[('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')), ('valid_days', models.IntegerField(default=30)), ('customer', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invoices', to='crm.customer'))]),")], 8)
for g in generic:
    fields = ["f%02d" % k for k in range(1, 20)]
    model = "class Record(models.Model):\n    label = models.CharField(max_length=40)\n" + "".join("    %s = models.IntegerField(null=True)\n" % f for f in fields)
    migs = [([], "        migrations.CreateModel(name='Record', fields=[('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')), ('label', models.CharField(max_length=40))]),")]
    for k, f in enumerate(fields, 2):
        migs.append(([(("apps." + g).split(".")[-1], "%04d_%s" % (k - 1, "initial" if k == 2 else "step_%d" % (k - 1)))],
                     "        migrations.AddField(model_name='record', name='%s', field=models.IntegerField(null=True))," % f))
    app(g, model, migs, 10)
EOF
""",
        "command": "../.venv-django/bin/python manage.py test -v 2 apps 2>&1",
        "needed": [r"^SystemCheckError: System check identified some issues:$",
                   r"^billing\.Invoice\.customer: \(fields\.E304\) Reverse accessor 'Customer\.invoices' for 'billing\.Invoice\.customer' clashes with reverse accessor for 'quotes\.Quote\.customer'\.$",
                   [r"^\s+HINT: Add or change a related_name argument to the definition for 'billing\.Invoice\.customer' or 'quotes\.Quote\.customer'\.$", 1],
                   r"^quotes\.Quote\.customer: \(fields\.E304\) Reverse accessor 'Customer\.invoices' for 'quotes\.Quote\.customer' clashes",
                   r"^System check identified 4 issues \(0 silenced\)\.$"],
        "first": r"^billing\.Invoice\.customer: \(fields\.E304\) ",
    },
    {
        "name": "papermill-log-output-cell-keyerror",
        "what": "papermill --log-output over a 27-cell report notebook (~105 KB: 'Executing Cell N' / 'Ending Cell N' markers and each cell's streamed prints, 100 progress lines per step): the currency-conversion cell meets a currency missing from the rates table; papermill ends with its own traceback, then the PapermillExecutionError block with the cell's numbered source, the ----> line and KeyError: 'CHF'",
        "setup": venv(".venv-papermill", f"papermill=={PAPERMILL}", f"ipykernel=={IPYKERNEL}") + r"""
rm -rf out && mkdir -p out
../.venv-papermill/bin/python - <<'EOF'
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
cells = [new_markdown_cell("# Monthly revenue report"),
         new_code_cell("import random\nrng = random.Random(12)\nrates = {'EUR': 1.0, 'USD': 0.92, 'GBP': 1.17, 'SEK': 0.088}\nregions = ['north', 'south', 'east', 'west']"),
         new_code_cell("month = '2024-05'\nmin_rows = 100", metadata={"tags": ["parameters"]})]
for step in range(1, 25):
    src = ["totals = {}",
           "for batch in range(100):",
           "    rows = 250 + rng.randint(0, 80)",
           "    dropped = rng.randint(0, 6)",
           "    region = regions[batch % 4]",
           "    totals[region] = totals.get(region, 0) + rows - dropped",
           "    print(f'step %02d batch {batch:02d} [{region:>5}]: {rows} rows, {dropped} dropped, running {totals[region]}')" % step,
           "print('step %02d done:', sorted(totals.items()))" % step]
    if step == 17:
        src = ["orders = [{'id': i, 'currency': ['EUR', 'USD', 'GBP', 'SEK'][i % 4], 'amount': 100 + i} for i in range(240)]",
               "orders[163]['currency'] = 'CHF'",
               "converted = 0.0",
               "for n, order in enumerate(orders):",
               "    converted += order['amount'] * rates[order['currency']]",
               "    if n % 4 == 0:",
               "        print(f'step 17 converted {n + 1} orders, {converted:.2f} EUR so far')",
               "print('step 17 done:', round(converted, 2))"]
    cells.append(new_code_cell("\n".join(src)))
nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbformat.write(nb, "report.ipynb")
EOF
""",
        "command": "../.venv-papermill/bin/papermill --log-output --no-progress-bar report.ipynb out/report-2024-05.ipynb -p month 2024-05 2>&1",
        "needed": [r"^papermill\.exceptions\.PapermillExecutionError: ?$", r'^Exception encountered at "In \[20\]":$', r"^Cell In\[20\], line 5$",
                   r"^----> 5     converted \+= order\['amount'\] \* rates\[order\['currency'\]\]$", r"^KeyError: 'CHF'$"],
        "first": r"^papermill\.exceptions\.PapermillExecutionError:",
    },
    {
        "name": "pre-commit-two-local-hooks-fail",
        "what": "pre-commit run --all-files with four local hooks over a repo of 300 tenant JSON configs and 50 service modules (~105 KB): the first hook fails on a trailing comma in one config (the first lines), the verbose unit-test hook passes with 1500 'ok' lines, then a pygrep hook fails on a breakpoint() left in a service and the last hook passes; nothing at the end sums up",
        "setup": venv(".venv-precommit", f"pre-commit=={PRE_COMMIT}") + apt(GIT) + r"""
rm -rf repo && mkdir -p repo && cd repo
git init -q -b main .
mkdir -p tools config/tenants svc tests
cat > tools/check_json.py <<'EOF'
import json
import sys

bad = 0
for path in sys.argv[1:]:
    try:
        with open(path) as fh:
            json.load(fh)
    except json.JSONDecodeError as e:
        print(f"{path}: {e}")
        bad += 1
sys.exit(1 if bad else 0)
EOF
cat > .pre-commit-config.yaml <<'EOF'
repos:
  - repo: local
    hooks:
      - id: check-json
        name: check json
        entry: python3 tools/check_json.py
        language: system
        types: [json]
      - id: unit-tests
        name: unit tests
        entry: python3 -m unittest discover -v -s tests -t .
        language: system
        pass_filenames: false
        always_run: true
        verbose: true
      - id: no-breakpoints
        name: no breakpoint() left in code
        entry: '(^|\s)breakpoint\(\)'
        language: pygrep
        types: [python]
      - id: no-print-in-svc
        name: no print() in services
        entry: '^\s*print\('
        language: pygrep
        files: ^svc/
EOF
python3 - <<'EOF'
import json, os
for t in range(300):
    cfg = {"tenant": "t-%03d" % t, "plan": ["free", "team", "enterprise"][t % 3], "limits": {"users": 5 + t, "projects": 2 + t % 9},
           "features": {"sso": t % 3 == 2, "audit": t % 2 == 0}, "region": ["eu-west", "us-east"][t % 2]}
    text = json.dumps(cfg, indent=2)
    if t == 187:
        text = text.replace('"projects": %d' % (2 + t % 9), '"projects": %d,' % (2 + t % 9))
    open("config/tenants/t-%03d.json" % t, "w").write(text + "\n")
os.makedirs("tests", exist_ok=True)
open("tests/__init__.py", "w").write("")
open("svc/__init__.py", "w").write("")
for m in range(50):
    body = ["def quota_%02d(users, projects):" % m, "    return users * %d + projects" % (m + 1), ""]
    if m == 44:
        body = ["def quota_%02d(users, projects):" % m, "    if projects > 10:", "        breakpoint()", "    return users * %d + projects" % (m + 1), ""]
    open("svc/quota_%02d.py" % m, "w").write("\n".join(body))
    tests = ["import unittest", "", "from svc.quota_%02d import quota_%02d" % (m, m), "", "", "class Quota%02dTest(unittest.TestCase):" % m]
    for k in range(30):
        tests += ["    def test_users_%02d(self):" % k, "        self.assertEqual(quota_%02d(%d, 1), %d)" % (m, k, k * (m + 1) + 1), ""]
    open("tests/test_quota_%02d.py" % m, "w").write("\n".join(tests))
EOF
git add -A
""",
        "command": "cd repo && PRE_COMMIT_HOME=$PWD/../.pre-commit-home ../../.venv-precommit/bin/pre-commit run --all-files --color never 2>&1",
        "needed": [r"^check json\.+Failed$", r"^config/tenants/t-187\.json: Expecting property name enclosed in double quotes: line 7 column 3 \(char 94\)$",
                   r"^no breakpoint\(\) left in code\.+Failed$", r"^svc/quota_44\.py:3:\s+breakpoint\(\)$"],
        "first": r"^check json\.+Failed$",
    },
    {
        "name": "rollup-multi-config-missing-export",
        "what": "rollup -c with a config array of 360 widget bundles, built one after another (~97 KB: each bundle's 'input → output' line, a '\"this\" has been rewritten to \"undefined\"' warning with its code frame, and 'created ... in Nms'): widget 233 imports a helper that money.js does not export; rollup stops there with a RollupError, its code frame and a stack trace at the end, and the remaining bundles are never built",
        "setup": npm(f"rollup@{ROLLUP}") + r"""
rm -rf src dist && mkdir -p src/lib src/widgets
cat > src/lib/money.js <<'EOF'
export function formatCents(cents, currency = 'EUR') {
  return (cents / 100).toFixed(2) + ' ' + currency;
}
export function sumCents(items) {
  return items.reduce((acc, it) => acc + it.cents, 0);
}
EOF
cat > src/lib/dom.js <<'EOF'
export function mount(id, html) {
  const el = document.getElementById(id);
  if (el) el.innerHTML = html;
  return el;
}
EOF
python3 - <<'EOF'
configs = []
for i in range(360):
    fmt = "formatMoney" if i == 233 else "formatCents"
    open("src/widgets/widget_%03d.js" % i, "w").write(
        "import { %s, sumCents } from '../lib/money.js';\nimport { mount } from '../lib/dom.js';\n\n"
        "const legacy = this && this.legacyWidgets;\n\n"
        "export default function render_%03d(items) {\n  const total = sumCents(items);\n  if (legacy) legacy.push(%d);\n"
        "  return mount('widget-%03d', '<b>' + %s(total) + '</b>');\n}\n" % (fmt, i, i, i, fmt))
    configs.append("  { input: 'src/widgets/widget_%03d.js', output: { file: 'dist/widget_%03d.js', format: 'es' } }" % (i, i))
open("rollup.config.mjs", "w").write("export default [\n" + ",\n".join(configs) + "\n];\n")
EOF
""",
        "command": "rm -rf dist && ./node_modules/.bin/rollup -c --no-stdin 2>&1",
        "needed": [r'^\[!\] RollupError: src/widgets/widget_233\.js \(1:9\): "formatMoney" is not exported by "src/lib/money\.js", imported by "src/widgets/widget_233\.js"\.$',
                   r"^src/widgets/widget_233\.js \(1:9\)$", r"^1: import \{ formatMoney, sumCents \} from '\.\./lib/money\.js';$"],
        "first": r"^\[!\] RollupError: src/widgets/widget_233\.js",
    },
    {
        "name": "sass-verbose-deprecations-undefined-variable",
        "what": "sass --verbose over 220 page stylesheets (~850 KB: every @import, slash-division, lighten() and darken() deprecation warning of every file, each with recommendation, link and code frame): page 141 misspells a theme variable; dart-sass prints the 'Undefined variable' error with its frame only after all the warnings, at the very end, and exits 65",
        "setup": npm(f"sass@{SASS}") + r"""
rm -rf scss css && mkdir -p scss/pages scss/partials
cat > scss/partials/_theme.scss <<'EOF'
$brand-primary: #1d4ed8;
$brand-accent: #f59e0b;
$gutter: 24px;
$radius: 6px;
EOF
python3 - <<'EOF'
for i in range(220):
    name = "page_%03d" % i
    colour = "$brand-primery" if i == 141 else "$brand-primary"
    src = ['@import "../partials/theme";', "",
           ".%s {" % name,
           "  padding: $gutter / 2;",
           "  margin: $gutter / 3 auto;",
           "  border-radius: $radius / 2;",
           "  background: lighten(%s, 40%%);" % "$brand-primary",
           "  &__title { color: darken($brand-accent, 10%); }",
           "  &__cta { color: %s; border: 1px solid darken(%s, 5%%); }" % (colour, colour),
           "}"]
    open("scss/pages/%s.scss" % name, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "rm -rf css && ./node_modules/.bin/sass --verbose --no-source-map scss/pages:css 2>&1",
        "needed": [r"^Error: Undefined variable\.$", r"^9 │   &__cta \{ color: \$brand-primery; border: 1px solid darken\(\$brand-primery, 5%\); \}$",
                   r"^\s+scss/pages/page_141\.scss 9:19\s+root stylesheet$"],
        "first": r"^Error: Undefined variable\.$",
    },
    {
        "name": "ava-verbose-two-failures",
        "what": "ava --verbose over 40 test files of a cart module (1600 tests, one '✔ file › title' line each, files run concurrently, ~84 KB): a deepEqual on grouped SKUs (case-sensitive keys) and a t.is on a discounted total fail mid-run, each a '✘ [fail]' line among the passes; the details (location, code frame, actual/expected diff) come only at the end, before '2 tests failed'",
        "setup": r"""
[ -f package.json ] || cat > package.json <<'EOF'
{"name": "cart-lib", "version": "1.0.0", "private": true, "type": "module", "ava": {"files": ["test/**/*.test.js"]}}
EOF
""" + npm(f"ava@{AVA}") + r"""
rm -rf lib test && mkdir -p lib test
cat > lib/cart.js <<'EOF'
export function lineTotal(line) {
  return line.qty * line.unitCents;
}

export function cartTotal(lines, { discountPct = 0 } = {}) {
  const gross = lines.reduce((acc, l) => acc + lineTotal(l), 0);
  return Math.round(gross * (1 - discountPct / 100));
}

export function groupBySku(lines) {
  const out = {};
  for (const l of lines) {
    out[l.sku] = (out[l.sku] || 0) + l.qty;
  }
  return out;
}
EOF
python3 - <<'EOF'
for f in range(40):
    out = ["import test from 'ava';", "import { cartTotal, groupBySku, lineTotal } from '../lib/cart.js';", ""]
    for k in range(40):
        qty, unit = 1 + k % 7, 100 + 25 * f
        if f == 13 and k == 31:
            out += ["test('cart %02d: 15%% discount drops fractional cents', (t) => {" % f,
                    "  const lines = [{ sku: 'A', qty: 3, unitCents: 334 }, { sku: 'B', qty: 1, unitCents: 1 }];",
                    "  t.is(cartTotal(lines, { discountPct: 15 }), 852);", "});", ""]
            continue
        if f == 27 and k == 8:
            out += ["test('cart %02d: groups repeated skus', (t) => {" % f,
                    "  const lines = [{ sku: 'X1', qty: 2 }, { sku: 'x1', qty: 1 }, { sku: 'Y2', qty: 4 }];",
                    "  t.deepEqual(groupBySku(lines), { X1: 3, Y2: 4 });", "});", ""]
            continue
        out += ["test('cart %02d: line %02d of %d x %d cents', (t) => {" % (f, k, qty, unit),
                "  t.is(lineTotal({ qty: %d, unitCents: %d }), %d);" % (qty, unit, qty * unit), "});", ""]
    open("test/cart_%02d.test.js" % f, "w").write("\n".join(out))
EOF
""",
        "command": "./node_modules/.bin/ava --verbose 2>&1",
        "needed": [r"^\s+test/cart_27\.test\.js:38$", r"^\s+-\s+X1: 2,$", r"^\s+-\s+x1: 1,$", r"^\s+test/cart_13\.test\.js:130$", r"^\s+- 853$",
                   r"^\s+2 tests failed$"],
        "first": r"^\s+✘ \[fail\]: cart_(13|27) › ",
    },
    {
        "name": "go-test-v-vet-printf-one-package",
        "what": "go test -v -count=1 ./... over a 40-package module (1200 tests of 3 subtests each, '=== RUN' and '--- PASS' lines for every one, ~350 KB): the vet checks that go test runs before testing find a Sprintf whose arguments are swapped in the orders package, halfway through; that package is reported as [build failed] between two passing ones and the run ends with a bare FAIL",
        "setup": apt(GO) + r"""
rm -rf internal go.mod && mkdir -p internal
cat > go.mod <<'EOF'
module example.com/shop

go 1.19
EOF
python3 - <<'EOF'
import os
names = ["accounts", "audit", "billing", "cart", "catalog", "checkout", "coupons", "currency", "delivery", "email",
         "fraud", "geo", "inventory", "invoices", "ledger", "loyalty", "media", "metrics", "notify", "orders",
         "payments", "pricing", "promotions", "quotes", "ratings", "refunds", "reports", "returns", "reviews", "search",
         "sessions", "shipping", "sitemap", "stock", "suppliers", "tax", "tenants", "tickets", "users", "wishlist"]
for p in names:
    d = "internal/" + p
    os.makedirs(d, exist_ok=True)
    cap = p.capitalize()
    src = ["package %s" % p, "", 'import "fmt"', "",
           "// Weight returns the weight of item n.", "func Weight(n int) int {", "\treturn n*3 + 1", "}", "",
           "// Label formats an item label.", "func Label(name string, n int) string {"]
    if p == "orders":
        src += ['\treturn fmt.Sprintf("order %d: %s", name, n)']
    else:
        src += ['\treturn fmt.Sprintf("%s %%s #%%d", name, n)' % p]
    src += ["}", ""]
    open(d + "/%s.go" % p, "w").write("\n".join(src))
    tests = ["package %s" % p, "", 'import "testing"', ""]
    for k in range(30):
        tests += ["func Test%sWeight%02d(t *testing.T) {" % (cap, k),
                  "\tfor _, n := range []int{%d, %d, %d} {" % (k, k + 1, k + 2),
                  "\t\tt.Run(fmt.Sprint(n), func(t *testing.T) {",
                  "\t\t\tif got := Weight(n); got != n*3+1 {", '\t\t\t\tt.Fatalf("Weight(%d) = %d", n, got)', "\t\t\t}", "\t\t})", "\t}", "}", ""]
    tests[2] = 'import (\n\t"fmt"\n\t"testing"\n)'
    open(d + "/%s_test.go" % p, "w").write("\n".join(tests))
EOF
""",
        "command": "go test -v -count=1 ./... 2>&1",
        "needed": [r"^# example\.com/shop/internal/orders$", r"^internal/orders/orders\.go:12:9: fmt\.Sprintf format %d has arg name of wrong type string$",
                   r"^FAIL\texample\.com/shop/internal/orders \[build failed\]$"],
        "first": r"^internal/orders/orders\.go:12:9: fmt\.Sprintf format",
    },
]
