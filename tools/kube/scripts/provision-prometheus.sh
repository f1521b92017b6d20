#!/usr/bin/env bash
# Prometheus, built from the Go module proxy: the cluster tests point the services' OTLP export at its
# OTLP receiver and run the dashboards' and alert rules' queries against it. Its web UI assets are not
# embedded (the `builtinassets` tag needs a Node build of the UI) and no service discovery is linked
# (`remove_all_sd`: it scrapes nothing, and the cloud SDKs were most of the cold build); the OTLP
# receiver and the HTTP API are all the tests use.
set -euo pipefail
source "$(dirname "$0")/common.sh"

install_prometheus() {
  if [ -x "$PROMETHEUS_BIN" ]; then
    log "prometheus $PROMETHEUS_BUILD: cached"
    return
  fi
  go_env() { GO_TAGS=remove_all_sd kube_go "$@"; }
  go_build "$PROMETHEUS_BIN" github.com/prometheus/prometheus "$PROMETHEUS_VERSION" \
    github.com/prometheus/prometheus/cmd/prometheus
}

with_lock prometheus install_prometheus
