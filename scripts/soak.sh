#!/usr/bin/env bash
# Soak test: runs a release animd under a steady mixed load for MINUTES and samples, each
# minute, its resident memory (VmRSS), open file descriptors (/proc/PID/fd) and tick figures
# (animctl --json stats). Prints one table row per sample, then the RSS slope (KiB/min, least
# squares over the samples from minute 2 on, i.e. after start-up has settled), the fd min/max
# and the tick overruns over the run. Exit 0 when it ran (the figures are for the reader;
# docs/benchmarks.md has the 60-minute result), 1 when the daemon died or a tool failed, 2 on
# bad usage.
#
#   scripts/soak.sh MINUTES
#
# The load (animload, built with the daemon): SOAK_CONNECTIONS (4) connections x
# SOAK_CHARACTERS (50) built-in characters each, animload's default command mix (play,
# crossfade, additive layers, IK), SOAK_SUBSCRIBERS (2) of the connections subscribed to
# every character. SOAK_INTERVAL_S (60) changes the sampling period (for trying the script).
# SOAK_BUILD_DIR (build/release) picks the binaries; they are built with the release preset
# when missing. SOAK_DAEMON_NICE (0) runs the daemon at that nice value: on a machine shared
# with builds, a negative one (needs root) keeps them from taking the tick's CPU, so the
# overrun count is the daemon's own.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
  echo "usage: scripts/soak.sh MINUTES   (a whole number of minutes, >= 1)" >&2
  exit 2
fi
minutes=$1
interval=${SOAK_INTERVAL_S:-60}
connections=${SOAK_CONNECTIONS:-4}
characters=${SOAK_CHARACTERS:-50}
subscribers=${SOAK_SUBSCRIBERS:-2}
build=${SOAK_BUILD_DIR:-build/release}
daemon_nice=${SOAK_DAEMON_NICE:-0}
bin=$build/bin

if [ ! -x "$bin/animd" ] || [ ! -x "$bin/animload" ] || [ ! -x "$bin/animctl" ]; then
  echo "soak: building animd, animload and animctl (release preset)"
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$(nproc)" --target animd animload animctl
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/animd-soak-XXXXXX")
daemon_pid=""
load_pid=""
cleanup() {
  [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null || true
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null || true
  [ -n "$load_pid" ] && wait "$load_pid" 2>/dev/null || true
  [ -n "$daemon_pid" ] && wait "$daemon_pid" 2>/dev/null || true
}
trap cleanup EXIT

nice -n "$daemon_nice" "$bin/animd" --address 127.0.0.1 --port 0 --port-file "$work/port" --http-port -1 \
  --log-level warn >"$work/animd.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 1 300); do
  [ -s "$work/port" ] && break
  kill -0 "$daemon_pid" 2>/dev/null || { echo "soak: animd exited at start-up:"; cat "$work/animd.log"; exit 1; }
  sleep 0.1
done
[ -s "$work/port" ] || { echo "soak: animd wrote no port file within 30 s"; exit 1; }
port=$(cat "$work/port")

# animload runs a little longer than the soak, so the last sample is still under load.
load_seconds=$((minutes * interval + 30))
"$bin/animload" --port "$port" --connections "$connections" \
  --characters-per-connection "$characters" --subscribers "$subscribers" --subscribe-all \
  --duration "$load_seconds" --quiet --json-out "$work/load.json" >"$work/load.log" 2>&1 &
load_pid=$!

stats_json() {
  "$bin/animctl" --port "$port" --timeout 10000 --json stats 2>>"$work/animctl.err"
}
# Reads a field of the reply's `stats` (protobuf JSON: 64-bit numbers come as strings).
field() {
  python3 -c 'import json,sys; d=json.load(sys.stdin).get("stats", {}); print(d.get(sys.argv[1], 0))' "$1"
}

start_stats=$(stats_json) || { echo "soak: stats failed at start"; exit 1; }
overruns_start=$(echo "$start_stats" | field tick_overruns)
samples="$work/samples.tsv"
: >"$samples"
printf "%-6s %10s %6s %12s %12s %10s %10s\n" minute rss_kib fds tick_p99_us tick_max_us overruns characters
for m in $(seq 1 "$minutes"); do
  sleep "$interval"
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    echo "soak: animd died during minute $m; its log:"
    tail -20 "$work/animd.log"
    exit 1
  fi
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$daemon_pid/status")
  fds=$(ls "/proc/$daemon_pid/fd" | wc -l)
  s=$(stats_json) || { echo "soak: stats failed at minute $m"; exit 1; }
  p99=$(echo "$s" | field tick_time_p99_us)
  tmax=$(echo "$s" | field tick_time_max_us)
  overruns=$(echo "$s" | field tick_overruns)
  chars=$(echo "$s" | field characters)
  printf "%-6s %10s %6s %12.0f %12.0f %10s %10s\n" "$m" "$rss" "$fds" "$p99" "$tmax" "$overruns" "$chars"
  printf "%s\t%s\t%s\t%s\t%s\n" "$m" "$rss" "$fds" "$p99" "$overruns" >>"$samples"
done

python3 - "$samples" "$overruns_start" <<'PY'
import sys
rows = [line.split("\t") for line in open(sys.argv[1]) if line.strip()]
overruns_start = int(sys.argv[2])
minute = [int(r[0]) for r in rows]
rss = [int(r[1]) for r in rows]
fds = [int(r[2]) for r in rows]
p99 = [float(r[3]) for r in rows]
# Least squares over the samples from minute 2 on (start-up allocations excluded).
pts = [(m, r) for m, r in zip(minute, rss) if m >= 2]
if len(pts) >= 2:
    n = len(pts)
    mx = sum(m for m, _ in pts) / n
    my = sum(r for _, r in pts) / n
    sxx = sum((m - mx) ** 2 for m, _ in pts)
    slope = sum((m - mx) * (r - my) for m, r in pts) / sxx
    print(f"RSS slope: {slope:+.1f} KiB/min (least squares over minutes {pts[0][0]}..{pts[-1][0]}, {n} samples)")
else:
    print("RSS slope: n/a (needs samples at 2 or more minutes from minute 2 on: run >= 3 minutes)")
print(f"RSS: first {rss[0]} KiB, last {rss[-1]} KiB, max {max(rss)} KiB")
print(f"fds: min {min(fds)}, max {max(fds)}")
print(f"tick p99: max {max(p99):.0f} us")
print(f"tick overruns over the run: {int(rows[-1][4]) - overruns_start}")
PY
echo "soak: logs and samples in $work"
