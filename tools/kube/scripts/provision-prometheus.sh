#!/usr/bin/env bash
# Prometheus, built from the Go module proxy: the cluster tests point the services' OTLP export at its
# OTLP receiver and run the dashboards' and alert rules' queries against it. Its web UI assets are not
# embedded (the `builtinassets` tag needs a Node build of the UI); the HTTP API is all the tests use.
set -euo pipefail
source "$(dirname "$0")/common.sh"

install_prometheus() {
  if [ -x "$PROMETHEUS_BIN" ]; then
    log "prometheus $PROMETHEUS_VERSION: cached"
    return
  fi
  # The longest build after Kubernetes: the lowest priority, like it.
  go_env() { kube_go "$@"; }
  go_build "$PROMETHEUS_BIN" github.com/prometheus/prometheus "$PROMETHEUS_VERSION" \
    github.com/prometheus/prometheus/cmd/prometheus
}

with_lock prometheus install_prometheus
