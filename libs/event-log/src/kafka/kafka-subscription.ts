import { channel } from 'node:diagnostics_channel';
import type { StoredEvent } from '@thumbforge/contracts';
import type { Consumer, ConsumerConfig, EachBatchPayload, Kafka } from 'kafkajs';
import { deadLetterEvent, type DeadLetterEvent } from '../dead-letter.js';
import { SubscriptionClosedError } from '../file/file-subscription.js';
import { positionKey, type Subscription, type SubscriptionOptions, type TopicPartition } from '../port.js';
import { fromMessage } from './codec.js';
import { withTimeout } from './deadline.js';

/** What a subscription needs from the log that owns it. */
export interface KafkaSubscriptionHost {
  readonly kafka: Kafka;
  consumerConfig(groupId: string): ConsumerConfig;
  /** The group's committed positions (`topic:partition` → next offset; none when absent). */
  committedOffsets(groupId: string, topics: string[]): Promise<Map<string, number>>;
  deadLetter(event: DeadLetterEvent): Promise<void>;
  retryDelayMs(attempt: number): number;
  readonly heartbeatIntervalMs: number;
  onError(error: unknown, context: string): void;
  release(subscription: KafkaSubscription): void;
}

export interface SubscriptionPlan {
  /** The Kafka consumer group this subscription joins. */
  groupId: string;
  /**
   * A group of one made for this subscription (`beginning`, `end`, positions): it seeks to its own
   * positions whenever it joins and commits nothing, so the broker drops it once it is empty.
   * Otherwise the subscription joins the named group, shares its partitions with the other members
   * and commits.
   */
  ephemeral: boolean;
  /** topic → partition count. */
  partitions: Map<string, number>;
  /** `topic:partition` → the first offset this subscription handles. */
  start: Map<string, number>;
  /** `topic:partition` → the end offset at subscribe time, which `caughtUp` waits for. */
  targets: Map<string, number>;
}

interface Waiter {
  key: string;
  offset: number;
  resolve(): void;
  reject(error: Error): void;
}

/** Where each fetched batch's high watermark goes, for consumer-lag metrics; silent while nobody listens. */
const batchChannel = channel('thumbforge.event-log.kafka.batch');

/**
 * Handled positions go to the group at most this often while the subscription runs. A consumer that
 * keeps up gets one event per fetch, and a commit after each cost the broker an append to its offsets
 * topic per event and group, ahead of the member's next fetch on the same connection. A handler cut
 * short and a close commit at once. A rebalance does not: a commit made as the member rejoins carries
 * the generation it leaves, kafkajs retries it for seconds, and the close's commit queues behind it.
 * The partition's next owner may handle again what the last interval handled here.
 */
const COMMIT_INTERVAL_MS = 200;
/** How long a close waits for the group to take its last positions before it leaves the group anyway. */
const CLOSE_COMMIT_MS = 5_000;
/** While a committing group waits for others' progress (caughtUp, waitFor), it polls the group's offsets. */
const GROUP_POLL_MS = 500;

/**
 * One Kafka consumer. kafkajs hands it one fetched batch at a time (one partition's records, in
 * order); the handler runs one event at a time, with retries, then the dead-letter topic. Positions are
 * committed only after the handler resolved. Heartbeats continue while a handler runs, so a slow
 * handler does not cost the partition; after a rebalance an event whose commit did not land is handled
 * again by the partition's next owner (at-least-once).
 */
