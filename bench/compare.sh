#!/usr/bin/env bash
# Compares builds of bashrt in one run, interleaved, so that a change's before/after is measured under
# the same conditions: bulk output through `bashrt run` (against `producer | cat > file`), peak RSS of
# 1 GB of output, round trips through `bashrt rpc` (crates/cli/benches/rpc_latency.rs, Rust client),
# and, when given, the in-process latency bench of each build.
#
#   bench/compare.sh [--latency LABEL=BENCH_BIN]... LABEL=BASHRT_BIN [LABEL=BASHRT_BIN]...
#
# BENCH_BIN is `crates/core/benches/latency.rs` built in that build's tree
# (`cargo bench -p bashrt-core --bench latency --no-run` prints its path). Knobs: RUNS (9), RPC_N (2000),
# RSS_RUNS (3), LAT_PASSES (3), BENCH_TMP (/tmp). Needs python3, taskset, /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-9} RPC_N=${RPC_N:-2000} RSS_RUNS=${RSS_RUNS:-3} LAT_PASSES=${LAT_PASSES:-3}
BENCH_TMP=${BENCH_TMP:-/tmp}
lat=() bins=()
while [ $# -gt 0 ]; do
    case $1 in
        --latency) lat+=("$2"); shift 2 ;;
        *=*) bins+=("$1"); shift ;;
        *) echo "bench/compare.sh: expected LABEL=PATH, got $1" >&2; exit 2 ;;
    esac
done
[ ${#bins[@]} -ge 1 ] || { sed -n 2,12p "$0" >&2; exit 2; }
work=$(mktemp -d "$BENCH_TMP/bashrt-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
state="$work/state" files="$work/files"
P='head -c 100M /dev/zero | base64'
say() { printf '\n== %s\n' "$*"; }

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)  nproc: $(nproc)"
for b in "${bins[@]}"; do echo "build ${b%%=*}: ${b#*=}"; done

for cpus in 1 2; do
    if [ "$cpus" = 1 ]; then place=(taskset -c 0); else place=(taskset -c 0,1); fi
    say "bulk: $P, ${cpus} CPU, $RUNS interleaved rounds"
    cmds=("floor-pipe-to-file=bash -c '$P | cat > $files/out'")
    for b in "${bins[@]}"; do cmds+=("${b%%=*}=BASHRT_STATE_DIR=$state ${b#*=} run -- '$P'"); done
    "${place[@]}" python3 bench/pairs.py --name "bulk-${cpus}cpu" --runs "$RUNS" --warmup 1 \
        --fresh "$state/sessions" --fresh "$files" "${cmds[@]}"
done

say "peak RSS, 1 GB of output (base64 -w 76), 2 CPUs, KiB"
cmd="head -c $((1000000000 / 77 * 57)) /dev/zero | base64 -w 76"
for run in $(seq "$RSS_RUNS"); do
    for b in "${bins[@]}"; do
        rm -rf "$state"
        BASHRT_STATE_DIR=$state taskset -c 0,1 /usr/bin/time -f '%M KiB %e s' -o "$work/time.txt" \
            "${b#*=}" run -- "$cmd" > /dev/null
        echo "${b%%=*} run $run: $(cat "$work/time.txt")"
    done
done
rm -rf "$state"

rpc_bin=$(cargo bench --locked -p bashrt --bench rpc_latency --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "rpc_latency" and m.get("executable"):
        print(m["executable"])')
home="$work/home"
mkdir -p "$home" "$work/tmp"
if [ -f /etc/skel/.bashrc ]; then cp /etc/skel/.bashrc "$home/.bashrc"; else : > "$home/.bashrc"; fi
lat_env=(env -u BASHRT_LOG -u BASHRT_SETTINGS HOME="$home" TMPDIR="$work/tmp")
bin_args=()
for b in "${bins[@]}"; do bin_args+=(--bin "$b"); done
for cpus in 1 2; do
    if [ "$cpus" = 1 ]; then place=(taskset -c 0); else place=(taskset -c 0,1); fi
    say "bashrt rpc round trips, Rust client, ${cpus} CPU"
    "${lat_env[@]}" "${place[@]}" "$rpc_bin" --n "$RPC_N" --rounds 5 "${bin_args[@]}" 2>&1
done

if [ ${#lat[@]} -gt 0 ]; then
    for cpus in 1 2; do
        if [ "$cpus" = 1 ]; then place=(taskset -c 0); else place=(taskset -c 0,1); fi
        for pass in $(seq "$LAT_PASSES"); do
            for l in "${lat[@]}"; do
                say "in-process latency, ${l%%=*}, ${cpus} CPU, pass $pass"
                "${lat_env[@]}" "${place[@]}" "${l#*=}" --n 2000 --starts 0 --only true 2>&1 >/dev/null |
                    grep -v 'warm-up' || true
            done
        done
    done
fi
