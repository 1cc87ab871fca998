#!/usr/bin/env bash
# Static checks of the container image scripts (no container engine, network or root is
# needed or used; building and running the image is scripts/test-image.sh, by hand):
#  - scripts/build-image.sh, scripts/test-image.sh and scripts/image-engine.sh parse;
#  - every base image deploy/Dockerfile names is one build-image.sh can make from Debian
#    packages (build-image.sh --check), and a Dockerfile naming another base is refused;
#  - both scripts answer --help.
# Usage: check_image_scripts.sh REPO_ROOT
set -euo pipefail
root=$(cd "${1:?usage: check_image_scripts.sh REPO_ROOT}" && pwd)
fail() {
  echo "FAIL: $*"
  exit 1
}

for s in build-image.sh test-image.sh image-engine.sh; do
  [ -f "$root/scripts/$s" ] || fail "scripts/$s missing"
  bash -n "$root/scripts/$s" || fail "scripts/$s does not parse"
done
for s in build-image.sh test-image.sh; do
  [ -x "$root/scripts/$s" ] || fail "scripts/$s is not executable"
  "$root/scripts/$s" --help >/dev/null || fail "scripts/$s --help failed"
done
echo "OK: image scripts parse and answer --help"

"$root/scripts/build-image.sh" --check || fail "deploy/Dockerfile names a base image build-image.sh cannot make"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^FROM debian:12-slim$/FROM debian:13-slim/' "$root/deploy/Dockerfile" >"$tmp/Dockerfile"
grep -q '^FROM debian:13-slim$' "$tmp/Dockerfile" || fail "could not make the broken copy (no 'FROM debian:12-slim' line)"
if "$root/scripts/build-image.sh" --check --dockerfile "$tmp/Dockerfile" >"$tmp/out" 2>&1; then
  fail "build-image.sh --check accepted a Dockerfile starting from debian:13-slim"
fi
grep -q 'debian:13-slim' "$tmp/out" || fail "the refusal does not name the base: $(cat "$tmp/out")"
echo "OK: a Dockerfile with a base build-image.sh cannot make is refused"
