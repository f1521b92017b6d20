#!/usr/bin/env bash
# Apache Kafka (KRaft mode, no ZooKeeper) from its Maven Central artifacts: the broker module
# org.apache.kafka:kafka_2.13 and its runtime dependency closure, resolved by Maven into one classpath
# directory, plus a log4j2 binding, run on the machine's JDK.
set -euo pipefail
source "$(dirname "$0")/common.sh"

LOG4J_VERSION=2.25.4

write_pom() {
  cat >"$1" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.thumbforge</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>$KAFKA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_$KAFKA_SCALA</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <!-- Kafka logs through slf4j 1.7; this routes it to log4j2, which the broker already depends on. -->
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
}

write_log4j_config() {
  cat >"$1" <<'LOG4J'
status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d{HH:mm:ss,SSS}] %p %m (%c{1})%n
rootLogger.level = info
rootLogger.appenderRef.out.ref = out
logger.apache.name = org.apache.kafka
logger.apache.level = warn
logger.raft.name = org.apache.kafka.raft
logger.raft.level = warn
LOG4J
}

check_java() {
  command -v java >/dev/null || die "java is not installed (Kafka needs a JDK 17 or later)"
  local major
  major=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  [ "${major%%.*}" -ge 17 ] 2>/dev/null || die "Kafka $KAFKA_VERSION needs Java 17 or later, found ${major:-unknown}"
}

# A formatted KRaft log directory (cluster id, node id 1, bootstrap metadata), copied for every run:
# formatting costs a JVM start, copying costs nothing. The listener ports are not part of the format.
format_template() {
  local home=$1 cluster_id
  cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  cat >"$home/format.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093
controller.listener.names=CONTROLLER
log.dirs=$home/template
PROPS
  log "formatting a KRaft log directory template"
  if ! java -Xmx256m -Dlog4j2.configurationFile="$home/log4j2.properties" -cp "$home/libs/*" \
    kafka.tools.StorageTool format -t "$cluster_id" -c "$home/format.properties" >"$home/format.log" 2>&1; then
    cat "$home/format.log" >&2
    die "kafka storage format failed"
  fi
  rm -f "$home/format.properties" "$home/format.log"
}

install_kafka() {
  if [ -f "$KAFKA_HOME/.complete" ]; then
    log "kafka $KAFKA_VERSION: cached ($KAFKA_HOME)"
    return
  fi
  check_java
  command -v mvn >/dev/null || die "mvn is not installed (needed to resolve Kafka from Maven Central)"
  local started=$SECONDS tmp
  mkdir -p "$CACHE_DIR/kafka"
  tmp=$(mktemp -d "$CACHE_DIR/kafka/.build.XXXXXX")
  log "resolving org.apache.kafka:kafka_$KAFKA_SCALA:$KAFKA_VERSION and its dependencies from Maven Central"
  write_pom "$tmp/pom.xml"
  if ! mvn -B -ntp -f "$tmp/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$tmp/libs" -DincludeScope=runtime >"$tmp/maven.log" 2>&1; then
    tail -n 30 "$tmp/maven.log" >&2
    die "maven could not resolve Kafka $KAFKA_VERSION (full output: $tmp/maven.log)"
  fi
  log "resolved $(find "$tmp/libs" -name '*.jar' | wc -l) jars ($(du -sh "$tmp/libs" | cut -f1))"
  write_log4j_config "$tmp/log4j2.properties"
  format_template "$tmp"
  rm -f "$tmp/maven.log"
  touch "$tmp/.complete"
  rm -rf "$KAFKA_HOME"
  mv "$tmp" "$KAFKA_HOME"
  log "kafka $KAFKA_VERSION installed in $((SECONDS - started)) s"
}

with_lock kafka install_kafka
