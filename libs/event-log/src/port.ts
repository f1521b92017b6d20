import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';

/** Log positions: `${topic}:${partition}` (see `positionKey`) → the next offset to read. */
export type LogPositions = Record<string, number>;

/**
 * Where a subscription starts:
 * - `committed`: the group's committed position (the beginning when it has none); positions are
 *   committed after the handler resolves, so delivery is at-least-once and handlers are idempotent.
 * - `beginning`: replay everything, commit nothing (in-memory projections rebuilt at start).
 * - `end`: only events appended after subscribing, commit nothing (reply listeners).
 * - `{ positions }`: resume from positions the consumer stores itself (a projection that saves its
 *   positions with its documents); a topic partition missing from them starts at the beginning.
 *   Commits nothing.
 */
export type StartFrom = 'committed' | 'beginning' | 'end' | { positions: LogPositions };

/** For logs with one partition per topic: an append aimed at any other partition is a caller's bug. */
export function assertSinglePartition(topic: string, partition: number | undefined): void {
  if (partition !== undefined && partition !== 0) {
    throw new RangeError(`topic ${topic} has a single partition (0)`);
  }
}

export function positionKey(topic: string, partition = 0): string {
  return `${topic}:${partition}`;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface SubscriptionOptions {
  /** Consumer group; required for `committed`, used for naming and logs otherwise. */
  group: string;
  topics: string[];
  from: StartFrom;
  /** Called once per event, in log order per topic partition; the next event waits for it. */
  handle(event: StoredEvent): Promise<void>;
  /**
   * Told which partitions this subscriber owns whenever that changes, before it handles their events:
   * with `committed`, the group's partitions are shared out among its members (replicas of a
   * service) and move on a rebalance, when it is first told none; other subscriptions own every
   * partition they read. What is owned can be acted on by one replica alone (e.g. timers).
   */
  onAssignment?(partitions: TopicPartition[]): void;
  /**
   * Attempts before an event goes to the dead-letter topic (default 5): it is appended there as a
   * `log.dead-lettered` event (`deadLetterEvent`) and the subscription moves on.
   */
  maxAttempts?: number;
  /**
   * Events handled at once (default 1: one after another). Above 1, later events of a partition start
   * before earlier ones finish, so only handlers that need no order among themselves may ask for it;
   * they still start in log order, and a position is committed only once every event before it was
   * handled. The file and Kafka logs honour it (the in-memory test double does not).
   */
  concurrency?: number;
  /**
   * Handle the events of different partitions at once, each partition's still one after another
   * (default false). For handlers whose work for one partition does not wait for another's, such as
   * decisions that mostly wait for a database. Only the Kafka log has several partitions a member
   * consumes; the others ignore it.
   */
  partitionsAtOnce?: boolean;
  /**
   * The group is kept for its assignments (`onAssignment`) alone, on topics nothing is appended to,
   * such as a lease: their records may go unread. The Kafka log then never fetches, so an idle member
   * costs the broker a heartbeat every few seconds instead of a fetch every `maxWaitTimeMs`.
   */
  assignmentsOnly?: boolean;
}

export interface Subscription {
  /** Resolves when every event that was in the log at subscribe time has been handled; rejects if closed first. */
  readonly caughtUp: Promise<void>;
  /** Resolves once the handler has processed `offset` (or later) of `topic`/`partition`. */
  waitFor(topic: string, offset: number, partition?: number): Promise<void>;
  /** Stops after the in-flight event; resolves when it has finished and its position is committed. */
  close(): Promise<void>;
}

export interface AppendOptions {
  /** Partition key; defaults to each event's aggregateId. */
  key?: string;
  /**
   * The partition to append to, instead of the key's: for events about a partition itself (the
   * `log.owner-fenced` marker). Logs with one partition per topic accept only 0.
   */
  partition?: number;
}

export interface ReadOptions {
  fromOffset?: number;
  partition?: number;
  /**
   * Only events of these types. A replay that folds a few types of a topic names them, and the
   * adapters skip the other records without decoding them. Positions stay the log's, so the events
   * read need not be contiguous.
   */
  types?: readonly string[];
  /**
   * Payload fields the caller does not read, by event type (top-level fields of the payload). The log
   * may leave them out of the events it returns, before decoding them, or return the events whole: a
   * caller must read neither their presence nor their absence. The file log leaves them out of the
   * long reads its range scanner prepares on another thread, Kafka out of those its fetch worker
   * hands over: a replay that folds a few fields of large events then decodes only those.
   */
  unread?: Readonly<Record<string, readonly string[]>>;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The `types` of a read as a set (undefined: every type), refusing anything but a list of strings. */
export function typeFilter(options: ReadOptions): ReadonlySet<string> | undefined {
  const { types } = options;
  if (types === undefined) return undefined;
  if (!isStringList(types)) throw new TypeError('types must be a list of event types');
  return new Set(types);
}

/** The `unread` fields of a read, refusing anything but lists of field names by event type. */
export function unreadFilter(options: ReadOptions): ReadOptions['unread'] {
  const { unread } = options;
  if (unread === undefined) return undefined;
  if (typeof unread !== 'object' || unread === null || !Object.values(unread).every(isStringList)) {
    throw new TypeError('unread must list payload field names by event type');
  }
  return unread;
}

export interface EventLog {
  /** Resolves only when the events are durable; returns them with their assigned positions. */
  append(topic: string, events: EventEnvelope[], options?: AppendOptions): Promise<StoredEvent[]>;
  subscribe(options: SubscriptionOptions): Promise<Subscription>;
  /**
   * Reads a topic from the start (or `fromOffset`) to its current end, for rebuilds and tools: one
   * partition, or without `partition` every partition in turn (each in log order).
   */
  read(topic: string, options?: ReadOptions): AsyncIterable<StoredEvent>;
  /**
   * The same events as `read`, in batches: one await per batch instead of one per event, for replays
   * of a whole topic. A log without it is read through `read` (see `readBatches`).
   */
  readBatches?(topic: string, options?: ReadOptions): AsyncIterable<StoredEvent[]>;
  /** Number of events in the topic now (the next offset), summed over partitions. */
  size(topic: string): Promise<number>;
  /** The next offset of each partition of the topic now, by partition number. */
  ends(topic: string): Promise<number[]>;
  /** Health: throws when the log cannot serve. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Events per batch where a log reads one event at a time. */
const FALLBACK_BATCH = 1_000;

/** A topic in batches, in log order: the log's own batched read, or its `read` grouped. */
export async function* readBatches(
  log: EventLog,
  topic: string,
  options?: ReadOptions,
): AsyncIterable<StoredEvent[]> {
  if (log.readBatches) {
    yield* log.readBatches(topic, options);
    return;
  }
  let batch: StoredEvent[] = [];
  for await (const event of log.read(topic, options)) {
    batch.push(event);
    if (batch.length === FALLBACK_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

export const EVENT_LOG = Symbol.for('thumbforge.EventLog');

/** Refuses counts of a subscription that are not positive integers, before anything is started. */
export function assertSubscriptionCounts(options: SubscriptionOptions): void {
  for (const name of ['maxAttempts', 'concurrency'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      throw new RangeError(`${name} must be a positive integer`);
    }
  }
}
