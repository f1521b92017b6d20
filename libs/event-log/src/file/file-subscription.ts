import type { StoredEvent } from '@thumbforge/contracts';
import { DEAD_LETTER_TOPIC, deadLetterEvent, type DeadLetterEvent } from '../dead-letter.js';
import { positionKey, type Subscription, type SubscriptionOptions } from '../port.js';
import type { GroupCommitter } from './group-positions.js';

/** What a subscription needs from the log that owns it. */
export interface SubscriptionHost {
  /** The next offset of `topic`: every event before it is durable and readable. */
  end(topic: string): number;
  readBatch(topic: string, from: number, end: number): Promise<StoredEvent[]>;
  deadLetter(event: DeadLetterEvent): Promise<void>;
  retryDelayMs(attempt: number): number;
  onError(error: unknown, context: string): void;
  release(subscription: FileSubscription): void;
}

export class SubscriptionClosedError extends Error {
  constructor(group: string) {
    super(`subscription of group ${group} is closed`);
    this.name = 'SubscriptionClosedError';
  }
}

interface Waiter {
  topic: string;
  offset: number;
  resolve(): void;
  reject(error: Error): void;
}

type Delivery = 'done' | 'stopped';

/**
 * One consumer: a single loop that reads batches from disk and hands events to the handler one at a
 * time (or up to `concurrency` at once), topic by topic, sleeping until the log notifies it of new
 * events.
 */
