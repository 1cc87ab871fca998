#!/usr/bin/env bash
# Installs what is missing, builds everything under ASan + UBSan (the `asan` preset, clang) and
# runs the whole test suite with ctest: unit, conformance, integration (real animd on
# loopback), TLS, tools, render (animview under Xvfb), deploy checks and a short smoke run of
# each benchmark; also the integration tests under ThreadSanitizer (the `tsan` preset) and
# every libFuzzer target for a short bounded time (built by the same `asan` build;
# ANIMD_FUZZ_SECONDS per target, default 10). The ASan ctest runs last, so its summary closes
# the output; the exit status is non-zero if any of the three failed.
# Tests that need ../shared skip with a printed reason when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
jobs=$(nproc)
shared=${ANIMD_SHARED_DIR:-$(pwd)/../shared}
if [ ! -d "$shared/assets" ] || [ ! -d "$shared/golden" ]; then
  echo "run-tests: $shared (assets/, golden/) not found: tests that need real assets and"
  echo "run-tests: golden palettes will be reported as skipped (set ANIMD_SHARED_DIR to use them)"
fi
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
status=0
echo "run-tests: integration tests under ThreadSanitizer"
ANIMD_JOBS="$jobs" ./scripts/run-tsan.sh || { status=1; echo "run-tests: TSan run FAILED"; }
echo "run-tests: libFuzzer targets, ${ANIMD_FUZZ_SECONDS:-10} s each"
FUZZ_PRESET=asan FUZZ_BUILD_JOBS="$jobs" ./scripts/run-fuzz.sh "${ANIMD_FUZZ_SECONDS:-10}" ||
  { status=1; echo "run-tests: fuzz run FAILED"; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --preset asan -j "$jobs" --timeout 600 || status=1
exit "$status"
