#!/usr/bin/env bash
# Two writers on one stderr: `cat B C D | sort | comm -2 -3 A -` with the files missing. cat and comm
# each write their message in four write(2)s ("cat: ", "B", ": No such file…", "\n"), so when they
# run at once the kernel may put one's pieces between the other's, whatever reads the pipe. Counts the
# runs whose output has a spliced line, interleaved run by run: plain `bash -c … 2>&1 | cat` and
# `bashrt run`, on the same machine at the same time; then the same after a 50 ms `sleep` in the
# command, so that both start the pipeline from the same idle state.
#
#   bench/two_writers.sh [RUNS] [BASHRT]
set -eu  # no pipefail: the pipelines below fail by design, only grep says
runs=${1:-100}
bashrt=${2:-target/release/bashrt}
bashrt=$(realpath "$bashrt")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
spliced() { grep -q '^cat: comm' || return 1; }
for command in 'cat B C D | sort | comm -2 -3 A -' 'sleep 0.05; cat B C D | sort | comm -2 -3 A -'; do
  bash_n=0 bashrt_n=0
  for _ in $(seq 1 "$runs"); do
    if bash -c "$command" 2>&1 | cat | spliced; then bash_n=$((bash_n + 1)); fi
    if "$bashrt" run -- "$command" 2>/dev/null | spliced; then bashrt_n=$((bashrt_n + 1)); fi
  done
  echo "$command: spliced runs of $runs: bash -c $bash_n, bashrt run $bashrt_n (load $(cut -d' ' -f1 /proc/loadavg))"
done
