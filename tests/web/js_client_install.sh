#!/usr/bin/env bash
# ctest fixture of the animd-client tests (label js): copies the npm package (client/js)
# into the build tree and runs `npm ci` there, from its package-lock.json, which also makes
# src/descriptor.js from proto/ (the package's `prepare` script). Exit 77 (skip) without node
# or npm.
#   js_client_install.sh SOURCE_DIR DEST_DIR
set -euo pipefail
src=$1/client/js
dest=$2
for tool in node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipped: no $tool on PATH (Debian packages nodejs and npm; deploy/install-deps.sh installs them)"
    exit 77
  fi
done
mkdir -p "$dest"
rm -rf "$dest/src" "$dest/example" "$dest/test" "$dest/scripts"
cp -r "$src/src" "$src/example" "$src/test" "$src/scripts" "$dest/"
cp "$src/package.json" "$src/package-lock.json" "$src/tsconfig.json" "$src/README.md" "$src/.npmignore" "$dest/"
rm -f "$dest/src/descriptor.js"
cd "$dest"
export ANIMD_PROTO_DIR=$1/proto
npm ci --no-audit --no-fund --loglevel=error
test -s src/descriptor.js
echo "animd-client installed in $dest (node $(node --version), npm $(npm --version))"
