#!/usr/bin/env bash
# Verifies deploy/animd.service with `systemd-analyze verify`. The unit's ExecStart points at
# /usr/local/bin/animd, which a test machine need not have, so the check runs on a copy whose
# ExecStart binary is swapped for one that exists (the built animd when given, else
# /bin/true); everything else is verified as shipped. The socket unit beside it (animd.socket,
# socket activation: docs/operations.md "Saved state") is verified with it. Any diagnostic
# fails the test.
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
units=("$copy")
socket="$(dirname "$unit")/animd.socket"
if [ -f "$socket" ]; then
  for key in 'ListenStream=' 'Service=animd.service' 'WantedBy=sockets.target'; do
    grep -q "^$key" "$socket" || { echo "FAIL: $socket lacks '$key'"; exit 1; }
  done
  cp "$socket" "$tmp/animd.socket"
  units+=("$tmp/animd.socket")
fi
out=$(systemd-analyze verify "${units[@]}" 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
  echo "FAIL: systemd-analyze verify (exit $rc):"
  echo "$out"
  exit 1
fi
echo "OK: systemd-analyze verify ${units[*]} (ExecStart binary: $exe)"
