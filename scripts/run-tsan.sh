#!/usr/bin/env bash
# Builds the `tsan` preset (ThreadSanitizer, -O1 -g1: animd, libanimclient and the
# integration tests only; see CMakePresets.json) and runs the integration tests under it.
# Each test starts a TSan-built animd, so a race is caught on either side: the test binary
# or the daemon stops at the first report (halt_on_error=1; the test then fails on the
# daemon's exit status or lost connection). Every report is also written to
# build/tsan/tsan-reports/tsan.<pid>; any file there fails this script and is printed.
#
#   scripts/run-tsan.sh            build + run (exit 0: no race, every test passed)
#   ANIMD_JOBS=1 scripts/run-tsan.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${ANIMD_JOBS:-$(nproc)}
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"

reports=$(pwd)/build/tsan/tsan-reports
rm -rf "$reports"
mkdir -p "$reports"
options="halt_on_error=1 second_deadlock_stack=1 log_path=$reports/tsan"
# Suppressions: scripts/tsan.supp, only if it exists (each entry justified there).
if [ -f scripts/tsan.supp ]; then
  options="$options suppressions=$(pwd)/scripts/tsan.supp"
fi
export TSAN_OPTIONS="$options ${TSAN_OPTIONS:-}"
status=0
ctest --preset tsan -j "$jobs" --timeout 600 || status=$?

if compgen -G "$reports/tsan.*" >/dev/null; then
  echo "run-tsan: ThreadSanitizer reports (build/tsan/tsan-reports):"
  for f in "$reports"/tsan.*; do
    echo "===== $f"
    cat "$f"
  done
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "run-tsan: integration tests failed under ThreadSanitizer (exit $status), no race report"
fi
exit "$status"
