#!/usr/bin/env bash
# MinIO (S3-compatible object storage), built from the Go module proxy at a pinned pseudo-version.
set -euo pipefail
source "$(dirname "$0")/common.sh"

install_minio() {
  if [ -x "$MINIO_BIN" ]; then
    log "minio $MINIO_VERSION: cached"
    return
  fi
  go_build "$MINIO_BIN" github.com/minio/minio "$MINIO_VERSION" github.com/minio/minio
}

with_lock minio install_minio
