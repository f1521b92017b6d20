#!/usr/bin/env bash
# Kubernetes control plane, kubelet, kube-proxy and kubectl, built from the Go module proxy, plus the
# pause image's binary from the same module.
#
# `go install k8s.io/kubernetes/...` is refused: the module's go.mod replaces every k8s.io/* library with
# ./staging/src/k8s.io/<name> and requires them at v0.0.0. The published module copies those staging
# folders as separate modules at v0.<minor>.<patch>, so the build drops the replaces and pins those.
set -euo pipefail
source "$(dirname "$0")/common.sh"

all_built() {
  local cmd
  for cmd in $KUBE_COMMANDS pause; do [ -x "$KUBE_BIN/$cmd" ] || return 1; done
}

install_kubernetes() {
  if all_built; then
    log "kubernetes $KUBERNETES_VERSION: cached ($KUBE_BIN)"
    return
  fi
  command -v go >/dev/null || die "go is not installed (needed to build Kubernetes)"
  log "building kubernetes $KUBERNETES_VERSION from the Go module proxy (first run only; about 11 minutes)"
  local started=$SECONDS src staging_version=v0.${KUBERNETES_VERSION#v1.}
  src=$(go_module_source k8s.io/kubernetes "$KUBERNETES_VERSION")
  rm -f "$src/go.work" "$src/go.work.sum"
  sed -i -E '/=> \.\/staging\//d' "$src/go.mod"
  sed -i -E "s#^(\tk8s\.io/[a-z0-9-]+) v0\.0\.0\$#\1 $staging_version#" "$src/go.mod"
  local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION"
  local minor=${KUBERNETES_VERSION#v1.}
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor%%.*}"
  local cmd missing=()
  for cmd in $KUBE_COMMANDS; do [ -x "$KUBE_BIN/$cmd" ] || missing+=("$cmd"); done
  mkdir -p "$src/out"
  if [ ${#missing[@]} -gt 0 ]; then
    log "building ${missing[*]}"
    # One go build for all of them: their shared packages compile once and the links overlap.
    if ! (cd "$src" && kube_go go build -trimpath -ldflags "$ldflags" -o out/ "${missing[@]/#/./cmd/}") >>"$src.log" 2>&1; then
      tail -n 30 "$src.log" >&2
      die "building ${missing[*]} failed (full output: $src.log, work dir: $src)"
    fi
    for cmd in "${missing[@]}"; do install_binary "$src/out/$cmd" "$KUBE_BIN/$cmd"; done
  fi
  # The sandbox ("pause") container's process: a static C binary, so its image needs nothing else.
  gcc -Os -static -DVERSION="$KUBERNETES_VERSION" -o "$src/out/pause" "$src/build/pause/linux/pause.c" ||
    die "compiling pause.c failed (gcc and the static libc are needed)"
  install_binary "$src/out/pause" "$KUBE_BIN/pause"
  rm -rf "$src" "$src.log"
  log "built kubernetes in $((SECONDS - started)) s"
}

with_lock kubernetes install_kubernetes
