#!/usr/bin/env bash
# CoreDNS (built from the Go module proxy) and the images the node needs besides Thumbforge's own: the
# sandbox ("pause") image and CoreDNS, and with --prometheus Prometheus, each a single static binary, saved as archives that
# `ctr images import` loads into the node's containerd.
set -euo pipefail
source "$(dirname "$0")/common.sh"

install_coredns() {
  if [ -x "$COREDNS_BIN" ]; then
    log "coredns $COREDNS_BUILD: cached"
    return
  fi
  go_env() { kube_go "$@"; }
  # Only the plugins the node's Corefile uses (tools/kube/coredns/main.go).
  go_build "$COREDNS_BIN" github.com/coredns/coredns "$COREDNS_VERSION" github.com/coredns/coredns \
    "$KUBE_DIR/coredns/main.go"
}

# single_binary_image <archive> <image> <binary> <entrypoint path>
single_binary_image() {
  local archive=$1 image=$2 binary=$3 path=$4
  if [ -f "$archive" ]; then
    log "$image: cached"
    return
  fi
  local tmp
  tmp=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
  install -D -m 0755 "$binary" "$tmp/rootfs$path"
  tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" .
  kpodman import --change "ENTRYPOINT [\"$path\"]" "$tmp/rootfs.tar" "$image" >/dev/null 2>&1 ||
    die "podman import of $image failed"
  mkdir -p "$(dirname "$archive")"
  kpodman save --format docker-archive -o "$tmp/image.tar" "$image" >/dev/null 2>&1 || die "podman save of $image failed"
  mv "$tmp/image.tar" "$archive"
  rm -rf "$tmp"
  log "made $image"
}

with_lock coredns install_coredns
with_lock podman single_binary_image "$CACHE_DIR/images/pause-$KUBERNETES_VERSION.tar" "$PAUSE_IMAGE" "$KUBE_BIN/pause" /pause
with_lock podman single_binary_image "$CACHE_DIR/images/coredns-$COREDNS_BUILD.tar" "$COREDNS_IMAGE" "$COREDNS_BIN" /coredns
if [ "${1:-}" = --prometheus ]; then
  with_lock podman single_binary_image "$CACHE_DIR/images/prometheus-$PROMETHEUS_BUILD.tar" "$PROMETHEUS_IMAGE" \
    "$PROMETHEUS_BIN" /bin/prometheus
fi
