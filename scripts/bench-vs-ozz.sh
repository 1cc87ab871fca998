#!/usr/bin/env bash
# Races animd's core against ozz-animation on bench64, in one run on this machine:
# builds bench_pipeline_race (release preset), then alternates it with the peer binary
# (../shared/peers/ozz-bench64/bench_pipeline) ROUNDS times for blend2 and play, N characters
# each, and ends with
#
#   ratio blend2=<ours/ozz> play=<ours/ozz>
#
# (medians over the rounds of each program's per-character median). Absolute times drift on a
# shared VM; only the ratio from one run means anything (docs/benchmarks.md).
#
# Usage: scripts/bench-vs-ozz.sh [ROUNDS=3] [N=10000] [PASSES=20]
#   ANIMD_SHARED_DIR   where ../shared is (default: beside the repo)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
N=${2:-10000}
PASSES=${3:-20}
SHARED=${ANIMD_SHARED_DIR:-$PWD/../shared}
PEER=$SHARED/peers/ozz-bench64
GLB=$SHARED/assets/Bench64/bench64.glb
[ -x "$PEER/bench_pipeline" ] || { echo "bench-vs-ozz: no peer binary at $PEER" >&2; exit 1; }
[ -f "$GLB" ] || { echo "bench-vs-ozz: no $GLB" >&2; exit 1; }

cmake --preset release >/dev/null
cmake --build build/release -j"${BENCH_BUILD_JOBS:-2}" --target bench_pipeline_race >/dev/null
OURS=build/release/bin/bench_pipeline_race

median_us() { sed -n 's/.*median_us=\([0-9.]*\).*/\1/p'; }
declare -A runs=()
for round in $(seq 1 "$ROUNDS"); do
  for mode in blend2 play; do
    line=$("$OURS" "$GLB" "$N" "$mode" "$PASSES"); echo "$line"
    runs[animd_$mode]+="$(median_us <<<"$line") "
    line=$("$PEER/bench_pipeline" "$PEER/bench64" "$N" "$mode" "$PASSES"); echo "$line"
    runs[ozz_$mode]+="$(median_us <<<"$line") "
  done
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ratio() {
  local ours ozz
  ours=$(median <<<"${runs[animd_$1]}")
  ozz=$(median <<<"${runs[ozz_$1]}")
  echo "median $1: animd ${ours} us, ozz ${ozz} us" >&2
  awk -v a="$ours" -v b="$ozz" 'BEGIN {printf "%.3f", a / b}'
}
b=$(ratio blend2)
p=$(ratio play)
echo "ratio blend2=$b play=$p"
