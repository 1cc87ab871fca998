#!/usr/bin/env bash
# Runs check_example_config.py with Debian's /usr/bin/python3 (3.11: tomllib). Exit 77 = skipped.
set -euo pipefail
if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import tomllib' 2>/dev/null; then
  echo "SKIPPED: /usr/bin/python3 with tomllib (Python >= 3.11) not available"
  exit 77
fi
exec /usr/bin/python3 "$(dirname "$0")/check_example_config.py" "$@"
