#!/usr/bin/env bash
# Runs check_yaml.py DEPLOY_DIR (or, with --broken-copies, check_yaml_test.py: the checks
# must catch broken copies) with Debian's /usr/bin/python3 (which has python3-yaml), never a
# python3 from PATH (may be a pyenv without packages). Exit 77 = skipped.
set -euo pipefail
if [ ! -x /usr/bin/python3 ]; then
  echo "SKIPPED: /usr/bin/python3 not installed (package python3)"
  exit 77
fi
script=check_yaml.py
if [ "${2:-}" = "--broken-copies" ]; then script=check_yaml_test.py; fi
exec /usr/bin/python3 "$(dirname "$0")/$script" "$1"