export class KafkaSubscription implements Subscription {
  readonly caughtUp: Promise<void>;
  private readonly consumer: Consumer;
  private readonly maxAttempts: number;
  private readonly next = new Map<string, number>();
  private readonly groupCommitted = new Map<string, number>();
  private readonly uncommitted = new Map<string, TopicPartition & { offset: number }>();
  private lastCommit = Date.now();
  private waiters: Waiter[] = [];
  private caughtUpSettled = false;
  private resolveCaughtUp!: () => void;
  private rejectCaughtUp!: (error: Error) => void;
  private readonly inflight = new Set<Promise<void>>();
  /** Events handled at once (`SubscriptionOptions.concurrency`). */
  private readonly concurrency: number;
  /** With concurrency: events whose handler runs, across partitions, and who waits for one to end. */
  private handling = 0;
  private slotWaiters: (() => void)[] = [];
  /**
   * With concurrency: per partition, the next offset to hand out (ahead of `next` while events are in
   * flight) and the dispatched events, oldest first, until they and all before them are done.
   */
  private readonly dispatched = new Map<string, number>();
  private readonly pending = new Map<string, { offset: number; done: boolean }[]>();
  private readonly sleeping = new Set<() => void>();
  /** Commits go out one after another, so a later position never lands before an earlier one. */
  private committing: Promise<void> = Promise.resolve();
  /** The commit due once `COMMIT_INTERVAL_MS` has passed since the last. */
  private commitTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly host: KafkaSubscriptionHost,
    private readonly options: SubscriptionOptions,
    private readonly plan: SubscriptionPlan,
  ) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.concurrency = options.concurrency ?? 1;
    for (const [key, offset] of plan.start) this.next.set(key, offset);
    this.consumer = host.kafka.consumer(host.consumerConfig(plan.groupId));
    this.caughtUp = new Promise<void>((resolve, reject) => {
      this.resolveCaughtUp = resolve;
      this.rejectCaughtUp = reject;
    });
    // Closing before catching up rejects it; nobody has to be listening for that.
    this.caughtUp.catch(() => undefined);
    this.checkProgress();
  }

  get group(): string {
    return this.options.group;
  }

  private get commits(): boolean {
    return !this.plan.ephemeral;
  }

  async start(): Promise<void> {
    if (this.plan.ephemeral) {
      // Emitted after the group is joined and synced, before the first fetch: seeking here cannot race it.
      this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
        for (const [topic, partitions] of Object.entries(payload.memberAssignment)) {
          for (const partition of partitions) {
            const offset = this.next.get(positionKey(topic, partition)) ?? 0;
            this.consumer.seek({ topic, partition, offset: String(offset) });
          }
        }
      });
    }
    const { onAssignment } = this.options;
    if (onAssignment) {
      // A rebalance takes every partition away until the member has joined again.
      this.consumer.on(this.consumer.events.REBALANCING, () => onAssignment([]));
      this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) =>
        onAssignment(
          Object.entries(payload.memberAssignment).flatMap(([topic, partitions]) =>
            partitions.map((partition) => ({ topic, partition })),
          ),
        ),
      );
    }
    if (this.options.assignmentsOnly) {
      // Paused topics are left out of every fetch: with nothing to fetch, kafkajs sleeps
      // `maxWaitTimeMs` between heartbeats. Again on every join, as a restarted consumer forgets it.
      const topics = [...this.plan.partitions.keys()].map((topic) => ({ topic }));
      this.consumer.on(this.consumer.events.GROUP_JOIN, () => this.consumer.pause(topics));
    }
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      this.host.onError(payload.error, `consumer of group ${this.options.group} crashed`);
      // kafkajs restarts the consumer after retriable failures; otherwise it has stopped for good.
      if (!payload.restart) this.fail(payload.error);
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [...this.plan.partitions.keys()], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      // Each partition's batches still come one at a time, in order.
      partitionsConsumedConcurrently: this.options.partitionsAtOnce ? this.partitionCount : 1,
      eachBatch: (payload) =>
        this.track(this.concurrency === 1 ? this.handleBatch(payload) : this.dispatchBatch(payload)),
    });
    this.pollGroupIfWaiting();
  }

  waitFor(topic: string, offset: number, partition = 0): Promise<void> {
    const count = this.plan.partitions.get(topic);
    if (count === undefined || !Number.isInteger(partition) || partition < 0 || partition >= count) {
      return Promise.reject(new RangeError(`subscription does not read ${positionKey(topic, partition)}`));
    }
    const key = positionKey(topic, partition);
    if (this.progress(key) > offset) return Promise.resolve();
    if (this.closing) return Promise.reject(new SubscriptionClosedError(this.options.group));
    const waiting = new Promise<void>((resolve, reject) =>
      this.waiters.push({ key, offset, resolve, reject }),
    );
    this.pollGroupIfWaiting();
    return waiting;
  }

  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    for (const wake of this.sleeping) wake();
    for (const wake of this.slotWaiters.splice(0)) wake();
    clearInterval(this.pollTimer);
    clearTimeout(this.commitTimer);
    try {
      await Promise.allSettled([...this.inflight]);
      // A commit that fails reports itself (commitNow); one still pending leaves the group uncommitted.
      if (this.commits) {
        await withTimeout(this.commit(), CLOSE_COMMIT_MS, 'closing commit').catch(() => undefined);
      }
      await this.consumer.disconnect();
    } finally {
      const closed = new SubscriptionClosedError(this.options.group);
      for (const waiter of this.waiters) waiter.reject(closed);
      this.waiters = [];
      if (!this.caughtUpSettled) {
        this.caughtUpSettled = true;
        this.rejectCaughtUp(closed);
      }
      this.host.release(this);
    }
  }

  /** The consumer stopped and will not restart: nobody waiting on it should wait forever. */
  private fail(error: Error): void {
    for (const waiter of this.waiters) waiter.reject(error);
    this.waiters = [];
    if (!this.caughtUpSettled) {
      this.caughtUpSettled = true;
      this.rejectCaughtUp(error);
    }
  }

  private track(work: Promise<void>): Promise<void> {
    this.inflight.add(work);
    return work.finally(() => this.inflight.delete(work));
  }

  private async handleBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    const { topic, partition } = batch;
    const key = positionKey(topic, partition);
    const first = batch.messages[0];
    if (first && batchChannel.hasSubscribers) {
      const { group } = this.options;
      batchChannel.publish({
        group,
        topic,
        partition,
        highWatermark: batch.highWatermark,
        firstOffset: first.offset,
      });
    }
    let finished = false;
    try {
      for (const message of batch.messages) {
        if (this.closing || !isRunning() || isStale()) break;
        const offset = Number(message.offset);
        // Defensive: a group of one only ever fetches from its own positions, but never hands out twice.
        if (this.plan.ephemeral && offset < (this.next.get(key) ?? 0)) {
          resolveOffset(message.offset);
          continue;
        }
        let event: StoredEvent;
        try {
          event = fromMessage(topic, partition, message);
        } catch (error) {
          // Not an envelope: no handler can ever take it, so it is reported and passed over.
          this.host.onError(error, `group ${this.options.group} skipping ${key}@${offset}`);
          resolveOffset(message.offset);
          this.advance(key, topic, partition, offset + 1);
          continue;
        }
        if (!(await this.deliver(event, heartbeat))) break;
        resolveOffset(message.offset);
        this.advance(key, topic, partition, offset + 1);
        if (this.commits && Date.now() - this.lastCommit >= COMMIT_INTERVAL_MS) await this.commit();
        await heartbeat();
      }
      finished = !this.closing && isRunning() && !isStale();
    } finally {
      // Cut short (a close, or a heartbeat that found a rebalance): the group still accepts this
      // generation's commits until this member rejoins, so the next owner starts after what was handled.
      if (this.commits) {
        if (finished) this.commitSoon();
        else await this.commit();
      }
    }
  }

  /**
   * With concurrency: starts each event's handler once fewer than `concurrency` run, and returns when
   * the batch is handed out, not handled, so that events fetched one at a time (a live tail) still
   * overlap. kafkajs fetches on from the offsets resolved here; the position committed and waited for
   * moves past an event only once it and every event before it in its partition were handled.
   */
  private async dispatchBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    const { topic, partition } = batch;
    const key = positionKey(topic, partition);
    for (const message of batch.messages) {
      const offset = Number(message.offset);
      // Handed out already (in flight, or done) by this member: a rebalance that gave the partition
      // back fetches from the group's commit, which may lie behind.
      if (offset < (this.dispatched.get(key) ?? this.next.get(key) ?? 0)) {
        resolveOffset(message.offset);
        continue;
      }
      await this.freeSlot();
      if (this.closing || !isRunning() || isStale()) break;
      this.dispatched.set(key, offset + 1);
      const entry = { offset, done: false };
      const pending = this.pending.get(key) ?? [];
      this.pending.set(key, pending);
      pending.push(entry);
      resolveOffset(message.offset);
      let event: StoredEvent;
      try {
        event = fromMessage(topic, partition, message);
      } catch (error) {
        this.host.onError(error, `group ${this.options.group} skipping ${key}@${offset}`);
        this.finish(key, topic, partition, entry);
        continue;
      }
      this.handling++;
      void this.track(
        this.handleDispatched(event, heartbeat, () => this.finish(key, topic, partition, entry)).finally(
          () => {
            this.handling--;
            this.slotWaiters.shift()?.();
          },
        ),
      );
    }
  }

  /**
   * Delivers a dispatched event until it is handled or dead-lettered. Nothing waits on it to take a
   * failure of the dead-letter append, so that failure is reported and the event delivered again.
   */
  private async handleDispatched(
    event: StoredEvent,
    heartbeat: () => Promise<void>,
    handled: () => void,
  ): Promise<void> {
    while (!this.closing) {
      try {
        if (await this.deliver(event, heartbeat)) handled();
        return;
      } catch (error) {
        this.host.onError(
          error,
          `group ${this.options.group} handling ${positionKey(event.topic, event.partition)}@${event.offset}`,
        );
        await this.sleep(this.host.retryDelayMs(this.maxAttempts));
      }
    }
  }

  private async freeSlot(): Promise<void> {
    while (this.handling >= this.concurrency && !this.closing) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
  }

  /** Marks a dispatched event handled and moves its partition past every handled event at its head. */
  private finish(key: string, topic: string, partition: number, entry: { done: boolean }): void {
    entry.done = true;
    const pending = this.pending.get(key)!;
    let handled: number | undefined;
    while (pending[0]?.done) handled = pending.shift()!.offset;
    if (handled === undefined) return;
    this.advance(key, topic, partition, handled + 1);
    if (this.commits) this.commitSoon();
  }

  /** Runs the handler with retries; false when closing interrupted the retries (nothing committed). */
  private async deliver(event: StoredEvent, heartbeat: () => Promise<void>): Promise<boolean> {
    const beat = setInterval(() => heartbeat().catch(() => undefined), this.host.heartbeatIntervalMs);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.options.handle(event);
          return true;
        } catch (error) {
          if (attempt >= this.maxAttempts) {
            await this.host.deadLetter(deadLetterEvent(this.options.group, event, error, attempt));
            return true;
          }
          if (this.closing) return false;
          await this.sleep(this.host.retryDelayMs(attempt));
          if (this.closing) return false;
        }
      }
    } finally {
      clearInterval(beat);
    }
  }

  private advance(key: string, topic: string, partition: number, next: number): void {
    this.next.set(key, next);
    if (this.commits) this.uncommitted.set(key, { topic, partition, offset: next });
    this.checkProgress();
  }

  private get partitionCount(): number {
    let count = 0;
    for (const partitions of this.plan.partitions.values()) count += partitions;
    return Math.max(1, count);
  }

  private commit(): Promise<void> {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    this.committing = this.committing.then(() => this.commitNow());
    return this.committing;
  }

  /** Commits now if the last commit is `COMMIT_INTERVAL_MS` old, else once it is. */
  private commitSoon(): void {
    if (this.commitTimer || this.closing) return;
    const wait = COMMIT_INTERVAL_MS - (Date.now() - this.lastCommit);
    if (wait <= 0) {
      void this.commit();
      return;
    }
    this.commitTimer = setTimeout(() => void this.commit(), wait);
  }

  private async commitNow(): Promise<void> {
    if (this.uncommitted.size === 0) return;
    const offsets = [...this.uncommitted.values()].map(({ topic, partition, offset }) => ({
      topic,
      partition,
      offset: String(offset),
    }));
    this.uncommitted.clear();
    this.lastCommit = Date.now();
    try {
      await this.consumer.commitOffsets(offsets);
    } catch (error) {
      // The partitions moved on without this member: their next owner handles these events again.
      this.host.onError(error, `group ${this.options.group} committing offsets`);
    }
  }

  /** The next offset this subscription (or, for a committing group, any member) has not handled. */
  private progress(key: string): number {
    return Math.max(this.next.get(key) ?? 0, this.groupCommitted.get(key) ?? 0);
  }

  private checkProgress(): void {
    if (this.waiters.length > 0) {
      this.waiters = this.waiters.filter((waiter) => {
        if (this.progress(waiter.key) <= waiter.offset) return true;
        waiter.resolve();
        return false;
      });
    }
    if (!this.caughtUpSettled && [...this.plan.targets].every(([key, end]) => this.progress(key) >= end)) {
      this.caughtUpSettled = true;
      this.resolveCaughtUp();
    }
  }

  /**
   * Partitions of a shared group may belong to other members; their progress shows only in the
   * group's committed offsets, which are polled while someone waits for it.
   */
  private pollGroupIfWaiting(): void {
    if (!this.commits || this.pollTimer || this.closing) return;
    if (this.caughtUpSettled && this.waiters.length === 0) return;
    this.pollTimer = setInterval(() => {
      if (this.caughtUpSettled && this.waiters.length === 0) {
        clearInterval(this.pollTimer);
        this.pollTimer = undefined;
        return;
      }
      this.host
        .committedOffsets(this.plan.groupId, [...this.plan.partitions.keys()])
        .then((committed) => {
          for (const [key, offset] of committed) this.groupCommitted.set(key, offset);
          this.checkProgress();
        })
        .catch((error: unknown) => this.host.onError(error, `group ${this.options.group} polling offsets`));
    }, GROUP_POLL_MS);
    this.pollTimer.unref();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const sleeping = this.sleeping;
      function done() {
        clearTimeout(timer);
        sleeping.delete(done);
        resolve();
      }
      sleeping.add(done);
    });
  }
}
