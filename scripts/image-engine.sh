# shellcheck shell=bash
# Sourced (not run) by scripts/build-image.sh and scripts/test-image.sh: picks the container
# engine and the options that every build and run of theirs passes to it.
#
# Environment (all optional):
#   ANIMD_ENGINE       podman or docker; default: podman when installed, else docker when
#                      its daemon answers, else podman (which the caller may then install).
#   ANIMD_OCI_RUNTIME  podman's OCI runtime (podman --runtime); default: runc when installed,
#                      else podman's own default. Ignored for docker (the daemon chooses).
#   ANIMD_ULIMITS      space-separated --ulimit values for builds and runs; default
#                      "nofile=4096:4096 nproc=4096:4096". They must not exceed the host's own
#                      hard limits, or runc fails with "setrlimit ... operation not permitted".
#                      Set it to the empty string to keep the engine's defaults.
#
# image_engine_pick [NAME] prints the engine that image_engine_init [NAME] will use.
# After image_engine_init:
#   ENGINE       array: the engine command with its global options, e.g. (podman --runtime runc)
#   ENGINE_NAME  podman or docker
#   ULIMIT_ARGS  array: --ulimit options for `build` and `run`

image_engine_pick() {
  local name=${1:-${ANIMD_ENGINE:-}}
  if [ -z "$name" ]; then
    if command -v podman >/dev/null; then
      name=podman
    elif command -v docker >/dev/null && docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
      name=docker
    else
      name=podman
    fi
  fi
  echo "$name"
}

image_engine_init() {
  ENGINE_NAME=$(image_engine_pick "${1:-}")
  case "$ENGINE_NAME" in
    podman | docker) ;;
    *)
      echo "error: unknown engine '$ENGINE_NAME' (podman or docker)" >&2
      return 1
      ;;
  esac
  command -v "$ENGINE_NAME" >/dev/null || {
    echo "error: $ENGINE_NAME is not installed (Debian: apt-get install podman runc)" >&2
    return 1
  }

  ENGINE=("$ENGINE_NAME")
  if [ "$ENGINE_NAME" = podman ]; then
    local runtime
    if [ -n "${ANIMD_OCI_RUNTIME+set}" ]; then
      runtime=$ANIMD_OCI_RUNTIME
    elif command -v runc >/dev/null; then
      runtime=runc
    else
      runtime=""
    fi
    [ -z "$runtime" ] || ENGINE+=(--runtime "$runtime")
  fi

  ULIMIT_ARGS=()
  local limits=${ANIMD_ULIMITS-nofile=4096:4096 nproc=4096:4096} l
  for l in $limits; do
    ULIMIT_ARGS+=(--ulimit "$l")
  done
}
