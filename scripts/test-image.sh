#!/usr/bin/env bash
# Runs the animd container image and checks it from the host:
#   1. `ldd` inside the image finds every shared library animd links (no "not found");
#   2. the container starts with the image's default command, its ports published on
#      127.0.0.1 (host ports chosen by the engine), and runs as uid 10001;
#   3. GET /healthz and /readyz answer 200 from the host, and the image's HEALTHCHECK passes;
#   4. animctl on the host spawns a character over the published protocol port and watches
#      frames of it stream;
#   5. `stop` (SIGTERM) drains: a watch left open sees its stream end, the container exits
#      with status 0 before the stop timeout, and its log shows the shutdown.
# The container is removed on exit, whatever happened.
#
# Usage: scripts/test-image.sh [--engine podman|docker] [--image NAME] [--animctl PATH]
#   --image    default animd:VERSION (VERSION from the top-level CMakeLists.txt), as
#              scripts/build-image.sh tags it
#   --animctl  default build/release/bin/animctl (ANIMCTL); built with the release preset
#              when that default is missing
# Engine options (runtime, ulimits): scripts/image-engine.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/image-engine.sh
. scripts/image-engine.sh

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
say() { echo "test-image: $*"; }
indent() { sed 's/^/  /'; }
die() {
  echo "test-image: FAIL: $*" >&2
  exit 1
}

engine=""
image=""
animctl=${ANIMCTL:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --engine) engine=${2:?--engine needs a value}; shift 2 ;;
    --image) image=${2:?--image needs a value}; shift 2 ;;
    --animctl) animctl=${2:?--animctl needs a value}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
