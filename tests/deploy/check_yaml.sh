#!/usr/bin/env bash
# Runs check_yaml.py with Debian's /usr/bin/python3 (which has python3-yaml), never a
# python3 from PATH (may be a pyenv without packages). Exit 77 = skipped.
set -euo pipefail
if [ ! -x /usr/bin/python3 ]; then
  echo "SKIPPED: /usr/bin/python3 not installed (package python3)"
  exit 77
fi
exec /usr/bin/python3 "$(dirname "$0")/check_yaml.py" "$1"
