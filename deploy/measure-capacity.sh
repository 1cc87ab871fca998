#!/usr/bin/env bash
# Measures how many characters one animd can tick at 60 Hz on this machine: for each count
# N it starts the daemon with --spawn-builtin N (built-in humanoid playing 'walk', nobody
# subscribed), lets it settle, then reads the tick-duration histogram from /metrics twice
# and prints the mean tick time, the share of ticks within the 16.7 ms budget and the
# overruns per second over the window between the two scrapes.
#
# Usage: deploy/measure-capacity.sh [ANIMD] [N ...]   (defaults: build/release/bin/animd,
#        counts 500 1000 2000 4000 8000). Extra animd flags via ANIMD_FLAGS (e.g.
#        ANIMD_FLAGS="--workers 2"). Needs bash's /dev/tcp only. Use a release build on an
#        otherwise idle machine; a debug or sanitizer build is several times slower.
set -euo pipefail
animd=${1:-build/release/bin/animd}
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(500 1000 2000 4000 8000)
settle=${SETTLE:-5}
window=${WINDOW:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

scrape() {  # port -> the /metrics body on stdout
  exec 3<>"/dev/tcp/127.0.0.1/$1"
  printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  sed '1,/^\r$/d' <&3
  exec 3<&-
}
metric() {  # file name -> value
  awk -v k="$2" '$1 == k {print $2}' "$1"
}

printf '%8s %14s %16s %14s %12s\n' characters mean_tick_ms within_16.7ms overruns/s ticks
for n in "${counts[@]}"; do
  rm -f "$tmp/port"
  # shellcheck disable=SC2086
  "$animd" --port 0 --http-port 0 --http-port-file "$tmp/port" --spawn-builtin "$n" \
    --max-characters "$n" --log-level warn ${ANIMD_FLAGS:-} >"$tmp/log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ -s "$tmp/port" ] && break; sleep 0.1; done
  [ -s "$tmp/port" ] || { echo "animd did not start:"; cat "$tmp/log"; kill "$pid"; exit 1; }
  port=$(cat "$tmp/port")
  sleep "$settle"
  scrape "$port" >"$tmp/a"
  sleep "$window"
  scrape "$port" >"$tmp/b"
  kill -TERM "$pid"
  wait "$pid" || true
  awk -v n="$n" -v w="$window" \
    -v c0="$(metric "$tmp/a" animd_tick_duration_seconds_count)" \
    -v c1="$(metric "$tmp/b" animd_tick_duration_seconds_count)" \
    -v s0="$(metric "$tmp/a" animd_tick_duration_seconds_sum)" \
    -v s1="$(metric "$tmp/b" animd_tick_duration_seconds_sum)" \
    -v b0="$(metric "$tmp/a" 'animd_tick_duration_seconds_bucket{le="0.0167"}')" \
    -v b1="$(metric "$tmp/b" 'animd_tick_duration_seconds_bucket{le="0.0167"}')" \
    -v o0="$(metric "$tmp/a" animd_tick_overruns_total)" \
    -v o1="$(metric "$tmp/b" animd_tick_overruns_total)" \
    'BEGIN { d = c1 - c0; if (d <= 0) d = 1;
             printf "%8d %14.2f %15.1f%% %14.2f %12d\n", n, 1000 * (s1 - s0) / d,
                    100 * (b1 - b0) / d, (o1 - o0) / w, c1 - c0 }'
done