image_engine_init "$engine" || exit 1
version=$(sed -n 's/^project(animd VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
image=${image:-animd:$version}
"${ENGINE[@]}" image inspect "$image" >/dev/null 2>&1 ||
  die "the engine has no image $image (scripts/build-image.sh builds it)"

if [ -z "$animctl" ]; then
  animctl=build/release/bin/animctl
  if [ ! -x "$animctl" ]; then
    say "building animctl (release preset)"
    if ! { [ -f build/release/build.ninja ] || cmake --preset release >/dev/null; } ||
      ! nice -n 10 ninja -C build/release animctl >/dev/null; then
      die "could not build animctl (pass --animctl PATH)"
    fi
  fi
fi
[ -x "$animctl" ] || die "animctl not found at $animctl"
command -v curl >/dev/null || die "curl is needed on the host (apt-get install curl)"

name=animd-image-test-$$
tmp=$(mktemp -d)
watch_pid=""
cleanup() {
  [ -z "$watch_pid" ] || kill "$watch_pid" 2>/dev/null || true
  "${ENGINE[@]}" rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

say "engine: ${ENGINE[*]}; image: $image; animctl: $animctl"

# 1. Libraries.
ldd_out=$("${ENGINE[@]}" run --rm --no-healthcheck "${ULIMIT_ARGS[@]}" --entrypoint ldd "$image" /usr/local/bin/animd) ||
  die "could not run ldd in the image (an rlimit 'operation not permitted' above: ANIMD_ULIMITS must stay within the host's limits)"
indent <<<"$ldd_out"
! grep -q 'not found' <<<"$ldd_out" ||
  die "libraries missing in the image: $(awk '/not found/ {print $1}' <<<"$ldd_out" | sort -u | xargs)"
say "ok: ldd inside the image finds all $(grep -c '=>' <<<"$ldd_out") libraries"

# 2. Start with the image's own command.
"${ENGINE[@]}" run -d --name "$name" "${ULIMIT_ARGS[@]}" \
  -p 127.0.0.1::7450 -p 127.0.0.1::7451 "$image" >/dev/null || die "the container did not start"
host_port() {
  "${ENGINE[@]}" port "$name" "$1/tcp" | head -n1 | sed 's/.*://'
}
anim_port=$(host_port 7450)
http_port=$(host_port 7451)
{ [ -n "$anim_port" ] && [ -n "$http_port" ]; } || die "no published ports for 7450/7451"
say "container $name: protocol 127.0.0.1:$anim_port, http 127.0.0.1:$http_port"

# 3. Health.
deadline=$((SECONDS + 60))
until curl -fsS -o /dev/null "http://127.0.0.1:$http_port/healthz" 2>/dev/null; do
  state=$("${ENGINE[@]}" inspect "$name" --format '{{.State.Status}}' 2>/dev/null || echo gone)
  [ "$state" = running ] || {
    "${ENGINE[@]}" logs "$name" 2>&1 | tail -n 20 >&2 || true
    die "the container is $state before /healthz answered"
  }
  [ $SECONDS -lt $deadline ] || die "/healthz did not answer 200 within 60 s"
  sleep 0.5
done
say "ok: GET /healthz -> $(curl -fsS "http://127.0.0.1:$http_port/healthz")"
deadline=$((SECONDS + 30))
until ready=$(curl -fsS "http://127.0.0.1:$http_port/readyz" 2>/dev/null); do
  [ $SECONDS -lt $deadline ] || die "/readyz did not answer 200 within 30 s"
  sleep 0.5
done
say "ok: GET /readyz -> $ready"
uid=$("${ENGINE[@]}" exec "$name" id -u) || die "exec id -u failed"
[ "$uid" = 10001 ] || die "animd runs as uid $uid, not 10001"
say "ok: runs as uid $uid"
if [ "$ENGINE_NAME" = podman ]; then
  "${ENGINE[@]}" healthcheck run "$name" || die "the image's HEALTHCHECK failed (podman healthcheck run)"
else
  deadline=$((SECONDS + 60))
  until [ "$(docker inspect "$name" --format '{{.State.Health.Status}}')" = healthy ]; do
    [ $SECONDS -lt $deadline ] || die "docker never reported the container healthy"
    sleep 1
  done
fi
say "ok: HEALTHCHECK passes ($("${ENGINE[@]}" inspect "$name" --format '{{.State.Health.Status}}' 2>/dev/null || echo "status not recorded"))"

# 4. Drive it from the host.
ctl() { "$animctl" --host 127.0.0.1 --port "$anim_port" "$@"; }
spawned=$(ctl spawn builtin --clip walk) || die "animctl spawn failed"
echo "  $spawned"
id=$(sed -n 's/^spawned character \([0-9][0-9]*\).*/\1/p' <<<"$spawned")
[ -n "$id" ] || die "no character id in '$spawned'"
frames=$(ctl watch "$id" --frames 5) || die "animctl watch failed"
indent <<<"$frames"
[ "$(grep -c . <<<"$frames")" -ge 5 ] || die "fewer than 5 frame lines from animctl watch"
say "ok: character $id spawned and watched over the published port"

# 5. Drain on stop.
ctl watch "$id" >"$tmp/watch.out" 2>&1 &
watch_pid=$!
sleep 1
kill -0 "$watch_pid" 2>/dev/null || die "a watch without --frames ended before the stop: $(tail -n3 "$tmp/watch.out")"
stop_timeout=30
start_ms=$(($(date +%s%N) / 1000000))
"${ENGINE[@]}" stop -t "$stop_timeout" "$name" >/dev/null || die "$ENGINE_NAME stop failed"
stop_ms=$(($(date +%s%N) / 1000000 - start_ms))
code=$("${ENGINE[@]}" inspect "$name" --format '{{.State.ExitCode}}')
logs=$("${ENGINE[@]}" logs "$name" 2>&1)
tail -n 8 <<<"$logs" | indent
[ "$code" = 0 ] || die "the container exited with status $code after stop (0 expected)"
[ "$stop_ms" -lt $((stop_timeout * 1000)) ] ||
  die "stop took $stop_ms ms: animd did not exit on SIGTERM before the ${stop_timeout} s timeout"
grep -q 'signal 15 received' <<<"$logs" || die "the log does not show SIGTERM being handled"
grep -q 'animd stopped' <<<"$logs" || die "the log does not end with 'animd stopped'"
deadline=$((SECONDS + 10))
while kill -0 "$watch_pid" 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || die "the open watch did not end within 10 s of the stop"
  sleep 0.2
done
watch_rc=0
wait "$watch_pid" || watch_rc=$?
watch_pid=""
say "ok: stop drained in $stop_ms ms, exit status $code; the open watch ended (animctl status $watch_rc, $(grep -c . "$tmp/watch.out") lines)"
say "PASS"
