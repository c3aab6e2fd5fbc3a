#!/usr/bin/env bash
# Creates Registrar's topics on a real Kafka/Redpanda cluster (idempotent: --if-not-exists).
# Partitions bound the parallelism of each worker type; every message is keyed by its flow id,
# so one flow's events stay in order. Retention: 7 days for flows, 30 days for dead letters.
set -euo pipefail
BOOTSTRAP=${BOOTSTRAP:-localhost:9092}
KAFKA_BIN=${KAFKA_BIN:-/opt/kafka/bin}
PARTITIONS=${PARTITIONS:-6}
REPLICATION_FACTOR=${REPLICATION_FACTOR:-1}
MIN_INSYNC_REPLICAS=${MIN_INSYNC_REPLICAS:-1}
WEEK=$((7 * 24 * 3600 * 1000))
MONTH=$((30 * 24 * 3600 * 1000))

create() { # name partitions retention-ms
  "$KAFKA_BIN/kafka-topics.sh" --bootstrap-server "$BOOTSTRAP" --create --if-not-exists \
    --topic "$1" --partitions "$2" --replication-factor "$REPLICATION_FACTOR" \
    --config retention.ms="$3" --config min.insync.replicas="$MIN_INSYNC_REPLICAS"
}

for topic in registration.requests registration.outcomes registration.replies image.commands profile.commands \
             code.requests code.outcomes; do
  create "$topic" "$PARTITIONS" "$WEEK"
done
for input in registration.requests registration.replies image.commands profile.commands code.requests; do
  create "$input.dlq" 1 "$MONTH"
done
"$KAFKA_BIN/kafka-topics.sh" --bootstrap-server "$BOOTSTRAP" --list
