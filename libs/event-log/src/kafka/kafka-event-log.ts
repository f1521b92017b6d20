import { randomUUID } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';
import {
  Kafka,
  logLevel as KafkaLogLevel,
  type Admin,
  type ConsumerConfig,
  type logCreator,
  type Message,
  type Producer,
  type SASLOptions,
} from 'kafkajs';
import { DEAD_LETTER_TOPIC } from '../dead-letter.js';
import { LEASE_TOPIC } from '../projector.js';
import {
  assertSubscriptionCounts,
  positionKey,
  typeFilter,
  unreadFilter,
  type AppendOptions,
  type EventLog,
  type ReadOptions,
  type Subscription,
  type SubscriptionOptions,
} from '../port.js';
import { bareEnvelope, toMessage } from './codec.js';
import {
  KafkaSubscription,
  type KafkaSubscriptionHost,
  type SubscriptionPlan,
} from './kafka-subscription.js';
import { readPartitionBatches, type ReaderHost } from './partition-reader.js';
import { createKeyPartitioner } from './partitioner.js';
import { fixKafkajsRequestQueue } from './request-queue.js';
import { withTimeout } from './deadline.js';
import { retryRetriable } from './retry.js';
import { Topics, type TopicSettings } from './topics.js';

/** The subset of a pino logger the adapter reports to. */
export interface KafkaEventLogLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** SASL credentials for the brokers: PLAIN or SCRAM (what managed Kafka services ask for). */
export interface KafkaSaslOptions {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

export interface KafkaEventLogOptions {
  brokers: string[];
  clientId?: string;
  /** TLS to the brokers: `true` trusts the system's CAs; options add a CA, a client certificate, … */
  ssl?: boolean | ConnectionOptions;
  sasl?: KafkaSaslOptions;
  /**
   * Partitions of the topics this log creates (default 1): one number for every topic, or
   * `{ default, [topic]: n }`. Events are keyed by aggregate, so more partitions spread aggregates
   * over consumers; the count of an existing topic is never changed (that would move keys).
   */
  partitions?: TopicSettings['partitions'];
  /** Replication factor of created topics (default 1, a single broker; use 3 in production). */
  replicationFactor?: number;
  /** Extra topic configuration at creation (e.g. `min.insync.replicas`). Retention is always infinite. */
  topicConfig?: Record<string, string>;
  /** Delay before retry `attempt` (1-based) of a failing handler; default 100 ms doubling, at most 2 s. */
  retryDelayMs?: (attempt: number) => number;
  /**
   * How long a fetch waits on the broker when there is nothing new (default 500 ms). New records are
   * delivered at once regardless; this bounds how long closing a subscription waits for its fetch.
   */
  maxWaitTimeMs?: number;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Concurrent appends are merged into one produce request up to these sizes. */
  maxBatchEvents?: number;
  maxBatchBytes?: number;
  /** Where kafkajs warnings and errors go (default: nowhere; failures still reject the calls). */
  logger?: KafkaEventLogLogger;
  /**
   * `readBatches` of at least this many records of a partition fetches them in a worker thread while
   * the caller parses and folds (default 50,000; a shorter read is not worth starting a thread).
   */
  fetchInWorkerFrom?: number;
}

/** Reads at least this long fetch in a worker thread (`PartitionFetcher`). */
const DEFAULT_FETCH_IN_WORKER_FROM = 50_000;

interface PendingAppend {
  topic: string;
  items: { envelope: EventEnvelope; partition: number; message: Message }[];
  bytes: number;
  resolve(stored: StoredEvent[]): void;
  reject(error: unknown): void;
}

// Before any client connects: every broker connection of the process gets the fixed request queue.
fixKafkajsRequestQueue();

function defaultRetryDelay(attempt: number): number {
  return Math.min(100 * 2 ** (attempt - 1), 2_000);
}

export class EventLogClosedError extends Error {
  constructor() {
    super('event log is closed');
    this.name = 'EventLogClosedError';
  }
}

/**
 * The event log on Apache Kafka (kafkajs). Topics are created explicitly and idempotently with
 * infinite retention; events are keyed by aggregate (or `AppendOptions.key`) with the Java client's
 * partitioner; the producer is idempotent and waits for all in-sync replicas. Concurrent appends are
 * merged into one produce request (one record batch per partition, so each append stays contiguous).
 *
 * Subscriptions: `committed` joins the consumer group named by `group` (replicas of a service share
 * its partitions) and commits only handled offsets; `beginning`, `end` and `{ positions }` use a
 * throwaway group of one that seeks to its start offsets when it joins and commits nothing (the broker
 * drops such a group once it is empty). `read` uses such a group too, assigned the one partition it reads.
 */
export class KafkaEventLog implements EventLog {
  private readonly kafka: Kafka;
  private readonly host: KafkaSubscriptionHost & ReaderHost;
  private readonly admin: Admin;
  private readonly producer: Producer;
  private readonly topics: Topics;
  private readonly partitionOf = createKeyPartitioner();
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly readers = new Set<(error: Error) => void>();
  private readonly retryDelay: (attempt: number) => number;
  private readonly maxBatchEvents: number;
  private readonly maxBatchBytes: number;
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | undefined;
  private state: 'new' | 'open' | 'closing' = 'new';
  private closed: Promise<void> | undefined;

