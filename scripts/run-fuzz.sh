#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset, or FUZZ_PRESET) and runs each one for a
# bounded time: first its regression inputs (fuzz/regressions/<target>/ and those written at
# build time into build/<preset>/fuzz/regressions/<target>/, each must run clean), then
# fuzzing from its seeds for SECONDS_PER_TARGET (default 20), with the dictionary
# fuzz/dictionaries/<target>.dict and the flags of fuzz/options/<target>.options when there are
# such files. One summary line per target.
# Exits non-zero if any target crashes, leaks, times out or fails a property check; the
# input that did it is saved as build/<preset>/fuzz/artifacts/<target>/crash-* (leak-*,
# timeout-*, oom-*; see docs/security.md). An input slower than 10 s is saved as slow-unit-*
# and counted in the summary's "slow", not as a failure.
#
# Usage: scripts/run-fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   FUZZ_RUNS=N  also stop each target after N executions (long runs: docs/security.md);
#                SECONDS_PER_TARGET 0 then means no time limit.
#   FUZZ_SKIP_BUILD=1  run the targets as already built (e.g. built under a shared lock).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_TARGET=${1:-20}
shift || true
# The targets' build: the `fuzz` preset (targets and the libraries they need only), or
# FUZZ_PRESET=asan, the test suite's build, which compiles them too (run-tests.sh uses it).
PRESET=${FUZZ_PRESET:-fuzz}
BUILD=$ROOT/build/$PRESET

if [ -z "${FUZZ_SKIP_BUILD:-}" ]; then
  cmake --preset "$PRESET" >/dev/null || { echo "run-fuzz: configure failed" >&2; exit 1; }
  cmake --build --preset "$PRESET" --target animd_fuzz_all -j"${FUZZ_BUILD_JOBS:-2}" ||
    { echo "run-fuzz: build failed" >&2; exit 1; }
fi

if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < "$BUILD/fuzz/targets.txt"; fi
failed=0
summary=()
for t in "${targets[@]}"; do
  [ -n "$t" ] || continue
  bin=$BUILD/fuzz/bin/$t
  [ -x "$bin" ] || { echo "run-fuzz: no target $t" >&2; failed=1; continue; }
  corpus=$BUILD/fuzz/corpus/$t          # grows as the fuzzer finds new coverage
  artifacts=$BUILD/fuzz/artifacts/$t/
  log=$BUILD/fuzz/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  seeds=()
  for d in "$ROOT/fuzz/seeds/$t" "$BUILD/fuzz/seeds/$t"; do [ -d "$d" ] && seeds+=("$d"); done

  # The target's libFuzzer dictionary (fuzz/dictionaries/<target>.dict) and extra flags
  # (fuzz/options/<target>.options, one a line), when it has them.
  extra=()
  [ -f "$ROOT/fuzz/dictionaries/$t.dict" ] && extra+=(-dict="$ROOT/fuzz/dictionaries/$t.dict")
  if [ -f "$ROOT/fuzz/options/$t.options" ]; then
    mapfile -t -O "${#extra[@]}" extra < <(grep -v -e '^#' -e '^[[:space:]]*$' "$ROOT/fuzz/options/$t.options")
  fi

  # 1. Regressions: every reproducer of a fixed crash is run once (checked in, or written at
  # build time when too large to check in).
  regressions=0
  repro=()
  for d in "$ROOT/fuzz/regressions/$t" "$BUILD/fuzz/regressions/$t"; do
    [ -d "$d" ] && mapfile -t -O "${#repro[@]}" repro < <(find "$d" -type f ! -name '*.md' | sort)
  done
  if [ "${#repro[@]}" -gt 0 ]; then
    regressions=${#repro[@]}
    if ! "$bin" -runs=1 "${repro[@]}" > "$BUILD/fuzz/logs/$t.regressions.log" 2>&1; then
      echo "run-fuzz: $t: a regression input fails again (log: $BUILD/fuzz/logs/$t.regressions.log)" >&2
      tail -30 "$BUILD/fuzz/logs/$t.regressions.log" >&2
      summary+=("$(printf '%-14s REGRESSION FAILED' "$t")")
      failed=1
      continue
    fi
  fi

  # 2. Fuzzing, bounded by time (or by FUZZ_RUNS executions).
  marker=$BUILD/fuzz/logs/$t.start
  touch "$marker"
  limit=(-max_total_time="$SECONDS_PER_TARGET")  # 0: no time limit
  [ -n "${FUZZ_RUNS:-}" ] && limit+=(-runs="$FUZZ_RUNS")
  "$bin" "${limit[@]}" "${extra[@]}" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$corpus" "${seeds[@]}" > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  # What this run saved: crash-, leak-, timeout- and oom- inputs fail the target; slow-unit-
  # inputs (one execution past libFuzzer's -report_slow_units, 10 s by default) are counted
  # apart, to look at, and fail nothing.
  new_artifacts() { find "$artifacts" -type f -name "$1" -newer "$marker" 2>/dev/null | wc -l; }
  crashes=0
  for kind in crash leak timeout oom; do crashes=$(( crashes + $(new_artifacts "$kind-*") )); done
  slow=$(new_artifacts 'slow-unit-*')
  if [ $rc -ne 0 ]; then
    crashes=$(( crashes > 0 ? crashes : 1 ))
    failed=1
    echo "run-fuzz: $t FAILED (exit $rc); log: $log" >&2
    grep -m1 -A30 -E '^==[0-9]+==ERROR|FUZZ_CHECK failed|runtime error|ERROR: libFuzzer' "$log" >&2
  fi
  summary+=("$(printf '%-14s executions %-10s exec/s %-7s crashes %s  slow %s  regressions %s  corpus %s' \
    "$t" "${execs:-?}" "${rate:-?}" "$crashes" "$slow" "$regressions" "$(ls "$corpus" | wc -l)")")
done

echo "== fuzz summary (at most ${FUZZ_RUNS:+$FUZZ_RUNS runs and }$SECONDS_PER_TARGET s per target; 0 s = no limit) =="
printf '%s\n' "${summary[@]}"
exit $failed
