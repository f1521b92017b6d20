#!/usr/bin/env bash
# Helm 3, built from the Go module proxy into the tools cache (idempotent; cached after the first run).
# Prints the path of the helm binary on stdout; progress goes to stderr.
#
#   tools/deploy-check/scripts/provision-helm.sh
set -euo pipefail

CACHE_DIR=${THUMBFORGE_TOOLS_CACHE:-$HOME/.cache/thumbforge-tools}
# Pinned for reproducible test runs; overridable for experiments.
HELM_VERSION=${THUMBFORGE_HELM_VERSION:-v3.22.0}
HELM_BIN="$CACHE_DIR/helm/$HELM_VERSION/helm"

log() { printf '[deploy-check %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

install_helm() {
  if [ -x "$HELM_BIN" ]; then
    log "helm $HELM_VERSION: cached ($HELM_BIN)"
    return
  fi
  command -v go >/dev/null || die "go is not installed (needed to build helm)"
  log "building helm $HELM_VERSION from the Go module proxy (first run only; minutes on two cores)"
  local started=$SECONDS work gomod k8s_minor ldflags
  work=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
  # The module cache stays in the tools cache so a rebuild (another version) downloads nothing twice.
  export GOPATH="$CACHE_DIR/helm/.gopath" GOFLAGS="-buildvcs=false -p=1" CGO_ENABLED=0 GOTOOLCHAIN=local
  gomod=$(cd "$work" && go mod download -json "helm.sh/helm/v3@$HELM_VERSION" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
  [ -f "$gomod" ] || die "could not download helm.sh/helm/v3@$HELM_VERSION from the module proxy"
  # As helm's Makefile does: without these, `helm template` assumes Kubernetes 1.20 and `helm version`
  # prints no version. The Kubernetes version is that of the client-go helm is built with.
  k8s_minor=$(sed -n 's/^\tk8s.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$gomod")
  [ -n "$k8s_minor" ] || die "no k8s.io/client-go requirement in $gomod"
  ldflags="-w -s -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  for pkg in pkg/lint/rules pkg/chartutil; do
    ldflags="$ldflags -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$k8s_minor"
  done
  # The binary lands in the work dir first and is moved into place whole, so nobody sees half of it.
  if ! (cd "$work" && GOBIN="$work/bin" nice -n 10 go install -trimpath -ldflags "$ldflags" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION") >"$work.log" 2>&1; then
    tail -n 30 "$work.log" >&2
    die "building helm failed (full output: $work.log, work dir: $work)"
  fi
  mkdir -p "$(dirname "$HELM_BIN")"
  mv "$work/bin/helm" "$HELM_BIN.tmp"
  mv "$HELM_BIN.tmp" "$HELM_BIN"
  rm -rf "$work" "$work.log"
  log "built helm in $((SECONDS - started)) s"
}

# An exclusive lock, so concurrent test runs build helm once and never see a half-installed one.
mkdir -p "$CACHE_DIR"
(
  flock -w 3600 9 || die "timed out waiting for the helm lock"
  install_helm
) 9>"$CACHE_DIR/helm.lock"
"$HELM_BIN" version --short >/dev/null || die "$HELM_BIN does not run"
echo "$HELM_BIN"
