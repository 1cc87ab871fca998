#!/usr/bin/env bash
# Verifies deploy/animd.service with `systemd-analyze verify`. The unit's ExecStart points at
# /usr/local/bin/animd, which a test machine need not have, so the check runs on a copy whose
# ExecStart binary is swapped for one that exists (the built animd when given, else
# /bin/true); everything else is verified as shipped. Any diagnostic fails the test.
# Usage: check_systemd_unit.sh UNIT TMPDIR [ANIMD]. Exit 77 = skipped (no systemd-analyze).
set -euo pipefail
unit=$1
tmp=$2
exe=${3:-/bin/true}

if ! command -v systemd-analyze >/dev/null; then
  echo "SKIPPED: systemd-analyze not installed (package systemd)"
  exit 77
fi
grep -q '^ExecStart=/usr/local/bin/animd --config /etc/animd/animd.toml$' "$unit" || {
  echo "FAIL: ExecStart is not '/usr/local/bin/animd --config /etc/animd/animd.toml'"
  exit 1
}
for key in Type=notify WatchdogSec= Restart=on-failure DynamicUser=yes ProtectSystem=strict \
    ProtectHome=yes NoNewPrivileges=yes PrivateTmp=yes KillSignal=SIGTERM TimeoutStopSec= \
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' 'CapabilityBoundingSet=$' \
    SystemCallFilter=@system-service MemoryDenyWriteExecute=yes; do
  grep -q "^$key" "$unit" || { echo "FAIL: $unit lacks '$key'"; exit 1; }
done

mkdir -p "$tmp"
copy="$tmp/animd.service"
sed "s#^ExecStart=/usr/local/bin/animd #ExecStart=$exe #" "$unit" >"$copy"
out=$(systemd-analyze verify "$copy" 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
  echo "FAIL: systemd-analyze verify (exit $rc):"
  echo "$out"
  exit 1
fi
echo "OK: systemd-analyze verify $unit (ExecStart binary: $exe)"
