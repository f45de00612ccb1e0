"""Fourth held-out corpus of failing runs, of kinds that none of cases.py, cases_fresh.py,
cases_heldout.py and cases_third.py holds: other Python tools (pyright, bandit, coverage's
fail-under, a pytest-xdist worker that dies on a signal, pydantic's multi-error validation report),
other JavaScript tools (babel, tape's TAP diagnostics, knex migrations on SQLite, ajv-cli), other C
tooling (clang-tidy with the static analyzer's path notes, ctest with a segfaulting test, doxygen
with FAIL_ON_WARNINGS), a code generator (protoc, whose error lines say no 'error'), GNU make's
--debug trace, a gawk data pipeline, a Rust test that overflows its stack (SIGABRT), and other
languages' test runners and linters (RSpec, PHPUnit, perlcritic, Tcl's tcltest). Same format as
cases.py: name, what, setup, command, needed, first.

Each setup installs what it uses itself, pinned: Python tools into a venv in the corpus work dir (`..`),
npm packages into the case's directory, Debian packages with `apt-get install -y` when the command
is missing. The needed/first rules were written from each command's real full output, run plainly in
bash, by someone who had not seen how the excerpt picks lines, before any view was scored.
"""

# Python packages (venvs made with the machine's python3, 3.11).
PYTEST = "8.3.3"
BANDIT = "1.9.4"
COVERAGE = "7.18.0"
PYTEST_XDIST = "3.8.0"
PYDANTIC = "2.14.4"

# npm packages.
PYRIGHT = "1.1.414"
BABEL_CLI = "8.1.0"
BABEL_CORE = "8.1.4"
TAPE = "5.10.2"
KNEX = "3.3.0"
BETTER_SQLITE3 = "12.6.2"  # 13.x needs Node.js 22; the machine has 20
AJV_CLI = "5.0.0"

# Debian bookworm packages the cases use, pinned (installed only when the command is missing).
GCC = ("gcc", "gcc=4:12.2.0-3", "libc6-dev=2.36-9+deb12u14")
MAKE = ("make", "make=4.3-4.1")
CMAKE = ("cmake", "cmake=3.25.1-1", "cmake-data=3.25.1-1")
CLANG_TIDY = ("clang-tidy", "clang-tidy=1:14.0-55.7~deb12u1", "clang-tidy-14=1:14.0.6-12")
PROTOC = ("protoc", "protobuf-compiler=3.21.12-3+deb12u1", "libprotoc32=3.21.12-3+deb12u1")
GAWK = ("gawk", "gawk=1:5.2.1-2")
RSPEC = ("rspec", "ruby-rspec=3.12.0c0e1m1s0-1")
PHPUNIT = ("phpunit", "phpunit=9.6.7-1+deb12u1")
PERLCRITIC = ("perlcritic", "libperl-critic-perl=1.148-1")
TCLSH = ("tclsh", "tcl8.6=8.6.13+dfsg-2", "tcl=8.6.13")
DOXYGEN = ("doxygen", "doxygen=1.9.4-4", "libxapian30=1.4.22-1")


from cases_fresh import apt, npm, venv  # noqa: E402  (the same setup helpers as the earlier corpora)


