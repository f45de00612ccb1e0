"""Third held-out corpus of failing runs, of kinds that none of cases.py, cases_fresh.py and
cases_heldout.py holds: other build systems (meson test, automake distcheck, gfortran modules under
make -k), a sanitizer and a leak checker not yet present (UBSan, valgrind's leak records), other
languages' compilers and test runners (Haskell, OCaml/dune, Elixir ExUnit, Erlang EUnit, R testthat,
Java JUnit 4, C# mcs, Nim, LaTeX), JavaScript tools not yet covered (vitest, esbuild, stylelint,
ts-node), Python tools not yet covered (hypothesis, alembic, scrapy, pandas, dbt, behave), a
PostgreSQL seed migration, jq over an NDJSON stream, go build -x, and cargo scenarios not yet present
(a build script's panic, doc tests, nextest). Same format as cases.py: name, what, setup, command,
needed, first.

Each setup installs what it uses itself, pinned: Python tools into a venv in the corpus work dir (`..`),
npm packages into the case's directory, Debian packages with `apt-get install -y` when missing (and,
for a library that brings no command, when its file is missing: apt_unless below).
The needed/first rules were written from each command's real full output, run plainly in bash, by
someone who had not seen how the excerpt picks lines, before any view was scored.
"""

# Python packages (venvs made with the machine's python3, 3.11).
MESON = "1.12.1"
PYTEST = "8.3.3"
HYPOTHESIS = "6.170.27"
ALEMBIC = "1.20.1"
SQLALCHEMY = "2.1.9"
SCRAPY = "2.19.0"
PANDAS = "3.1.1"
DBT_CORE = "1.10.23"  # 1.12 pulls a parser wheel that its build step downloads from outside the registries
DBT_DUCKDB = "1.10.1"
BEHAVE = "1.3.3"

# npm packages (vitest 3 and stylelint 16: their newer majors want Node.js 22, the machine has 20).
VITEST = "3.2.7"
ESBUILD = "0.28.2"
STYLELINT = "16.26.1"
STYLELINT_STANDARD = "39.0.1"
TS_NODE = "10.9.2"
TYPESCRIPT = "5.9.3"
TYPES_NODE = "20.11.30"

# Debian bookworm packages the cases use, pinned (installed only when the command is missing).
GCC = ("gcc", "gcc=4:12.2.0-3", "libc6-dev=2.36-9+deb12u14")
MAKE = ("make", "make=4.3-4.1")
NINJA = ("ninja", "ninja-build=1.11.1-2~deb12u1")
AUTOCONF = ("autoconf", "autoconf=2.71-3")
AUTOMAKE = ("automake", "automake=1:1.16.5-1.3")
VALGRIND = ("valgrind", "valgrind=1:3.19.0-1")
GHC = ("ghc", "ghc=9.0.2-4")
OCAML = ("ocamlopt", "ocaml-nox=4.13.1-4")
DUNE = ("dune", "ocaml-dune=2.9.3-1")
ELIXIR = ("mix", "elixir=1.14.0.dfsg-2", "erlang-base=1:25.2.3+dfsg-1+deb12u4")
RSCRIPT = ("Rscript", "r-base-core=4.2.2.20221110-2")
GFORTRAN = ("gfortran", "gfortran=4:12.2.0-3")
JDK = ("javac", "openjdk-17-jdk-headless=17.0.15+6-1~deb12u1")
MCS = ("mcs", "mono-mcs=6.8.0.105+dfsg-3.3+deb12u1")
PDFLATEX = ("pdflatex", "texlive-latex-base=2022.20230122-3")
JQ = ("jq", "jq=1.6-2.1+deb12u1", "libjq1=1.6-2.1+deb12u1")
ERLANG_EUNIT = ("/usr/lib/erlang/lib/eunit-2.8.1/include/eunit.hrl", "erlang-base=1:25.2.3+dfsg-1+deb12u4", "erlang-eunit=1:25.2.3+dfsg-1+deb12u4",
                "erlang-dev=1:25.2.3+dfsg-1+deb12u4")  # a file, for apt_unless: erlc alone comes with erlang-base
GO = ("go", "golang-go=2:1.19~1")
NIM = ("nim", "nim=1.6.10-2")


from cases_fresh import apt, npm, venv  # noqa: E402  (the same setup helpers as the earlier corpora)


