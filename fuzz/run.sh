#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each and prints, per target, the executions, the speed, the
# coverage reached and what was found.
#
#   fuzz/run.sh SECONDS [TARGET...]
#
# Installs cargo-fuzz when it is missing. libFuzzer needs nightly compiler flags: a stable toolchain
# is used with RUSTC_BOOTSTRAP=1 unless FUZZ_TOOLCHAIN names another (e.g. FUZZ_TOOLCHAIN=nightly).
# FUZZ_SANITIZER picks the sanitizer (default: none — the code under test is safe Rust, and without
# one a target runs about twice as fast; `address` to look for memory errors in dependencies).
# Corpora are kept in fuzz/corpus/<target> between runs, findings in fuzz/artifacts/<target>, logs in
# fuzz/logs/<target>.log; none of them is committed. Exits 1 when any target found something.
set -euo pipefail

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
    echo "usage: $0 SECONDS [TARGET...]" >&2
    exit 2
fi
seconds=$1
shift

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked
fi

toolchain=()
if [[ -n ${FUZZ_TOOLCHAIN:-} ]]; then
    toolchain=("+$FUZZ_TOOLCHAIN")
else
    export RUSTC_BOOTSTRAP=1
fi
sanitizer=${FUZZ_SANITIZER:-none}

if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo "${toolchain[@]}" fuzz list)
fi

echo "building ${targets[*]} (sanitizer: $sanitizer)" >&2
build=()
[[ ${#targets[@]} -eq 1 ]] && build=("${targets[0]}")
cargo "${toolchain[@]}" fuzz build -s "$sanitizer" "${build[@]}" >&2

mkdir -p logs
status=0
printf '%-16s %12s %9s %7s %7s %7s  %s\n' target executions exec/s cov ft corpus findings
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "artifacts/$target"
    dict=()
    [[ -f "dicts/$target.dict" ]] && dict=("-dict=dicts/$target.dict")
    log="logs/$target.log"
    before=$(find "artifacts/$target" -type f | wc -l)
    # libFuzzer stops at the first finding; its exit code says so, the artifact directory says what.
    rc=0
    cargo "${toolchain[@]}" fuzz run -s "$sanitizer" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
        "${dict[@]}" >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    progress=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$progress")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$progress")
    corpus=$(find "corpus/$target" -type f | wc -l)
    after=$(find "artifacts/$target" -type f | wc -l)
    findings="none"
    if (( after > before || rc != 0 )); then
        status=1
        newest=$(ls -t "artifacts/$target" | head -n 1)
        # A Rust panic's place and message, else libFuzzer's or the sanitizer's summary.
        reason=$(grep -m 1 -A 1 -E "^thread '.*' .*panicked at" "$log" | tr '\n' ' ' || true)
        [[ -n $reason ]] || reason=$(grep -m 1 -E '^==[0-9]+== ERROR|^SUMMARY' "$log" || echo "exit $rc, see $log")
        findings="${newest:-no input saved}: $reason"
    fi
    printf '%-16s %12s %9s %7s %7s %7s  %s\n' "$target" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" \
        "$corpus" "$findings"
done
exit $status
