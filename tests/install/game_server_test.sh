#!/usr/bin/env bash
# examples/game-server built as an outside project against an installed animd (PREFIX, from
# install_tree.sh), then run against the installed daemon on loopback.
#   MODE shared   find_package(animd COMPONENTS core loaders client), the shared libraries
#   MODE static   the same with animd_USE_STATIC_LIBS=ON
#   MODE pkgconfig  no CMake package: c++ with
#                   `pkg-config --cflags --libs animd-client animd-loaders animd-core`
# Usage: game_server_test.sh MODE PREFIX EXAMPLE_DIR WORK_DIR CXX "CXX_FLAGS"
set -euo pipefail
mode=$1 prefix=$2 example=$3 work=$4/$1 cxx=$5 cxxflags=$6
fail() { echo "FAIL: $*"; [ -f "$work/animd.log" ] && tail -20 "$work/animd.log"; exit 1; }
rm -rf "$work"
mkdir -p "$work"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
case $mode in
  shared | static)
    static=OFF
    [ "$mode" = static ] && static=ON
    cmake -S "$example" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxxflags" "${launcher[@]}" \
      -DCMAKE_PREFIX_PATH="$prefix" -Danimd_USE_STATIC_LIBS=$static >"$work/configure.log" 2>&1 ||
      { cat "$work/configure.log"; fail "configure against $prefix"; }
    cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build"; }
    exe=$work/build/game_server
    ;;
  pkgconfig)
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    flags=$(pkg-config --cflags --libs animd-client animd-loaders animd-core) ||
      fail "pkg-config animd-client animd-loaders animd-core"
    for lib in animclient animloaders animcore; do
      grep -q -- "-l$lib" <<<"$flags" || fail "pkg-config flags lack -l$lib: $flags"
    done
    # Each component's flags alone compile its glm-using header (which refuses glm configured
    # otherwise than the libraries were: cmake/AnimdGlm.cmake).
    for pc_header in animd-core:anim/transform.h animd-loaders:anim/loaders/builtin_character.h \
                     animd-client:animcodec/compact.h; do
      pc=${pc_header%%:*} header=${pc_header#*:}
      [ -f "$prefix/include/animd/$header" ] || fail "$header is not installed"
      # shellcheck disable=SC2046  # word splitting of the flags is intended
      echo "#include <$header>" | "$cxx" -std=c++20 -fsyntax-only -x c++ - \
        $(pkg-config --cflags "$pc") >"$work/$pc.log" 2>&1 ||
        { cat "$work/$pc.log"; fail "<$header> with pkg-config --cflags $pc alone"; }
    done
    # shellcheck disable=SC2086  # word splitting of the flags is intended
    "$cxx" -std=c++20 $cxxflags "$example/main.cpp" -o "$work/game_server" $flags \
      -Wl,-rpath,"$prefix/lib" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "compile with pkg-config flags"; }
    exe=$work/game_server
    ;;
  *) fail "unknown mode $mode" ;;
esac

# Linked as asked: the shared build loads the installed libanimclient.so, the static one none.
# (ldd's output is read whole first: `ldd | grep -q` under pipefail fails when grep stops
# reading early and ldd gets SIGPIPE.)
libs=$(ldd "$exe") || fail "ldd $exe failed"
if [ "$mode" = static ]; then
  ! grep -q 'libanim' <<<"$libs" || fail "static build links shared animd libraries: $(grep libanim <<<"$libs")"
else
  grep -q "libanimclient.so.* => $prefix/lib/" <<<"$libs" ||
    fail "does not load $prefix/lib/libanimclient.so: $(grep libanim <<<"$libs" || true)"
fi

# The installed daemon with the installed config; ephemeral ports, no HTTP.
"$prefix/bin/animd" --config "$prefix/etc/animd/animd.toml" --port 0 --port-file "$work/port" \
  --http-port -1 >"$work/animd.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 600); do
  [ -s "$work/port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "animd exited before listening"
  sleep 0.1
done
[ -s "$work/port" ] || fail "animd did not write its port file"
port=$(cat "$work/port")

rc=0
"$exe" --port "$port" --characters 3 --steps 3 >"$work/out.txt" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/out.txt"; fail "game_server exited $rc"; }
out=$(cat "$work/out.txt")
grep -qx "local skeleton: 22 joints, querying 'head'" <<<"$out" || fail "no local skeleton line: $out"
grep -qx 'spawned 3 characters' <<<"$out" || fail "no spawn line: $out"
[ "$(grep -c '^step [0-2] character [0-9]* tick [0-9]* head at ' <<<"$out")" -eq 9 ] ||
  fail "expected 9 pose lines (3 steps x 3 characters): $out"
# Step 2 put the roots at z = 1.5: the head of the first character (x = 0) is near there, about 1.6 m up.
grep -qE '^step 2 character [0-9]+ tick [0-9]+ head at \(-?0\.[0-9]+, 1\.[0-9]+, 1\.[0-9]+\)$' <<<"$out" ||
  fail "no head of a character at x~0, y~1.6, z~1.5 in step 2: $out"
grep -qx 'daemon lists 3 characters' <<<"$out" || fail "list_characters: $out"
grep -qx 'despawned 3 characters' <<<"$out" || fail "despawn: $out"

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
trap - EXIT
[ "$status" -eq 0 ] || fail "animd exited $status after SIGTERM"
echo "OK: game_server ($mode) against $prefix"
