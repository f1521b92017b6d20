#!/usr/bin/env bash
# FerretDB v1 (MongoDB wire protocol over its pure-Go SQLite backend), built from the Go module proxy.
set -euo pipefail
source "$(dirname "$0")/common.sh"

install_ferretdb() {
  if [ -x "$FERRETDB_BIN" ]; then
    log "ferretdb $FERRETDB_VERSION: cached ($FERRETDB_BIN)"
    return
  fi
  log "building ferretdb $FERRETDB_VERSION ($FERRETDB_BUILD) from the Go module proxy (first run only; a few minutes)"
  local started=$SECONDS src
  src=$(go_module_source github.com/FerretDB/FerretDB "$FERRETDB_VERSION")
  # The release process generates build/version/version.txt; a binary built without it refuses to start.
  echo "$FERRETDB_VERSION" >"$src/build/version/version.txt"
  echo "thumbforge-tools" >"$src/build/version/package.txt"
  # v1's SQLite backend indexes _id as `_ferretdb_sjson->"_id"` but looks documents up by
  # `_ferretdb_sjson->'$._id'`: SQLite matches index expressions as written, so every update and delete
  # by _id scanned the whole table (12 ms at 5,000 documents, growing with each). Looking up by the
  # indexed expression makes them index seeks, with the same results.
  local metadata="$src/internal/backends/sqlite/metadata/metadata.go"
  grep -q "IDColumn = DefaultColumn + \"->'\$._id'\"" "$metadata" ||
    die "ferretdb $FERRETDB_VERSION: $metadata no longer has the _id expression this build fixes"
  sed -i "s/IDColumn = DefaultColumn + \"->'\$._id'\"/IDColumn = DefaultColumn + \`->\"_id\"\`/" "$metadata"
  # The backend also pushes a lookup by _id down to SQLite only when the filter is that one field, so
  # a replace conditional on the document's revision (`{_id, _rev}`) scanned the table as well. The
  # backend contract lets a backend apply a filter partly (the handler filters what it returns
  # again), so an _id among other fields is pushed down too.
  local collection="$src/internal/backends/sqlite/collection.go"
  [ "$(grep -c 'if params.Filter.Len() == 1 {' "$collection")" = 2 ] ||
    die "ferretdb $FERRETDB_VERSION: $collection no longer has the two _id pushdowns this build widens"
  sed -i 's/if params.Filter.Len() == 1 {/if params.Filter.Len() >= 1 {/' "$collection"
  if ! (cd "$src" && go_env go build -trimpath -o "$src/ferretdb.out" ./cmd/ferretdb) >"$src.log" 2>&1; then
    tail -n 30 "$src.log" >&2
    die "building ferretdb failed (full output: $src.log)"
  fi
  install_binary "$src/ferretdb.out" "$FERRETDB_BIN"
  rm -rf "$src" "$src.log"
  log "built ferretdb in $((SECONDS - started)) s"
}

with_lock ferretdb install_ferretdb
