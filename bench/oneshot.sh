#!/usr/bin/env bash
# The cost of a one-shot call, and how it grows with the machine: `bashrt run -- true` beside
# `bash -c true` (what it wraps) and `bashrt --version` (the floor of starting the binary at all),
# interleaved round by round (bench/pairs.py), with the machine holding about 70 processes and then
# about 1,000 (idle `sleep`s started here, in a group of their own, killed at the end).
#
# usage: bench/oneshot.sh [BASHRT [BEFORE]]    (RUNS=200 by default; OUT=dir for the JSON)
# BEFORE: another bashrt binary to time in the same rounds (the build before a change).
set -euo pipefail
cd "$(dirname "$0")/.."
bashrt=${1:-target/release/bashrt}
before=${2:-}
runs=${RUNS:-200}
out=${OUT:-target/bench-oneshot}
mkdir -p "$out"
state=$(mktemp -d)
home=$(mktemp -d)
idle=()
cleanup() {
    [ ${#idle[@]} -gt 0 ] && kill "${idle[@]}" 2>/dev/null
    rm -rf "$state" "$home"
}
trap cleanup EXIT

# A glob, not find: a process that exits while find reads /proc makes it fail.
processes() { local all=(/proc/[0-9]*); echo ${#all[@]}; }

rows=("bash=bash -c true"
      "bashrt-start=$bashrt --version"
      "bashrt=HOME=$home BASHRT_STATE_DIR=$state $bashrt run -- true")
[ -n "$before" ] && rows+=("before=HOME=$home BASHRT_STATE_DIR=$state $before run -- true")

for target in 70 1000; do
    have=$(processes)
    while [ "$have" -lt "$target" ]; do
        sleep 100000 &
        idle+=($!)
        have=$((have + 1))
    done
    echo "== $(processes) processes on the machine" >&2
    python3 bench/pairs.py --name "oneshot-$target" --runs "$runs" --warmup 5 \
        --out "$out/oneshot-$target.json" "${rows[@]}"
done