CASES = [
    {
        "name": "pyright-two-type-mismatches",
        "what": "pyright over a 120-module package with unused-import/variable/private-usage rules set to warning (~2600 warnings, ~960 parameter-type information lines): two real errors, each explained on a second line: an argument type mismatch in the second file (early) and a return type mismatch in the last but one",
        "setup": npm(f"pyright@{PYRIGHT}") + r"""
rm -rf shop && mkdir -p shop
cat > pyrightconfig.json <<'EOF'
{
  "include": ["shop"],
  "typeCheckingMode": "standard",
  "reportUnusedImport": "warning",
  "reportUnusedVariable": "warning",
  "reportPrivateUsage": "warning",
  "reportMissingParameterType": "information",
  "reportUnnecessaryComparison": "warning"
}
EOF
python3 - <<'EOF'
import os
areas = ["catalog", "cart", "checkout", "pricing", "shipping", "accounts"]
os.makedirs("shop", exist_ok=True)
open("shop/__init__.py", "w").write("")
open("shop/core.py", "w").write('''from dataclasses import dataclass, field


@dataclass
class Line:
    sku: str
    qty: int
    unit_cents: int


@dataclass
class Cart:
    owner: str
    lines: list[Line] = field(default_factory=list)
    _version: int = 0


def add_line(cart: Cart, sku: str, qty: int, unit_cents: int = 0) -> Cart:
    cart.lines.append(Line(sku, qty, unit_cents))
    cart._version += 1
    return cart


def subtotal(cart: Cart) -> int:
    return sum(line.qty * line.unit_cents for line in cart.lines)
''')
for a in areas:
    os.makedirs("shop/" + a, exist_ok=True)
    open("shop/%s/__init__.py" % a, "w").write("")
for i in range(120):
    area = areas[i % len(areas)]
    body = ["import os", "import json", "import logging", "from typing import Optional", "from shop.core import Cart, Line, add_line, subtotal", "", ""]
    for f in range(4):
        body += ["def step_%d_%d(cart: Cart, factor, note):" % (i, f),
                 "    unused_total = subtotal(cart)",
                 "    version = cart._version",
                 "    label = 'step-%d-%d'" % (i, f),
                 "    return [line.qty * factor for line in cart.lines]", "", ""]
    if i == 11:
        body += ["def restock(cart: Cart, sku: str, qty_text: str) -> Cart:",
                 "    qty = qty_text.strip()",
                 "    return add_line(cart, sku, qty, 250)", "", ""]
    if i == 112:
        body += ["def average_line_cents(cart: Cart) -> float:",
                 "    if not cart.lines:",
                 "        return None",
                 "    return subtotal(cart) / len(cart.lines)", "", ""]
    open("shop/%s/m%03d.py" % (area, i), "w").write("\n".join(body))
EOF
""",
        "command": "NO_COLOR=1 ./node_modules/.bin/pyright 2>&1",
        "needed": [r'shop/accounts/m011\.py:38:32 - error: Argument of type "str" cannot be assigned to parameter "qty" of type "int" in function "add_line"$',
                   r'^\s+"str" is not assignable to "int" \(reportArgumentType\)$',
                   r'shop/shipping/m112\.py:38:16 - error: Type "None" is not assignable to return type "float"$',
                   r'^\s+"None" is not assignable to "float" \(reportReturnType\)$', r"^2 errors, \d+ warnings, \d+ informations\s*$"],
        "first": r"m011\.py:38:32 - error: Argument of type",
    },
    {
        "name": "bandit-one-high-among-low",
        "what": "bandit -r over an 80-module ops toolkit: ~1280 Low/Medium findings (assert, random, subprocess import and calls, /tmp paths, try-except-pass), each with its code excerpt, and one High: a shell=True call built from an f-string; the metrics summary counts High: 1",
        "setup": venv(".venv-bandit", f"bandit=={BANDIT}") + r"""
rm -rf opskit && mkdir -p opskit
python3 - <<'EOF'
import os
for pkg in ["backup", "deploy", "metrics", "tenants"]:
    os.makedirs("opskit/" + pkg, exist_ok=True)
    open("opskit/%s/__init__.py" % pkg, "w").write("")
open("opskit/__init__.py", "w").write("")
pkgs = ["backup", "deploy", "metrics", "tenants"]
for i in range(80):
    pkg = pkgs[i % 4]
    src = ["import random", "import subprocess", "import tempfile", "", ""]
    for f in range(3):
        src += ["def task_%02d_%d(host, retries=3):" % (i, f),
                "    assert host, 'host required'",
                "    jitter = random.random() * %d" % (f + 1),
                "    scratch = '/tmp/opskit-%02d-%d'" % (i, f),
                "    try:",
                "        out = subprocess.run(['ssh', host, 'uptime'], capture_output=True, check=False)",
                "    except OSError:",
                "        pass",
                "    return jitter, scratch", "", ""]
    if i == 45:
        src += ["def archive_release(release_dir, dest):",
                "    # pack the release for the offsite copy",
                "    cmd = f\"tar czf {dest}/release.tgz -C {release_dir} .\"",
                "    return subprocess.run(cmd, shell=True, check=True)", "", ""]
    open("opskit/%s/task_%02d.py" % (pkg, i), "w").write("\n".join(src))
EOF
""",
        "command": "../.venv-bandit/bin/bandit -r opskit 2>&1",
        "needed": [r"^>> Issue: \[B602:subprocess_popen_with_shell_equals_true\] subprocess call with shell=True identified, security issue\.$",
                   r"^\s+Severity: High\s+Confidence: High$", r"^\s+Location: opskit/deploy/task_45\.py:42:11$",
                   r'^41\s+cmd = f"tar czf \{dest\}/release\.tgz', r"^42\s+return subprocess\.run\(cmd, shell=True, check=True\)$", r"^\s+High: 1$"],
        "first": r"^>> Issue: \[B602:",
    },
    {
        "name": "coverage-total-below-threshold",
        "what": "coverage run -m pytest -v (1560 passing tests over 60 modules) then coverage report -m --fail-under=90: every test passes, the report's first row is a large adjustments module no test imports (0%), the others are at 97%, and the total is under 90%; only the last line says so",
        "setup": venv(".venv-cov", f"pytest=={PYTEST}", f"coverage=={COVERAGE}") + r"""
rm -rf ledger tests .coverage && mkdir -p ledger tests
python3 - <<'EOF'
open("ledger/__init__.py", "w").write("# ledger rules\n")
for i in range(60):
    src = ["# posting rules for book %02d" % i, "", "RATE = %d" % (i + 3), ""]
    for f in range(12):
        src += ["def rule_%02d_%02d(amount, currency='EUR'):" % (i, f),
                "    fee = amount * RATE // 100",
                "    return {'amount': amount, 'fee': fee, 'currency': currency}", ""]
    src += ["def legacy_export_%02d(rows):" % i, "    if not rows:", "        return ''", "    return '\\n'.join(','.join(map(str, row)) for row in rows)", ""]
    open("ledger/book_%02d.py" % i, "w").write("\n".join(src))
    t = ["from ledger import book_%02d as m" % i, ""]
    for k in range(25):
        f = k % 12
        t += ["def test_rule_%02d_%02d_case_%02d():" % (i, f, k),
              "    r = m.rule_%02d_%02d(%d)" % (i, f, 100 * (k + 1)),
              "    assert r['fee'] == %d * m.RATE // 100" % (100 * (k + 1)),
              "    assert r['currency'] == 'EUR'", ""]
    t += ["def test_legacy_export_%02d():" % i, "    assert m.legacy_export_%02d([(1, 2), (3, 4)]) == '1,2\\n3,4'" % i, ""]
    open("tests/test_book_%02d.py" % i, "w").write("\n".join(t))
src = ["# refund workflow: partial refunds, chargebacks, reversals", ""]
for f in range(60):
    src += ["def refund_step_%02d(order, amount):" % f,
            "    if amount <= 0:",
            "        return None",
            "    if amount > order['paid']:",
            "        amount = order['paid']",
            "    order['paid'] -= amount",
            "    order.setdefault('refunds', []).append(amount)",
            "    return amount", ""]
open("ledger/adjustments.py", "w").write("\n".join(src))
EOF
""",
        "command": "(../.venv-cov/bin/coverage run --source=ledger -m pytest -v -p no:cacheprovider tests && ../.venv-cov/bin/coverage report -m --fail-under=90) 2>&1",
        "needed": [r"^=+ 1560 passed in [\d.]+s =+$", r"^Name\s+Stmts\s+Miss\s+Cover\s+Missing$", r"^ledger/adjustments\.py\s+480\s+480\s+0%\s+3-541$",
                   r"^TOTAL\s+2940\s+540\s+82%$", r"^Coverage failure: total of 82 is less than fail-under=90$"],
        "first": r"^Coverage failure: total of 82 is less than fail-under=90$",
    },
    {
        "name": "pytest-xdist-worker-segfault",
        "what": "pytest -n 2 -v (pytest-xdist) over 40 test files of a codec package (801 tests): one test reads a header through ctypes at a null address and its worker dies on SIGSEGV; faulthandler's dump, the replaced worker and the crashed-worker failure in the summary",
        "setup": venv(".venv-xdist", f"pytest=={PYTEST}", f"pytest-xdist=={PYTEST_XDIST}") + r"""
rm -rf codec tests && mkdir -p codec tests
cat > codec/__init__.py <<'EOF'
EOF
cat > codec/native.py <<'EOF'
import ctypes


class Frame(ctypes.Structure):
    _fields_ = [("length", ctypes.c_uint32), ("kind", ctypes.c_uint16), ("flags", ctypes.c_uint16)]


def header_of(buf):
    # zero-copy view of the frame header; buf is a bytearray or an address
    if isinstance(buf, int):
        return Frame.from_address(buf)
    return Frame.from_buffer(buf)


def frame_length(buf):
    return header_of(buf).length
EOF
cat > codec/frames.py <<'EOF'
import struct
from codec.native import frame_length


def encode(kind, payload, flags=0):
    return bytearray(struct.pack("<IHH", len(payload), kind, flags) + payload)


def decode(buf):
    n = frame_length(buf)
    return bytes(buf[8:8 + n])


def lookup(table, key):
    # a missing key yields address 0 from the C-side table
    return table.get(key, 0)
EOF
python3 - <<'EOF'
for i in range(40):
    t = ["from codec.frames import encode, decode, lookup", ""]
    for k in range(20):
        t += ["def test_frame_%02d_%02d():" % (i, k),
              "    payload = bytes(range(%d))" % (k + 3),
              "    assert decode(encode(%d, payload)) == payload" % k, ""]
    if i == 23:
        t += ["def test_frame_from_registry():",
              "    registry = {'hello': None}",
              "    addr = lookup(registry, 'helo')",
              "    assert decode(addr) == b''", ""]
    open("tests/test_codec_%02d.py" % i, "w").write("\n".join(t))
EOF
""",
        "command": "../.venv-xdist/bin/python -m pytest -n 2 -v -p no:cacheprovider tests 2>&1",
        "needed": [r"Fatal Python error: Segmentation fault$", r'^\s+File ".*/codec/native\.py", line 16 in frame_length$',
                   r'^\s+File ".*/codec/frames\.py", line 10 in decode$', r'^\s+File ".*/tests/test_codec_23\.py", line 86 in test_frame_from_registry$',
                   r"^\[gw\d\] node down: Not properly terminated$", r"^worker 'gw\d' crashed while running 'tests/test_codec_23\.py::test_frame_from_registry'$",
                   r"^=+ 1 failed, 800 passed in [\d.]+s =+$"],
        "first": r"Fatal Python error: Segmentation fault$",
    },
    {
        "name": "pydantic-config-three-validation-issues",
        "what": "a deploy tool validates 300 service configs with pydantic and logs each service's resolved settings (~2400 lines); config 187 has three problems at once, logged mid-run as one multi-line ValidationError (field path, message, input for each); the run goes on and exits 1 with a count",
        "setup": venv(".venv-pydantic", f"pydantic=={PYDANTIC}") + r"""
rm -rf configs && mkdir -p configs
python3 - <<'EOF'
import json
for i in range(300):
    cfg = {"name": "svc-%03d" % i, "image": "registry.local/team/svc-%03d:1.%d.0" % (i, i % 17), "replicas": 1 + i % 5,
           "ports": [{"name": "http", "port": 8000 + i}, {"name": "metrics", "port": 9100 + i % 50}],
           "healthcheck": {"path": "/healthz", "interval_s": 10 + i % 20},
           "env": {"LOG_LEVEL": "info", "REGION": ["eu-west", "us-east", "ap-south"][i % 3]}}
    if i == 187:
        cfg["replicas"] = "three"
        cfg["ports"][1]["port"] = 91000
        del cfg["healthcheck"]["path"]
    json.dump(cfg, open("configs/svc-%03d.json" % i, "w"), indent=2)
EOF
cat > load_services.py <<'EOF'
import json
import logging
import pathlib
import sys

from pydantic import BaseModel, Field, ValidationError

logging.basicConfig(level=logging.DEBUG, format="%(levelname)-7s %(name)s: %(message)s", stream=sys.stdout)
log = logging.getLogger("deploy.config")


class Port(BaseModel):
    name: str
    port: int = Field(ge=1, le=65535)


class Healthcheck(BaseModel):
    path: str
    interval_s: int = 10


class Service(BaseModel):
    name: str
    image: str
    replicas: int = Field(ge=1)
    ports: list[Port]
    healthcheck: Healthcheck
    env: dict[str, str] = {}


def main():
    bad = 0
    files = sorted(pathlib.Path("configs").glob("*.json"))
    for path in files:
        log.debug("reading %s", path)
        raw = json.loads(path.read_text())
        try:
            svc = Service.model_validate(raw)
        except ValidationError as exc:
            bad += 1
            log.error("invalid service config %s: %s", path, exc)
            continue
        log.info("service %s image=%s replicas=%d", svc.name, svc.image, svc.replicas)
        for p in svc.ports:
            log.debug("  port %s -> %d", p.name, p.port)
        log.debug("  healthcheck %s every %ds", svc.healthcheck.path, svc.healthcheck.interval_s)
        for k, v in sorted(svc.env.items()):
            log.debug("  env %s=%s", k, v)
        log.info("  rendered manifests/%s.yaml", svc.name)
    log.info("%d of %d service configs valid", len(files) - bad, len(files))
    if bad:
        log.critical("refusing to deploy: %d invalid service config(s)", bad)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
EOF
""",
        "command": "../.venv-pydantic/bin/python load_services.py 2>&1",
        "needed": [r"^ERROR\s+deploy\.config: invalid service config configs/svc-187\.json: 3 validation errors for Service$", r"^replicas$",
                   r"^\s+Input should be a valid integer, unable to parse string as an integer \[type=int_parsing, input_value='three'", r"^ports\.1\.port$",
                   r"^\s+Input should be less than or equal to 65535 \[type=less_than_equal, input_value=91000", r"^healthcheck\.path$",
                   r"^\s+Field required \[type=missing, input_value=\{'interval_s': 17\}", r"^CRITICAL deploy\.config: refusing to deploy: 1 invalid service config"],
        "first": r"invalid service config configs/svc-187\.json: 3 validation errors",
    },
    {
        "name": "babel-cli-syntax-frame",
        "what": "babel src --out-dir lib --verbose over 2400 modules (one 'src/x.js -> lib/x.js' line each, in directory order): one module has an unclosed map( call, babel stops with a SyntaxError, its position and a code frame",
        "setup": npm(f"@babel/cli@{BABEL_CLI}", f"@babel/core@{BABEL_CORE}") + r"""
rm -rf src lib && mkdir -p src
cat > babel.config.json <<'EOF'
{ "sourceMaps": false, "comments": false }
EOF
python3 - <<'EOF'
import os
areas = ["admin", "billing", "catalog", "orders", "reports", "users"]
for a in areas:
    os.makedirs("src/" + a, exist_ok=True)
for i in range(2400):
    a = areas[i % 6]
    body = ["import { money } from '../money.js';", "",
            "export const NAME_%04d = '%s-%04d';" % (i, a, i), "",
            "export function summarize%04d(order) {" % i,
            "  const lines = order.lines.filter((l) => l.qty > 0);",
            "  const total = lines.reduce((sum, l) => sum + l.qty * l.price, 0);",
            "  return { id: order.id, count: lines.length, total: money(total) };",
            "}", "",
            "export function formatLines%04d(order) {" % i]
    if i == 1594:
        body += ["  const parts = order.lines.map((l) => `${l.sku}: ${money(l.qty * l.price)}`;"]
    else:
        body += ["  const parts = order.lines.map((l) => `${l.sku}: ${money(l.qty * l.price)}`);"]
    body += ["  return parts.join(', ');", "}", ""]
    open("src/%s/module_%04d.js" % (a, i), "w").write("\n".join(body))
open("src/money.js", "w").write("export const money = (c) => (c / 100).toFixed(2);\n")
EOF
""",
        "command": "./node_modules/.bin/babel src --out-dir lib --verbose 2>&1",
        "needed": [r'^SyntaxError: .*/src/reports/module_1594\.js: Unexpected token, expected "," \(12:76\)$',
                   r"^\s+11 \| export function formatLines1594\(order\) \{$",
                   r"^> 12 \|\s+const parts = order\.lines\.map\(\(l\) => `\$\{l\.sku\}: \$\{money\(l\.qty \* l\.price\)\}`;$", r"^\s+\|\s+\^$"],
        "first": r"^SyntaxError: .*module_1594\.js: Unexpected token",
    },
    {
        "name": "tape-deepequal-yaml-diag",
        "what": "tape over 40 test files of an inventory module (TAP: a '# test' line per test and an 'ok' line per assertion, 2401 assertions): one t.deepEqual on a restock plan fails mid-run; TAP's YAML block gives operator, expected, actual, the test's location and a stack, then the totals",
        "setup": npm(f"tape@{TAPE}") + r"""
rm -rf lib test && mkdir -p lib test
cat > lib/inventory.js <<'EOF'
'use strict';

function restockPlan(stock, minimum, packSize) {
  const plan = {};
  for (const [sku, qty] of Object.entries(stock)) {
    const missing = minimum - qty;
    if (missing > 0) {
      plan[sku] = Math.floor(missing / packSize) * packSize;
    }
  }
  return plan;
}

function available(stock, reserved) {
  const out = {};
  for (const [sku, qty] of Object.entries(stock)) {
    out[sku] = qty - (reserved[sku] || 0);
  }
  return out;
}

module.exports = { restockPlan, available };
EOF
python3 - <<'EOF'
for i in range(40):
    t = ["'use strict';", "const test = require('tape');", "const { restockPlan, available } = require('../lib/inventory');", ""]
    for k in range(20):
        t += ["test('warehouse %02d available stock case %02d', (t) => {" % (i, k),
              "  const stock = { 'A-%d': %d, 'B-%d': %d };" % (k, 50 + k, k, 10 + k),
              "  const got = available(stock, { 'A-%d': %d });" % (k, k),
              "  t.equal(got['A-%d'], 50, 'A-%d net of reservations');" % (k, k),
              "  t.equal(got['B-%d'], %d, 'B-%d untouched');" % (k, 10 + k, k),
              "  t.ok(Object.keys(got).length === 2, 'two skus');",
              "  t.end();", "});", ""]
    if i == 26:
        t += ["test('warehouse 26 restock plan rounds up to whole packs', (t) => {",
              "  const stock = { 'BOLT-M6': 40, 'NUT-M6': 95, 'WASHER-M6': 12, 'SCREW-M4': 100 };",
              "  const plan = restockPlan(stock, 100, 25);",
              "  t.deepEqual(plan, { 'BOLT-M6': 75, 'NUT-M6': 25, 'WASHER-M6': 100 }, 'restock plan for warehouse 26');",
              "  t.end();", "});", ""]
    open("test/warehouse_%02d.test.js" % i, "w").write("\n".join(t))
EOF
""",
        "command": "./node_modules/.bin/tape 'test/*.test.js' 2>&1",
        "needed": [r"^# warehouse 26 restock plan rounds up to whole packs$", r"^not ok 1621 restock plan for warehouse 26$", r"^\s+operator: deepEqual$",
                   r"^\s+\{ 'BOLT-M6': 75, 'NUT-M6': 25, 'WASHER-M6': 100 \}$", r"^\s+\{ 'BOLT-M6': 50, 'NUT-M6': 0, 'WASHER-M6': 75 \}$",
                   r"^\s+at: Test\.<anonymous> \(.*/test/warehouse_26\.test\.js:188:5\)$", r"^# fail\s+1$"],
        "first": r"^not ok 1621 ",
    },
    {
        "name": "knex-migrate-sqlite-no-such-column",
        "what": "DEBUG=knex:query,knex:tx knex migrate:latest over 500 migrations on SQLite (better-sqlite3), every statement logged: migration 371 indexes a column that migration 188 renamed; knex reports the failed file and the SQLite error, rolls the batch back and prints the stack",
        "setup": npm(f"knex@{KNEX}", f"better-sqlite3@{BETTER_SQLITE3}") + r"""
rm -rf migrations dev.sqlite3 && mkdir -p migrations
cat > knexfile.js <<'EOF'
module.exports = {
  development: {
    client: 'better-sqlite3',
    connection: { filename: './dev.sqlite3' },
    useNullAsDefault: true,
    migrations: { directory: './migrations' },
  },
};
EOF
python3 - <<'EOF'
tables = ["customers", "orders", "invoices", "payments", "shipments", "products", "suppliers", "warehouses", "returns", "coupons"]
n = 0
def write(name, up, down):
    global n
    n += 1
    open("migrations/2024031209%04d_%03d_%s.js" % (n, n, name), "w").write(
        "exports.up = function (knex) {\n%s\n};\n\nexports.down = function (knex) {\n%s\n};\n" % (up, down))
for t in tables:
    write("create_" + t, "  return knex.schema.createTable('%s', (t) => {\n    t.increments('id');\n    t.string('name');\n    t.timestamps(true, true);\n  });" % t,
          "  return knex.schema.dropTable('%s');" % t)
k = 0
added = False
while n < 500:
    t = tables[k % len(tables)]
    if n + 1 == 188:
        write("rename_orders_customer_ref", "  return knex.schema.alterTable('orders', (t) => {\n    t.renameColumn('customer_ref', 'customer_code');\n  });",
              "  return knex.schema.alterTable('orders', (t) => {\n    t.renameColumn('customer_code', 'customer_ref');\n  });")
    elif n + 1 == 371:
        write("index_orders_customer_ref", "  return knex.schema.alterTable('orders', (t) => {\n    t.index(['customer_ref'], 'orders_customer_ref_idx');\n  });",
              "  return knex.schema.alterTable('orders', (t) => {\n    t.dropIndex(['customer_ref'], 'orders_customer_ref_idx');\n  });")
    elif t == "orders" and not added:
        added = True
        write("add_orders_customer_ref", "  return knex.schema.alterTable('orders', (t) => {\n    t.string('customer_ref');\n  });",
              "  return knex.schema.alterTable('orders', (t) => {\n    t.dropColumn('customer_ref');\n  });")
    elif k % 3 == 0:
        col = "attr_%03d" % k
        write("add_%s_%s" % (t, col), "  return knex.schema.alterTable('%s', (t) => {\n    t.string('%s');\n  });" % (t, col),
              "  return knex.schema.alterTable('%s', (t) => {\n    t.dropColumn('%s');\n  });" % (t, col))
    else:
        rows = ",\n".join("    { name: '%s-seed-%03d-%d' }" % (t, k, r) for r in range(6))
        write("seed_%s_%03d" % (t, k), "  return knex('%s').insert([\n%s\n  ]);" % (t, rows), "  return knex('%s').where('name', 'like', '%%-seed-%03d-%%').del();" % (t, k))
    k += 1
EOF
""",
        "command": "DEBUG=knex:query,knex:tx DEBUG_HIDE_DATE=1 DEBUG_COLORS=0 ./node_modules/.bin/knex migrate:latest 2>&1",
        "needed": [r"^knex:query alter table `orders` rename `customer_ref` to `customer_code` trx\d+$",
                   r"^knex:query create index `orders_customer_ref_idx` on `orders` \(`customer_ref`\) trx\d+$",
                   r'^migration file "20240312090371_371_index_orders_customer_ref\.js" failed$',
                   r"^migration failed with error: create index `orders_customer_ref_idx` on `orders` \(`customer_ref`\) - no such column: customer_ref$",
                   r"^knex:query ROLLBACK trx\d+$", r"^SqliteError: create index .* - no such column: customer_ref$"],
        "first": r'^migration file "20240312090371_371_index_orders_customer_ref\.js" failed$',
    },
    {
        "name": "ajv-cli-two-invalid-documents",
        "what": "ajv validate --all-errors of 3000 order documents against a JSON Schema (one 'valid' line each, in file order): order 1207 has a negative quantity and a bad currency, order 2544 lacks its customer; each 'invalid' line is followed by a JSON array of errors (instancePath, keyword, params, message)",
        "setup": npm(f"ajv-cli@{AJV_CLI}") + r"""
rm -rf data schema && mkdir -p data schema
cat > schema/order.json <<'EOF'
{
  "$id": "https://example.invalid/order.json",
  "type": "object",
  "required": ["id", "customer", "currency", "lines"],
  "additionalProperties": false,
  "properties": {
    "id": {"type": "string", "pattern": "^ord-[0-9]{5}$"},
    "customer": {"type": "string", "minLength": 1},
    "currency": {"enum": ["EUR", "USD", "GBP"]},
    "lines": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "required": ["sku", "qty", "unit_cents"],
        "properties": {
          "sku": {"type": "string"},
          "qty": {"type": "integer", "minimum": 1},
          "unit_cents": {"type": "integer", "minimum": 0}
        }
      }
    }
  }
}
EOF
python3 - <<'EOF'
import json
for i in range(3000):
    doc = {"id": "ord-%05d" % i, "customer": "cust-%04d" % (i % 700), "currency": ["EUR", "USD", "GBP"][i % 3],
           "lines": [{"sku": "SKU-%03d" % ((i + k) % 400), "qty": 1 + (i + k) % 4, "unit_cents": 199 + 10 * k} for k in range(1 + i % 3)]}
    if i == 1207:
        doc["lines"][1]["qty"] = -2
        doc["currency"] = "eur"
    if i == 2544:
        del doc["customer"]
    json.dump(doc, open("data/order-%05d.json" % i, "w"))
EOF
""",
        "command": "./node_modules/.bin/ajv validate -s schema/order.json -d 'data/*.json' --all-errors 2>&1",
        "needed": [r"^data/order-01207\.json invalid$", r"^\s+instancePath: '/currency',$", r"^\s+message: 'must be equal to one of the allowed values'$",
                   r"^\s+instancePath: '/lines/1/qty',$", r"^\s+message: 'must be >= 1'$", r"^data/order-02544\.json invalid$",
                   r"^\s+params: \{ missingProperty: 'customer' \},$"],
        "first": r"^data/order-01207\.json invalid$",
    },
    {
        "name": "clang-tidy-analyzer-null-deref",
        "what": "clang-tidy over 50 C files with bugprone/readability checks (~1800 warnings with source excerpts, 'N warnings generated.' per file) and clang-analyzer-* as errors: one file's posting function dereferences an account pointer that stays NULL when its lookup loop finds nothing; the analyzer's error is followed by its path notes",
        "setup": apt(CLANG_TIDY) + r"""
rm -rf src include && mkdir -p src include
cat > .clang-tidy <<'EOF'
Checks: 'bugprone-*,readability-*,clang-analyzer-*,-readability-identifier-length'
WarningsAsErrors: 'clang-analyzer-*'
EOF
cat > include/ledger.h <<'EOF'
#ifndef LEDGER_H
#define LEDGER_H
struct account { int id; long balance; int flags; };
struct ledger { struct account items[64]; int count; };
#endif
EOF
python3 - <<'EOF'
for i in range(50):
    src = ['#include "ledger.h"', "#include <stddef.h>", ""]
    for f in range(4):
        src += ["long fee_%02d_%d(long amount, int rate, int days)" % (i, f), "{",
                "    long a = amount, b = rate;",
                "    if (days > 30) return a * b / 100 + %d;" % (f * 7 + 3),
                "    if (!rate) return 0;",
                "    int scaled = amount * 3 / 2;",
                "    return scaled + days * %d;" % (f + 11), "}", ""]
    if i == 31:
        src += ["int post_entry(struct ledger *l, int id, long cents)", "{",
                "    struct account *acct = NULL;",
                "    for (int k = 0; k < l->count; k++) {",
                "        if (l->items[k].id == id) {",
                "            acct = &l->items[k];",
                "        }",
                "    }",
                "    if (cents == 0) {",
                "        return 0;",
                "    }",
                "    acct->balance += cents;",
                "    return 1;", "}", ""]
    open("src/ledger_%02d.c" % i, "w").write("\n".join(src))
EOF
""",
        "command": "clang-tidy src/*.c -- -Iinclude -std=c11 2>&1",
        "needed": [r"src/ledger_31\.c:51:19: error: Access to field 'balance' results in a dereference of a null pointer \(loaded from variable 'acct'\) \[clang-analyzer-core\.NullDereference,-warnings-as-errors\]$",
                   [r"^\s+acct->balance \+= cents;$", 1], r"src/ledger_31\.c:42:5: note: 'acct' initialized to a null pointer value$",
                   r"src/ledger_31\.c:43:21: note: Assuming 'k' is >= field 'count'$", r"src/ledger_31\.c:48:9: note: Assuming 'cents' is not equal to 0$",
                   r"^1 warning treated as error$"],
        "first": r"src/ledger_31\.c:51:19: error: Access to field 'balance'",
    },
    {
        "name": "ctest-one-test-segfaults",
        "what": "cmake configure + build, then ctest --output-on-failure over 900 registered tests of a geometry library (one progress line each): test 517 feeds a zero-vertex polygon and crashes with SIGSEGV; ctest marks it ***Exception: SegFault, shows its output and lists it under FAILED",
        "setup": apt(GCC, MAKE, CMAKE) + r"""
rm -rf build src tests && mkdir -p src tests
cat > CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(geo C)
enable_testing()
add_library(geo src/geo.c)
target_include_directories(geo PUBLIC src)
add_executable(geo_tests tests/geo_tests.c)
target_link_libraries(geo_tests geo m)
foreach(i RANGE 1 900)
  string(LENGTH "${i}" len)
  if(len EQUAL 1)
    set(id "000${i}")
  elseif(len EQUAL 2)
    set(id "00${i}")
  elseif(len EQUAL 3)
    set(id "0${i}")
  endif()
  add_test(NAME geo_area_${id} COMMAND geo_tests ${i})
endforeach()
EOF
cat > src/geo.h <<'EOF'
struct point { double x, y; };
struct polygon { const char *name; int n; struct point *pts; };
double polygon_area(const struct polygon *p);
struct polygon *polygon_make(const char *name, int n);
EOF
cat > src/geo.c <<'EOF'
#include <stdlib.h>
#include <math.h>
#include "geo.h"

struct polygon *polygon_make(const char *name, int n)
{
    struct polygon *p = calloc(1, sizeof *p);
    p->name = name;
    p->n = n;
    p->pts = n > 0 ? calloc((size_t)n, sizeof *p->pts) : NULL;
    for (int i = 0; i < n; i++) {
        p->pts[i].x = cos(6.283185307179586 * i / n) * (n + 1);
        p->pts[i].y = sin(6.283185307179586 * i / n) * (n + 1);
    }
    return p;
}

double polygon_area(const struct polygon *p)
{
    /* shoelace formula; closes the ring with the first vertex */
    struct point first = p->pts[0];
    double sum = 0.0;
    for (int i = 0; i < p->n; i++) {
        struct point a = p->pts[i];
        struct point b = i + 1 < p->n ? p->pts[i + 1] : first;
        sum += a.x * b.y - b.x * a.y;
    }
    return fabs(sum) / 2.0;
}
EOF
cat > tests/geo_tests.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "geo.h"

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int id = atoi(argv[1]);
    int n = 3 + id % 40;
    const char *name = "district";
    if (id == 517) {
        n = 0;
        name = "harbour-east";
    }
    printf("case %d: polygon '%s' with %d vertices\n", id, name, n);
    struct polygon *p = polygon_make(name, n);
    double area = polygon_area(p);
    printf("case %d: area %.3f\n", id, area);
    if (area < 0.0) {
        printf("case %d: negative area\n", id);
        return 1;
    }
    return 0;
}
EOF
""",
        "command": "(cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug && cmake --build build && ctest --test-dir build --output-on-failure) 2>&1",
        "needed": [r"^517/900 Test #517: geo_area_0517 \.+\*\*\*Exception: SegFault\s+[\d.]+ sec$", r"^case 517: polygon 'harbour-east' with 0 vertices$",
                   r"^99% tests passed, 1 tests failed out of 900$", r"^\s+517 - geo_area_0517 \(SEGFAULT\)$", r"^Errors while running CTest$"],
        "first": r"^517/900 Test #517: .*\*\*\*Exception: SegFault",
    },
    {
        "name": "protoc-missing-import",
        "what": "protoc --python_out over 360 .proto files of a shop API, each importing common protos it does not use (4 'Import ... is unused.' warnings per file, in file order); refunds_259.proto imports a common proto that does not exist and uses its type: protoc's three last lines (file not found, import not found, type not defined) have no 'error' word; it stops there and nothing is generated",
        "setup": apt(PROTOC) + r"""
rm -rf proto gen && mkdir -p proto/shop/common proto/shop/v1 gen
python3 - <<'EOF'
commons = ["money", "address", "audit", "paging", "locale"]
for c in commons:
    open("proto/shop/common/%s.proto" % c, "w").write(
        'syntax = "proto3";\npackage shop.common;\n\nmessage %s {\n  string value = 1;\n}\n' % c.capitalize())
areas = ["orders", "refunds", "catalog", "carts", "payments", "shipping"]
for i in range(360):
    area = areas[i % 6]
    lines = ['syntax = "proto3";', "package shop.v1.%s;" % area, ""]
    for c in commons:
        if c != "money":
            lines.append('import "shop/common/%s.proto";' % c)
    lines.append('import "shop/common/money.proto";')
    if i == 259:
        lines.append('import "shop/common/refund_reason.proto";')
    lines += ["", "message %sItem%03d {" % (area.capitalize(), i), "  string id = 1;", "  shop.common.Money amount = 2;", "  int32 quantity = 3;"]
    if i == 259:
        lines += ["  shop.common.RefundReason reason = 4;"]
    lines += ["}", "", "message List%sItem%03dResponse {" % (area.capitalize(), i), "  repeated %sItem%03d items = 1;" % (area.capitalize(), i), "  string next_page_token = 2;", "}", ""]
    open("proto/shop/v1/%s_%03d.proto" % (area, i), "w").write("\n".join(lines))
EOF
""",
        "command": "protoc -I proto --python_out=gen $(cd proto && find . -name '*.proto' | sed 's|^\\./||' | sort) 2>&1",
        "needed": [r"^shop/common/refund_reason\.proto: File not found\.$",
                   r'^shop/v1/refunds_259\.proto:9:1: Import "shop/common/refund_reason\.proto" was not found or had errors\.$',
                   r'^shop/v1/refunds_259\.proto:15:3: "shop\.common\.RefundReason" is not defined\.$'],
        "first": r"^shop/common/refund_reason\.proto: File not found\.$",
    },
    {
        "name": "make-debug-no-rule-renamed-source",
        "what": "make --debug=v -k over a 320-file C project whose source list still names a file renamed on disk: make's decision trace for every target (considering, prerequisites, must remake, the compile line), the 'No rule to make target' line, early (18th object), names the object (its source is gone, so the pattern rule does not apply), the other objects are still built, then the archive is given up",
        "setup": apt(GCC, MAKE) + r"""
rm -rf src build && mkdir -p src
python3 - <<'EOF'
import os
mods = ["core", "net", "store", "http", "auth", "cli", "util", "sched"]
srcs = []
for i in range(320):
    m = mods[i % 8]
    os.makedirs("src/" + m, exist_ok=True)
    name = "%s_%03d" % (m, i)
    if i == 17:
        name = "socket_posix"
    path = "src/%s/%s.c" % (m, name)
    srcs.append(path)
    if i == 17:
        path = "src/%s/socket_unix.c" % m
    open(path, "w").write("int %s_fn(int x)\n{\n    return x * %d + 1;\n}\n" % (name, i + 1))
open("sources.mk", "w").write("SRCS = \\\n" + " \\\n".join("  " + s for s in srcs) + "\n")
EOF
cat > Makefile <<'EOF'
include sources.mk
OBJS := $(patsubst src/%.c,build/%.o,$(SRCS))
CFLAGS := -O0 -Wall

all: build/libapp.a

build/libapp.a: $(OBJS)
	ar rcs $@ $^

build/%.o: src/%.c
	@mkdir -p $(dir $@)
	gcc $(CFLAGS) -c $< -o $@

.PHONY: all
EOF
""",
        "command": "make -r --debug=v -k 2>&1",
        "needed": [r"^\s+Considering target file 'build/net/socket_posix\.o'\.$",
                   r"^make: \*\*\* No rule to make target 'build/net/socket_posix\.o', needed by 'build/libapp\.a'\.$",
                   r"^\s+Failed to remake target file 'build/net/socket_posix\.o'\.$", r"^\s+Giving up on target file 'build/libapp\.a'\.$",
                   r"^make: Target 'all' not remade because of errors\.$"],
        "first": r"^make: \*\*\* No rule to make target 'build/net/socket_posix\.o'",
    },
    {
        "name": "gawk-report-division-by-zero",
        "what": "gawk -f report.awk over 12 monthly sales CSVs (a line per row, a subtotal per month): a July row with zero units makes the unit-price division fatal; gawk names the script line, FILENAME and FNR, and the report stops mid-July",
        "setup": apt(GAWK) + r"""
rm -rf data && mkdir -p data
python3 - <<'EOF'
regions = ["north", "south", "east", "west", "central"]
for m in range(1, 13):
    rows = ["date,region,rep,units,revenue_cents"]
    for r in range(420):
        units = 1 + (m * 31 + r * 7) % 60
        if m == 7 and r == 316:
            units = 0
        rows.append("2024-%02d-%02d,%s,rep-%03d,%d,%d" % (m, 1 + r % 28, regions[r % 5], r % 90, units, units * (1999 + (r * 13) % 700)))
    open("data/2024-%02d.csv" % m, "w").write("\n".join(rows) + "\n")
EOF
cat > report.awk <<'EOF'
BEGIN { FS = ","; OFS = "\t" }
FNR == 1 { if (NR > 1) subtotal(); month = FILENAME; sub(/.*\//, "", month); sub(/\.csv$/, "", month); n = 0; total = 0; next }
{
    units = $4
    revenue = $5 / 100
    unit_price = revenue / units
    n++
    total += revenue
    printf "%s\t%-8s %s\tunits=%3d\trevenue=%9.2f\tunit=%7.2f\n", $1, $2, $3, units, revenue, unit_price
}
function subtotal() { printf "== %s: %d rows, revenue %.2f\n", month, n, total }
END { subtotal() }
EOF
""",
        "command": "gawk -f report.awk data/2024-*.csv 2>&1",
        "needed": [r"^2024-07-08\tnorth\s+rep-045\tunits= 23\t", r"^gawk: report\.awk:6: \(FILENAME=data/2024-07\.csv FNR=318\) fatal: division by zero attempted$"],
        "first": r"^gawk: report\.awk:6: \(FILENAME=data/2024-07\.csv FNR=318\) fatal: division by zero attempted$",
    },
    {
        "name": "cargo-test-stack-overflow-sigabrt",
        "what": "cargo test -- --test-threads=1 over 3001 tests of a nesting parser (one 'test ... ok' line each): a test parsing 200000 nested brackets overflows its thread's stack; the process aborts (SIGABRT) with no test summary, the tests after it never run, and cargo reports the signal",
        "setup": r"""
rm -rf src && mkdir -p src
cat > Cargo.toml <<'EOF'
[package]
name = "nestparse"
version = "0.1.0"
edition = "2021"
EOF
python3 - <<'EOF'
lib = '''#[derive(Debug, PartialEq)]
pub enum Node {
    Num(i64),
    List(Vec<Node>),
}

pub fn parse(src: &str) -> Result<Node, String> {
    let bytes = src.as_bytes();
    let (node, rest) = parse_node(bytes, 0)?;
    if rest != bytes.len() {
        return Err(format!("trailing input at {}", rest));
    }
    Ok(node)
}

fn parse_node(b: &[u8], at: usize) -> Result<(Node, usize), String> {
    match b.get(at) {
        Some(b'[') => {
            let mut items = Vec::new();
            let mut i = at + 1;
            loop {
                match b.get(i) {
                    Some(b']') => return Ok((Node::List(items), i + 1)),
                    Some(b',') => i += 1,
                    Some(_) => {
                        let (n, next) = parse_node(b, i)?;
                        items.push(n);
                        i = next;
                    }
                    None => return Err("unclosed list".to_string()),
                }
            }
        }
        Some(c) if c.is_ascii_digit() => {
            let mut i = at;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let s = std::str::from_utf8(&b[at..i]).unwrap();
            Ok((Node::Num(s.parse().unwrap()), i))
        }
        other => Err(format!("unexpected {:?} at {}", other.map(|c| *c as char), at)),
    }
}

pub fn depth(n: &Node) -> usize {
    match n {
        Node::Num(_) => 0,
        Node::List(v) => 1 + v.iter().map(depth).max().unwrap_or(0),
    }
}
'''
mods = []
for m in range(60):
    tests = []
    for k in range(50):
        d = 1 + (m + k) % 12
        tests.append("    #[test]\n    fn nested_%02d_depth_%02d() {\n        let src = format!(\"{}7{}\", \"[\".repeat(%d), \"]\".repeat(%d));\n        assert_eq!(depth(&parse(&src).unwrap()), %d);\n    }\n" % (k, d, d, d, d))
    if m == 41:
        tests.append("    #[test]\n    fn nested_deep_document() {\n        let n = 200_000;\n        let src = format!(\"{}1{}\", \"[\".repeat(n), \"]\".repeat(n));\n        assert_eq!(depth(&parse(&src).unwrap()), n);\n    }\n")
    mods.append("#[cfg(test)]\nmod suite_%02d {\n    use super::*;\n\n%s}\n" % (m, "\n".join(tests)))
open("src/lib.rs", "w").write(lib + "\n" + "\n".join(mods))
EOF
cargo build --tests --quiet 2>&1 || exit 1
""",
        "command": "CARGO_TERM_COLOR=never cargo test -- --test-threads=1 2>&1",
        "needed": [r"^test suite_41::nested_deep_document \.\.\. ?$", r"^thread 'suite_41::nested_deep_document' (\(\d+\) )?has overflowed its stack$",
                   r"^fatal runtime error: stack overflow", r"^error: test failed, to rerun pass `--lib`$",
                   r"^\s+process didn't exit successfully: `.*/target/debug/deps/nestparse-[0-9a-f]+ --test-threads=1` \(signal: 6, SIGABRT: process abort signal\)$"],
        "first": r"^thread 'suite_41::nested_deep_document' (\(\d+\) )?has overflowed its stack$",
    },
    {
        "name": "rspec-documentation-hash-diff",
        "what": "rspec --format documentation over 40 spec files (1601 examples, one line each under nested describe/context headings): one example's eq on an invoice totals hash fails; the Failures section gives expected/got, a hash diff and the spec line, then the count and the rerun command",
        "setup": apt(RSPEC) + r"""
rm -rf lib spec && mkdir -p lib spec
cat > lib/invoice.rb <<'EOF'
class Invoice
  Line = Struct.new(:sku, :qty, :unit_cents, :tax_rate)

  def initialize(lines, discount_pct: 0)
    @lines = lines
    @discount_pct = discount_pct
  end

  def net_cents
    gross = @lines.sum { |l| l.qty * l.unit_cents }
    gross - (gross * @discount_pct / 100)
  end

  def tax_cents
    @lines.sum { |l| (l.qty * l.unit_cents * l.tax_rate / 100.0).round }
  end

  def totals
    { net: net_cents, tax: tax_cents, gross: net_cents + tax_cents, lines: @lines.size }
  end
end
EOF
python3 - <<'EOF'
for i in range(40):
    s = ["require_relative '../lib/invoice'", "", "RSpec.describe Invoice, 'batch %02d' do" % i]
    for c in range(4):
        s += ["  context 'with %d lines at rate %d' do" % (c + 1, 7 + c * 3)]
        for k in range(10):
            s += ["    it 'totals %d units of sku %02d-%d-%d' do" % (k + 1, i, c, k),
                  "      lines = Array.new(%d) { |n| Invoice::Line.new(\"S#{n}\", %d, 250, %d) }" % (c + 1, k + 1, 7 + c * 3),
                  "      expect(Invoice.new(lines).totals[:net]).to eq(%d)" % ((c + 1) * (k + 1) * 250),
                  "    end"]
        s += ["  end"]
    if i == 22:
        s += ["  context 'with a 10% discount' do",
              "    it 'applies the discount before tax' do",
              "      lines = [Invoice::Line.new('BOOK', 2, 1500, 7), Invoice::Line.new('PEN', 10, 120, 19)]",
              "      invoice = Invoice.new(lines, discount_pct: 10)",
              "      expect(invoice.totals).to eq(net: 3780, tax: 415, gross: 4195, lines: 2)",
              "    end", "  end"]
    s += ["end", ""]
    open("spec/invoice_batch_%02d_spec.rb" % i, "w").write("\n".join(s))
EOF
""",
        "command": "rspec --format documentation --no-color 2>&1",
        "needed": [r"^\s+applies the discount before tax \(FAILED - 1\)$", r"^\s+1\) Invoice batch 22 with a 10% discount applies the discount before tax$",
                   r"^\s+Failure/Error: expect\(invoice\.totals\)\.to eq\(net: 3780, tax: 415, gross: 4195, lines: 2\)$",
                   r"^\s+expected: \{:gross=>4195, :lines=>2, :net=>3780, :tax=>415\}$", r"^\s+got: \{:gross=>4218, :lines=>2, :net=>3780, :tax=>438\}$",
                   r"^\s+# \./spec/invoice_batch_22_spec\.rb:176:in ", r"^1601 examples, 1 failure$", r"^rspec \./spec/invoice_batch_22_spec\.rb:173 # "],
        "first": r"^\s+applies the discount before tax \(FAILED - 1\)$",
    },
    {
        "name": "phpunit-testdox-two-broken-tests",
        "what": "phpunit --testdox over 36 test classes (1802 tests, one line each under the class title): a VAT assertion fails in class 11 and a TypeError is thrown in class 24; the end repeats both under 'Summary of non-successful tests' (message, file and line), then ERRORS! with the counts",
        "setup": apt(PHPUNIT) + r"""
rm -rf src tests && mkdir -p src tests
cat > src/Pricing.php <<'EOF'
<?php
declare(strict_types=1);

final class Pricing
{
    private const VAT = ['DE' => 19, 'FR' => 20, 'AT' => 20, 'NL' => 21];

    public static function gross(int $netCents, string $country): int
    {
        $rate = self::VAT[$country] ?? 0;
        return intdiv($netCents * (100 + $rate), 100);
    }

    public static function unitPrice(int $totalCents, int $qty): int
    {
        return intdiv($totalCents, $qty);
    }
}
EOF
python3 - <<'EOF'
for i in range(36):
    cls = "PricingBatch%02dTest" % i
    src = ["<?php", "declare(strict_types=1);", "", "use PHPUnit\\Framework\\TestCase;", "", "final class %s extends TestCase" % cls, "{"]
    for k in range(50):
        net = 1000 + 37 * k + i
        src += ["    public function testGrossForGermanOrder%02d(): void" % k, "    {",
                "        $this->assertSame(intdiv(%d * 119, 100), Pricing::gross(%d, 'DE'));" % (net, net), "    }", ""]
    if i == 11:
        src += ["    public function testDutchOrdersUseTheReducedRate(): void", "    {",
                "        $this->assertSame(1090, Pricing::gross(1000, 'NL'), 'NL books are taxed at 9%');", "    }", ""]
    if i == 24:
        src += ["    public function testUnitPriceFromCsvImport(): void", "    {",
                "        $row = ['total' => '1250', 'qty' => '5'];",
                "        $this->assertSame(250, Pricing::unitPrice($row['total'], (int) $row['qty']));", "    }", ""]
    src += ["}", ""]
    open("tests/%s.php" % cls, "w").write("\n".join(src))
EOF
""",
        "command": "phpunit --testdox --colors=never --bootstrap src/Pricing.php tests 2>&1",
        "needed": [[r"^ ✘ Dutch orders use the reduced rate$", 1], [r"^\s+│ NL books are taxed at 9%$", 1], [r"^\s+│ Failed asserting that 1210 is identical to 1090\.$", 1],
                   [r"^\s+│ .*/tests/PricingBatch11Test\.php:260$", 1], [r"^ ✘ Unit price from csv import$", 1],
                   [r"^\s+│ TypeError: Pricing::unitPrice\(\): Argument #1 \(\$totalCents\) must be of type int, string given, called in .*/tests/PricingBatch24Test\.php on line 261$", 1],
                   [r"^\s+│ .*/src/Pricing\.php:14$", 1], r"^Tests: 1802, Assertions: 1801, Errors: 1, Failures: 1\.$"],
        "first": r"^ ✘ Dutch orders use the reduced rate$",
    },
    {
        "name": "perlcritic-violations-among-source-ok",
        "what": "perlcritic (default severity 5) over 1700 Perl modules: one 'source OK' line per clean file, in directory order, and two files with violations among them — a bareword two-argument open and a string eval — reported as PBP policy lines without any 'error' word; the exit status is the only other sign",
        "setup": apt(PERLCRITIC) + r"""
rm -rf lib && mkdir -p lib
python3 - <<'EOF'
import os
areas = ["Billing", "Import", "Report", "Ledger", "Notify"]
for i in range(1700):
    a = areas[i % 5]
    os.makedirs("lib/Acme/%s" % a, exist_ok=True)
    name = "Mod%04d" % i
    body = ["package Acme::%s::%s;" % (a, name), "use strict;", "use warnings;", "",
            "our $VERSION = '1.%d';" % i, "",
            "sub total {", "    my (@amounts) = @_;", "    my $sum = 0;", "    $sum += $_ for @amounts;", "    return $sum * %d;" % (i % 7 + 1), "}", ""]
    if i == 641:
        body += ["sub read_rows {", "    my ($path) = @_;", "    open(ROWS, $path) or die \"cannot open $path: $!\";", "    my @rows = <ROWS>;",
                 "    close(ROWS);", "    return \\@rows;", "}", ""]
    if i == 1122:
        body += ["sub apply_rule {", "    my ($rule, $row) = @_;", "    my $result = eval \"\\$row->{amount} $rule\";", "    return $result;", "}", ""]
    body += ["1;", ""]
    open("lib/Acme/%s/%s.pm" % (a, name), "w").write("\n".join(body))
EOF
""",
        "command": "perlcritic lib 2>&1",
        "needed": [r'^lib/Acme/Import/Mod0641\.pm: Bareword file handle opened at line 16, column 5\.  See pages 202,204 of PBP\.  \(Severity: 5\)$',
                   r'^lib/Acme/Import/Mod0641\.pm: Two-argument "open" used at line 16, column 5\.  See page 207 of PBP\.  \(Severity: 5\)$',
                   r'^lib/Acme/Report/Mod1122\.pm: Expression form of "eval" at line 16, column 18\.  See page 161 of PBP\.  \(Severity: 5\)$'],
        "first": r"^lib/Acme/\w+/Mod\d+\.pm: .* \(Severity: 5\)$",
    },
    {
        "name": "doxygen-param-and-ref-warnings",
        "what": "doxygen (WARN_AS_ERROR = FAIL_ON_WARNINGS, QUIET = NO) over a 300-header C money library: the progress log names every file at each phase; two doc comments are wrong (an @param naming no argument, a \\ref to a missing label), reported as 'error:' lines that land mid-line in the progress log (stdout is buffered, stderr is not); nothing at the end says why doxygen exits 1",
        "setup": apt(DOXYGEN) + r"""
rm -rf include docs && mkdir -p include
cat > Doxyfile <<'EOF'
PROJECT_NAME           = "libmoney"
OUTPUT_DIRECTORY       = docs
INPUT                  = include
FILE_PATTERNS          = *.h
RECURSIVE              = YES
QUIET                  = NO
WARNINGS               = YES
WARN_IF_UNDOCUMENTED   = YES
WARN_AS_ERROR          = FAIL_ON_WARNINGS
GENERATE_LATEX         = NO
HAVE_DOT               = NO
SOURCE_BROWSER         = YES
EOF
python3 - <<'EOF'
import os
areas = ["fx", "round", "tax", "ledger", "format"]
for a in areas:
    os.makedirs("include/money/" + a, exist_ok=True)
for i in range(300):
    a = areas[i % 5]
    g = ["/**", " * @file", " * @brief %s helpers, part %03d." % (a, i), " */", "#ifndef MONEY_%s_%03d_H" % (a.upper(), i), "#define MONEY_%s_%03d_H" % (a.upper(), i), "", "#include <stdint.h>", ""]
    for f in range(3):
        fn = "%s_%03d_apply_%d" % (a, i, f)
        g += ["/**", " * @brief Applies step %d of the %s rules to an amount." % (f, a),
              " * @param amount_minor amount in minor units (cents)",
              " * @param currency ISO 4217 code, e.g. \"EUR\"",
              " * @return the adjusted amount in minor units", " */",
              "int64_t %s(int64_t amount_minor, const char *currency);" % fn, ""]
    if i == 70:
        g += ["/**", " * @brief Converts between currencies at the day's rate.", " * @param amount_minor amount in minor units",
              " * @param curency source currency code", " * @param target target currency code", " * @return converted amount", " */",
              "int64_t fx_070_convert(int64_t amount_minor, const char *currency, const char *target);", ""]
    if i == 151:
        g += ["/**", " * @brief Rounds a tax amount; see \\ref rounding_rules for the tie-breaking rule.",
              " * @param amount_minor amount in minor units", " * @return rounded amount", " */",
              "int64_t round_151_tax(int64_t amount_minor);", ""]
    g += ["#endif", ""]
    open("include/money/%s/%s_%03d.h" % (a, a, i), "w").write("\n".join(g))
EOF
""",
        "command": "doxygen Doxyfile 2>&1",
        "needed": [[r"include/money/round/round_151\.h:35: error: unable to resolve reference to 'rounding_rules' for \\ref command$", 1],
                   r"include/money/fx/fx_070\.h:\d+: error: argument 'curency' of command @param is not found in the argument list of fx_070_convert\(int64_t amount_minor, const char \*currency, const char \*target\)$",
                   r"fx_070\.h:\d+: error: The following parameter of fx_070_convert\(.*\) is not documented:$", r"^\s+parameter 'currency'$"],
        "first": r"(round_151\.h:35: error: unable to resolve reference|fx_070\.h:\d+: error: argument 'curency')",
    },
    {
        "name": "tcltest-result-mismatch",
        "what": "tclsh all.tcl -verbose bpt (tcltest runAllTests over 30 .test files of a money package, each file run in its own child process, ~3600 start/PASSED lines): one rounding test of a negative amount gets a different result; tcltest prints the test body, 'Result was' and 'Result should have been', and the totals name the failing file",
        "setup": apt(TCLSH) + r"""
rm -rf lib tests && mkdir -p lib tests
cat > lib/money.tcl <<'EOF'
namespace eval money {
    namespace export round_cents format_amount
}

# Round a fractional cent amount to whole cents, halves away from zero.
proc money::round_cents {value} {
    return [expr {int(floor($value + 0.5))}]
}

proc money::format_amount {cents {currency EUR}} {
    set sign [expr {$cents < 0 ? "-" : ""}]
    set cents [expr {abs($cents)}]
    return [format "%s%d.%02d %s" $sign [expr {$cents / 100}] [expr {$cents % 100}] $currency]
}
EOF
cat > tests/all.tcl <<'EOF'
package require tcltest 2
namespace import tcltest::*
configure -testdir [file dirname [file normalize [info script]]] {*}$argv
exit [runAllTests]
EOF
python3 - <<'EOF'
for i in range(30):
    t = ["package require tcltest 2", "namespace import tcltest::*", "source [file join [file dirname [file normalize [info script]]] .. lib money.tcl]", ""]
    for k in range(60):
        cents = 100 * i + 17 * k + 1
        t += ["test money-%d.%d {format %d cents} -body {" % (i, k, cents), "    money::format_amount %d" % cents,
              "} -result {%d.%02d EUR}" % (cents // 100, cents % 100), ""]
    if i == 19:
        t += ["test money-19.rounding-negative {negative half cents round away from zero} -body {",
              "    list [money::round_cents 12.5] [money::round_cents -12.5] [money::round_cents -0.5]",
              "} -result {13 -13 -1}", ""]
    t += ["cleanupTests", ""]
    open("tests/money_%02d.test" % i, "w").write("\n".join(t))
EOF
""",
        "command": "tclsh tests/all.tcl -verbose bpt 2>&1",
        "needed": [r"^==== money-19\.rounding-negative negative half cents round away from zero FAILED$",
                   r"^\s+list \[money::round_cents 12\.5\] \[money::round_cents -12\.5\] \[money::round_cents -0\.5\]$",
                   r"^---- Result was:$", r"^13 -12 0$", r"^---- Result should have been \(exact matching\):$", r"^13 -13 -1$",
                   r"^all\.tcl:\s+Total\s+1801\s+Passed\s+1800\s+Skipped\s+0\s+Failed\s+1$", r"^Files with failing tests: money_19\.test$"],
        "first": r"^==== money-19\.rounding-negative .* FAILED$",
    },
]
