#!/usr/bin/env bash
# Debian packages the local cluster runs on: the container tools (podman/buildah to build images,
# containerd + runc for the kubelet, CNI plugins), iptables for kube-proxy, debootstrap for the base
# image. Installed once with apt (needs root); etcd is only unpacked into the cache (`dpkg -x`), so no
# etcd service gets installed on the host.
set -euo pipefail
source "$(dirname "$0")/common.sh"

PACKAGES="podman buildah runc conmon containernetworking-plugins uidmap slirp4netns fuse-overlayfs
  debootstrap containerd iptables conntrack"
ETCD_BIN="$DEBS_DIR/etcd/usr/bin/etcd"

install_host_packages() {
  local missing=() pkg
  for pkg in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "installing ${missing[*]} needs root (apt-get)"
    log "installing Debian packages: ${missing[*]}"
    local t=$SECONDS
    # No service of these packages may start on the host (the cluster runs its own containerd): a
    # policy-rc.d that denies every start, for the duration of the install only.
    local policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      policy=/usr/sbin/policy-rc.d
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
    fi
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2 ||
      { apt-get -o DPkg::Lock::Timeout=600 update -q >&2 &&
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2; }
    [ -z "$policy" ] || rm -f "$policy"
    log "installed Debian packages in $((SECONDS - t)) s"
  else
    log "Debian packages: installed"
  fi
  if [ ! -x "$ETCD_BIN" ]; then
    log "unpacking etcd-server from Debian"
    local tmp
    tmp=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
    (cd "$tmp" && apt-get -o DPkg::Lock::Timeout=600 download -q etcd-server >&2) || die "apt-get download etcd-server failed"
    dpkg -x "$tmp"/etcd-server_*.deb "$tmp/etcd"
    rm -rf "$DEBS_DIR/etcd"
    mkdir -p "$DEBS_DIR"
    mv "$tmp/etcd" "$DEBS_DIR/etcd"
    rm -rf "$tmp"
  fi
}

with_lock host-packages install_host_packages
