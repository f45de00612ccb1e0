#!/usr/bin/env bash
# bashrt's first benchmark: one command, one run, every figure against the plain-bash floor
# measured in the same run. See BENCHMARKS.md for what each row means and the latest results.
#
#   bench/run.sh                 # everything, about 2.5 minutes after the build on a quiet machine
#   SECTIONS=latency bench/run.sh   # only the per-call latency section (6), about 1 minute
#
# Knobs (environment): RUNS (interleaved rounds for the 100M rows, default 15), E2E_RUNS (1 GiB rows, 5),
# STARTUP_RUNS (hyperfine runs of `true`, 300), RSS_RUNS (per size, 3), SKIP_CRITERION=1,
# QUIET_MAX / QUIET_WAIT (before each section, wait while others use more than QUIET_MAX% of the
# CPUs, default 20, but at most QUIET_WAIT seconds in all, default 600; the figure is recorded),
# BENCH_TMP (where spill files go, default /tmp: ext4 here, like the real state dir),
# BENCH_OUT (results dir, default $BENCH_TMP/bashrt-bench-results.<time>), CARGO_TARGET_DIR,
# SECTIONS (space-separated subset of "bulk e2e startup rss criterion latency", default all),
# LAT_N (timed calls per in-process latency row, 2000), LAT_WARMUP (50), LAT_STARTS (10),
# RPC_N (timed round trips per `bashrt rpc` row, 1000), RPC_RUST_N (the same for the Rust client, 2000, in 20
# rounds), RPC_STARTS (fresh servers per start-up row, 15).
#
# Placement: "1 CPU" runs everything under `taskset -c 0` (producer and bashrt share one core: every
# cycle bashrt spends is added to the wall time); "2 CPUs" under `taskset -c 0,1` (the reader and
# the producer can run side by side, as on an otherwise idle machine). Nothing else should run.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
RUNS=${RUNS:-15}
E2E_RUNS=${E2E_RUNS:-5}
STARTUP_RUNS=${STARTUP_RUNS:-300}
RSS_RUNS=${RSS_RUNS:-3}
BENCH_TMP=${BENCH_TMP:-/tmp}
OUT=${BENCH_OUT:-$BENCH_TMP/bashrt-bench-results.$(date +%Y%m%d-%H%M%S)}
ONE=(taskset -c 0)
TWO=(taskset -c 0,1)
SECTIONS=${SECTIONS:-bulk e2e startup rss criterion latency}
LAT_N=${LAT_N:-2000}
LAT_WARMUP=${LAT_WARMUP:-50}
LAT_STARTS=${LAT_STARTS:-10}
RPC_N=${RPC_N:-1000}
RPC_RUST_N=${RPC_RUST_N:-2000}
RPC_STARTS=${RPC_STARTS:-15}
want() { case " $SECTIONS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if want criterion && [ "${SKIP_CRITERION:-0}" = 1 ]; then SECTIONS=${SECTIONS/criterion/}; fi

say() { printf '\n== %s\n' "$*" >&2; }

# One benchmark at a time on this machine: a second run.sh waits for the first.
exec 9>"$BENCH_TMP/bashrt-bench.lock"
flock 9

say "prerequisites"
need_pkg() { # command package
    command -v "$1" >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }
    fi
    command -v "$1" >/dev/null 2>&1 || { echo "bench/run.sh: needs $1 (apt-get install $2)" >&2; exit 1; }
}
need_pkg hyperfine hyperfine
need_pkg /usr/bin/time time
need_pkg taskset util-linux
need_pkg python3 python3
need_pkg flock util-linux
[ "$(nproc --all)" -ge 2 ] || { echo "bench/run.sh: needs 2 CPUs for the 2-CPU rows" >&2; exit 1; }

# The largest run writes a 1.35 GB spill (RSS row) and criterion a 1 GiB one; each is deleted
# right after its run. Ask for 6 GiB free to leave room for everyone else on a shared disk.
df -h "$BENCH_TMP" >&2
avail_kib=$(df -Pk "$BENCH_TMP" | awk 'NR==2 {print $4}')
if [ "$avail_kib" -lt $((6 * 1024 * 1024)) ]; then
    echo "bench/run.sh: less than 6 GiB free in $BENCH_TMP; set BENCH_TMP elsewhere" >&2
    exit 1