  constructor(private readonly options: KafkaEventLogOptions) {
    if (!Array.isArray(options.brokers) || options.brokers.length === 0) {
      throw new TypeError('KafkaEventLog needs at least one broker');
    }
    const fetchInWorkerFrom = options.fetchInWorkerFrom ?? DEFAULT_FETCH_IN_WORKER_FROM;
    if (!Number.isSafeInteger(fetchInWorkerFrom) || fetchInWorkerFrom < 0) {
      throw new RangeError('fetchInWorkerFrom must be a non-negative integer');
    }
    const clientConfig = {
      clientId: options.clientId ?? 'thumbforge',
      brokers: options.brokers,
      ...(options.ssl ? { ssl: options.ssl } : {}),
      // The mechanisms are a subset of kafkajs's own union; TypeScript cannot narrow the string union.
      ...(options.sasl ? { sasl: options.sasl as SASLOptions } : {}),
    };
    this.kafka = new Kafka({
      ...clientConfig,
      logLevel: options.logger ? KafkaLogLevel.WARN : KafkaLogLevel.NOTHING,
      logCreator: this.logCreator(),
    });
    this.retryDelay = options.retryDelayMs ?? defaultRetryDelay;
    this.maxBatchEvents = options.maxBatchEvents ?? 1_000;
    this.maxBatchBytes = options.maxBatchBytes ?? 512 * 1024;
    this.admin = this.kafka.admin();
    this.producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
    this.topics = new Topics(this.admin, {
      partitions: withLeasePartition(options.partitions ?? 1),
      replicationFactor: options.replicationFactor ?? 1,
      config: options.topicConfig ?? {},
    });
    this.host = {
      kafka: this.kafka,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3_000,
      consumerConfig: (groupId) => this.consumerConfig(groupId),
      clientConfig,
      fetchInWorkerFrom,
      committedOffsets: (groupId, topics) => this.committedOffsets(groupId, topics),
      deadLetter: async (event) => {
        await this.append(DEAD_LETTER_TOPIC, [event]);
      },
      retryDelayMs: (attempt) => this.retryDelay(attempt),
      onError: (error, context) => this.options.logger?.error({ err: error }, `kafka event log: ${context}`),
      release: (subscription) => this.subscriptions.delete(subscription),
    };
  }

  /** Connects the admin client and the producer, and makes sure the dead-letter topic exists. */
  async open(): Promise<void> {
    if (this.state !== 'new') throw new Error('KafkaEventLog.open called twice');
    await this.admin.connect();
    await this.producer.connect();
    await this.topics.ensure(DEAD_LETTER_TOPIC);
    this.state = 'open';
  }

  /** Creates topics ahead of use (they are also created on first use). */
  async createTopics(topics: string[]): Promise<void> {
    this.assertOpen();
    await Promise.all(topics.map((topic) => this.topics.ensure(topic)));
  }

