import type { Admin, ITopicConfig } from 'kafkajs';
import { retryRetriable } from './retry.js';

export interface TopicSettings {
  /** Partitions of a topic the log creates: one number for all, or per topic with a default. */
  partitions: number | { default: number; [topic: string]: number };
  replicationFactor: number;
  /** Topic configuration entries set at creation, on top of the retention the log always sets. */
  config: Record<string, string>;
}

/**
 * Event topics are the system of record (the ledger and job state are folds over them), so they keep
 * every record forever: no time or size retention, and no compaction, which would keep only the last
 * event per key and break the folds.
 */
export const EVENT_TOPIC_CONFIG: Readonly<Record<string, string>> = {
  'cleanup.policy': 'delete',
  'retention.ms': '-1',
  'retention.bytes': '-1',
};

function isAlreadyExists(error: unknown): boolean {
  const errors = (error as { errors?: unknown[] }).errors ?? [error];
  return errors.length > 0 && errors.every((e) => (e as { type?: string }).type === 'TOPIC_ALREADY_EXISTS');
}

/** Creates topics explicitly and idempotently, and remembers their partition counts. */
export class Topics {
  private readonly known = new Map<string, Promise<number>>();

  constructor(
    private readonly admin: Admin,
    private readonly settings: TopicSettings,
  ) {}

  partitionsFor(topic: string): number {
    const { partitions } = this.settings;
    const count = typeof partitions === 'number' ? partitions : (partitions[topic] ?? partitions.default);
    if (!Number.isSafeInteger(count) || count < 1) {
      throw new RangeError(`partitions of ${topic} must be a positive integer, not ${count}`);
    }
    return count;
  }

  /** The topic's partition count, creating the topic first if it does not exist. */
  ensure(topic: string): Promise<number> {
    let known = this.known.get(topic);
    if (!known) {
      known = this.create(topic);
      this.known.set(topic, known);
      known.catch(() => this.known.delete(topic));
    }
    return known;
  }

  /** The partition count of an existing topic, or undefined; never creates it. */
  async existing(topic: string): Promise<number | undefined> {
    const known = this.known.get(topic);
    if (known) return known;
    if (!(await this.admin.listTopics()).includes(topic)) return undefined;
    return this.ensure(topic);
  }

  private async create(topic: string): Promise<number> {
    if (!(await this.admin.listTopics()).includes(topic)) {
      const spec: ITopicConfig = {
        topic,
        numPartitions: this.partitionsFor(topic),
        replicationFactor: this.settings.replicationFactor,
        configEntries: Object.entries({ ...this.settings.config, ...EVENT_TOPIC_CONFIG }).map(
          ([name, value]) => ({ name, value }),
        ),
      };
      try {
        await this.admin.createTopics({ topics: [spec], waitForLeaders: true });
      } catch (error) {
        // Another process created it between our look and our request: that is the idempotent outcome.
        // A retriable error comes from kafkajs waiting for the new topic's leaders on a broker that
        // does not know it yet: the metadata read below waits for it instead.
        if (!isAlreadyExists(error) && (error as { retriable?: boolean }).retriable !== true) throw error;
      }
    }
    // KRaft spreads a new topic's metadata asynchronously: a broker may still call it unknown.
    const { topics } = await retryRetriable(() => this.admin.fetchTopicMetadata({ topics: [topic] }));
    const count = topics[0]?.partitions.length ?? 0;
    if (count < 1) throw new Error(`topic ${topic} has no partitions`);
    return count;
  }
}
