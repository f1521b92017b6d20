#!/usr/bin/env bash
# Installs schemathesis from PyPI into a virtualenv in the tools cache, once per version, and prints
# the path of its `st` command. Concurrent runs wait on a lock and reuse the finished install.
set -euo pipefail

VERSION=${THUMBFORGE_SCHEMATHESIS_VERSION:-4.32.5}
CACHE_DIR=${THUMBFORGE_TOOLS_CACHE:-$HOME/.cache/thumbforge-tools}
VENV="$CACHE_DIR/schemathesis/$VERSION"
PYTHON=${PYTHON:-python3}

mkdir -p "$CACHE_DIR/schemathesis"
(
  flock -w 1800 9 || { echo "timed out waiting for the schemathesis lock" >&2; exit 1; }
  # The marker is written last: an interrupted install is started over, never half used.
  if [ ! -f "$VENV/.complete" ]; then
    echo "[schemathesis] installing $VERSION into $VENV" >&2
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    nice -n 10 "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION" >&2
    touch "$VENV/.complete"
  fi
) 9>"$CACHE_DIR/schemathesis.lock"
echo "$VENV/bin/st"