def apt_unless(path, *pkgs):
    """bash: apt-get install the pinned packages unless PATH exists (libraries that bring no command)."""
    return f"""
if [ ! -e {path} ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q {" ".join(pkgs)} >/dev/null || exit 1
fi
"""


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
        "name": "meson-test-verbose",
        "what": "meson setup + meson test -v over 336 registered tests of a date library (each prints its checks): the Feb-2100 test fails in the middle on a leap-year bug",
        "setup": apt(GCC, NINJA) + venv(".venv-meson", f"meson=={MESON}") + r"""
rm -rf build src tests && mkdir -p src tests
cat > meson.build <<'EOF'
project('calendar', 'c', version : '1.4.0', default_options : ['warning_level=2'])
lib = static_library('cal', 'src/cal.c', include_directories : include_directories('src'))
check = executable('check_month', 'tests/check_month.c', link_with : lib, include_directories : include_directories('src'))
foreach y : [1900, 1996, 1999, 2000, 2004, 2023, 2024, 2025, 2028, 2050, 2096, 2100, 2104, 2400, 2401, 2800, 3200, 4000, 4004, 4400, 6400, 8000, 9996, 9999, 1600, 1700, 1800, 1500]
  foreach m : ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12']
    test('month_@0@_@1@'.format(y, m), check, args : [y.to_string(), m], suite : 'calendar')
  endforeach
endforeach
EOF
cat > src/cal.h <<'EOF'
int is_leap(int year);
int days_in_month(int year, int month);
int day_of_year(int year, int month, int day);
EOF
cat > src/cal.c <<'EOF'
#include "cal.h"

int is_leap(int year)
{
    return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0 || year > 2099);
}

int days_in_month(int year, int month)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month == 2 && is_leap(year))
        return 29;
    return days[month - 1];
}

int day_of_year(int year, int month, int day)
{
    int n = day;
    for (int m = 1; m < month; m++)
        n += days_in_month(year, m);
    return n;
}
EOF
cat > tests/check_month.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "cal.h"

static int expected_days(int y, int m)
{
    static const int d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : d[m - 1];
}

int main(int argc, char **argv)
{
    int y = atoi(argv[1]), m = atoi(argv[2]);
    printf("checking %04d-%02d\n", y, m);
    int want = expected_days(y, m), got = days_in_month(y, m);
    printf("  days_in_month(%d, %d) = %d\n", y, m, got);
    if (got != want) {
        printf("  FAILED: days_in_month(%d, %d) == %d, expected %d\n", y, m, got, want);
        return 1;
    }
    for (int d = 1; d <= got; d += 7)
        printf("  day_of_year(%d, %d, %d) = %d\n", y, m, d, day_of_year(y, m, d));
    printf("  ok\n");
    return 0;
}
EOF
""",
        "command": "../.venv-meson/bin/meson setup build && ../.venv-meson/bin/meson test -C build -v --num-processes 1 2>&1",
        "needed": [r"^\s+FAILED: days_in_month\(2100, 2\) == 29, expected 28$", [r"^134/336 calendar - calendar:month_2100_02 FAIL\s", 1],
                   r"^>>> .*/build/check_month 2100 02$", r"^Ok:\s+335", r"^Fail:\s+1"],
        "first": r"FAILED: days_in_month\(2100, 2\)",
    },
    {
        "name": "automake-distcheck-missing-header",
        "what": "make V=1 distcheck of an autotools project of 500 C files: the tree builds, but the tarball lacks a header not listed in Makefile.am, so the distcheck build fails on it early; -k compiles the other 358 files and the end says only Error",
        "setup": apt(GCC, MAKE, AUTOCONF, AUTOMAKE) + r"""
rm -rf * && mkdir -p src
cat > configure.ac <<'EOF'
AC_INIT([ledger], [0.9.2], [dev@example.invalid])
AM_INIT_AUTOMAKE([foreign subdir-objects -Wall])
AC_PROG_CC
AC_CHECK_HEADERS([stdint.h stdlib.h string.h unistd.h])
AC_CONFIG_HEADERS([config.h])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOF
python3 - <<'EOF'
srcs = []
for i in range(500):
    inc = '#include "compat.h"\n' if i == 141 else ''
    body = "return COMPAT_ROUND(x * %d) + %d;" % (i + 1, i) if i == 141 else "return x * %d + %d;" % (i + 1, i)
    open("src/entry_%03d.c" % i, "w").write('#include <config.h>\n#include "ledger.h"\n%s\nlong entry_%03d(long x)\n{\n    %s\n}\n' % (inc, i, body))
    srcs.append("src/entry_%03d.c" % i)
open("src/ledger.h", "w").write("".join("long entry_%03d(long x);\n" % i for i in range(500)))
open("src/compat.h", "w").write("#define COMPAT_ROUND(v) (((v) + 50) / 100 * 100)\n")
calls = "".join("    total += entry_%03d(%d);\n" % (i, i) for i in range(500))
open("src/main.c", "w").write('#include <config.h>\n#include <stdio.h>\n#include "ledger.h"\nint main(void)\n{\n    long total = 0;\n%s    printf("%%ld\\n", total);\n    return 0;\n}\n' % calls)
am = "bin_PROGRAMS = ledger\nledger_SOURCES = src/main.c src/ledger.h \\\n" + " \\\n".join("\t" + s for s in srcs) + "\n"
open("Makefile.am", "w").write(am)
EOF
autoreconf -i >autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }
""",
        "command": "./configure && make -k V=1 distcheck 2>&1",
        "needed": [r"^\.\./\.\./src/entry_141\.c:3:10: fatal error: compat\.h: No such file or directory$", r"^\s+3 \| #include \"compat\.h\"$",
                   r"^make\[2\]: \*\*\* \[Makefile:\d+: src/entry_141\.o\] Error 1$",
                   [r"^make\[1\]: Entering directory '.*/ledger-0\.9\.2/_build/sub'$", 1], r"^make: \*\*\* \[Makefile:\d+: distcheck\] Error 1$"],
        "first": r"fatal error: compat\.h: No such file or directory",
    },
    {
        "name": "ubsan-overflow-midrun",
        "what": "a C billing run built with -fsanitize=undefined logs 4000 lines; UBSan reports a signed overflow and an out-of-bounds index in the middle, the run goes on and its final self-check fails",
        "setup": apt(GCC) + r"""
cat > billing.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

#define BUCKETS 16

static int bucket_totals[BUCKETS];

static int scale_amount(int cents, int factor)
{
    return cents * factor;
}

static void add_to_bucket(int account, int amount)
{
    int b = account / 64;
    bucket_totals[b] += amount;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    long long expected = 0, total = 0;
    for (int i = 0; i < 4000; i++) {
        int account = (i * 37) % 1000;
        int cents = 1000 + (i * 7919) % 90000;
        int factor = (i == 1811) ? 80000 : 1 + i % 9;
        int amount = scale_amount(cents, factor);
        expected += (long long)cents * factor;
        total += amount;
        if (i == 2654)
            account = 1030;
        add_to_bucket(account, amount);
        printf("invoice %04d account=%03d cents=%d factor=%d amount=%d running=%lld\n", i, account, cents, factor, amount, total);
    }
    printf("total=%lld expected=%lld\n", total, expected);
    if (total != expected) {
        fprintf(stderr, "self-check failed: totals differ by %lld\n", expected - total);
        return 2;
    }
    return 0;
}
EOF
gcc -g -O0 -fsanitize=undefined -o billing billing.c
""",
        "command": "./billing 2>&1",
        "needed": [r"^billing\.c:10:18: runtime error: signed integer overflow: 32309 \* 80000 cannot be represented in type 'int'$",
                   r"^invoice 1811 account=007 cents=32309 factor=80000 amount=-",
                   r"^billing\.c:16:18: runtime error: index 16 out of bounds for type 'int \[16\]'$",
                   r"^invoice 2654 account=1030 ", r"^total=-?\d+ expected=\d+$", r"^self-check failed: totals differ by"],
        "first": r"runtime error: signed integer overflow",
    },
    {
        "name": "valgrind-leak-definitely-lost",
        "what": "valgrind --leak-check=full --show-leak-kinds=all on a C plugin loader: 2000 log lines, then 160 still-reachable loss records and one definitely-lost block in the middle of them",
        "setup": apt(GCC, VALGRIND) + r"""
python3 - <<'EOF'
n = 160
src = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", "",
       "struct plugin { char *name; char *config; int id; };", "static struct plugin *registry[%d];" % n, ""]
for i in range(n):
    src += ["static struct plugin *load_plugin_%03d(void)" % i, "{",
            "    struct plugin *p = malloc(sizeof *p);",
            "    p->name = strdup(\"plugin_%03d\");" % i,
            "    p->config = malloc(%d);" % (64 + i * 8),
            "    memset(p->config, 0, %d);" % (64 + i * 8),
            "    p->id = %d;" % i, "    return p;", "}", ""]
src += ["static void reload_plugin(int i)", "{",
        "    struct plugin *fresh = malloc(sizeof *fresh);",
        "    *fresh = *registry[i];",
        "    fresh->config = malloc(4096);",
        "    memset(fresh->config, 1, 4096);",
        "    registry[i] = fresh;",
        "}", "",
        "int main(void)", "{", "    setvbuf(stdout, NULL, _IOLBF, 0);"]
for i in range(n):
    src.append("    registry[%d] = load_plugin_%03d();" % (i, i))
src += ["    for (int round = 0; round < 12; round++)",
        "        for (int i = 0; i < %d; i++)" % n,
        "            printf(\"round %d: plugin %s id=%d ok\\n\", round, registry[i]->name, registry[i]->id);",
        "    reload_plugin(97);",
        "    printf(\"reloaded %s\\n\", registry[97]->name);",
        "    return 0;", "}"]
open("loader.c", "w").write("\n".join(src) + "\n")
EOF
gcc -g -O0 -o loader loader.c
""",
        "command": "valgrind --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=definite --error-exitcode=1 ./loader 2>&1",
        "needed": [r"==\d+== 864 \(24 direct, 840 indirect\) bytes in 1 blocks are definitely lost in loss record \d+ of \d+$",
                   r"==\d+==\s+by 0x[0-9A-F]+: load_plugin_097 \(loader\.c:980\)$", r"^reloaded plugin_097$",
                   r"==\d+==\s+definitely lost: 24 bytes in 1 blocks$", r"==\d+== ERROR SUMMARY: 1 errors from 1 contexts"],
        "first": r"are definitely lost in loss record",
    },
    {
        "name": "ghc-type-error-fkeep-going",
        "what": "ghc --make -Wall -fkeep-going over 100 Haskell modules: ~800 warnings (unused imports, missing signatures, shadowing), one module has a type error; the other modules go on compiling",
        "setup": apt(GHC) + r"""
rm -rf src && mkdir -p src
python3 - <<'EOF'
n = 100
open("src/Base.hs", "w").write("module Base where\n\ndata Item = Item { itemName :: String, itemQty :: Int, itemPrice :: Int }\n\nweight :: Item -> Int\nweight i = itemQty i * itemPrice i\n")
for i in range(n):
    src = ["module M%03d where" % i, "", "import Base", "import Data.List (sortBy, nub)", "import Data.Maybe (fromMaybe)", "import qualified Data.Map as Map", ""]
    src += ["scale%d = %d" % (i, i + 2), ""]
    src += ["total%d :: [Item] -> Int" % i, "total%d items = foldr (\\i acc -> acc + weight i) 0 items" % i, ""]
    src += ["describe%d :: [Item] -> String" % i, "describe%d items =" % i, "  let items' = filter ((> 0) . itemQty) items", "      unused = length items", "  in concatMap itemName items'", ""]
    src += ["pick%d items = [itemName items | items <- items]" % i, ""]
    if i == 58:
        src += ["report58 :: [Item] -> String", "report58 items =", "  let n = total58 items", "  in \"order total: \" ++ n ++ \" cents\"", ""]
    open("src/M%03d.hs" % i, "w").write("\n".join(src))
imports = "\n".join("import M%03d" % i for i in range(n))
open("src/Main.hs", "w").write("module Main where\n\nimport Base\n%s\n\nmain :: IO ()\nmain = print (total0 [Item \"a\" 1 2])\n" % imports)
EOF
""",
        "command": "rm -rf build && mkdir build && ghc --make -Wall -fkeep-going -fdiagnostics-color=never -isrc -outputdir build -o build/app src/Main.hs 2>&1",
        "needed": [r"^\[ 60 of 102\] Compiling M058 ", r"^src/M058\.hs:24:25: error:$", r"Couldn.t match expected type .\[Char\]. with actual type .Int.",
                   r"In the first argument of .\(\+\+\)., namely .n.$", r'^24 \|\s+in "order total: " \+\+ n \+\+ " cents"$',
                   r"^-fkeep-going in use, removing the following dependencies and continuing:$"],
        "first": r"^src/M058\.hs:24:25: error:$",
    },
    {
        "name": "dune-ocaml-type-error",
        "what": "dune build --display short over an OCaml library of 90 modules (warnings kept non-fatal): ~530 warnings with source excerpts, then, last, one module's type error",
        "setup": apt(OCAML, DUNE) + r"""
rm -rf lib bin _build && mkdir -p lib bin
cat > dune-project <<'EOF'
(lang dune 2.9)
EOF
cat > lib/dune <<'EOF'
(library
 (name shop)
 (flags (:standard -w +a-4-9-40-41-42-44-45-70 -warn-error -a)))
EOF
cat > bin/dune <<'EOF'
(executable
 (name main)
 (libraries shop))
EOF
python3 - <<'EOF'
n = 90
open("lib/item.ml", "w").write("type t = { name : string; qty : int; price : int }\nlet weight i = i.qty * i.price\n")
for i in range(n):
    src = ["open Item", "",
           "let scale_%d = %d" % (i, i + 2), "",
           "let total items =", "  let count = List.length items in",
           "  List.fold_left (fun acc i -> acc + weight i) 0 items", "",
           "let describe items =", "  let unused = List.length items in",
           "  String.concat \",\" (List.map (fun i -> i.name) items)", "",
           "let classify x = match x with", "  | 0 -> \"none\"", "  | 1 -> \"one\"", "  | n when n > 1 -> \"many\"", ""]
    if i == 61:
        src += ["let report items =", "  let n = total items in",
                "  \"order total: \" ^ n ^ \" cents\"", ""]
    open("lib/m%03d.ml" % i, "w").write("\n".join(src))
uses = " +\n  ".join("M%03d.total []" % i for i in range(n))
open("bin/main.ml", "w").write("let () = print_int (\n  %s)\n" % uses)
EOF
""",
        "command": "rm -rf _build && dune build -j 1 --display short 2>&1",
        "needed": [r'^File "lib/m061\.ml", line 20, characters 20-21:$', r'^20 \|\s+"order total: " \^ n \^ " cents"$',
                   r"^Error: This expression has type int but an expression was expected of type$", r"^\s+string$"],
        "first": r"^File \"lib/m061\.ml\", line 20, characters 20-21:$",
    },
    {
        "name": "elixir-mix-test-trace",
        "what": "mix test --trace --seed 0 over 40 ExUnit files (1600 tests, each line with its timing): one assertion on an invoice map fails in the middle with a left/right diff",
        "setup": apt(ELIXIR) + r"""
rm -rf lib test _build && mkdir -p lib test
cat > mix.exs <<'EOF'
defmodule Billing.MixProject do
  use Mix.Project
  def project, do: [app: :billing, version: "0.3.0", elixir: "~> 1.14", deps: []]
  def application, do: [extra_applications: [:logger]]
end
EOF
cat > lib/billing.ex <<'EOF'
defmodule Billing do
  def line_total(qty, price), do: qty * price

  def invoice(lines, discount_pct) do
    subtotal = Enum.reduce(lines, 0, fn {qty, price}, acc -> acc + line_total(qty, price) end)
    discount = div(subtotal * discount_pct, 100)
    %{subtotal: subtotal, discount: discount, total: subtotal - discount, lines: length(lines), currency: "EUR"}
  end
end
EOF
echo 'ExUnit.start()' > test/test_helper.exs
python3 - <<'EOF'
for f in range(40):
    src = ["defmodule Billing.Part%02dTest do" % f, "  use ExUnit.Case, async: false", ""]
    for k in range(40):
        src += ["  test \"line total %d x %d\" do" % (k, f + 1), "    assert Billing.line_total(%d, %d) == %d" % (k, f + 1, k * (f + 1)), "  end", ""]
    if f == 23:
        src += ["  test \"invoice with 15 percent discount\" do",
                "    inv = Billing.invoice([{3, 1999}, {1, 4500}, {12, 250}], 15)",
                "    assert inv == %{subtotal: 13497, discount: 2025, total: 11472, lines: 3, currency: \"EUR\"}",
                "  end", ""]
    src.append("end")
    open("test/part_%02d_test.exs" % f, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "rm -rf _build && MIX_ENV=test mix test --trace --seed 0 2>&1",
        "needed": [r"^\s+1\) test invoice with 15 percent discount \(Billing\.Part23Test\)$", r"^\s+test/part_23_test\.exs:164$",
                   r"^\s+Assertion with == failed$", r"^\s+code:\s+assert inv == %\{subtotal: 13497, discount: 2025, total: 11472",
                   r"^\s+left:\s+%\{$", [r"^\s+discount: 2024,$", 1], [r"^\s+total: 11473$", 1], r"^\s+right:\s+%\{$",
                   r"^\s+test/part_23_test\.exs:166: \(test\)$", r"^1601 tests, 1 failure$"],
        "first": r"^\s+1\) test invoice with 15 percent discount",
    },
    {
        "name": "erlang-eunit-verbose",
        "what": "erl running eunit:test(..., [verbose]) over 30 modules of 50 tests: one ?assertEqual fails in the middle; the error term names the expression, expected and value",
        "setup": apt_unless(*ERLANG_EUNIT) + r"""
rm -rf src ebin && mkdir -p src ebin
cat > src/rates.erl <<'EOF'
-module(rates).
-export([convert/3, round_cents/1]).

round_cents(X) -> trunc(X * 100) / 100.

convert(Amount, From, To) ->
    round_cents(Amount * rate(From) / rate(To)).

rate(eur) -> 1.0;
rate(usd) -> 0.92;
rate(gbp) -> 1.17;
rate(chf) -> 1.04.
EOF
python3 - <<'EOF'
for m in range(30):
    src = ["-module(rates_%02d_tests)." % m, "-include_lib(\"eunit/include/eunit.hrl\").", ""]
    for k in range(50):
        src.append("eur_identity_%d_test() -> ?assertEqual(%d.0, rates:convert(%d, eur, eur))." % (k, k * (m + 1), k * (m + 1)))
    if m == 14:
        src += ["", "gbp_to_usd_rounding_test() ->", "    ?assertEqual(12.72, rates:convert(10, gbp, usd))."]
    open("src/rates_%02d_tests.erl" % m, "w").write("\n".join(src) + "\n")
EOF
erlc -o ebin src/*.erl
""",
        "command": "erl -noshell -pa ebin -eval 'Mods = [list_to_atom(filename:basename(F, \".beam\")) || F <- lists:sort(filelib:wildcard(\"ebin/rates_*_tests.beam\"))], case eunit:test(Mods, [verbose]) of ok -> halt(0); _ -> halt(1) end.' 2>&1",
        "needed": [r"rates_14_tests: gbp_to_usd_rounding_test\.\.\.\*failed\*$",
                   r"^in function rates_14_tests:gbp_to_usd_rounding_test/0 \(src/rates_14_tests\.erl, line 56\)$",
                   r"^\*\*error:\{assertEqual,\[\{module,rates_14_tests\},$", r'^\s+\{expression,"rates : convert \( 10 , gbp , usd \)"\},$',
                   r"^\s+\{expected,12\.72\},$", r"^\s+\{value,12\.71\}\]\}$", r"^\s+Failed: 1\.\s+Skipped: 0\.\s+Passed: 1500\.$"],
        "first": r"gbp_to_usd_rounding_test.*\*failed\*",
    },
    {
        "name": "r-testthat-location-check",
        "what": "Rscript running testthat::test_dir with the location and check reporters over 30 files (one line per expectation, then a summary): one expect_equal on an aggregated data frame fails with a waldo diff",
        "setup": apt(RSCRIPT) + apt_unless("/usr/lib/R/site-library/testthat", "r-cran-testthat=3.1.6-1") + r"""
rm -rf R tests && mkdir -p R tests/testthat
cat > R/summarise.R <<'EOF'
summarise_orders <- function(orders) {
  totals <- aggregate(amount ~ region, data = orders, FUN = sum)
  totals$share <- round(totals$amount / sum(totals$amount), 2)
  totals[order(totals$region), ]
}
EOF
python3 - <<'EOF'
for f in range(30):
    src = ["source(file.path('..', '..', 'R', 'summarise.R'))", ""]
    for k in range(12):
        src += ["test_that('sum of %d rows for batch %d', {" % (k + 1, f)]
        for j in range(4):
            src.append("  expect_equal(sum(seq_len(%d)) * %d, %d)" % (k + 1, j + 1, (k + 1) * (k + 2) // 2 * (j + 1)))
        src += ["})", ""]
    if f == 17:
        src += ["test_that('orders are summarised per region', {",
                "  orders <- data.frame(region = c('north', 'south', 'north', 'east', 'south', 'east'),",
                "                       amount = c(120, 80, 30, 50, 20, 100))",
                "  got <- summarise_orders(orders)",
                "  expect_equal(got$amount, c(150, 150, 100))",
                "  expect_equal(got$share, c(0.37, 0.38, 0.25))",
                "})", ""]
    open("tests/testthat/test-batch%02d.R" % f, "w").write("\n".join(src))
EOF
""",
        "command": "Rscript -e 'testthat::test_dir(\"tests/testthat\", reporter = testthat::MultiReporter$new(list(testthat::LocationReporter$new(), testthat::CheckReporter$new())))' 2>&1",
        "needed": [r"^\s+'test-batch17\.R:92' \[failure\]$", r"^── Failure \('test-batch17\.R:92'\): orders are summarised per region",
                   r"^got\$share not equal to c\(0\.37, 0\.38, 0\.25\)\.$", r"^1/3 mismatches$", r"^\[1\] 0\.38 - 0\.37 == 0\.01$",
                   [r"^\[ FAIL 1 \| WARN 0 \| SKIP 0 \| PASS 1441 \]$", 1]],
        "first": r"^\s+'test-batch17\.R:92' \[failure\]$",
    },
    {
        "name": "gfortran-module-cascade",
        "what": "make -k of a Fortran project (300 modules built in listed order, ~830 -Wall -Wextra warnings): one module has an undeclared variable under implicit none, so its .mod is never written and the modules that use it fail one after another on the missing .mod",
        "setup": apt(GFORTRAN, MAKE) + r"""
rm -rf src build && mkdir -p src build
python3 - <<'EOF'
n = 300
deps = {}
for i in range(n):
    use = ["use m%03d" % (i - 1)] if i % 10 else []
    if 144 < i < 170 and i % 2 == 1:
        use.append("use m144")
    deps[i] = [int(u[5:]) for u in use]
    src = ["module m%03d" % i] + ["  " + u for u in use] + ["  implicit none", "contains",
           "  function rate_%03d(x, n) result(r)" % i, "    real, intent(in) :: x", "    integer, intent(in) :: n",
           "    real :: r", "    integer :: unused_%d, spare_%d" % (i, i), "    real :: scratch_%d" % i,
           "    r = x * real(n) / %d.0" % (i + 1), "    r = r + real(n * 2)"]
    if i == 144:
        src.append("    r = r + discount * 0.5")
    src += ["  end function rate_%03d" % i, "end module m%03d" % i]
    open("src/m%03d.f90" % i, "w").write("\n".join(src) + "\n")
mk = ["FC = gfortran", "FFLAGS = -Wall -Wextra -O1 -Jbuild", "OBJS = " + " ".join("build/m%03d.o" % i for i in range(n)), "",
      "# objects are listed in dependency order", "all: $(OBJS)", "", "build/%.o: src/%.f90", "\t$(FC) $(FFLAGS) -c $< -o $@", ""]
open("Makefile", "w").write("\n".join(mk) + "\n")
EOF
""",
        "command": "rm -rf build && mkdir build && make -k 2>&1",
        "needed": [r"^src/m144\.f90:13:20:$", r"^\s+13 \|\s+r = r \+ discount \* 0\.5$", r"^Error: Symbol .discount. at \(1\) has no IMPLICIT type$",
                   r"^make: \*\*\* \[Makefile:\d+: build/m144\.o\] Error 1$", [r"^Fatal Error: Cannot open module file .m144\.mod. for reading", 1],
                   r"^make: Target 'all' not remade because of errors\.$"],
        "first": r"^src/m144\.f90:13:20:$",
    },
    {
        "name": "junit4-assertion-among-logs",
        "what": "javac + JUnitCore over 30 test classes (1800 tests that log each order they price): one assertEquals fails in the middle; JUnit prints the failure with its stack trace at the end",
        "setup": apt(JDK) + apt_unless("/usr/share/java/junit4.jar", "junit4=4.13.2-3") + r"""
rm -rf src test out && mkdir -p src/com/acme/shop test/com/acme/shop out
cat > src/com/acme/shop/Pricing.java <<'EOF'
package com.acme.shop;

public final class Pricing {
    private Pricing() {}

    public static long lineTotal(int qty, long unitCents) {
        return qty * unitCents;
    }

    public static long withTax(long cents, int ratePermille) {
        return cents + cents * ratePermille / 1000;
    }

    public static long bulkDiscount(int qty, long cents) {
        if (qty > 100) {
            return cents - cents / 10;
        }
        return cents;
    }
}
EOF
python3 - <<'EOF'
for c in range(30):
    src = ["package com.acme.shop;", "", "import static org.junit.Assert.assertEquals;", "import org.junit.Test;", "",
           "public class Pricing%02dTest {" % c]
    for k in range(60):
        q = k + 1; p = 100 * (c + 1)
        src += ["    @Test", "    public void lineTotal%02d() {" % k,
                "        long got = Pricing.lineTotal(%d, %dL);" % (q, p),
                "        System.out.println(\"Pricing%02dTest: priced order %d: qty=%d unit=%d total=\" + got);" % (c, k, q, p),
                "        assertEquals(%dL, got);" % (q * p), "    }", ""]
    if c == 17:
        src += ["    @Test", "    public void bulkDiscountAppliesFromOneHundredUnits() {",
                "        long got = Pricing.bulkDiscount(100, 250000L);",
                "        System.out.println(\"Pricing17Test: bulk order qty=100 total=\" + got);",
                "        assertEquals(\"100 units get the 10% bulk discount\", 225000L, got);", "    }", ""]
    src.append("}")
    open("test/com/acme/shop/Pricing%02dTest.java" % c, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "CP=out:/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar; javac -d out -cp $CP src/com/acme/shop/*.java test/com/acme/shop/*.java && java -cp $CP org.junit.runner.JUnitCore $(cd test && ls com/acme/shop/*Test.java | sed 's/\\.java$//; s#/#.#g') 2>&1",
        "needed": [r"^\.?Pricing17Test: bulk order qty=100 total=250000$", r"^1\) bulkDiscountAppliesFromOneHundredUnits\(com\.acme\.shop\.Pricing17Test\)$",
                   r"^java\.lang\.AssertionError: 100 units get the 10% bulk discount expected:<225000> but was:<250000>$",
                   r"^\s+at com\.acme\.shop\.Pricing17Test\.bulkDiscountAppliesFromOneHundredUnits\(Pricing17Test\.java:431\)$",
                   r"^Tests run: 1801,\s+Failures: 1$"],
        "first": r"^1\) bulkDiscountAppliesFromOneHundredUnits\(com\.acme\.shop\.Pricing17Test\)",
    },
    {
        "name": "mcs-csharp-error-after-warnings",
        "what": "mcs (Mono C# compiler) over 200 files: ~3000 CS0168/CS0219 warnings, then a conditional-expression type error in file 186 (mcs stops reporting there) and the summary",
        "setup": apt(MCS) + r"""
rm -rf src && mkdir -p src
python3 - <<'EOF'
for i in range(200):
    src = ["using System;", "using System.Collections.Generic;", "", "namespace Acme.Inventory", "{",
           "    public static class Stock%03d" % i, "    {"]
    for k in range(8):
        src += ["        public static int Count%d(List<int> items)" % k, "        {",
                "            int unused%d;" % k, "            int seed = %d;" % k,
                "            int total = 0;", "            foreach (var item in items) { total += item; }",
                "            return total;", "        }"]
    if i == 186:
        src += ["        public static int Reorder(string sku)", "        {",
                "            int threshold = sku.Length > 8 ? \"high\" : 10;", "            return threshold;", "        }"]
    src += ["    }", "}"]
    open("src/Stock%03d.cs" % i, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "mcs -target:library -warn:4 -out:Inventory.dll src/*.cs 2>&1",
        "needed": [r"^src/Stock186\.cs\(74,46\): error CS0173: Type of conditional expression cannot be determined because there is no implicit conversion between .string. and .int.$",
                   r"^Compilation failed: 1 error\(s\), \d+ warnings$"],
        "first": r"^src/Stock186\.cs\(74,46\): error CS0173",
    },
    {
        "name": "pdflatex-undefined-control-sequence",
        "what": "pdflatex -interaction=nonstopmode -file-line-error over a generated 120-page report: page markers, ~700 overfull box warnings and ~1400 undefined-reference warnings, one undefined control sequence (a typo) in the middle",
        "setup": apt(PDFLATEX) + r"""
python3 - <<'EOF'
out = [r"\documentclass[11pt]{article}", r"\usepackage[margin=3cm]{geometry}",
       r"\newcommand{\highlight}[1]{\textbf{#1}}", r"\begin{document}", r"\tableofcontents"]
for s in range(120):
    out.append(r"\section{Region %d quarterly figures}\label{sec:r%d}" % (s, s))
    for p in range(6):
        out.append("Region %d reported revenue of %d units in period %d, see Section~\\ref{sec:r%d} and Appendix~\\ref{app:%d}. " % (s, 1000 + s * p, p, s + 1, s)
                   + "The measurement identifier was Averyveryveryverylongunbreakableidentifierforregion%dperiod%dnumberXYZ " % (s, p)
                   + "and it was audited by the \\highlight{finance} team. " * 3)
        out.append("")
    if s == 67:
        out.append(r"Net margin for this region was \hihglight{12.4\%}, below the target.")
        out.append("")
    out.append(r"\begin{tabular}{lrrrr}Quarter&Q1&Q2&Q3&Q4\\ %d&%d&%d&%d&%d\end{tabular}\newpage" % (s, s, s + 1, s + 2, s + 3))
out.append(r"\end{document}")
open("report.tex", "w").write("\n".join(out) + "\n")
EOF
""",
        "command": "rm -f report.aux report.toc && pdflatex -interaction=nonstopmode -file-line-error -halt-on-error=0 report.tex 2>&1",
        "needed": [r"^\./report\.tex:957: Undefined control sequence\.$", r"^l\.957 Net margin for this region was \\hihglight$",
                   r"^\s+\{12\.4\\%\}, below the target\.$", r"^Output written on report\.pdf \(\d+ pages"],
        "first": r"report\.tex:\d+: Undefined control sequence",
    },
    {
        "name": "vitest-verbose-object-diff",
        "what": "vitest run --reporter=verbose over 50 files (2000 passing tests): one toEqual on a cart summary object fails, with the diff and a code frame",
        "setup": npm(f"vitest@{VITEST}") + r"""
rm -rf src test && mkdir -p src test
cat > src/cart.js <<'EOF'
export function lineTotal(qty, unitCents) {
  return qty * unitCents;
}

export function summarize(lines, couponPct) {
  const subtotal = lines.reduce((s, l) => s + lineTotal(l.qty, l.unitCents), 0);
  const discount = Math.round(subtotal * couponPct / 100);
  const shipping = subtotal > 5000 ? 0 : 499;
  return { items: lines.length, subtotal, discount, shipping, total: subtotal - discount + shipping };
}
EOF
python3 - <<'EOF'
for f in range(50):
    src = ["import { describe, it, expect } from 'vitest';", "import { lineTotal, summarize } from '../src/cart.js';", "",
           "describe('cart %02d', () => {" % f]
    for k in range(40):
        src.append("  it('line total %d x %d', () => { expect(lineTotal(%d, %d)).toBe(%d); });" % (k, f + 1, k, f + 1, k * (f + 1)))
    if f == 31:
        src += ["  it('free shipping starts at 50 euros', () => {",
                "    const cart = summarize([{ qty: 2, unitCents: 1999 }, { qty: 1, unitCents: 1002 }], 0);",
                "    expect(cart).toEqual({ items: 2, subtotal: 5000, discount: 0, shipping: 0, total: 5000 });",
                "  });"]
    src.append("});")
    open("test/cart_%02d.test.js" % f, "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "NO_COLOR=1 CI=1 node_modules/.bin/vitest run --reporter=verbose --no-file-parallelism 2>&1",
        "needed": [r"^\s*× test/cart_31\.test\.js > cart 31 > free shipping starts at 50 euros", r"^\s*FAIL\s+test/cart_31\.test\.js > cart 31 > free shipping starts at 50 euros$",
                   r"^AssertionError: expected \{ items: 2, subtotal: 5000, …\(3\) \} to deeply equal", r'^-\s+"shipping": 0,$', r'^\+\s+"shipping": 499,$',
                   r'^\+\s+"total": 5499,$', r"❯ test/cart_31\.test\.js:47:18$", r"^\s+47\|\s+expect\(cart\)\.toEqual\(",
                   r"^\s+Tests\s+1 failed \| 2000 passed \(2001\)$"],
        "first": r"× test/cart_31\.test\.js > cart 31 > free shipping starts at 50 euros",
    },
    {
        "name": "esbuild-verbose-missing-export",
        "what": "esbuild --bundle --log-level=verbose over 300 TypeScript modules (resolver log for every import): one import names an export that was renamed",
        "setup": npm(f"esbuild@{ESBUILD}") + r"""
rm -rf src dist && mkdir -p src/features
python3 - <<'EOF'
n = 300
for i in range(n):
    imports = ["import { format } from '../format';"]
    if i > 0:
        imports.append("import { render%03d } from './feature_%03d';" % (i - 1, i - 1) if i % 10 else "")
    body = ["export function render%03d(value: number): string {" % i, "  return format(value * %d);" % (i + 1), "}"]
    if i == 213:
        imports.append("import { currencySymbol } from '../format';")
        body = ["export function render213(value: number): string {", "  return currencySymbol + format(value * 214);", "}"]
    open("src/features/feature_%03d.ts" % i, "w").write("\n".join([x for x in imports if x] + [""] + body) + "\n")
open("src/format.ts", "w").write("export const CURRENCY_SYMBOL = '\\u20ac';\nexport function format(v: number): string {\n  return (v / 100).toFixed(2);\n}\n")
open("src/index.ts", "w").write("".join("import { render%03d } from './features/feature_%03d';\n" % (i, i) for i in range(n))
                                 + "console.log([%s].join('\\n'));\n" % ", ".join("render%03d(%d)" % (i, i) for i in range(n)))
EOF
""",
        "command": "node_modules/.bin/esbuild src/index.ts --bundle --platform=node --outfile=dist/app.js --log-level=verbose --color=false 2>&1",
        "needed": [r'^✘ \[ERROR\] No matching export in "src/format\.ts" for import "currencySymbol"$', r"^\s+src/features/feature_213\.ts:3:9:$",
                   r"^\s+3 │ import \{ currencySymbol \} from '\.\./format';$", r"^1 error$"],
        "first": r"No matching export in \"src/format\.ts\" for import \"currencySymbol\"",
    },
    {
        "name": "stylelint-syntax-error-among-warnings",
        "what": "stylelint over 150 stylesheets with defaultSeverity warning: ~6000 rule warnings (hex case, class pattern, zero units, url quotes) and one CssSyntaxError from an unclosed block",
        "setup": npm(f"stylelint@{STYLELINT}", f"stylelint-config-standard@{STYLELINT_STANDARD}") + r"""
rm -rf styles && mkdir -p styles
cat > .stylelintrc.json <<'EOF'
{ "extends": "stylelint-config-standard", "defaultSeverity": "warning" }
EOF
python3 - <<'EOF'
for i in range(150):
    src = []
    for k in range(5):
        src += [".Card_%d_%d {" % (i, k), "  color: #FFFFFF;", "  margin: 0px 0px 0px 0px;", "  background: url(img/card_%d.png);" % k, "}", ""]
    if i == 96:
        src += ["@media (max-width: 600px) {", "  .Banner_96 {", "    padding: 4px;", "", ".Footer_96 {", "  color: red;", "}", ""]
    open("styles/page_%03d.css" % i, "w").write("\n".join(src))
EOF
""",
        "command": "NO_COLOR=1 node_modules/.bin/stylelint 'styles/**/*.css' 2>&1",
        "needed": [r"^styles/page_096\.css$", r"^\s+32:3\s+✖\s+Unclosed block\s+CssSyntaxError$", r"^✖ \d+ problems \(1 error, \d+ warnings\)$"],
        "first": r"✖\s+Unclosed block\s+CssSyntaxError",
    },
    {
        "name": "ts-node-compile-error-late",
        "what": "ts-node running a TypeScript data-migration runner: 40 steps are loaded one by one and log 2800 lines; step 37 does not type-check, TSError with the diagnostic and a Node stack",
        "setup": npm(f"ts-node@{TS_NODE}", f"typescript@{TYPESCRIPT}", f"@types/node@{TYPES_NODE}") + r"""
rm -rf src && mkdir -p src/steps
cat > tsconfig.json <<'EOF'
{ "compilerOptions": { "target": "ES2020", "module": "commonjs", "strict": true, "esModuleInterop": true, "types": ["node"] } }
EOF
cat > src/run.ts <<'EOF'
import * as fs from "fs";
import * as path from "path";

export interface Row { id: number; sku: string; qty: number; priceCents: number }

const rows: Row[] = [];
for (let i = 0; i < 75; i++) rows.push({ id: i, sku: `SKU-${1000 + i}`, qty: i % 7, priceCents: 100 + i });

const steps = fs.readdirSync(path.join(__dirname, "steps")).filter((f) => f.endsWith(".ts")).sort();
for (const file of steps) {
  const step = require(path.join(__dirname, "steps", file));
  console.log(`== ${file}: ${step.description}`);
  for (const row of rows) console.log(`  ${file} row ${row.id} -> ${JSON.stringify(step.apply(row))}`);
}
console.log("migration finished");
EOF
python3 - <<'EOF'
for s in range(40):
    body = ["import type { Row } from '../run';", "", "export const description = 'step %02d: scale prices';" % s, "",
            "export function apply(row: Row): Row {", "  return { ...row, priceCents: row.priceCents + %d };" % s, "}"]
    if s == 37:
        body = ["import type { Row } from '../run';", "", "export const description = 'step 37: normalise quantities';", "",
                "export function apply(row: Row): Row {", "  const qty: number = row.qty > 0 ? row.qty : 'none';",
                "  return { ...row, qty };", "}"]
    open("src/steps/step_%02d.ts" % s, "w").write("\n".join(body) + "\n")
EOF
""",
        "command": "node_modules/.bin/ts-node src/run.ts 2>&1",
        "needed": [r"^TSError: ⨯ Unable to compile TypeScript:$",
                   r"^src/steps/step_37\.ts\(6,9\): error TS2322: Type 'number \| \"none\"' is not assignable to type 'number'\.$",
                   r"^\s+Type 'string' is not assignable to type 'number'\.$", r"^\s+at Module\.m\._compile \(.*/ts-node/src/index\.ts:\d+:\d+\)$"],
        "first": r"^TSError: ⨯ Unable to compile TypeScript:$",
    },
    {
        "name": "hypothesis-verbose-shrink",
        "what": "pytest -s with --hypothesis-verbosity=verbose (derandomized, no example database): 20 property tests print every example tried; a money round-trip property fails for negative amounts; each shrinking step prints its own near-identical assertion error before the final one for cents=-1",
        "setup": venv(".venv-hypothesis", f"pytest=={PYTEST}", f"hypothesis=={HYPOTHESIS}") + r"""
rm -rf tests money.py .hypothesis && mkdir -p tests
cat > money.py <<'EOF'
def format_cents(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def parse_money(text: str) -> int:
    whole, frac = text.split(".")
    return int(whole) * 100 + int(frac)


def split_evenly(cents: int, parts: int) -> list:
    base, extra = divmod(cents, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]
EOF
cat > tests/conftest.py <<'EOF'
import sys, os
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from hypothesis import settings
settings.register_profile("ci", database=None, derandomize=True, max_examples=100)
EOF
python3 - <<'EOF'
src = ["from hypothesis import given, strategies as st", "from money import format_cents, parse_money, split_evenly", ""]
for k in range(19):
    src += ["@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=1, max_value=%d))" % (k + 2),
            "def test_split_sums_%02d(cents, parts):" % k,
            "    assert sum(split_evenly(cents, parts)) == cents", ""]
src += ["@given(st.integers(min_value=-10**7, max_value=10**7))", "def test_format_parse_roundtrip(cents):",
        "    assert parse_money(format_cents(cents)) == cents", ""]
open("tests/test_money.py", "w").write("\n".join(src))
EOF
""",
        "command": "../.venv-hypothesis/bin/pytest -p no:cacheprovider -v -s --hypothesis-profile=ci --hypothesis-verbosity=verbose tests 2>&1",
        "needed": [r"^_+ test_format_parse_roundtrip _+$", [r"^E\s+AssertionError: assert 1 == -1$", 1], [r"^E\s+\+\s+where 1 = parse_money\('-0\.01'\)$", 1],
                   [r"^E\s+\+\s+where '-0\.01' = format_cents\(-1\)$", 1], r"^E\s+Failing test case: test_format_parse_roundtrip\($", r"^E\s+cents=-1,$",
                   r"^tests/test_money\.py:81: $", r"^FAILED tests/test_money\.py::test_format_parse_roundtrip", r"=+ 1 failed, 19 passed in "],
        "first": r"^E\s+AssertionError: assert -?\d+ == -\d+$",
    },
    {
        "name": "alembic-upgrade-sqlite-alter",
        "what": "alembic upgrade head over 240 revisions with SQLAlchemy's SQL logging on: revision 173 alters a column to NOT NULL, which SQLite cannot ALTER; a long SQLAlchemy traceback follows",
        "setup": venv(".venv-alembic", f"alembic=={ALEMBIC}", f"SQLAlchemy=={SQLALCHEMY}") + r"""
rm -rf migrations alembic.ini app.db
../.venv-alembic/bin/alembic init migrations >/dev/null || exit 1
sed -i 's|^sqlalchemy.url = .*|sqlalchemy.url = sqlite:///app.db|' alembic.ini
python3 - <<'EOF'
import re
ini = open("alembic.ini").read()
ini = re.sub(r"(\[logger_sqlalchemy\]\nlevel = )WARNING", r"\1INFO", ini)
ini = re.sub(r"(\[logger_sqlalchemy\]\nlevel = INFO\nhandlers =\s*\nqualname = sqlalchemy\.engine)", r"\1", ini)
open("alembic.ini", "w").write(ini)
prev = None
for i in range(240):
    rev = "r%04d" % i
    if i == 0:
        up = ["    op.create_table('customers', sa.Column('id', sa.Integer, primary_key=True), sa.Column('name', sa.String(80)))",
              "    op.create_table('orders', sa.Column('id', sa.Integer, primary_key=True), sa.Column('customer_id', sa.Integer, nullable=True))"]
    elif i == 173:
        up = ["    op.alter_column('orders', 'customer_id', existing_type=sa.Integer(), nullable=False)"]
    elif i % 3 == 0:
        up = ["    op.create_table('audit_%03d', sa.Column('id', sa.Integer, primary_key=True), sa.Column('payload', sa.Text))" % i,
              "    op.create_index('ix_audit_%03d_id', 'audit_%03d', ['id'])" % (i, i)]
    else:
        up = ["    op.add_column('customers', sa.Column('attr_%03d', sa.String(40), nullable=True))" % i]
    src = ["# step %d: revision %s, revises %s" % (i, rev, prev), "from alembic import op", "import sqlalchemy as sa", "",
           "revision = %r" % rev, "down_revision = %r" % prev, "branch_labels = None", "depends_on = None", "", "",
           "def upgrade():"] + up + ["", "", "def downgrade():", "    pass", ""]
    open("migrations/versions/%s_step_%d.py" % (rev, i), "w").write("\n".join(src))
    prev = rev
EOF
grep -A3 'logger_sqlalchemy\]' alembic.ini | grep -q 'level = INFO' || exit 1
""",
        "command": "rm -f app.db && ../.venv-alembic/bin/alembic upgrade head 2>&1",
        "needed": [r"Running upgrade r0172 -> r0173$", [r"\] ALTER TABLE orders ALTER COLUMN customer_id SET NOT NULL$", 1],
                   r'^sqlite3\.OperationalError: near "ALTER": syntax error$', r'File ".*/migrations/versions/r0173_step_173\.py", line 12, in upgrade$',
                   r"^\s+op\.alter_column\('orders', 'customer_id', existing_type=sa\.Integer\(\), nullable=False\)$",
                   r'^sqlalchemy\.exc\.OperationalError: \(sqlite3\.OperationalError\) near "ALTER": syntax error$',
                   r"^\[SQL: ALTER TABLE orders ALTER COLUMN customer_id SET NOT NULL\]$"],
        "first": r"^sqlite3\.OperationalError: near \"ALTER\": syntax error$",
    },
    {
        "name": "scrapy-spider-error-midcrawl",
        "what": "scrapy runspider at DEBUG over 400 local product pages (a Crawled and a Scraped line per page): one page's price is 'N/A', the parse callback raises ValueError mid-crawl; the crawl goes on, the stats dump ends it and scrapy exits 0",
        "setup": venv(".venv-scrapy", f"scrapy=={SCRAPY}") + r"""
rm -rf site && mkdir -p site
python3 - <<'EOF'
import os
for i in range(400):
    price = "N/A" if i == 233 else "%d.%02d" % (10 + i, i % 100)
    open("site/product_%03d.html" % i, "w").write(
        "<html><body><h1 class='name'>Widget %d</h1><span class='price'>%s</span><span class='sku'>W-%05d</span></body></html>" % (i, price, i))
urls = ["file://%s/site/product_%03d.html" % (os.getcwd(), i) for i in range(400)]
open("urls.txt", "w").write("\n".join(urls) + "\n")
EOF
cat > products.py <<'EOF'
import scrapy


class ProductSpider(scrapy.Spider):
    name = "products"
    custom_settings = {"CONCURRENT_REQUESTS": 1, "TELNETCONSOLE_ENABLED": False, "ROBOTSTXT_OBEY": False}
    with open("urls.txt") as fh:
        start_urls = fh.read().split()

    def parse(self, response):
        yield {
            "name": response.css("h1.name::text").get(),
            "sku": response.css("span.sku::text").get(),
            "price": float(response.css("span.price::text").get()),
        }
EOF
""",
        "command": "rm -f items.jsonl && ../.venv-scrapy/bin/scrapy runspider products.py -s LOG_LEVEL=DEBUG -o items.jsonl 2>&1",
        "needed": [r"ERROR: Spider error processing <GET file://.*/site/product_233\.html> \(referer: None\)$", r'File ".*/products\.py", line 14, in parse$',
                   r'^\s+"price": float\(response\.css\("span\.price::text"\)\.get\(\)\),$', r"^ValueError: could not convert string to float: 'N/A'$",
                   r"'log_count/ERROR': 1,$", r"'spider_exceptions/ValueError': 1,$"],
        "first": r"ERROR: Spider error processing <GET file://.*/site/product_233\.html>",
    },
    {
        "name": "pandas-merge-validate",
        "what": "a pandas report script prints 60 regional tables (~2000 lines), then merge(validate='many_to_one') raises MergeError on a duplicated customer key, deep in pandas",
        "setup": venv(".venv-pandas", f"pandas=={PANDAS}") + r"""
python3 - <<'EOF'
import random
rng = random.Random(7)
with open("orders.csv", "w") as fh:
    fh.write("order_id,customer_id,region,amount\n")
    for i in range(20000):
        fh.write("%d,%d,region_%02d,%.2f\n" % (i, rng.randrange(1, 3000), rng.randrange(60), rng.uniform(5, 500)))
with open("customers.csv", "w") as fh:
    fh.write("customer_id,name,segment\n")
    for c in range(1, 3000):
        fh.write("%d,Customer %d,%s\n" % (c, c, ["retail", "wholesale", "online"][c % 3]))
        if c == 1742:
            fh.write("1742,Customer 1742 (old import),retail\n")
EOF
cat > report.py <<'EOF'
import pandas as pd

pd.set_option("display.width", 120)


def regional_tables(orders):
    for region, frame in orders.groupby("region"):
        top = frame.sort_values("amount", ascending=False).head(25)
        print(f"=== {region}: {len(frame)} orders, revenue {frame['amount'].sum():.2f}")
        print(top.to_string(index=False))


def attach_customers(orders, customers):
    return orders.merge(customers, on="customer_id", how="left", validate="many_to_one")


def main():
    orders = pd.read_csv("orders.csv")
    customers = pd.read_csv("customers.csv")
    regional_tables(orders)
    enriched = attach_customers(orders, customers)
    print(enriched.groupby("segment")["amount"].sum())


if __name__ == "__main__":
    main()
EOF
""",
        "command": "../.venv-pandas/bin/python report.py 2>&1",
        "needed": [r'File ".*/report\.py", line 21, in main$', r'File ".*/report\.py", line 14, in attach_customers$',
                   r'^\s+return orders\.merge\(customers, on="customer_id", how="left", validate="many_to_one"\)$',
                   r"^pandas\.errors\.MergeError: Merge keys are not unique in right dataset; not a many-to-one merge$",
                   r"^Duplicates in right:$", r"^\s+1742 \.\.\.$"],
        "first": r"MergeError: Merge keys are not unique in right dataset",
    },
    {
        "name": "dbt-duckdb-binder-error",
        "what": "dbt run --threads 1 over 400 DuckDB models (a START and an OK line each): one staging model selects a renamed column (Binder Error), its downstream models are skipped, the summary lists the error",
        "setup": venv(".venv-dbt", f"dbt-core=={DBT_CORE}", f"dbt-duckdb=={DBT_DUCKDB}") + r"""
rm -rf models target logs dbt_packages warehouse.duckdb && mkdir -p models/staging models/marts seeds
cat > dbt_project.yml <<'EOF'
name: shop
version: "1.0.0"
profile: shop
model-paths: ["models"]
seed-paths: ["seeds"]
models:
  shop:
    +materialized: view
EOF
cat > profiles.yml <<'EOF'
shop:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: warehouse.duckdb
      threads: 1
EOF
python3 - <<'EOF'
for i in range(200):
    if i == 137:
        sql = "select order_id, customer_id, amount_cents / 100.0 as amount from (select range as order_id, range % 50 as customer_id, range * 3 as total_cents from range(100))"
    else:
        sql = "select range as order_id, range %% 50 as customer_id, range * %d / 100.0 as amount from range(100)" % (i + 1)
    open("models/staging/stg_orders_%03d.sql" % i, "w").write(sql + "\n")
    open("models/marts/orders_by_customer_%03d.sql" % i, "w").write(
        "select customer_id, sum(amount) as revenue, count(*) as orders from {{ ref('stg_orders_%03d') }} group by customer_id\n" % i)
EOF
""",
        "command": "DO_NOT_TRACK=1 DBT_SEND_ANONYMOUS_USAGE_STATS=false ../.venv-dbt/bin/dbt run --profiles-dir . --threads 1 --no-use-colors 2>&1",
        "needed": [r"138 of 400 ERROR creating sql view model main\.stg_orders_137 \.+ \[ERROR in ", r"Failure in model stg_orders_137 \(models/staging/stg_orders_137\.sql\)$",
                   r'^\s+Binder Error: Referenced column "amount_cents" not found in FROM clause!$', r'^\s+Candidate bindings: "total_cents", "customer_id"$',
                   r"^\s+LINE 5:\s+select order_id, customer_id, amount_cents / 100\.0", r"SKIP relation main\.orders_by_customer_137 ",
                   r"Done\. PASS=398 WARN=0 ERROR=1 SKIP=1 "],
        "first": r"ERROR creating sql view model main\.stg_orders_137",
    },
    {
        "name": "behave-failing-step",
        "what": "behave --no-color over 12 checkout features (180 scenarios, every step printed with its location): one Then step's assertion fails, then the failing-scenarios summary",
        "setup": venv(".venv-behave", f"behave=={BEHAVE}") + r"""
rm -rf features && mkdir -p features/steps
cat > features/steps/checkout_steps.py <<'EOF'
from behave import given, when, then


class Cart:
    def __init__(self):
        self.lines = []
        self.gift_card = 0

    def total(self):
        subtotal = sum(q * p for q, p in self.lines)
        return max(subtotal - self.gift_card, 0) if self.gift_card < subtotal else subtotal


@given("an empty cart")
def step_empty(context):
    context.cart = Cart()


@given("{qty:d} items at {price:d} cents")
def step_items(context, qty, price):
    context.cart.lines.append((qty, price))


@when("a gift card of {amount:d} cents is applied")
def step_gift(context, amount):
    context.cart.gift_card = amount


@then("the total is {expected:d} cents")
def step_total(context, expected):
    got = context.cart.total()
    assert got == expected, f"expected total {expected} but got {got}"
EOF
python3 - <<'EOF'
for f in range(12):
    src = ["Feature: Checkout %02d" % f, "  Customers pay the cart total minus any gift card.", ""]
    for s in range(15):
        qty, price = s + 1, 100 * (f + 1)
        gift = 50 * s
        src += ["  Scenario: Cart %02d-%02d with a gift card below the total" % (f, s), "    Given an empty cart",
                "    And %d items at %d cents" % (qty, price), "    When a gift card of %d cents is applied" % gift,
                "    Then the total is %d cents" % (qty * price - gift), ""]
    if f == 7:
        src += ["  Scenario: Gift card larger than the cart", "    Given an empty cart", "    And 2 items at 500 cents",
                "    When a gift card of 1500 cents is applied", "    Then the total is 0 cents", ""]
    open("features/checkout_%02d.feature" % f, "w").write("\n".join(src))
EOF
""",
        "command": "../.venv-behave/bin/behave --no-color --no-capture --show-source features 2>&1",
        "needed": [r"^\s+Scenario: Gift card larger than the cart\s+# features/checkout_07\.feature:94$",
                   r"^\s+When a gift card of 1500 cents is applied\s+#", r"^\s+Then the total is 0 cents\s+# features/steps/checkout_steps\.py:29$",
                   r"^\s+ASSERT FAILED: expected total 0 but got 1000$", r"^\s+features/checkout_07\.feature:94\s+Gift card larger than the cart$",
                   r"^180 scenarios passed, 1 failed, 0 skipped$"],
        "first": r"ASSERT FAILED: expected total 0 but got 1000",
    },
    {
        "name": "psql-migration-fk-violation",
        "what": "a db test script: a throwaway PostgreSQL server is started, psql -a -v ON_ERROR_STOP=1 runs a 1600-statement seed migration (each statement echoed, INSERT 0 1 after each); order 790 (statement 1194) names a customer that does not exist; the foreign-key violation stops it near the end, then the server is stopped",
        "setup": apt_unless("/usr/lib/postgresql/15/bin/postgres", "postgresql-15=15.18-0+deb12u1") + r"""
mkdir -p db
python3 - <<'EOF'
out = ["\\set ON_ERROR_STOP on", "BEGIN;",
       "CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, segment text NOT NULL);",
       "CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id), amount_cents integer NOT NULL CHECK (amount_cents > 0));"]
for c in range(1, 401):
    out.append("INSERT INTO customers (id, name, segment) VALUES (%d, 'Customer %d', '%s');" % (c, c, ["retail", "wholesale"][c % 2]))
for o in range(1, 1201):
    cust = 4242 if o == 790 else 1 + (o * 37) % 400
    out.append("INSERT INTO orders (id, customer_id, amount_cents) VALUES (%d, %d, %d);" % (o, cust, 100 + o * 3))
out += ["CREATE INDEX orders_customer_idx ON orders (customer_id);", "COMMIT;"]
open("db/seed.sql", "w").write("\n".join(out) + "\n")
EOF
cat > db/test-seed.sh <<'EOF'
#!/bin/bash
# Start a throwaway PostgreSQL server, load the seed migration into it, stop the server.
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
TMP=$(mktemp -d /tmp/seedtest.XXXXXX)
chown postgres "$TMP"
runuser -u postgres -- "$PGBIN/initdb" -D "$TMP/data" -A trust -U postgres --no-sync >/dev/null || exit 1
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$TMP/data" -l "$TMP/server.log" -w -o "-k $TMP -p 5499 -c listen_addresses=''" start
"$PGBIN/psql" -h "$TMP" -p 5499 -U postgres -X -a -f db/seed.sql postgres
rc=$?
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$TMP/data" -w stop
rm -rf "$TMP"
exit $rc
EOF
chmod +x db/test-seed.sh
""",
        "command": "bash db/test-seed.sh 2>&1",
        "needed": [r"^INSERT INTO orders \(id, customer_id, amount_cents\) VALUES \(790, 4242, 2470\);$",
                   r'^psql:db/seed\.sql:1194: ERROR:\s+insert or update on table "orders" violates foreign key constraint "orders_customer_id_fkey"$',
                   r'^DETAIL:\s+Key \(customer_id\)=\(4242\) is not present in table "customers"\.$'],
        "first": r"^psql:db/seed\.sql:1194: ERROR:",
    },
    {
        "name": "jq-errors-in-ndjson-stream",
        "what": "jq -c --unbuffered over a 6000-event NDJSON log (one output line per order event): one event has items null, one has items double-encoded as a string, the last has a null price; jq reports each and goes on",
        "setup": apt(JQ) + r"""
python3 - <<'EOF'
import json
with open("events.ndjson", "w") as fh:
    for i in range(6000):
        if i % 7 == 3:
            ev = {"type": "login", "user": "u%d" % (i % 97), "at": 1700000000 + i}
        else:
            items = [{"sku": "S%d" % (i % 50 + k), "qty": 1 + (i + k) % 4, "price": 250 + 10 * k} for k in range(1 + i % 3)]
            if i == 2871:
                items = None
            if i == 4410:
                items = json.dumps(items)
            if i == 5999:
                items[0]["price"] = None
            ev = {"type": "order", "id": i, "user": "u%d" % (i % 97), "items": items, "at": 1700000000 + i}
        fh.write(json.dumps(ev) + "\n")
EOF
""",
        "command": "jq -c --unbuffered 'select(.type == \"order\") | {id, user, total: ([.items[] | .qty * .price] | add)}' events.ndjson 2>&1",
        "needed": [r"^jq: error \(at events\.ndjson:2872\): Cannot iterate over null \(null\)$", r'^jq: error \(at events\.ndjson:4411\): Cannot iterate over string \(',
                   r"^jq: error \(at events\.ndjson:6000\): number \(4\) and null \(null\) cannot be multiplied$"],
        "first": r"^jq: error \(at events\.ndjson:\d+\): Cannot iterate over null",
    },
    {
        "name": "go-build-x-type-error",
        "what": "go build -x -v -p 1 ./... of a module with 150 packages (every compile and link command with its importcfg printed): one package has a type error in the middle; the other packages go on building",
        "setup": apt(GO) + r"""
rm -rf internal cmd && mkdir -p cmd/shop
cat > go.mod <<'EOF'
module example.com/shop

go 1.19
EOF
python3 - <<'EOF'
import os
n = 150
for i in range(n):
    d = "internal/pkg%03d" % i
    os.makedirs(d, exist_ok=True)
    imports = '\t"fmt"\n\t"strings"\n\t"sort"\n'
    if i % 10:
        imports += '\t"example.com/shop/internal/pkg%03d"\n' % (i - 1)
    body = ['package pkg%03d' % i, '', 'import (', imports + ')', '',
            'func Label(names []string) string {', '\tsort.Strings(names)', '\treturn fmt.Sprintf("%%d:%%s", %d, strings.Join(names, ","))' % i, '}', '']
    if i % 10:
        body += ['func Chain() string {', '\treturn pkg%03d.Label([]string{"a"})' % (i - 1), '}', '']
    if i == 97:
        body += ['func Total(prices []int) string {', '\ttotal := 0', '\tfor _, p := range prices {', '\t\ttotal += p', '\t}', '\treturn total', '}', '']
    open(d + "/label.go", "w").write("\n".join(body))
imports = "".join('\t"example.com/shop/internal/pkg%03d"\n' % i for i in range(n))
calls = "".join('\tfmt.Println(pkg%03d.Label([]string{"x"}))\n' % i for i in range(n))
open("cmd/shop/main.go", "w").write('package main\n\nimport (\n\t"fmt"\n%s)\n\nfunc main() {\n%s}\n' % (imports, calls))
EOF
""",
        "command": "rm -rf .gocache && GOCACHE=$PWD/.gocache GOPROXY=off GOFLAGS=-mod=mod go build -x -v -p 1 ./... 2>&1",
        "needed": [r"^# example\.com/shop/internal/pkg097$",
                   r"^internal/pkg097/label\.go:24:9: cannot use total \(variable of type int\) as type string in return statement$"],
        "first": r"internal/pkg097/label\.go:\d+:\d+: cannot use total",
    },
    {
        "name": "cargo-build-script-panic",
        "what": "cargo build -vv: the build script turns a 3000-row currency table into code, reporting each deprecated row as cargo:warning (121 before the bad row) and logging each row; the row on line 2418 has a missing field and the build script panics (streamed mid-log by -vv); cargo then prints the error with the script's whole stdout, and its stderr last",
        "setup": CARGO_TOML.replace('edition = "2021"', 'edition = "2021"\nbuild = "build.rs"') + r"""
mkdir -p data
python3 - <<'EOF'
rows = ["code,minor_units,name"]
for i in range(3000):
    code = "C%04d" % i
    if i == 2416:
        rows.append("%s,Zloty (old)" % code)
    else:
        rows.append("%s,%d,Currency %d%s" % (code, i % 4, i, " (deprecated)" if i % 20 == 7 else ""))
open("data/currencies.csv", "w").write("\n".join(rows) + "\n")
EOF
cat > build.rs <<'EOF'
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=data/currencies.csv");
    let text = fs::read_to_string("data/currencies.csv").expect("read data/currencies.csv");
    let mut out = String::from("pub static CURRENCIES: &[(&str, u8, &str)] = &[\n");
    for (n, line) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != 3 {
            panic!("data/currencies.csv:{}: expected 3 fields (code,minor_units,name), found {}: {:?}", n + 1, fields.len(), line);
        }
        let units: u8 = fields[1].parse().unwrap_or_else(|e| panic!("data/currencies.csv:{}: bad minor_units {:?}: {}", n + 1, fields[1], e));
        if fields[2].ends_with("(deprecated)") {
            println!("cargo:warning=currency {} is deprecated (line {})", fields[0], n + 1);
        }
        println!("generated entry {} for {} with {} minor units", n, fields[0], units);
        writeln!(out, "    ({:?}, {}, {:?}),", fields[0], units, fields[2]).unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("currencies.rs");
    fs::write(dest, out).unwrap();
}
EOF
cat > src/main.rs <<'EOF'
include!(concat!(env!("OUT_DIR"), "/currencies.rs"));

fn main() {
    println!("{} currencies", CURRENCIES.len());
}
EOF
""",
        "command": "rm -rf target && CARGO_TERM_COLOR=never RUST_BACKTRACE=1 cargo build -vv 2>&1",
        "needed": [r"^error: failed to run custom build command for .demo v0\.1\.0 ", r"process didn't exit successfully: .*build-script-build. \(exit status: 101\)$",
                   r"^\s+--- stderr$", r"^\s+thread 'main' \(\d+\) panicked at build\.rs:13:13:$",
                   r'^\s+data/currencies\.csv:2418: expected 3 fields \(code,minor_units,name\), found 2: "C2416,Zloty \(old\)"$',
                   r"^\s+\d+: build_script_build::main$"],
        "first": r"panicked at build\.rs:\d+:\d+:",
    },
    {
        "name": "cargo-doctest-failure",
        "what": "cargo test --doc (edition 2024, merged doctests) over a crate with 1800 documented functions: one example's assert_eq! fails; its stdout/stderr section and the failures list follow",
        "setup": CARGO_TOML.replace('edition = "2021"', 'edition = "2024"') + r"""
python3 - <<'EOF'
src = []
for i in range(1800):
    src += ["/// Scales `x` by %d." % (i + 1), "///", "/// ```", "/// assert_eq!(demo::scale_%03d(2), %d);" % (i, 2 * (i + 1)), "/// ```",
            "pub fn scale_%03d(x: i64) -> i64 {" % i, "    x * %d" % (i + 1), "}", ""]
src += ["/// Formats cents as a decimal amount.", "///", "/// ```", "/// assert_eq!(demo::format_cents(-5), \"-0.05\");",
        "/// assert_eq!(demo::format_cents(1234), \"12.34\");", "/// ```",
        "pub fn format_cents(cents: i64) -> String {", "    format!(\"{}.{:02}\", cents / 100, (cents % 100).abs())", "}", ""]
open("src/lib.rs", "w").write("\n".join(src))
EOF
""",
        "command": "rm -rf target && CARGO_TERM_COLOR=never RUST_BACKTRACE=0 cargo test --doc 2>&1",
        "needed": [r"^test src/lib\.rs - format_cents \(line 16203\) \.\.\. FAILED$", r"^thread 'main' \(\d+\) panicked at .*doctest_bundle_2024\.rs:\d+:\d+:$",
                   r"^assertion .left == right. failed$", r'^\s+left: "0\.05"$', r'^\s*right: "-0\.05"$', r"^\s+src/lib\.rs - format_cents \(line 16203\)$",
                   r"^test result: FAILED\. 1800 passed; 1 failed;", r"^error: doctest failed"],
        "first": r"format_cents \(line \d+\) \.\.\. FAILED",
    },
    {
        "name": "nextest-one-failure",
        "what": "cargo nextest run --no-fail-fast over 1500 tests (one PASS line each, in completion order): one test's assertion fails; its captured stdout and panic message are printed, then the summary",
        "setup": CARGO_TOML + r"""
python3 - <<'EOF'
src = ["pub fn tier_discount(total_cents: u64) -> u64 {", "    match total_cents {", "        0..=9_999 => 0,",
       "        10_000..=49_999 => total_cents / 20,", "        _ => total_cents / 10,", "    }", "}", "",
       "#[cfg(test)]", "mod tests {", "    use super::*;", ""]
for i in range(1500):
    kind, cents = ("large", 50_000 + i * 13) if i < 750 else ("small", (i - 750) * 6)
    want = cents // 10 if kind == "large" else 0
    src += ["    #[test]", "    fn %s_order_%04d() {" % (kind, i), "        assert_eq!(tier_discount(%d), %d);" % (cents, want), "    }", ""]
src += ["    #[test]", "    fn min_discount_starts_at_exactly_100_euros() {",
        "        let got = tier_discount(10_000);", "        println!(\"tier_discount(10_000) = {got}\");",
        "        assert_eq!(got, 0, \"orders of exactly 100.00 EUR are not discounted yet\");", "    }", "}"]
open("src/lib.rs", "w").write("\n".join(src) + "\n")
EOF
""",
        "command": "rm -rf target && RUST_BACKTRACE=1 cargo nextest run --no-fail-fast --color never 2>&1",
        "needed": [[r"^\s+FAIL \[.*\] .*demo tests::min_discount_starts_at_exactly_100_euros$", 1], r"^\s+tier_discount\(10_000\) = 500$",
                   r"panicked at src/lib\.rs:\d+:9:$", r"^\s+assertion .left == right. failed: orders of exactly 100\.00 EUR are not discounted yet$",
                   r"^\s+left: 500$", r"^\s+right: 0$", r"^\s+at \./src/lib\.rs:\d+:9$",
                   r"^\s+Summary \[.*\] 1501 tests run: 1500 passed, 1 failed, 0 skipped$"],
        "first": r"^\s+FAIL \[.*\] .*demo tests::min_discount_starts_at_exactly_100_euros$",
    },
    {
        "name": "nim-type-mismatch-overloads",
        "what": "nim c over 250 modules: ~940 unused-import warnings and declared-but-not-used hints, then one call matches none of 6 overloads; the type-mismatch error lists every candidate",
        "setup": apt(NIM, GCC) + r"""
rm -rf src && mkdir -p src
cat > src/money.nim <<'EOF'
proc fmtAmount*(cents: int): string = $(cents div 100) & "." & $(cents mod 100)
proc fmtAmount*(cents: int64): string = fmtAmount(int(cents))
proc fmtAmount*(amount: float): string = fmtAmount(int(amount * 100))
proc fmtAmount*(cents: int, currency: string): string = fmtAmount(cents) & " " & currency
proc fmtAmount*(cents: seq[int]): string =
  for c in cents: result.add fmtAmount(c)
proc fmtAmount*(cents: uint): string = fmtAmount(int(cents))
EOF
python3 - <<'EOF'
n = 250
for i in range(n):
    src = ["import strutils, sequtils, tables", "import money", "", "proc helper%d(x: int): int = x * %d" % (i, i + 1), "",
           "proc label%d*(x: int): string =" % i, "  let unusedLocal = x + 1", "  result = \"v\" & fmtAmount(x)", ""]
    if i == 187:
        src += ["proc refundLabel*(raw: string): string =", "  result = \"refund \" & fmtAmount(raw)", ""]
    open("src/m%03d.nim" % i, "w").write("\n".join(src))
open("src/app.nim", "w").write("\n".join("import m%03d" % i for i in range(n)) + "\necho label0(1)\n")
EOF
""",
        "command": "rm -rf .nimcache && nim c --colors:off --nimcache:.nimcache src/app.nim 2>&1",
        "needed": [r"src/m187\.nim\(11, 33\) Error: type mismatch: got <string>$", r"^but expected one of:$", r"^proc fmtAmount\(cents: int\): string$",
                   r"^proc fmtAmount\(amount: float\): string$", [r"^\s+but expression 'raw' is of type: string$", 1], r"^expression: fmtAmount\(raw\)$"],
        "first": r"src/m187\.nim\(\d+, \d+\) Error: type mismatch",
    },
]