export class FileSubscription implements Subscription {
  readonly caughtUp: Promise<void>;
  readonly topics: ReadonlySet<string>;
  private readonly cursors = new Map<string, number>();
  private readonly targets: Map<string, number>;
  private readonly maxAttempts: number;
  private readonly concurrency: number;
  /** With concurrency: where reading resumes (ahead of `cursors` while events are in flight). */
  private readonly reads = new Map<string, number>();
  /** With concurrency: dispatched events per topic, oldest first, until they and all before are done. */
  private readonly pending = new Map<string, Array<{ offset: number; done: boolean }>>();
  private readonly inFlight = new Set<Promise<void>>();
  private dispatchFailure: unknown;
  private waiters: Waiter[] = [];
  private caughtUpSettled = false;
  private resolveCaughtUp!: () => void;
  private rejectCaughtUp!: (error: Error) => void;
  private notified = false;
  private wake: (() => void) | undefined;
  private cancelSleep: (() => void) | undefined;
  private closing = false;
  private closed: Promise<void> | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly host: SubscriptionHost,
    private readonly options: SubscriptionOptions,
    start: Map<string, number>,
    private readonly committer: GroupCommitter | undefined,
  ) {
    this.topics = new Set(start.keys());
    this.maxAttempts = options.maxAttempts ?? 5;
    this.concurrency = options.concurrency ?? 1;
    for (const [topic, offset] of start) this.cursors.set(topic, offset);
    this.targets = new Map([...this.topics].map((topic) => [topic, host.end(topic)]));
    this.caughtUp = new Promise<void>((resolve, reject) => {
      this.resolveCaughtUp = resolve;
      this.rejectCaughtUp = reject;
    });
    // Closing before catching up rejects it; nobody has to be listening for that.
    this.caughtUp.catch(() => undefined);
    this.checkCaughtUp();
    this.loop = this.run();
  }

  get group(): string {
    return this.options.group;
  }

  /** Whether this subscription commits its group's positions (`from: 'committed'`). */
  get commits(): boolean {
    return this.committer !== undefined;
  }

  /** New events were appended to one of its topics. */
  notify(): void {
    this.notified = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  waitFor(topic: string, offset: number, partition = 0): Promise<void> {
    if (!this.topics.has(topic) || partition !== 0) {
      return Promise.reject(new RangeError(`subscription does not read ${positionKey(topic, partition)}`));
    }
    if (this.cursors.get(topic)! > offset) return Promise.resolve();
    if (this.closing) return Promise.reject(new SubscriptionClosedError(this.options.group));
    return new Promise<void>((resolve, reject) => this.waiters.push({ topic, offset, resolve, reject }));
  }

  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    this.notify();
    this.cancelSleep?.();
    await this.loop;
    try {
      await this.committer?.flush();
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

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.closing) {
      this.notified = false;
      let progressed = false;
      try {
        for (const topic of this.topics) {
          if (this.closing) break;
          const cursor = this.reads.get(topic) ?? this.cursors.get(topic)!;
          const end = this.host.end(topic);
          if (cursor >= end) continue;
          progressed = true;
          for (const event of await this.host.readBatch(topic, cursor, end)) {
            if (this.closing) break;
            if (this.concurrency === 1) {
              if ((await this.deliver(event)) === 'stopped') break;
              this.advance(topic, event.offset + 1);
            } else if (!(await this.dispatch(event))) break;
          }
        }
        await this.failedDispatch();
        failures = 0;
      } catch (error) {
        // Reading or dead-lettering failed: retry from the same position rather than skip anything.
        this.host.onError(error, `subscription of group ${this.options.group}`);
        failures++;
        await this.sleep(Math.min(100 * 2 ** failures, 5_000));
        continue;
      }
      if (!progressed && !this.notified && !this.closing) {
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    }
    await Promise.allSettled(this.inFlight);
  }

  /**
   * Starts handling `event` once fewer than `concurrency` are in flight; false when closing. Its topic
   * advances past it only when every event before it has been handled too.
   */
  private async dispatch(event: StoredEvent): Promise<boolean> {
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
    if (this.closing || this.dispatchFailure !== undefined) return false;
    const { topic, offset } = event;
    this.reads.set(topic, offset + 1);
    const pending = this.pending.get(topic) ?? [];
    this.pending.set(topic, pending);
    const entry = { offset, done: false };
    pending.push(entry);
    const work: Promise<void> = this.deliver(event)
      .then((delivery) => {
        if (delivery === 'stopped') return;
        entry.done = true;
        let handled: number | undefined;
        while (pending[0]?.done) handled = pending.shift()!.offset;
        if (handled !== undefined) this.advance(topic, handled + 1);
      })
      .catch((error: unknown) => {
        this.dispatchFailure ??= error;
      })
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
    return true;
  }

  /** A dispatched event failed past dead-lettering: read again from the first unhandled event. */
  private async failedDispatch(): Promise<void> {
    if (this.dispatchFailure === undefined) return;
    await Promise.allSettled(this.inFlight);
    const error = this.dispatchFailure;
    this.dispatchFailure = undefined;
    this.reads.clear();
    this.pending.clear();
    throw error;
  }

  private async deliver(event: StoredEvent): Promise<Delivery> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.handle(event);
        return 'done';
      } catch (error) {
        if (attempt >= this.maxAttempts) {
          await this.park(event, error, attempt);
          return 'done';
        }
        if (this.closing) return 'stopped';
        await this.sleep(this.host.retryDelayMs(attempt));
        if (this.closing) return 'stopped';
      }
    }
  }

  private async park(event: StoredEvent, error: unknown, attempts: number): Promise<void> {
    const context = `group ${this.options.group} gave up on ${positionKey(event.topic, event.partition)}@${event.offset}`;
    // A dead letter that cannot be handled is not dead-lettered again: that would loop forever.
    if (event.topic === DEAD_LETTER_TOPIC) {
      this.host.onError(error, context);
      return;
    }
    await this.host.deadLetter(deadLetterEvent(this.options.group, event, error, attempts));
    this.host.onError(error, `${context}, moved it to ${DEAD_LETTER_TOPIC}`);
  }

  private advance(topic: string, next: number): void {
    this.cursors.set(topic, next);
    this.committer?.advance(positionKey(topic), next);
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((w) => w.topic === topic && w.offset < next);
      if (ready.length > 0) {
        this.waiters = this.waiters.filter((w) => !ready.includes(w));
        for (const waiter of ready) waiter.resolve();
      }
    }
    this.checkCaughtUp();
  }

  private checkCaughtUp(): void {
    if (this.caughtUpSettled) return;
    for (const [topic, target] of this.targets) if (this.cursors.get(topic)! < target) return;
    this.caughtUpSettled = true;
    this.resolveCaughtUp();
  }

  /** Waits `ms`, or less when the subscription is closed meanwhile. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.cancelSleep = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.cancelSleep = finish;
    });
  }
}