  async append(topic: string, events: EventEnvelope[], options: AppendOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    if (events.length === 0) return [];
    const partitions = await this.topics.ensure(topic);
    this.assertOpen();
    const target = options.partition;
    if (target !== undefined && (!Number.isInteger(target) || target < 0 || target >= partitions)) {
      throw new RangeError(`${topic} has no partition ${target}`);
    }
    let bytes = 0;
    const items = events.map((event) => {
      const envelope = bareEnvelope(event);
      const key = options.key ?? envelope.aggregateId;
      const partition = target ?? this.partitionOf(topic, key, partitions);
      const message = toMessage(envelope, key, partition);
      bytes += (message.value as Buffer).length;
      return { envelope, partition, message };
    });
    return new Promise<StoredEvent[]>((resolve, reject) => {
      this.queue.push({ topic, items, bytes, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  async subscribe(options: SubscriptionOptions): Promise<Subscription> {
    this.assertOpen();
    const topics = [...new Set(options.topics)];
    if (topics.length === 0) throw new TypeError('a subscription needs at least one topic');
    assertSubscriptionCounts(options);
    const plan = await this.plan(options, topics);
    this.assertOpen();
    const subscription = new KafkaSubscription(this.host, options, plan);
    this.subscriptions.add(subscription);
    try {
      await subscription.start();
    } catch (error) {
      await subscription.close().catch(() => undefined);
      throw error;
    }
    return subscription;
  }

  async *read(topic: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    for await (const batch of this.readBatches(topic, options)) yield* batch;
  }

  /** Partition after partition, each in the batches its fetches return. */
  async *readBatches(topic: string, options: ReadOptions = {}): AsyncIterable<StoredEvent[]> {
    this.assertOpen();
    const types = typeFilter(options);
    // Left out by a long read's fetch worker only: a read on this thread returns the events whole.
    const unread = unreadFilter(options);
    const partitions = await this.topics.existing(topic);
    if (partitions === undefined) return;
    if (options.partition === undefined) {
      for (let partition = 0; partition < partitions; partition++) {
        yield* this.readBatches(topic, { ...options, partition });
      }
      return;
    }
    const { partition } = options;
    if (!Number.isInteger(partition) || partition < 0 || partition >= partitions) {
      throw new RangeError(`${topic} has no partition ${partition}`);
    }
    const { low, high } = (await this.topicOffsets(topic)).find((p) => p.partition === partition)!;
    const from = Math.max(options.fromOffset ?? 0, Number(low));
    yield* readPartitionBatches(
      this.host,
      this.throwawayGroup('read'),
      topic,
      partition,
      { from, end: Number(high), types, unread },
      (stop) => {
        this.readers.add(stop);
        return () => this.readers.delete(stop);
      },
    );
  }

  async size(topic: string): Promise<number> {
    return (await this.ends(topic)).reduce((sum, end) => sum + end, 0);
  }

  async ends(topic: string): Promise<number[]> {
    this.assertOpen();
    if ((await this.topics.existing(topic)) === undefined) return [];
    const ends: number[] = [];
    for (const { partition, high } of await this.topicOffsets(topic)) ends[partition] = Number(high);
    return ends;
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await withTimeout(this.admin.describeCluster(), 5_000, 'Kafka ping');
  }

  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    const wasOpen = this.state === 'open';
    this.state = 'closing';
    await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
    for (const stop of this.readers) stop(new EventLogClosedError());
    await this.flushing;
    if (wasOpen) {
      await this.producer.disconnect();
      await this.admin.disconnect();
    }
  }

  private consumerConfig(groupId: string): ConsumerConfig {
    return {
      groupId,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: this.options.maxWaitTimeMs ?? 500,
      sessionTimeout: this.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: this.options.heartbeatIntervalMs ?? 3_000,
    };
  }

  private async committedOffsets(groupId: string, topics: string[]): Promise<Map<string, number>> {
    const committed = new Map<string, number>();
    // A new group's coordinator may still be moving (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS).
    const fetched = await retryRetriable(() => this.admin.fetchOffsets({ groupId, topics }));
    for (const { topic, partitions } of fetched) {
      for (const { partition, offset } of partitions) {
        if (Number(offset) >= 0) committed.set(positionKey(topic, partition), Number(offset));
      }
    }
    return committed;
  }

  /**
   * A topic created a moment ago may not have reached every broker's metadata yet: kafkajs then fails
   * with a retriable error or, when the answer lacks the topic, a TypeError. A read can simply ask again.
   */
  private topicOffsets(topic: string) {
    return retryRetriable(() => this.admin.fetchTopicOffsets(topic), { anyError: true });
  }

  private assertOpen(): void {
    if (this.state === 'closing') throw new EventLogClosedError();
    if (this.state === 'new') throw new Error('KafkaEventLog is not open: call open() first');
  }

  private throwawayGroup(kind: string): string {
    return `thumbforge.${kind}.${randomUUID()}`;
  }

  private async plan(options: SubscriptionOptions, topics: string[]): Promise<SubscriptionPlan> {
    const partitions = new Map(
      await Promise.all(topics.map(async (topic) => [topic, await this.topics.ensure(topic)] as const)),
    );
    const ends = await Promise.all(
      topics.map(async (topic) => ({ topic, offsets: await this.topicOffsets(topic) })),
    );
    const { from, group } = options;
    const committed = from === 'committed' ? await this.committedOffsets(group, topics) : undefined;
    const startOf = (key: string, low: number, high: number): number => {
      if (from === 'committed') return Math.max(committed?.get(key) ?? low, low);
      if (from === 'beginning') return low;
      if (from === 'end') return high;
      return Math.max(from.positions[key] ?? low, low);
    };
    const start = new Map<string, number>();
    const targets = new Map<string, number>();
    for (const { topic, offsets } of ends) {
      for (const { partition, low, high } of offsets) {
        const key = positionKey(topic, partition);
        targets.set(key, Number(high));
        start.set(key, startOf(key, Number(low), Number(high)));
      }
    }
    if (from === 'committed') return { groupId: group, ephemeral: false, partitions, start, targets };
    const groupId = this.throwawayGroup(`${group}.${typeof from === 'string' ? from : 'positions'}`);
    return { groupId, ephemeral: true, partitions, start, targets };
  }

  /** Sends queued appends, merged, one produce request at a time (group commit). */
  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch: PendingAppend[] = [];
      let events = 0;
      let bytes = 0;
      while (this.queue.length > 0) {
        const next = this.queue[0];
        const fits =
          events + next.items.length <= this.maxBatchEvents && bytes + next.bytes <= this.maxBatchBytes;
        if (batch.length > 0 && !fits) break;
        batch.push(this.queue.shift()!);
        events += next.items.length;
        bytes += next.bytes;
      }
      await this.send(batch);
    }
    this.flushing = undefined;
  }

  private async send(batch: PendingAppend[]): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const pending of batch) {
      const messages = byTopic.get(pending.topic) ?? [];
      for (const item of pending.items) messages.push(item.message);
      byTopic.set(pending.topic, messages);
    }
    try {
      const results = await this.producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
      // One record batch per partition, in the order given: offsets follow from each base offset.
      const next = new Map(results.map((r) => [positionKey(r.topicName, r.partition), Number(r.baseOffset)]));
      for (const pending of batch) {
        pending.resolve(
          pending.items.map(({ envelope, partition }) => {
            const key = positionKey(pending.topic, partition);
            const offset = next.get(key);
            if (offset === undefined) throw new Error(`no offset reported for ${key}`);
            next.set(key, offset + 1);
            return { ...envelope, topic: pending.topic, partition, offset };
          }),
        );
      }
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }

  private logCreator(): logCreator {
    return () =>
      ({ level, log }) => {
        const logger = this.options.logger;
        if (!logger) return;
        const { message, ...details } = log;
        if (level === KafkaLogLevel.ERROR) logger.error({ kafkajs: details }, `kafkajs: ${message}`);
        else if (level === KafkaLogLevel.WARN) logger.warn({ kafkajs: details }, `kafkajs: ${message}`);
      };
  }
}

/** A lease is one partition, whatever the event topics have. */
function withLeasePartition(partitions: TopicSettings['partitions']): TopicSettings['partitions'] {
  return typeof partitions === 'number'
    ? { default: partitions, [LEASE_TOPIC]: 1 }
    : { ...partitions, [LEASE_TOPIC]: 1 };
}
