#!/usr/bin/env bash
# Builds the animd container image from deploy/Dockerfile with podman or docker.
#
# Usage: scripts/build-image.sh [--engine podman|docker] [--tag NAME] [--base local|registry]
#                               [--mirror URL] [--security-mirror URL] [--rebuild-base]
#                               [--dockerfile PATH] [--check]
#
# Base images. deploy/Dockerfile starts FROM debian:12 (build stage) and debian:12-slim
# (runtime stage); the same Dockerfile serves both ways of getting them:
#   --base local     (default) Nothing comes from a container registry. When the engine does
#                    not hold an image of that name yet (or with --rebuild-base), it is made
#                    here from Debian packages: mmdebstrap, minbase variant, bookworm with
#                    bookworm-updates and bookworm-security, from the archive apt on this
#                    machine uses (or --mirror / --security-mirror), imported under the name
#                    the Dockerfile uses. The slim one keeps no documentation, manual pages
#                    or translations, and tells dpkg to leave them out of later installs too.
#                    The build then runs with --pull=never.
#   --base registry  The engine pulls debian:12 and debian:12-slim as usual (the same as
#                    `docker build -f deploy/Dockerfile -t animd:VERSION .`).
#
# --check only verifies that every base image the Dockerfile names (its FROM lines, stages
# aside) is one --base local can make, and exits: no engine, network or root needed.
#
# The image is tagged animd:VERSION (VERSION from the top-level CMakeLists.txt) unless --tag
# says otherwise. podman builds in the docker image format, which keeps the HEALTHCHECK.
# The build runs at nice 10 (ANIMD_NICE), which covers the compile inside the build stage
# with podman (its containers are children of this process), not with docker (the daemon's).
# Run as root, it installs what it is missing from Debian (podman, runc, mmdebstrap); docker
# itself is never installed. Engine options: scripts/image-engine.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/image-engine.sh
. scripts/image-engine.sh

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() {
  echo "build-image: error: $*" >&2
  exit 1
}

engine=""
tag=""
base=local
mirror=""
security_mirror=""
rebuild_base=0
dockerfile=deploy/Dockerfile
check_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --engine) engine=${2:?--engine needs a value}; shift 2 ;;
    --tag) tag=${2:?--tag needs a value}; shift 2 ;;
    --base) base=${2:?--base needs a value}; shift 2 ;;
    --mirror) mirror=${2:?--mirror needs a value}; shift 2 ;;
    --security-mirror) security_mirror=${2:?--security-mirror needs a value}; shift 2 ;;
    --rebuild-base) rebuild_base=1; shift ;;
    --dockerfile) dockerfile=${2:?--dockerfile needs a value}; shift 2 ;;
    --check) check_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
case "$base" in local | registry) ;; *) die "--base is local or registry, not '$base'" ;; esac
[ -f "$dockerfile" ] || die "no Dockerfile at $dockerfile"

