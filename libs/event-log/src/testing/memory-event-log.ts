import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';
import { DEAD_LETTER_TOPIC, deadLetterEvent } from '../dead-letter.js';
import { SubscriptionClosedError } from '../file/file-subscription.js';
import {
  assertSinglePartition,
  typeFilter,
  unreadFilter,
  type AppendOptions,
  type EventLog,
  type ReadOptions,
  type Subscription,
  type SubscriptionOptions,
} from '../port.js';

interface Entry {
  seq: number;
  event: StoredEvent;
}

/**
 * An in-memory event log with the port's semantics: one partition per topic, each subscription
 * handles one event at a time in append order, committed positions per group, retries then a
 * dead-letter topic.
 */
export class MemoryEventLog implements EventLog {
  private readonly topics = new Map<string, Entry[]>();
  private readonly committed = new Map<string, Map<string, number>>();
  private readonly listeners = new Set<() => void>();
  private seq = 0;
  private closed = false;

  async append(topic: string, events: EventEnvelope[], options: AppendOptions = {}): Promise<StoredEvent[]> {
    if (this.closed) throw new Error('the event log is closed');
    assertSinglePartition(topic, options.partition);
    const entries = this.entries(topic);
    const stored = events.map((e, i) => ({
      ...structuredClone(e),
      topic,
      partition: 0,
      offset: entries.length + i,
    }));
    for (const event of stored) entries.push({ seq: this.seq++, event });
    for (const wake of this.listeners) wake();
    return structuredClone(stored);
  }

  async subscribe(options: SubscriptionOptions): Promise<Subscription> {
    const next = new Map<string, number>();
    const groupPositions = this.committed.get(options.group) ?? new Map<string, number>();
    this.committed.set(options.group, groupPositions);
    for (const topic of options.topics) {
      const from = options.from;
      const start =
        from === 'beginning'
          ? 0
          : from === 'end'
            ? this.entries(topic).length
            : from === 'committed'
              ? (groupPositions.get(topic) ?? 0)
              : (from.positions[`${topic}:0`] ?? 0);
      next.set(topic, start);
    }
    const targets = new Map(options.topics.map((t) => [t, this.entries(t).length]));
    options.onAssignment?.(options.topics.map((topic) => ({ topic, partition: 0 })));
    const waiters = new Set<() => void>();
    let closed = false;
    let wake: () => void = () => undefined;
    const listener = () => wake();
    this.listeners.add(listener);

    const pending = (): StoredEvent | undefined => {
      let best: Entry | undefined;
      for (const topic of options.topics) {
        const entry = this.entries(topic)[next.get(topic)!];
        if (entry && (!best || entry.seq < best.seq)) best = entry;
      }
      return best?.event;
    };
    const isCaughtUp = () => options.topics.every((t) => next.get(t)! >= targets.get(t)!);

    let resolveCaughtUp!: () => void;
    let rejectCaughtUp!: (error: Error) => void;
    const caughtUp = new Promise<void>((resolve, reject) => {
      resolveCaughtUp = resolve;
      rejectCaughtUp = reject;
    });
    caughtUp.catch(() => undefined);
    const progressed = () => {
      if (isCaughtUp()) resolveCaughtUp();
      for (const waiter of [...waiters]) waiter();
    };
    progressed();

    const loop = (async () => {
      while (!closed) {
        const event = pending();
        if (!event) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const maxAttempts = options.maxAttempts ?? 5;
        for (let attempt = 1; ; attempt++) {
          try {
            await options.handle(structuredClone(event));
            break;
          } catch (error) {
            if (attempt >= maxAttempts) {
              await this.append(DEAD_LETTER_TOPIC, [deadLetterEvent(options.group, event, error, attempt)]);
              break;
            }
          }
        }
        next.set(event.topic, event.offset + 1);
        if (options.from === 'committed') groupPositions.set(event.topic, event.offset + 1);
        progressed();
      }
    })();

    return {
      caughtUp,
      waitFor: (topic, offset) =>
        new Promise<void>((resolve, reject) => {
          if (!next.has(topic)) return reject(new Error(`not subscribed to ${topic}`));
          const check = () => {
            if (next.get(topic)! > offset) {
              waiters.delete(check);
              resolve();
            } else if (closed) {
              waiters.delete(check);
              reject(new SubscriptionClosedError(options.group));
            }
          };
          waiters.add(check);
          check();
        }),
      close: async () => {
        closed = true;
        this.listeners.delete(listener);
        wake();
        await loop;
        if (!isCaughtUp()) rejectCaughtUp(new SubscriptionClosedError(options.group));
        for (const waiter of [...waiters]) waiter();
      },
    };
  }

  async *read(topic: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    const types = typeFilter(options);
    const unread = unreadFilter(options);
    for (const entry of this.entries(topic).slice(options.fromOffset ?? 0)) {
      if (types && !types.has(entry.event.type)) continue;
      const event = structuredClone(entry.event);
      // Always left out here, so that a caller that reads them anyway fails its tests.
      const fields = unread && Object.hasOwn(unread, event.type) ? unread[event.type] : [];
      for (const field of fields) delete (event.payload as Record<string, unknown>)[field];
      yield event;
    }
  }

  async size(topic: string): Promise<number> {
    return this.entries(topic).length;
  }

  async ends(topic: string): Promise<number[]> {
    return [this.entries(topic).length];
  }

  async ping(): Promise<void> {}
  async close(): Promise<void> {
    this.closed = true;
  }

  /** Everything on a topic now, in order. */
  events(topic: string): StoredEvent[] {
    return this.entries(topic).map((e) => structuredClone(e.event));
  }

  /** Forgets a group's committed positions: the next subscription redelivers everything (a crash before commit). */
  forgetCommitted(group: string): void {
    this.committed.delete(group);
  }

  private entries(topic: string): Entry[] {
    let entries = this.topics.get(topic);
    if (!entries) this.topics.set(topic, (entries = []));
    return entries;
  }
}
