#!/usr/bin/env bash
# Installs every Debian 12 package animd needs to build, run and test. Idempotent: when all
# packages are present it only checks (no apt-get update, no network). Needs root (or sudo).
set -euo pipefail

PACKAGES=(
  # toolchain
  g++ cmake ninja-build pkg-config git clang-format
  # core
  libglm-dev libtinygltf-dev nlohmann-json3-dev libstb-dev
  # protocol, daemon, tools
  libprotobuf-dev protobuf-compiler libboost-dev libboost-system-dev libspdlog-dev libfmt-dev
  libcli11-dev libsystemd-dev python3 python3-protobuf
  # /metrics: metric families and the Prometheus text format (libprometheus-cpp-core)
  prometheus-cpp-dev
  # TLS (Boost.Asio SSL over OpenSSL; tests make throwaway certificates with the openssl CLI)
  libssl-dev openssl
  # deploy checks (tests/deploy: YAML manifests parse)
  python3-yaml
  # install and packaging: man pages from --help; the .deb's Depends (dpkg-shlibdeps)
  help2man dpkg-dev
  # render client and headless render tests
  libglfw3-dev libglew-dev libgl-dev xvfb xauth libgl1-mesa-dri
  # web viewer test: the page in headless Chromium (WebGL2 through its SwiftShader)
  chromium
  # the animd-client npm package (client/js): its tests run node, `npm ci` installs its
  # locked dependencies (three, protobufjs, typescript) from the npm registry
  nodejs npm
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # fuzzing (the fuzz preset: clang with libFuzzer)
  clang libfuzzer-14-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  # A Node.js from elsewhere (NodeSource's nodejs bundles npm and conflicts with Debian's npm
  # package) serves as well: the commands are what the tests run.
  case "$p" in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
