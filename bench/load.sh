#!/usr/bin/env bash
# The full load run: 50 concurrent `bashrt rpc` sessions × 100 calls with outputs from 0 to 5 MB; every
# response checked, every artifact compared byte for byte, memory and descriptors compared before and
# after. The test suite runs the same test with 20 calls per session.
#
#   bench/load.sh            # about 3 minutes on 2 CPUs
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The load test is a slow test (BASHRT_SLOW_TESTS=1), the area `load` of bashrt's test binary.
BASHRT_SLOW_TESTS=1 BASHRT_LOAD_CALLS=${BASHRT_LOAD_CALLS:-100} cargo test --release --locked -p bashrt --test tests -- load:: --nocapture
