#!/usr/bin/env bash
# Static checks of deploy/Dockerfile (no container engine is needed or used):
#  - the build stage runs deploy/install-deps.sh, the script the README's quick start runs,
#    and builds the release preset; the runtime stage does not run it (runtime libs only);
#  - the runtime stage runs as a numeric non-root user, exposes 7450 and 7451, has probes;
#  - with ANIMD (the built binary) given: every shared library it links is provided by a
#    package the runtime stage installs, or by debian:12-slim itself.
# Usage: check_dockerfile.sh DOCKERFILE [ANIMD]
set -euo pipefail
df=$1
exe=${2:-}
root=$(cd "$(dirname "$df")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }

# Split into stages at each FROM.
build_stage=$(awk '/^FROM /{n++} n==1' "$df")
runtime_stage=$(awk '/^FROM /{n++} n==2' "$df")
[ "$(grep -c '^FROM ' "$df")" -eq 2 ] || fail "expected two stages (build, runtime)"
grep -q '^FROM debian:12 AS build$' <<<"$build_stage" || fail "build stage is not FROM debian:12 AS build"
grep -q '^FROM debian:12-slim$' <<<"$runtime_stage" || fail "runtime stage is not debian:12-slim"
grep -q '^RUN ./deploy/install-deps.sh' <<<"$build_stage" || fail "build stage does not run ./deploy/install-deps.sh"
grep -q '^COPY deploy/install-deps.sh ' <<<"$build_stage" || fail "install-deps.sh not copied before running it"
grep -q 'cmake --preset release' <<<"$build_stage" || fail "build stage does not configure the release preset"
grep -q 'cmake --build --preset release --target animd' <<<"$build_stage" || fail "build stage does not build animd"
! grep -q 'install-deps.sh' <<<"$runtime_stage" || fail "runtime stage runs install-deps.sh (build deps)"
# The README's quick start goes through scripts/run-animd.sh, which runs the same script.
grep -q 'scripts/run-animd.sh' "$root/README.md" || fail "README no longer points at scripts/run-animd.sh"
grep -q '^./deploy/install-deps.sh$' "$root/scripts/run-animd.sh" || fail "run-animd.sh does not run ./deploy/install-deps.sh"

grep -q '^USER 10001:10001$' <<<"$runtime_stage" || fail "runtime stage does not run as uid 10001"
grep -q '^EXPOSE 7450 7451$' <<<"$runtime_stage" || fail "EXPOSE 7450 7451 missing"
grep -q '/healthz' <<<"$(grep -A1 '^HEALTHCHECK ' <<<"$runtime_stage")" || fail "HEALTHCHECK on /healthz missing"
grep -q '^COPY --from=build /src/build/release/bin/animd /usr/local/bin/animd$' <<<"$runtime_stage" || fail "animd not copied from the build stage"
grep -q '^COPY deploy/animd.example.toml /etc/animd/animd.toml$' <<<"$runtime_stage" || fail "config not installed"
[ -f "$root/deploy/animd.example.toml" ] || fail "deploy/animd.example.toml missing"
echo "OK: Dockerfile stages"

if [ -z "$exe" ]; then
  echo "(animd not built: library coverage not checked)"
  exit 0
fi
[ -f "$exe" ] || fail "$exe does not exist (build animd first, or leave ANIMD out)"
command -v ldd >/dev/null && command -v dpkg-query >/dev/null || { echo "(no ldd/dpkg: library coverage not checked)"; exit 0; }
runtime_pkgs=$(sed -n '/apt-get install/,/rm -rf/p' <<<"$runtime_stage" | tr ' \\' '\n\n' | grep -E '^lib[a-z0-9.+-]+$' || true)
# In debian:12-slim already (libc, libstdc++, and the libraries libsystemd0 needs).
base_pkgs="libc6 libstdc++6 libgcc-s1 libcap2 libgcrypt20 libgpg-error0 liblzma5 libzstd1 liblz4-1 zlib1g"
missing=""
while read -r lib path; do
  [ -n "$path" ] || continue
  # Sanitizer runtimes: the test suite's build is instrumented; the image's release build is not.
  case "$lib" in libasan.so* | libubsan.so* | libtsan.so* | liblsan.so*) continue ;; esac
  pkg=$(dpkg-query -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) || true
  [ -z "$pkg" ] && pkg=$(dpkg-query -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || true
  if ! grep -qxF "$pkg" <<<"$runtime_pkgs"$'\n'"${base_pkgs// /$'\n'}"; then
    missing+=" $lib(${pkg:-unknown package})"
  fi
done < <(ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
[ -z "$missing" ] || fail "animd links libraries the runtime stage does not install:$missing"
echo "OK: every library of $exe is installed in the runtime stage"
