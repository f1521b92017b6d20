# Starting, awaiting and stopping the servers of one state directory. Shared by up (every wanted server,
# on ports it picks and records in <state-dir>/ports) and server (one of them again, on those ports).
# Expects $state_dir and, for a server, its ports: kafka_port and controller_port, mongo_port and
# mongo_debug_port, s3_port and console_port.
# shellcheck shell=bash

# The process (pid file and log name) that runs each service.
process_of() {
  case $1 in
    kafka) REPLY=kafka ;;
    mongo) REPLY=ferretdb ;;
    s3) REPLY=minio ;;
    *) die "unknown service '$1' (kafka, mongo, s3)" ;;
  esac
}

# Starts "$@" in its own session (so it can be stopped with its whole process group), logging to <name>.log.
start() {
  local name=$1
  shift
  setsid "$@" >"$state_dir/$name.log" 2>&1 </dev/null &
  echo $! >"$state_dir/$name.pid"
}

alive() { [ -f "$state_dir/$1.pid" ] && kill -0 "$(cat "$state_dir/$1.pid")" 2>/dev/null; }

http_status() {
  local port=$1 path=$2 line=""
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3
  IFS= read -r -t 2 line <&3 || true
  exec 3<&- 3>&-
  [[ $line == *" 200 "* ]]
}

# wait_for <name> <seconds> <check command...>
wait_for() {
  local name=$1 timeout=$2 started=$SECONDS
  shift 2
  until "$@" 2>/dev/null; do
    alive "$name" || die "$name exited during start-up (log: $state_dir/$name.log)"
    [ $((SECONDS - started)) -lt "$timeout" ] || die "$name did not answer within $timeout s (log: $state_dir/$name.log)"
    sleep 0.2
  done
  log "$name ready after $((SECONDS - started)) s"
}

launch_kafka() {
  mkdir -p "$state_dir/kafka"
  [ -f "$state_dir/kafka/data/meta.properties" ] || cp -R "$KAFKA_HOME/template" "$state_dir/kafka/data"
  cat >"$state_dir/kafka/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$state_dir/kafka/data
# Topics are created explicitly by the event log adapter, with their partitions and retention.
auto.create.topics.enable=false
num.partitions=1
# One node: internal topics cannot be replicated.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# A consumer group of one member (tests, replays) starts at once instead of waiting 3 s for more.
group.initial.rebalance.delay.ms=0
PROPS
  log "starting kafka $KAFKA_VERSION on 127.0.0.1:$kafka_port"
  # shellcheck disable=SC2086
  start kafka java ${THUMBFORGE_KAFKA_JVM_OPTS:--Xms256m -Xmx1g -XX:+UseG1GC} -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$KAFKA_HOME/log4j2.properties" -cp "$KAFKA_HOME/libs/*" \
    kafka.Kafka "$state_dir/kafka/server.properties"
}

launch_mongo() {
  mkdir -p "$state_dir/ferretdb/data"
  log "starting ferretdb $FERRETDB_VERSION (sqlite) on 127.0.0.1:$mongo_port"
  start ferretdb "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$state_dir/ferretdb/data/" \
    --state-dir="$state_dir/ferretdb" --listen-addr="127.0.0.1:$mongo_port" \
    --debug-addr="127.0.0.1:$mongo_debug_port" --telemetry=disable --log-level=warn
}

# Sets s3_access_key and s3_secret_key: generated once per state directory, so a restart keeps them.
s3_credentials() {
  mkdir -p "$state_dir/minio"
  if [ ! -f "$state_dir/minio/credentials" ]; then
    printf 'thumbforge\n%s\n' "$(head -c 18 /dev/urandom | base64 | tr -d '/+=')" >"$state_dir/minio/credentials"
  fi
  { read -r s3_access_key && read -r s3_secret_key; } <"$state_dir/minio/credentials"
}

launch_s3() {
  mkdir -p "$state_dir/minio/data"
  s3_credentials
  log "starting minio on 127.0.0.1:$s3_port"
  MINIO_ROOT_USER=$s3_access_key MINIO_ROOT_PASSWORD=$s3_secret_key MINIO_BROWSER=off MINIO_UPDATE=off \
    start minio "$MINIO_BIN" server --quiet --address "127.0.0.1:$s3_port" \
    --console-address "127.0.0.1:$console_port" "$state_dir/minio/data"
}

await_kafka() { wait_for kafka 120 grep -q 'Kafka Server started' "$state_dir/kafka.log"; }
await_mongo() { wait_for ferretdb 60 http_status "$mongo_debug_port" /debug/readyz; }
await_s3() { wait_for minio 60 http_status "$s3_port" /minio/health/ready; }

# wait_gone <tenths of a second> <pid...>: true once no process group of those leaders is left.
wait_gone() {
  local tenths=$1 pid left
  shift
  for _ in $(seq 1 "$tenths"); do
    left=0
    for pid in "$@"; do kill -0 -- "-$pid" 2>/dev/null && left=1; done
    [ "$left" -eq 1 ] || return 0
    sleep 0.1
  done
  return 1
}

# Sends SIGTERM to each process group given by its leader's pid, waits up to 10 s, then SIGKILLs the
# groups still there; returns once they are gone, so their ports are free again.
stop_process_groups() {
  local pids=() pid
  for pid in "$@"; do
    kill -TERM -- "-$pid" 2>/dev/null && pids+=("$pid")
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  wait_gone 100 "${pids[@]}" && return 0
  for pid in "${pids[@]}"; do
    kill -0 -- "-$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null && log "killed process group $pid"
  done
  wait_gone 50 "${pids[@]}" || log "process groups ${pids[*]} still present after SIGKILL"
}
