# Shared by the kube scripts: versions, cache layout, and the helpers of tools/infra (progress lines,
# flock, installs that are atomic).
# shellcheck shell=bash

KUBE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOG_TAG=kube
source "$KUBE_DIR/../infra/scripts/common.sh"

KUBERNETES_VERSION=${THUMBFORGE_KUBERNETES_VERSION:-v1.37.2}
COREDNS_VERSION=${THUMBFORGE_COREDNS_VERSION:-v1.15.0}
NODE_VERSION=${THUMBFORGE_NODE_VERSION:-24}
# Prometheus 3.x publishes its Go module as v0.<major><minor>.<patch>.
PROMETHEUS_VERSION=${THUMBFORGE_PROMETHEUS_VERSION:-v0.316.0}

KUBE_BIN="$CACHE_DIR/kubernetes/$KUBERNETES_VERSION"
KUBE_COMMANDS="kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl"
# Both are built with fewer parts than upstream's release (see provision-images.sh and
# provision-prometheus.sh); the suffix keeps them apart from full builds in the same cache.
COREDNS_BUILD=$COREDNS_VERSION-node-plugins
PROMETHEUS_BUILD=$PROMETHEUS_VERSION-no-sd
COREDNS_BIN="$CACHE_DIR/coredns/$COREDNS_BUILD/coredns"
PROMETHEUS_BIN="$CACHE_DIR/prometheus/$PROMETHEUS_BUILD/prometheus"
DEBS_DIR="$CACHE_DIR/debs"
BASE_IMAGE_DIR="$CACHE_DIR/base-image/node-$NODE_VERSION-bookworm-slim"
# Where podman keeps its images: a folder of ours, never the host's /var/lib/containers.
PODMAN_ROOT="$CACHE_DIR/podman"

# The Go builds (Kubernetes, CoreDNS, Prometheus) are the longest part of a cold run: the lowest
# priority, so a shared machine's other work goes first, and a package per core, so an idle machine (a
# CI runner) finishes them sooner. THUMBFORGE_GO_PROCS overrides the count; GO_TAGS adds build tags.
kube_go() {
  GOFLAGS="-buildvcs=false -p=${THUMBFORGE_GO_PROCS:-$(nproc)} -mod=mod${GO_TAGS:+ -tags=$GO_TAGS}" GOWORK=off \
    CGO_ENABLED=0 GOTOOLCHAIN=local nice -n 19 "$@"
}

NODE_FULL_VERSION=${THUMBFORGE_NODE_FULL_VERSION:-24.21.0}
NPM_VERSION=${THUMBFORGE_NPM_VERSION:-11.21.2}
BASE_IMAGE=docker.io/library/node:24-bookworm-slim

# podman as it works on these hosts (cgroups v1, a capped open-files limit, no systemd): runc, cgroupfs,
# ulimits within the hard limit, and storage in the tools cache rather than /var/lib/containers.
kpodman() {
  mkdir -p "$PODMAN_ROOT"
  if [ ! -f "$PODMAN_ROOT/containers.conf" ]; then
    local nofile
    nofile=$(ulimit -Hn)
    [ "$nofile" = unlimited ] && nofile=1048576
    cat >"$PODMAN_ROOT/containers.conf.tmp" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nofile:$nofile"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
    mv "$PODMAN_ROOT/containers.conf.tmp" "$PODMAN_ROOT/containers.conf"
  fi
  CONTAINERS_CONF="$PODMAN_ROOT/containers.conf" nice -n "${PODMAN_NICE:-0}" podman --root "$PODMAN_ROOT/storage" \
    --runroot "$PODMAN_ROOT/run" --storage-driver overlay "$@"
}

# The node's network. A bridge of its own on a documentation range (RFC 5737), so nothing on the host
# or its loopback is touched: the node, the pods and the host side all live on one /24, Services on a
# benchmarking range (RFC 2544). Not 192.0.2.0/24: some hosts (this project's CI among them) already use
# it for their own interface; up refuses a range the host routes already.
BRIDGE=${THUMBFORGE_KUBE_BRIDGE:-tfkube0}
NODE_NET=${THUMBFORGE_KUBE_NET:-198.51.100}
NODE_IP=$NODE_NET.1
NODE_CIDR=$NODE_NET.0/24
POD_RANGE_START=$NODE_NET.16
SERVICE_CIDR=198.19.0.0/24
DNS_IP=198.19.0.10
NODE_NAME=thumbforge-node
# Which state directory owns the bridge, so up can tell a running cluster from one killed mid-run.
CLUSTER_MARKER=/run/thumbforge-kube-$BRIDGE.state
PAUSE_IMAGE=localhost/pause:$KUBERNETES_VERSION
COREDNS_IMAGE=localhost/coredns:$COREDNS_VERSION
PROMETHEUS_IMAGE=localhost/prometheus:$PROMETHEUS_VERSION
# Kernel settings the kubelet and kube-proxy may change; up records them, down writes them back.
SYSCTLS="net/ipv4/ip_forward net/ipv4/conf/all/route_localnet net/bridge/bridge-nf-call-iptables
  vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys
  kernel/keys/root_maxbytes net/netfilter/nf_conntrack_max"
# Paths outside the state directory that containerd and CNI create when missing; down removes the
# ones up found missing.
HOST_PATHS="/run/containerd /run/netns /var/lib/cni /etc/cni /opt/cni /opt/containerd /var/log/containers"
