#!/usr/bin/env bash
# Builds docker/Dockerfile as it is, with podman against the locally made base image, and prints the
# image name. Unchanged sources reuse podman's layer cache (seconds); a change rebuilds from `COPY`.
#
#   tools/kube/scripts/build-image.sh [image-name]      (default localhost/thumbforge:dev)
set -euo pipefail
source "$(dirname "$0")/common.sh"

image=${1:-localhost/thumbforge:dev}
repo=$(cd "$KUBE_DIR/../.." && pwd)
bash "$KUBE_DIR/scripts/provision-base-image.sh"

# podman (cgroupfs) makes a libpod_parent cgroup per controller for the build's containers and leaves
# it behind; remove the ones this build made once they are empty.
remove_new_cgroups() {
  local dir
  for dir in /sys/fs/cgroup/*/libpod_parent; do
    [ -d "$dir" ] && ! grep -qxF "$dir" "$1" && find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  rm -f "$1"
}

build_image() {
  log "building $image from docker/Dockerfile"
  local cgroups_before
  cgroups_before=$(mktemp)
  ls -d /sys/fs/cgroup/*/libpod_parent >"$cgroups_before" 2>/dev/null || true
  local started=$SECONDS out
  out=$(mktemp "${TMPDIR:-/tmp}/thumbforge-image-build.XXXXXX")
  if ! (cd "$repo" && PODMAN_NICE=10 kpodman build --pull=never \
    --format docker --network host --layers \
    --build-arg VERSION="$(node -p "require('./package.json').version" 2>/dev/null || echo 0.0.0)" \
    --build-arg REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
    -f docker/Dockerfile -t "$image" .) >"$out" 2>&1; then
    tail -n 40 "$out" >&2
    die "podman build failed (full output: $out)"
  fi
  rm -f "$out"
  remove_new_cgroups "$cgroups_before"
  log "built $image in $((SECONDS - started)) s"
}

with_lock podman build_image
echo "$image"
