#!/usr/bin/env bash
# Installs what is missing, builds the release preset and starts animd in the foreground.
# Arguments are passed to animd (e.g. --assets DIR, --port N; see `animd --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
./deploy/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target animd
exec ./build/release/bin/animd "$@"
