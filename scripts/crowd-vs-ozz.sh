#!/usr/bin/env bash
# The daemon's CPU per character-tick against ozz-animation's blend2, measured in one run on
# this machine (docs/benchmarks.md, "Crowds"): a figure that travels between hosts.
#
# 1. Starts animd (release preset) on bench64 and drives N characters with animload, each
#    crossfading A <-> B every 2 s (--cycle-every 2, each character at its own phase:
#    --cycle-spread), SUBSCRIBERS compact region subscribers
#    of about 500 characters each (0: nobody subscribed), for SECONDS.
# 2. From 8 s after the last spawn to 12 s before the end: the CPU time of the tick threads (animd-tick,
#    animd-work-N, from /proc/PID/task) over ticks x characters, and the overruns; tick
#    p50/p99/max (stats: the last 1,000 ticks), characters by update interval, the peak RSS
#    (VmHWM), and with subscribers the stream animload received.
# 3. Runs scripts/bench-vs-ozz.sh (3 rounds, 10,000 characters) right after and prints
#
#      crowd cpu_us=<per character-tick> ozz_blend2_us=<...> ratio=<cpu_us / ozz_blend2_us>
#
# Usage: scripts/crowd-vs-ozz.sh [N=10000] [SECONDS=60] [SUBSCRIBERS=0] [-- animd flags...]
#   e.g. scripts/crowd-vs-ozz.sh 40000 60 10 -- --anim-budget-ms auto
#   Default daemon flags: --anim-budget-ms unlimited (every character every tick).
#   ANIMD_SHARED_DIR   where ../shared is (default: beside the repo)
#   CROWD_SKIP_OZZ=1   measure the daemon only (no ratio)
#   CROWD_BURST=1      every character's crossfade in the same instant (a burst of N commands
#                      every 2 s) instead of spread over the cycle
#   CROWD_BY_ID=1      subscribers watch their own connection's characters by id (N / 500
#                      connections of 500) instead of regions of about 500
#   CROWD_KEEP_LOG=F   copy the daemon's log to F when the run ends
#   CROWD_LOAD_NICE=K  run animload at nice K (1-19): the load generator, which stands for clients
#                      on other machines, then takes the cores only when the daemon leaves them
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000}
SECONDS_RUN=${2:-60}
SUBSCRIBERS=${3:-0}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = "--" ] && shift
EXTRA=("$@")
[ ${#EXTRA[@]} -eq 0 ] && EXTRA=(--anim-budget-ms unlimited)
SHARED=${ANIMD_SHARED_DIR:-$PWD/../shared}
ASSETS=$SHARED/assets/Bench64
[ -f "$ASSETS/bench64.glb" ] || { echo "crowd-vs-ozz: no $ASSETS/bench64.glb" >&2; exit 1; }
(( SECONDS_RUN >= 20 )) || { echo "crowd-vs-ozz: SECONDS must be >= 20" >&2; exit 2; }

cmake --preset release >/dev/null
cmake --build build/release -j"${BENCH_BUILD_JOBS:-2}" --target animd animload animctl >/dev/null
B=build/release/bin
PORT=$((20000 + RANDOM % 20000))
LOG=$(mktemp)
"$B/animd" --assets "$ASSETS" --port "$PORT" --http-port -1 --max-characters "$N" \
  --max-characters-per-connection "$N" "${EXTRA[@]}" >"$LOG" 2>&1 &
PID=$!
cleanup() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; [ -n "${CROWD_KEEP_LOG:-}" ] && { cp "$LOG" "$CROWD_KEEP_LOG" || true; }; rm -f "$LOG"; }
trap cleanup EXIT
for _ in $(seq 100); do "$B/animctl" --port "$PORT" stats >/dev/null 2>&1 && break; sleep 0.1; done

CONNECTIONS=10
[ "${CROWD_BY_ID:-0}" = 1 ] && CONNECTIONS=$(( N / 500 > 10 ? N / 500 : 10 ))
LOAD=(--port "$PORT" --connections "$CONNECTIONS" --characters "$N" --assets bench64
      --cycle-every 2 --play-rate 0 --crossfade-rate 0 --additive-rate 0 --ik-rate 0
      --duration "$SECONDS_RUN" --quiet --max-inflight 100000)
[ "${CROWD_BURST:-0}" = 1 ] || LOAD+=(--cycle-spread)
if (( SUBSCRIBERS > 0 )) && [ "${CROWD_BY_ID:-0}" = 1 ]; then
  LOAD+=(--subscribers "$SUBSCRIBERS" --encoding compact --skip-decode)
elif (( SUBSCRIBERS > 0 )); then
  LOAD+=(--regions "${SUBSCRIBERS}x500" --encoding compact --skip-decode)
else
  LOAD+=(--subscribers 0)
fi
SUMMARY=$(mktemp)
${CROWD_LOAD_NICE:+nice -n "$CROWD_LOAD_NICE"} "$B/animload" "${LOAD[@]}" --json-out "$SUMMARY" >/dev/null &
LOADER=$!

# CPU seconds of the tick threads so far.
tick_cpu() {
  local total=0 name ticks
  for t in /proc/"$PID"/task/*; do
    name=$(cat "$t/comm" 2>/dev/null) || continue
    case "$name" in animd-tick|animd-work*) ;; *) continue ;; esac
    ticks=$(awk '{print $14 + $15}' "$t/stat")
    total=$((total + ticks))
  done
  awk -v t="$total" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.3f", t / hz}'
}
stat_json() { "$B/animctl" --port "$PORT" --json stats; }
field() { python3 -c "import json,sys; print(int(json.load(sys.stdin)['stats'].get('$1', 0)))"; }

# The characters spawned (bounded), then 8 s of warm-up.
for _ in $(seq 600); do
  [ "$(stat_json | field characters)" -ge "$N" ] && break
  sleep 0.5
done
sleep 8
cpu0=$(tick_cpu); stats0=$(stat_json); tick0=$(field tick <<<"$stats0")
over0=$(field tick_overruns <<<"$stats0")
sleep $((SECONDS_RUN - 12))
cpu1=$(tick_cpu); stats=$(stat_json); tick1=$(field tick <<<"$stats")
chars=$(field characters <<<"$stats"); over1=$(field tick_overruns <<<"$stats")
wait "$LOADER" || true
hwm=$(awk '/VmHWM/ {print $2 / 1024}' /proc/"$PID"/status)
cpu_us=$(awk -v c0="$cpu0" -v c1="$cpu1" -v t0="$tick0" -v t1="$tick1" -v n="$chars" \
  'BEGIN {printf "%.3f", (c1 - c0) * 1e6 / ((t1 - t0) * n)}')
python3 - "$stats" <<'PY'
import json, sys
s = json.loads(sys.argv[1])["stats"]
iv = s.get("update_intervals", [])
print(f"characters {s.get('characters')}, tick p50 {s.get('tick_time_p50_us', 0)/1000:.1f} ms, "
      f"p99 {s.get('tick_time_p99_us', 0)/1000:.1f} ms, max {s.get('tick_time_max_us', 0)/1000:.1f} "
      f"ms (last 1,000 ticks)")
print("pressure %.2f; characters by interval: %s; detail joints skipped by %d" % (
    s.get("anim_pressure", 0), " ".join(f"{i + 1}:{n}" for i, n in enumerate(iv) if n),
    s.get("detail_skipped_characters", 0)))
PY
echo "ticks $((tick1 - tick0)) measured, $((over1 - over0)) overruns in them, tick threads ${cpu_us} us a character-tick, VmHWM ${hwm} MB"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d.get('stream',{}); \
print('stream:', {k: s[k] for k in ('characters_per_s','bytes_per_character_frame','tick_to_client_ms','dropped_by_server') if k in s})" \
  "$SUMMARY" 2>/dev/null || true
rm -f "$SUMMARY"
kill "$PID"; wait "$PID" 2>/dev/null || true

if [ "${CROWD_SKIP_OZZ:-0}" = 1 ]; then
  echo "crowd cpu_us=$cpu_us"
  exit 0
fi
race=$(scripts/bench-vs-ozz.sh 3 10000 2>&1)
echo "$race"
ozz=$(sed -n 's/^median blend2: animd [0-9.]* us, ozz \([0-9.]*\) us$/\1/p' <<<"$race")
awk -v a="$cpu_us" -v b="$ozz" 'BEGIN {printf "crowd cpu_us=%s ozz_blend2_us=%s ratio=%.3f\n", a, b, a / b}'
