#!/usr/bin/env bash
# Installs a built tree into a fresh prefix with `cmake --install` and checks the layout
# (cmake/AnimdInstall.cmake): programs, static and shared libraries, headers, the CMake and
# pkg-config packages, .proto files, man pages, the systemd unit (pointing at this prefix),
# the example config and the Python distribution.
# Usage: install_tree.sh BUILD_DIR PREFIX PYTHON_MINOR [PROGRAM...]
set -euo pipefail
build=$1 prefix=$2 pyminor=$3
shift 3
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$prefix"
# A fresh build tree has no test-tmp yet (it is made by the first test that writes there).
mkdir -p "$(dirname "$prefix")"
cmake --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log"; fail "cmake --install"; }

site=$prefix/lib/python$pyminor/dist-packages
expect=(
  lib/libanimcore.a lib/libanimcore.so lib/libanimloaders.a lib/libanimloaders.so
  lib/libanimclient.a lib/libanimclient.so lib/libanimproto.a lib/libanimproto.so
  include/animd/anim/animator.h include/animd/anim/loaders/builtin_character.h
  include/animd/anim/loaders/gltf_loader.h
  include/animd/animclient/client.h include/animd/anim/v1/envelope.pb.h
  lib/cmake/animd/animdConfig.cmake lib/cmake/animd/animdConfigVersion.cmake
  lib/cmake/animd/animdTargets.cmake
  lib/pkgconfig/animd-core.pc lib/pkgconfig/animd-loaders.pc lib/pkgconfig/animd-client.pc
  share/animd/proto/anim/v1/envelope.proto share/animd/proto/anim/v1/types.proto
  lib/systemd/system/animd.service etc/animd/animd.toml
  bin/animd-py-example bin/animd-py-load-example
)
for program in "$@"; do
  expect+=("bin/$program" "share/man/man1/$program.1")
done
for f in "${expect[@]}"; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
for f in animd_client.py animd_compact.py animd_morph.py animd_shards.py animd_client_example.py anim/v1/envelope_pb2.py \
         animd_client-*.dist-info/METADATA animd_client-*.dist-info/RECORD; do
  compgen -G "$site/$f" >/dev/null || fail "Python distribution: $site/$f missing"
done

# Shared libraries are real ELF shared objects with a versioned soname.
# (Outputs are read whole before grep -q: under pipefail, grep stopping early would fail the
# writer with SIGPIPE.)
grep -q 'SONAME.*libanimclient\.so\.[0-9]' <<<"$(readelf -d "$prefix/lib/libanimclient.so")" ||
  fail "libanimclient.so has no versioned SONAME"
# The runtime stands alone: the loaders' headers are only under anim/loaders/, and
# libanimcore.so holds and needs no parser (tinygltf is compiled into libanimloaders.so).
for h in gltf_loader md5_loader bvh_loader builtin_character; do
  [ ! -e "$prefix/include/animd/anim/$h.h" ] ||
    fail "loader header installed among the runtime's: anim/$h.h"
done
core_needed=$(readelf -d "$prefix/lib/libanimcore.so")
! grep -q 'NEEDED.*tinygltf' <<<"$core_needed" || fail "libanimcore.so needs tinygltf"
core_symbols=$(nm -D "$prefix/lib/libanimcore.so")
! grep -qi 'tinygltf\|nlohmann' <<<"$core_symbols" || fail "libanimcore.so holds tinygltf or JSON code"
grep -q 'NEEDED.*libanimcore\.so' <<<"$(readelf -d "$prefix/lib/libanimloaders.so")" ||
  fail "libanimloaders.so does not need libanimcore.so"

unit=$prefix/lib/systemd/system/animd.service
grep -qxF "ExecStart=$prefix/bin/animd --config $prefix/etc/animd/animd.toml" "$unit" ||
  fail "unit ExecStart does not name this prefix: $(grep ExecStart "$unit")"
grep -qx 'User=animd' "$unit" || fail "unit does not run as user animd"
! grep -q 'DynamicUser' "$unit" || fail "unit still has DynamicUser"
if command -v systemd-analyze >/dev/null; then
  out=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify $unit: $out"
  [ -z "$out" ] || fail "systemd-analyze verify $unit: $out"
fi

grep -qx '#!/usr/bin/python3' <<<"$(head -1 "$prefix/bin/animd-py-example")" ||
  fail "animd-py-example does not run /usr/bin/python3"
grep -q '^\.TH ANIMD ' "$prefix/share/man/man1/animd.1" 2>/dev/null ||
  { [ $# -eq 0 ] || fail "animd.1 is not a man page"; }

# Nothing installed points back into the build tree (RPATHs, config files); the prefix itself
# may lie inside it (the tests install to <build>/test-tmp/install).
build_abs=$(cd "$build" && pwd)
names_build() {
  local text
  text=$(sed "s#$prefix##g")
  grep -qF "$build_abs" <<<"$text"
}
for f in "$prefix"/lib/cmake/animd/* "$prefix"/lib/pkgconfig/* "$unit"; do
  ! names_build <"$f" || fail "$f names the build tree"
done
for exe in "$prefix"/bin/anim* "$prefix"/lib/*.so; do
  readelf -h "$exe" >/dev/null 2>&1 || continue  # the Python console scripts are text
  ! readelf -d "$exe" | grep -E 'R(UN)?PATH' | names_build || fail "$exe keeps an RPATH into the build tree"
done
# Under /usr/local (the default prefix) the Python package lands on Debian's python3
# sys.path: `import animd_client` works without PYTHONPATH. Staged with DESTDIR, not installed.
stage=$prefix.usr-local
rm -rf "$stage"
DESTDIR=$stage cmake --install "$build" --prefix /usr/local --component python >"$stage.log" 2>&1 ||
  { cat "$stage.log"; fail "cmake --install --prefix /usr/local --component python"; }
local_site=/usr/local/lib/python$pyminor/dist-packages
[ -f "$stage$local_site/animd_client.py" ] || fail "--prefix /usr/local: no $local_site/animd_client.py"
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 -c "import sys; sys.exit('$local_site' not in sys.path)" ||
    fail "$local_site is not on /usr/bin/python3's sys.path"
fi
rm -rf "$stage" "$stage.log"
echo "OK: $(find "$prefix" -type f | wc -l) files installed in $prefix"