fi
mkdir -p "$OUT"
work=$(mktemp -d "$BENCH_TMP/bashrt-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "build (release)"
cargo build --release --locked -p bashrt >&2
if want criterion; then
    cargo bench --locked -p bashrt-core --bench sink --no-run >&2
fi
if want latency; then
    # The harness binary itself, so that taskset pins it and not cargo.
    latency_bin=$(cargo bench --locked -p bashrt-core --bench latency --no-run --message-format=json |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "latency" and m.get("executable"):
        print(m["executable"])')
    [ -x "$latency_bin" ] || { echo "bench/run.sh: no latency bench binary" >&2; exit 1; }
    rpc_bench_bin=$(cargo bench --locked -p bashrt --bench rpc_latency --no-run --message-format=json |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "rpc_latency" and m.get("executable"):
        print(m["executable"])')
    [ -x "$rpc_bench_bin" ] || { echo "bench/run.sh: no rpc_latency bench binary" >&2; exit 1; }
fi
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
bashrt="$target_dir/release/bashrt"

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "git: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates Cargo.toml Cargo.lock || echo ' (+ uncommitted changes in crates/)')"
    echo "nproc: $(nproc)"
    echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "memory: $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
    echo "kernel: $(uname -sr)"
    echo "bash: $(bash --version | head -1)"
    echo "coreutils: $(base64 --version | head -1)"
    echo "rustc: $(rustc --version)"
    echo "hyperfine: $(hyperfine --version)"
    echo "spill fs: $BENCH_TMP on $(findmnt -n -o FSTYPE -T "$BENCH_TMP" 2>/dev/null || stat -f -c %T "$BENCH_TMP")"
    echo "pipe-max-size: $(cat /proc/sys/fs/pipe-max-size)"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt" >&2

state="$work/state"  # BASHRT_STATE_DIR of every spilling bashrt run: its sessions/ recreated before each
                     # run (a fresh artifact), its snapshot cache kept warm, as a user's state dir is
files="$work/files"  # where the floor rows write their file: recreated before each run
nospill=/dev/null/bashrt-no-state  # cannot be created: bashrt keeps the tail and spills nothing
P='head -c 100M /dev/zero | base64'   # the peers' bulk command: 141,649,744 bytes, 76-char lines
G='head -c 1G /dev/zero'              # 1 GiB of raw output

# Percent of both CPUs busy over a 2 s sample (user, nice, system, irq, softirq, steal), taken
# while this script is idle: what other tenants of the machine are using.
busy_pct() {
    local c u1 n1 s1 i1 w1 q1 sq1 st1 u2 n2 s2 i2 w2 q2 sq2 st2 b1 b2
    read -r c u1 n1 s1 i1 w1 q1 sq1 st1 _ < /proc/stat
    sleep 2
    read -r c u2 n2 s2 i2 w2 q2 sq2 st2 _ < /proc/stat
    b1=$((u1 + n1 + s1 + q1 + sq1 + st1)) b2=$((u2 + n2 + s2 + q2 + sq2 + st2))
    echo $((100 * (b2 - b1) / (b2 - b1 + i2 + w2 - i1 - w1)))
}
# Before each section: wait (up to QUIET_WAIT seconds in all) until others use at most QUIET_MAX
# percent of the machine, and record what it was.
QUIET_MAX=${QUIET_MAX:-20}
QUIET_WAIT=${QUIET_WAIT:-600}
waited=0
wait_quiet() { # section
    local busy
    busy=$(busy_pct)
    while [ "$busy" -gt "$QUIET_MAX" ] && [ "$waited" -lt "$QUIET_WAIT" ]; do
        echo "machine busy (${busy}% of its CPUs used by others); waiting (${waited}s of ${QUIET_WAIT}s)" >&2
        sleep 8
        waited=$((waited + 10))
        busy=$(busy_pct)
    done
    printf '%s\t%s\n' "$1" "$busy" >> "$OUT/busy.tsv"
}
printf 'section\tbusy_pct_before\n' > "$OUT/busy.tsv"

pairs() { # placement name runs commands...
    local -a place
    if [ "$1" = 1 ]; then place=("${ONE[@]}"); else place=("${TWO[@]}"); fi
    local name=$2 runs=$3
    shift 3
    say "$name"
    wait_quiet "$name"
    "${place[@]}" python3 bench/pairs.py --name "$name" --runs "$runs" --warmup 1 \
        --fresh "$state/sessions" --fresh "$files" --out "$OUT/$name.json" "$@" >&2
}

# 1. The floor: the bulk command alone vs the same command through `bashrt run` (spilling to a
#    fresh artifact), plus diagnostic rows that split bashrt's extra time: bashrt without a spill;
#    one more pipe hop (`cat` reads and discards); the producer writing the same bytes to a fresh
#    file itself; `cat` as a reader that spills (the least any separate reader that spills can cost).
want bulk && for cpus in 1 2; do
    pairs "$cpus" "bulk-100M-${cpus}cpu" "$RUNS" \
        "floor=bash -c '$P > /dev/null'" \
        "bashrt=BASHRT_STATE_DIR=$state $bashrt run -- '$P'" \
        "bashrt-no-spill=BASHRT_STATE_DIR=$nospill $bashrt run --set bash.snapshot=false -- '$P'" \
        "floor-pipe=bash -c '$P | cat > /dev/null'" \
        "floor-to-file=bash -c '$P > $files/out'" \
        "floor-pipe-to-file=bash -c '$P | cat > $files/out'"
done

# 2. 1 GiB end to end (pipe + sink + spill), raw bytes from a producer that costs almost nothing.
want e2e && for cpus in 1 2; do
    pairs "$cpus" "e2e-1GiB-${cpus}cpu" "$E2E_RUNS" \
        "floor=bash -c '$G > /dev/null'" \
        "bashrt=BASHRT_STATE_DIR=$state $bashrt run -- '$G'" \
        "floor-pipe-to-file=bash -c '$G | cat > $files/out'"
done

# 3. Start-up cost per call (informational): a fresh bash vs a fresh bashrt that runs a fresh bash;
#    to split it, bashrt that starts no shell (`schema`) and bashrt without interceptor rules.
if want startup; then
    say "startup (hyperfine, 1 CPU)"
    wait_quiet startup-1cpu
    rm -rf "$state"
    BASHRT_STATE_DIR=$state "${ONE[@]}" hyperfine -N --style basic --warmup 30 --runs "$STARTUP_RUNS" \
        --export-json "$OUT/startup-1cpu.json" --output=null \
        "bash -c true" "$bashrt run -- true" "$bashrt schema" "$bashrt run --set bashInterceptor.patterns=[] -- true" >&2
fi

# 4. Peak RSS of `bashrt run` from 1 MB to 1 GB of output (base64 -w 76: 77 bytes per 57 input
#    bytes, so the input is sized to give N bytes of output). The artifact must hold all of it.
if want rss; then
    say "peak RSS"
    wait_quiet rss
    printf 'size\tbytes\trun\tmaxrss_kib\tseconds\n' > "$OUT/rss.tsv"
    for spec in 'true:0' '1MB:1000000' '10MB:10000000' '100MB:100000000' '1GB:1000000000'; do
        label=${spec%%:*} n=${spec#*:}
        if [ "$label" = true ]; then cmd=true; else cmd="head -c $((n / 77 * 57)) /dev/zero | base64 -w 76"; fi
        for run in $(seq "$RSS_RUNS"); do
            rm -rf "$state/sessions"
            BASHRT_STATE_DIR=$state "${TWO[@]}" /usr/bin/time -f '%M %e' -o "$work/time.txt" \
                "$bashrt" run --set artifacts.maxBytes=2000000000 -- "$cmd" > "$work/result.txt"
            read -r kib secs < "$work/time.txt"
            bytes=0
            if [ "$label" != true ]; then
                bytes=$(stat -c %s "$state"/sessions/*/artifacts/1.bash.log)
                [ "$bytes" -eq $((n / 77 * 77)) ] || { echo "bench/run.sh: artifact holds $bytes bytes, expected $((n / 77 * 77))" >&2; exit 1; }
                grep -q 'artifact://1' "$work/result.txt" || { echo "bench/run.sh: no artifact in the result" >&2; exit 1; }
            fi
            printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$bytes" "$run" "$kib" "$secs" | tee -a "$OUT/rss.tsv" >&2
        done
    done
    rm -rf "$state"
fi

# 5. The sink alone (criterion): 1 GiB in 64 KiB chunks (one pipe read), with spill to a fresh file
#    in $BENCH_TMP and without; and with spill in 1 MiB chunks (informational).
if want criterion; then
    say "criterion: sink push, 1 GiB (1 CPU)"
    wait_quiet criterion
    TMPDIR=$work "${ONE[@]}" cargo bench --locked -p bashrt-core --bench sink -- sink_push_1GiB >&2
    for gb in 64KiB_chunks/with_spill 64KiB_chunks/tail_only 1MiB_chunks/with_spill; do
        name=${gb//\//-}
        cp "$target_dir/criterion/sink_push_1GiB_$gb/new/estimates.json" "$OUT/criterion-$name.json"
        cp "$target_dir/criterion/sink_push_1GiB_$gb/new/sample.json" "$OUT/criterion-$name-sample.json"
    done
fi

# 6. Per-call latency through a warm shell, each against the floors measured in the same
#    process run: the bare driven bash (docs/design.md, "Delivering a command") and a fresh `bash -c` per call.
#    a) In process (crates/core/benches/latency.rs): `ShellPool::execute`, `AgentSession::execute_bash`
#       and `BashTool::execute`, for `true` and `/bin/true`, 2000 calls each after 50 warm-ups.
#    b) Through `bashrt rpc` (bench/rpc_latency.py): start to first response, `bash` and `tool_call`
#       round trips with the client's own floors, and the server's peak RSS, also after bulk output;
#       and the same round trips from a Rust client (crates/cli/benches/rpc_latency.rs), whose own
#       overhead is smaller than Python's.
#    c) Through `bashrt mcp` (bench/mcp_latency.py): start to the first `tools/call` answer, the warm
#       `true` round trip and peak RSS, each against `bashrt rpc` in the same run.
#    d) The user-space instructions a warm `true` costs the shell and the server (bench/instructions.py,
#       callgrind), against the least runner's shell: a figure the machine's other load does not move.
#    Both run with a scratch HOME holding Debian's default .bashrc (what the snapshot captures) and
#    TMPDIR in the work dir (snapshots and scratch state are deleted with it).
if want latency; then
    home="$work/home"
    mkdir -p "$home" "$work/tmp"
    if [ -f /etc/skel/.bashrc ]; then cp /etc/skel/.bashrc "$home/.bashrc"; else : > "$home/.bashrc"; fi
    lat_env=(env -u BASHRT_LOG -u BASHRT_SETTINGS HOME="$home" TMPDIR="$work/tmp")
    for cpus in 1 2; do
        if [ "$cpus" = 1 ]; then place=("${ONE[@]}"); else place=("${TWO[@]}"); fi
        say "latency in process (${cpus} CPU)"
        wait_quiet "latency-${cpus}cpu"
        "${lat_env[@]}" "${place[@]}" "$latency_bin" --n "$LAT_N" --warmup "$LAT_WARMUP" --starts "$LAT_STARTS" \
            --label "${cpus}cpu" --json "$OUT/latency-${cpus}cpu.jsonl" >&2
        say "latency through bashrt rpc (${cpus} CPU)"
        wait_quiet "rpc-${cpus}cpu"
        "${lat_env[@]}" "${place[@]}" python3 bench/rpc_latency.py --bashrt "$bashrt" --n "$RPC_N" \
            --starts "$RPC_STARTS" --label "${cpus}cpu" --out "$OUT/rpc-${cpus}cpu.json" >&2
        say "latency through bashrt rpc, Rust client (${cpus} CPU)"
        "${lat_env[@]}" "${place[@]}" "$rpc_bench_bin" --n "$RPC_RUST_N" --rounds 20 --json "$OUT/rpc-rust-${cpus}cpu.json" >&2
        say "latency through bashrt mcp, against bashrt rpc (${cpus} CPU)"
        "${lat_env[@]}" "${place[@]}" python3 bench/mcp_latency.py --bashrt "$bashrt" \
            --out "$OUT/mcp-${cpus}cpu.json" >&2
    done
    if command -v valgrind >/dev/null; then
        say "instructions per warm call (callgrind), against the least runner"
        "${lat_env[@]}" python3 bench/instructions.py --bin "bashrt=$bashrt" | tee "$OUT/instructions.txt" >&2
    else
        say "instructions per warm call: skipped, valgrind is not installed"
    fi
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
say "summary (also in $OUT/summary.md)"
python3 bench/report.py "$OUT" | tee "$OUT/summary.md"
