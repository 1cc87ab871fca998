#!/usr/bin/env bash
# Sharding from the client, measured (docs/operations.md "Sharding from the client"): 3
# daemons on this machine, 3,000 characters spread by the sharded Python client's ring, a
# merged subscriber watching; prints each daemon's tick p50/p99 and the subscriber's frames/s.
# Needs the release build (cmake --preset release && cmake --build --preset release --target
# animd animd_python). Arguments go to scripts/shards-demo.py (--daemons, --characters,
# --seconds, --rate-divisor, --workers).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ANIMD_BUILD_DIR:-build/release}
animd=${ANIMD_BIN:-$build/bin/animd}
[ -x "$animd" ] || { echo "shards-demo: $animd not built (cmake --build --preset release)" >&2; exit 1; }
[ -d "$build/python-package" ] || { echo "shards-demo: $build/python-package missing (target animd_python)" >&2; exit 1; }
PYTHONPATH="$build/python-package" exec nice -n 10 /usr/bin/python3 scripts/shards-demo.py --animd "$animd" "$@"