# The images the Dockerfile's FROM lines name, stage names (FROM x AS name ... FROM name)
# excluded, each once.
dockerfile_bases() {
  awk 'toupper($1) == "FROM" {
         img = ""
         for (i = 2; i <= NF; i++) if ($i !~ /^--/) { img = $i; break }
         if (img != "" && !(img in stages) && !(img in seen)) { print img; seen[img] = 1 }
         if (NF >= 2 && toupper($(NF - 1)) == "AS") stages[$NF] = 1
       }' "$dockerfile"
}
# What --base local makes for a base image name: "full" or "slim"; fails for other names.
base_kind() {
  case "$1" in
    debian:12 | debian:bookworm) echo full ;;
    debian:12-slim | debian:bookworm-slim) echo slim ;;
    *) return 1 ;;
  esac
}
bases=()
while read -r b; do bases+=("$b"); done < <(dockerfile_bases)
[ ${#bases[@]} -gt 0 ] || die "no FROM line in $dockerfile"
if [ "$base" = local ] || [ "$check_only" = 1 ]; then
  for b in "${bases[@]}"; do
    base_kind "$b" >/dev/null ||
      die "$dockerfile starts from $b; --base local makes only Debian 12 (debian:12, debian:12-slim)"
  done
fi
if [ "$check_only" = 1 ]; then
  echo "build-image: $dockerfile's base images (${bases[*]}) can be made locally"
  exit 0
fi

version=$(sed -n 's/^project(animd VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || die "no 'project(animd VERSION x.y.z' line in CMakeLists.txt"
tag=${tag:-animd:$version}

# Tools from Debian, installed when root and missing.
need=()
if [ "$(image_engine_pick "$engine")" = podman ]; then
  command -v podman >/dev/null || need+=(podman)
  command -v runc >/dev/null || need+=(runc)
fi
[ "$base" = registry ] || command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
if [ ${#need[@]} -gt 0 ]; then
  { [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; } ||
    die "missing ${need[*]}: install them (Debian: apt-get install ${need[*]}) or run as root"
  echo "build-image: installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
image_engine_init "$engine" || exit 1

# The first URI that apt on this machine uses for SUITE (deb822 .sources and one-line .list).
apt_uri() {
  local suite=$1 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
      {
        types = uris = suites = ""; enabled = 1
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^Types:/) types = " " $i " "
          else if ($i ~ /^URIs:/) uris = $i
          else if ($i ~ /^Suites:/) suites = " " $i " "
          else if ($i ~ /^Enabled:[ \t]*no/) enabled = 0
        }
        gsub(/\t/, " ", types); gsub(/\t/, " ", suites)
        if (enabled && types ~ / deb / && index(suites, " " s " ")) {
          split(uris, u, /[ \t]+/); print u[2]; exit
        }
      }' "$f"
  done
  { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
    awk -v s="$suite" '$1 == "deb" {
        i = 2
        if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
        if ($(i + 1) == s) { print $i; exit }
      }'
}

# make_base NAME KIND: a bookworm minbase root file system (KIND full or slim), imported into
# the engine as NAME.
make_base() {
  local name=$1 kind=$2 opts=() t0=$SECONDS
  opts=(--variant=minbase --format=tar --quiet
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr)
  if [ "$kind" = slim ]; then
    local p
    for p in 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
      'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' \
      'path-exclude=/usr/share/groff/*' 'path-exclude=/usr/share/lintian/*' \
      'path-exclude=/usr/share/locale/*'; do
      opts+=(--dpkgopt="$p")
    done
  fi
  echo "build-image: making $name from Debian packages ($mirror, $security_mirror)"
  if ! mmdebstrap "${opts[@]}" bookworm "$workdir/rootfs.tar" \
    "deb $mirror bookworm main" \
    "deb $mirror bookworm-updates main" \
    "deb $security_mirror bookworm-security main" >"$workdir/mmdebstrap.log" 2>&1; then
    tail -n 20 "$workdir/mmdebstrap.log" >&2
    die "mmdebstrap failed making $name (is $mirror reachable? --mirror URL picks another)"
  fi
  "${ENGINE[@]}" import --change 'CMD ["bash"]' \
    --message "bookworm minbase made by scripts/build-image.sh" \
    "$workdir/rootfs.tar" "$name" >/dev/null || die "$ENGINE_NAME import of $name failed"
  rm -f "$workdir/rootfs.tar"
  echo "build-image: $name imported ($((SECONDS - t0)) s)"
}

build_args=()
if [ "$base" = local ]; then
  mirror=${mirror:-$(apt_uri bookworm | head -n1 || true)}
  mirror=${mirror:-http://deb.debian.org/debian}
  security_mirror=${security_mirror:-$(apt_uri bookworm-security | head -n1 || true)}
  security_mirror=${security_mirror:-http://deb.debian.org/debian-security}
  workdir=$(mktemp -d /var/tmp/animd-base.XXXXXX)
  trap 'rm -rf "$workdir"' EXIT
  for name in "${bases[@]}"; do
    if [ "$rebuild_base" = 1 ] || ! "${ENGINE[@]}" image inspect "$name" >/dev/null 2>&1; then
      make_base "$name" "$(base_kind "$name")"
    else
      echo "build-image: using the $name the engine already holds (--rebuild-base remakes it)"
    fi
  done
  # docker uses an image it holds without being told; podman is told never to pull.
  [ "$ENGINE_NAME" = docker ] || build_args+=(--pull=never)
fi

if [ "$ENGINE_NAME" = podman ]; then
  # The OCI format has no HEALTHCHECK; the docker format keeps it. podman is given the
  # build context filter explicitly (BuildKit finds <Dockerfile>.dockerignore itself).
  [ ! -f "$dockerfile.dockerignore" ] || build_args+=(--ignorefile "$dockerfile.dockerignore")
  build_args+=(--format docker)
fi

echo "build-image: $ENGINE_NAME build -f $dockerfile -t $tag ."
start=$(date +%s)
nice -n "${ANIMD_NICE:-10}" "${ENGINE[@]}" build "${build_args[@]}" "${ULIMIT_ARGS[@]}" \
  -f "$dockerfile" -t "$tag" . || die "$ENGINE_NAME build failed"
echo "build-image: built $tag in $(($(date +%s) - start)) s"
"${ENGINE[@]}" image inspect "$tag" --format '{{.Id}} {{.Size}} bytes' 2>/dev/null || true
