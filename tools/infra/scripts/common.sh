# Shared by the provisioning and up/down scripts: cache location, progress output, locking, versions.
# shellcheck shell=bash

INFRA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${THUMBFORGE_TOOLS_CACHE:-$HOME/.cache/thumbforge-tools}

# Versions: overridable for experiments, pinned for reproducible test runs.
KAFKA_VERSION=${THUMBFORGE_KAFKA_VERSION:-4.2.1}
KAFKA_SCALA=2.13
FERRETDB_VERSION=${THUMBFORGE_FERRETDB_VERSION:-v1.24.2}
# MinIO publishes no semver tags; the module proxy serves commits by pseudo-version.
MINIO_VERSION=${THUMBFORGE_MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}

KAFKA_HOME="$CACHE_DIR/kafka/$KAFKA_VERSION"
# The build carries two source fixes (provision-ferretdb.sh); its name keeps builds without them apart.
FERRETDB_BUILD=idseek
FERRETDB_BIN="$CACHE_DIR/ferretdb/$FERRETDB_VERSION-$FERRETDB_BUILD/ferretdb"
MINIO_BIN="$CACHE_DIR/minio/$MINIO_VERSION/minio"

# LOG_TAG lets tools that reuse these helpers (tools/kube) prefix their own progress lines.
log() { printf '[%s %s] %s\n' "${LOG_TAG:-infra}" "$(date +%H:%M:%S)" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# Runs "$@" while holding an exclusive lock on $CACHE_DIR/<name>.lock, so concurrent test runs build a
# tool once and never see a half-installed one.
with_lock() {
  local name=$1
  shift
  mkdir -p "$CACHE_DIR"
  (
    flock -w 3600 9 || die "timed out waiting for the $name lock"
    "$@"
  ) 9>"$CACHE_DIR/$name.lock"
}

# Go builds share two cores with everything else: low priority, one package at a time.
go_env() {
  GOFLAGS="-buildvcs=false -p=1" CGO_ENABLED=0 GOTOOLCHAIN=local nice -n 10 "$@"
}

# Builds one Go command from the module proxy into $target. A throwaway main module requires the
# wanted version, so the build resolves exactly that module's own requirements; `go install mod@version`
# would also ask the proxy for the module's version list (for deprecation notices), which it refuses
# for some modules. An optional fifth argument, a main.go of ours, is built instead of $package against
# the same module (to link fewer of its parts).
go_build() {
  local target=$1 module=$2 version=$3 package=$4 main=${5:-}
  command -v go >/dev/null || die "go is not installed (needed to build $package)"
  mkdir -p "$CACHE_DIR"
  local tmp
  tmp=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
  printf 'module thumbforge.local/build\n\ngo 1.24\n\nrequire %s %s\n' "$module" "$version" >"$tmp/go.mod"
  log "building $package@$version (first run only; minutes on two cores)"
  local started=$SECONDS
  local build=$package
  [ -z "$main" ] || { cp "$main" "$tmp/main.go" && build=.; }
  if ! (cd "$tmp" && go_env go build -mod=mod -trimpath -o "$tmp/out" "$build") >"$tmp.log" 2>&1; then
    tail -n 30 "$tmp.log" >&2
    die "building $package failed (full output: $tmp.log, work dir: $tmp)"
  fi
  install_binary "$tmp/out" "$target"
  rm -rf "$tmp" "$tmp.log"
  log "built $package in $((SECONDS - started)) s"
}

# Copies the source of module@version from the module proxy into a fresh writable directory and prints
# its path, for builds that need a generated file the published module lacks.
go_module_source() {
  local module=$1 version=$2
  command -v go >/dev/null || die "go is not installed (needed to build $module)"
  mkdir -p "$CACHE_DIR"
  local dir src
  dir=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
  src=$(cd "$dir" && GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -d "$src" ] || die "could not download $module@$version from the module proxy"
  cp -R "$src/." "$dir/"
  chmod -R u+w "$dir"
  echo "$dir"
}

install_binary() {
  local built=$1 target=$2
  mkdir -p "$(dirname "$target")"
  mv "$built" "$target.tmp"
  mv "$target.tmp" "$target"
}
