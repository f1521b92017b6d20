/**
 * Creates every event topic ahead of the services, idempotently: `node libs/cluster/dist/create-topics.js`
 * with the same environment as the service processes. Services also create topics on first use, but
 * with one replica; run before them (the Helm chart's pre-install/pre-upgrade hook does), topics get
 * the replication factor a production broker needs, and a bad cluster setting fails the deployment
 * before any pod rolls. Exit codes: 0 done, 78 invalid configuration, 1 Kafka refused or was unreachable.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { TOPICS } from '@thumbforge/contracts';
import { LEASE_TOPIC } from '@thumbforge/event-log';
import { KafkaEventLog } from '@thumbforge/event-log/kafka';
import { ConfigError, integer } from '@thumbforge/platform';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { kafkaConnection } from './kafka-connection.js';
import { loadClusterSettings } from './settings.js';

const NAME = 'thumbforge create-topics';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

async function main(): Promise<void> {
  let settings;
  let connection;
  let replicationFactor: number;
  try {
    settings = loadClusterSettings(process.env);
    connection = kafkaConnection(settings.kafka);
    // Only topic creation needs it, so it lives here rather than in the services' settings.
    replicationFactor = integer(process.env, 'KAFKA_REPLICATION_FACTOR', 1, 1, 32);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${NAME}: invalid configuration: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const { brokers, clientId, partitions } = settings.kafka;
  // The lease topic always has one partition: its one owner per group is the projection's writer.
  const topics = [...Object.values(TOPICS), LEASE_TOPIC];
  process.stdout.write(
    `${NAME}: ${brokers.join(',')}, new topics get ${plural(partitions, 'partition')} ` +
      `and replication factor ${replicationFactor}\n`,
  );

  const admin = new Kafka({
    ...connection,
    clientId: `${clientId}-create-topics`,
    // The mechanisms are a subset of kafkajs's own union; TypeScript cannot narrow the string union.
    sasl: connection.sasl as SASLOptions | undefined,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const before = new Set(await admin.listTopics());
    await withRetries(async () => {
      const log = new KafkaEventLog({
        ...connection,
        clientId: `${clientId}-create-topics`,
        partitions,
        replicationFactor,
      });
      try {
        await log.open();
        await log.createTopics(topics);
      } finally {
        await log.close();
      }
    });
    const metadata = await withRetries(() => admin.fetchTopicMetadata({ topics }));
    const counts = new Map(metadata.topics.map((t) => [t.name, t.partitions.length]));
    for (const topic of topics) {
      const count = counts.get(topic) ?? 0;
      const state = before.has(topic) ? 'exists ' : 'created';
      // An existing topic keeps its count: changing it would move keys between partitions.
      const note =
        before.has(topic) && topic !== LEASE_TOPIC && count !== partitions
          ? ' (KAFKA_PARTITIONS applies to new topics only)'
          : '';
      process.stdout.write(`${state} ${topic} (${plural(count, 'partition')})${note}\n`);
    }
    const created = topics.filter((t) => !before.has(t)).length;
    process.stdout.write(
      `${NAME}: ${plural(topics.length, 'topic')} ready (${created} created, ${topics.length - created} already there)\n`,
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * A topic just created can be missing from the metadata of the broker that answers next (KRaft
 * propagates it asynchronously), which kafkajs reports as an error instead of waiting. A new attempt
 * finds the topic existing and only reads its metadata.
 */
const PROPAGATION_ERRORS = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);
const ATTEMPTS = 5;

async function withRetries<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n === ATTEMPTS || !PROPAGATION_ERRORS.has((error as { type?: string }).type ?? '')) throw error;
      process.stdout.write(`${NAME}: ${(error as Error).message}; trying again\n`);
      await delay(n * 500);
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${NAME}: failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
