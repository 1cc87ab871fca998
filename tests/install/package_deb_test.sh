#!/usr/bin/env bash
# The Debian packages: `cpack -G DEB` over a built tree (packaging/CPackConfig.cmake), then
#  - dpkg-deb --info of animd: name, version, architecture, Depends from dpkg-shlibdeps
#    (libprotobuf, libssl, ...) plus adduser and python3-protobuf, maintainer scripts, conffiles;
#  - dpkg-deb --contents of animd: programs in /usr/bin, unit in /usr/lib/systemd/system,
#    config in /etc/animd, the Python client in /usr/lib/python3/dist-packages, no dev files;
#    of animd-dev: headers (the runtime's and the loaders'), static libraries, the CMake and
#    pkg-config packages;
#  - dpkg-deb -x into a temp dir: the daemon runs from there with the packaged config and
#    answers the packaged animctl and the packaged Python example.
# Usage: package_deb_test.sh BUILD_DIR WORK_DIR VERSION
set -euo pipefail
build=$1 work=$2 version=$3
fail() { echo "FAIL: $*"; [ -f "$work/animd.log" ] && tail -20 "$work/animd.log"; exit 1; }
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool not found (dpkg-dev)"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work"

# -B: the package and CPack's staging tree go to WORK_DIR, not into the build tree.
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack"; }
arch=$(dpkg --print-architecture)
deb=$work/animd_${version}_${arch}.deb
[ -f "$deb" ] || fail "no $deb (made: $(ls "$work"/*.deb 2>/dev/null))"

info=$(dpkg-deb --info "$deb")
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = animd ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version)"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
depends=$(field Depends)
for dep in 'libprotobuf[0-9]+' 'libssl3' 'libspdlog1' 'libsystemd0' 'libprometheus-cpp-core1\.0' \
           'libstdc\+\+6' 'libc6 \(>= ' 'adduser' 'python3-protobuf'; do
  grep -Eq "(^|, )$dep" <<<"$depends" || fail "Depends lacks $dep: $depends"
done
for script in postinst prerm postrm conffiles; do
  grep -Eq "^ +[0-9]+ bytes, +[0-9]+ lines +\*? *$script" <<<"$info" || fail "no $script in control: $info"
done
# (Outputs are read whole before grep -q: under pipefail, grep stopping early would fail the
# writer with SIGPIPE.)
grep -qx /etc/animd/animd.toml <<<"$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" ||
  fail "/etc/animd/animd.toml is not a conffile"
grep -q 'adduser --system .*animd' <<<"$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst)" ||
  fail "postinst does not create the system user animd"

dev=$work/animd-dev_${version}_${arch}.deb
[ -f "$dev" ] || fail "no $dev"
grep -Eq "^animd \(= $version\)" <<<"$(dpkg-deb --field "$dev" Depends)" ||
  fail "animd-dev does not depend on animd (= $version): $(dpkg-deb --field "$dev" Depends)"
dev_contents=$(dpkg-deb --contents "$dev" | awk '{print $6}')
for f in ./usr/include/animd/animclient/client.h ./usr/include/animd/anim/animator.h \
         ./usr/include/animd/anim/loaders/gltf_loader.h ./usr/lib/libanimloaders.a \
         ./usr/lib/libanimloaders.so ./usr/lib/pkgconfig/animd-loaders.pc \
         ./usr/lib/libanimclient.a ./usr/lib/libanimclient.so ./usr/lib/cmake/animd/animdConfig.cmake \
         ./usr/lib/pkgconfig/animd-client.pc ./usr/share/animd/proto/anim/v1/envelope.proto; do
  grep -qxF "$f" <<<"$dev_contents" || fail "animd-dev lacks $f"
done

contents=$(dpkg-deb --contents "$deb" | awk '{print $6}')
for f in ./usr/bin/animd ./usr/bin/animctl ./usr/bin/animload ./usr/bin/animd-py-example \
         ./usr/lib/systemd/system/animd.service ./etc/animd/animd.toml \
         ./usr/lib/python3/dist-packages/animd_client.py ./usr/lib/python3/dist-packages/animd_compact.py \
         ./usr/lib/python3/dist-packages/anim/v1/envelope_pb2.py ./usr/share/man/man1/animd.1 \
         ./usr/lib/libanimclient.so.0.1 ./usr/lib/libanimcore.so.0.1 \
         ./usr/lib/libanimloaders.so.0.1; do
  grep -qxF "$f" <<<"$contents" || fail "package lacks $f"
done
dev_files='\.(h|a|so|pc)$|/usr/local/|/include/|/cmake/'
! grep -Eq "$dev_files" <<<"$contents" || fail "animd holds dev files or /usr/local paths: $(grep -E "$dev_files" <<<"$contents" | head)"
# The Python package lands where Debian's python3 looks (sys.path), without PYTHONPATH.
/usr/bin/python3 -c 'import sys; sys.exit("/usr/lib/python3/dist-packages" not in sys.path)' ||
  fail "/usr/lib/python3/dist-packages is not on /usr/bin/python3's sys.path"

root=$work/root
dpkg-deb -x "$deb" "$root"
unit=$root/usr/lib/systemd/system/animd.service
grep -qx 'ExecStart=/usr/bin/animd --config /etc/animd/animd.toml' "$unit" ||
  fail "unit ExecStart: $(grep ExecStart "$unit")"
grep -qx 'User=animd' "$unit" || fail "unit does not run as animd"
grep -qx 'WantedBy=multi-user.target' "$unit" || fail "unit has no [Install] target"

# The packaged daemon, packaged config, ephemeral ports.
"$root/usr/bin/animd" --config "$root/etc/animd/animd.toml" --port 0 --port-file "$work/port" \
  --http-port 0 --http-port-file "$work/http-port" >"$work/animd.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 600); do
  [ -s "$work/port" ] && [ -s "$work/http-port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "animd exited before listening"
  sleep 0.1
done
[ -s "$work/port" ] || fail "animd did not write its port file"
port=$(cat "$work/port")
"$root/usr/bin/animctl" --port "$port" spawn builtin --clip walk >"$work/animctl.txt" 2>&1 ||
  { cat "$work/animctl.txt"; fail "packaged animctl spawn"; }
grep -q '^spawned character 1 (asset builtin)' "$work/animctl.txt" || fail "animctl: $(cat "$work/animctl.txt")"
http_port=$(cat "$work/http-port")
exec 3<>"/dev/tcp/127.0.0.1/$http_port"
printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
grep -q '^animd_characters 1' <(tr -d '\r' <&3) || fail "packaged animd's /metrics does not count the character"
exec 3<&-
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import google.protobuf' 2>/dev/null; then
  PYTHONPATH=$root/usr/lib/python3/dist-packages "$root/usr/bin/animd-py-example" \
    --port "$port" --frames 2 >"$work/python.txt" 2>&1 || { cat "$work/python.txt"; fail "packaged animd-py-example"; }
  grep -q '^spawned character ' "$work/python.txt" || fail "animd-py-example: $(cat "$work/python.txt")"
fi
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
trap - EXIT
[ "$status" -eq 0 ] || fail "animd exited $status after SIGTERM"
echo "OK: $(basename "$deb"): $(wc -l <<<"$contents") entries; Depends: $depends"
echo "OK: $(basename "$dev"): $(wc -l <<<"$dev_contents") entries"
