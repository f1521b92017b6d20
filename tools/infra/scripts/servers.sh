# Starting, awaiting and stopping the servers of one state directory. Shared by up (every wanted server,
# on ports it picks and records in <state-dir>/ports) and server (one of them again, on those ports).
# Expects $state_dir and, for a server, its ports: kafka_port and controller_port (and kafka_sasl_port
# for the SASL_SSL listener), mongo_port and mongo_debug_port, s3_port and console_port. Servers listen
# on $listen_host (127.0.0.1 unless up was given --host).
# shellcheck shell=bash

listen_host=127.0.0.1

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

# http_status <port> <path>: true when the server on 127.0.0.1 (or $HTTP_HOST) answers 200.
http_status() {
  local port=$1 path=$2 line=""
  exec 3<>"/dev/tcp/${HTTP_HOST:-127.0.0.1}/$port" || return 1
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

# Sets kafka_plain_user/password and kafka_scram_user/password, and makes the SASL_SSL listener's CA and
# certificate with openssl: once per state directory, so a restarted broker keeps them.
kafka_sasl_ssl_material() {
  local tls=$state_dir/kafka/tls
  if [ ! -f "$tls/users" ]; then
    mkdir -p "$tls"
    (
      cd "$tls"
      openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=thumbforge-test-ca
      openssl req -newkey rsa:2048 -nodes -keyout broker.key -out broker.csr -subj /CN=kafka
      printf 'subjectAltName=IP:%s,DNS:localhost\n' "$listen_host" >broker.ext
      openssl x509 -req -in broker.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile broker.ext -out broker.crt
      # Kafka's PEM key store: the unencrypted PKCS#8 key followed by the certificate chain.
      cat broker.key broker.crt ca.crt >broker.pem
      rm -f broker.csr broker.ext ca.srl
    ) >/dev/null 2>&1 || die "making the Kafka TLS certificates with openssl failed"
    secret() { head -c 18 /dev/urandom | base64 | tr -d '/+='; }
    printf 'thumbforge-plain\n%s\nthumbforge-scram\n%s\n' "$(secret)" "$(secret)" >"$tls/users"
  fi
  { read -r kafka_plain_user && read -r kafka_plain_password && read -r kafka_scram_user &&
    read -r kafka_scram_password; } <"$tls/users"
}

launch_kafka() {
  mkdir -p "$state_dir/kafka"
  [ -f "$state_dir/kafka/data/meta.properties" ] || cp -R "$KAFKA_HOME/template" "$state_dir/kafka/data"
  local listeners="PLAINTEXT://$listen_host:$kafka_port" protocols=PLAINTEXT:PLAINTEXT security=""
  if [ -n "${kafka_sasl_port:-}" ]; then
    kafka_sasl_ssl_material
    listeners+=",SASL_SSL://$listen_host:$kafka_sasl_port"
    protocols+=",SASL_SSL:SASL_SSL"
    local scram='org.apache.kafka.common.security.scram.ScramLoginModule required;'
    security="sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$kafka_plain_user=\"$kafka_plain_password\";
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=$scram
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=$scram
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$state_dir/kafka/tls/broker.pem"
  fi
  cat >"$state_dir/kafka/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$listen_host:$controller_port
listeners=$listeners,CONTROLLER://$listen_host:$controller_port
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,$protocols
inter.broker.listener.name=PLAINTEXT
$security
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
  log "starting kafka $KAFKA_VERSION on $listen_host:$kafka_port${kafka_sasl_port:+ (SASL_SSL on $kafka_sasl_port)}"
  # shellcheck disable=SC2086
  start kafka java ${THUMBFORGE_KAFKA_JVM_OPTS:--Xms256m -Xmx1g -XX:+UseG1GC} -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$KAFKA_HOME/log4j2.properties" -cp "$KAFKA_HOME/libs/*" \
    kafka.Kafka "$state_dir/kafka/server.properties"
}

launch_mongo() {
  mkdir -p "$state_dir/ferretdb/data"
  log "starting ferretdb $FERRETDB_VERSION (sqlite) on $listen_host:$mongo_port"
  # synchronous(normal): commits survive the process dying without a sync of the WAL each; the
  # database holds projections of the event log only (docs/infrastructure.md, FerretDB).
  start ferretdb "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$state_dir/ferretdb/data/?_pragma=synchronous(normal)" \
    --state-dir="$state_dir/ferretdb" --listen-addr="$listen_host:$mongo_port" \
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
  log "starting minio on $listen_host:$s3_port"
  MINIO_ROOT_USER=$s3_access_key MINIO_ROOT_PASSWORD=$s3_secret_key MINIO_BROWSER=off MINIO_UPDATE=off \
    start minio "$MINIO_BIN" server --quiet --address "$listen_host:$s3_port" \
    --console-address "127.0.0.1:$console_port" "$state_dir/minio/data"
}

await_kafka() {
  wait_for kafka 120 grep -q 'Kafka Server started' "$state_dir/kafka.log"
  [ -z "${kafka_sasl_port:-}" ] || [ -f "$state_dir/kafka/tls/scram-added" ] || add_scram_user
}
await_mongo() { wait_for ferretdb 60 http_status "$mongo_debug_port" /debug/readyz; }
# /minio/health/ready answers 200 before the object layer is up (S3 calls then fail with
# XMinioServerNotInitialized); the cluster check answers 503 until it, bucket metadata and IAM are.
await_s3() { HTTP_HOST=$listen_host wait_for minio 60 http_status "$s3_port" /minio/health/cluster; }

# SCRAM credentials live in the cluster's metadata (KRaft), so they are added through the broker, one
# mechanism per request (the broker refuses two changes to one user's credentials in one request).
add_scram_user() {
  local mechanism
  for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
    java -Xmx128m -cp "$KAFKA_HOME/libs/*" -Dlog4j2.configurationFile="$KAFKA_HOME/log4j2.properties" \
      kafka.admin.ConfigCommand --bootstrap-server "$listen_host:$kafka_port" --alter --entity-type users \
      --entity-name "$kafka_scram_user" --add-config "$mechanism=[password=$kafka_scram_password]" \
      >>"$state_dir/kafka.log" 2>&1 || die "adding the $mechanism user failed (log: $state_dir/kafka.log)"
  done
  touch "$state_dir/kafka/tls/scram-added"
  log "kafka SCRAM user $kafka_scram_user added"
}

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
