#!/bin/sh
# Starts one Thumbforge process, in the image or (`npm start`) in a checkout. The first argument names
# it; the rest are passed on.
#
#   gateway | billing | asset | rendering | webhook-delivery   one service in cluster mode
#   create-topics    creates the Kafka topics idempotently (the Helm chart runs it as a hook)
#   embedded         all five services in one process on local storage under DATA_DIR
#   cli              the admin command line (talks to a gateway's admin API: --url, ADMIN_TOKEN)
set -eu

name=${1:-}
case "$name" in
  gateway) main=services/gateway/dist/main.js ;;
  billing) main=services/billing/dist/main.js ;;
  asset) main=services/asset/dist/main.js ;;
  rendering) main=services/rendering/dist/main.js ;;
  webhook-delivery) main=services/webhook-delivery/dist/main.js ;;
  create-topics) main=libs/cluster/dist/create-topics.js ;;
  embedded) main=services/embedded/dist/main.js ;;
  cli) main=services/embedded/dist/cli.js ;;
  *)
    echo "thumbforge image: unknown command '$name'; expected one of: gateway, billing, asset, rendering, webhook-delivery, create-topics, embedded, cli" >&2
    exit 64
    ;;
esac
shift

# The per-service entry points refuse embedded mode, and embedded refuses cluster mode: default each
# to the mode it runs in, so `docker run IMAGE gateway` needs no THUMBFORGE_MODE.
case "$name" in
  embedded | cli) export THUMBFORGE_MODE="${THUMBFORGE_MODE:-embedded}" ;;
  *) export THUMBFORGE_MODE="${THUMBFORGE_MODE:-cluster}" ;;
esac

# Memory: glibc maps blocks above a fixed threshold afresh and returns them at free, instead of letting
# its arenas grow with what libvips' threads free, and V8's young generation stays small (Node 24
# sizes it to 128 MB on a machine this size). Embedded, 2,000 requests at 4 connections: RSS 532 MB
# before, 267 MB with these and RENDER_CACHE_MB's default. Embedded mode's threshold is 4 MiB: a
# youtube encode's 2.6 MB copy of the canvas and 1.3 MB YUV picture then come from the arenas instead
# of being mapped and faulted in on every render (890-990 → 290-340 page faults and 3.3-4.6 → 1.9-3.2
# ms of system time per request), and every process gives its arenas' free pages back once a second
# (`startMallocTrim`, libs/platform), so its RSS held: 291 MB after 10,000 requests against 296 at
# 1 MiB. The cluster's processes stay at 1 MiB: at 4 MiB the rendering replica saved 2-3 ms of CPU per
# request, but its RSS reached 245 MiB, past the line of its 250 MB budget (docs/architecture.md,
# "A rendering replica's libvips threads"). The threshold is set below, with each mode's V8 flags.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"

# Embedded mode also starts V8's old generation at 64 MB, and sets each next full collection a quarter
# above the heap the last one left. A render's scratch objects live through several young
# collections, so each is promoted and dies in the old generation; with V8's own start, a few MB above
# the live heap, a full collection ran every two or three renders (12 ms of main-thread GC per
# request), and the larger start took 4 connections from 35 to 46 req/s. The quarter bounds the other
# side: while dead objects wait for a full collection, so does the native memory they hold, and
# glibc's heap keeps its high-water mark. With V8's own growth the old generation reached 108 MB
# between two, and RSS stepped from 300 to 370 MB for good; growing by a quarter, RSS stayed under
# 300 MB at the same throughput. A rendering replica is left as it was: a 128 MB start took it from
# 271 to 305 MiB, past its 250 MB budget (docs/architecture.md, "Memory").
case "$name" in
  embedded)
    export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-4194304}"
    set -- --initial-old-space-size=64 --heap-growing-percent=25 "$(dirname "$0")/../$main" "$@"
    ;;
  *)
    export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-1048576}"
    set -- "$(dirname "$0")/../$main" "$@"
    ;;
esac

exec node --max-semi-space-size=4 "$@"
