import { randomUUID } from 'node:crypto';
import { envelope, type EventEnvelope, type StoredEvent } from '@thumbforge/contracts';
import type { EventLog } from '../port.js';

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A fresh name per test, so adapters sharing a broker or database between tests do not collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}.${randomUUID().slice(0, 8)}`;
}

/** An envelope with a payload that exercises JSON round-tripping (nesting, null, unicode). */
export function testEvent(
  n: number,
  aggregateId = 'agg_1',
  extra: Record<string, unknown> = {},
): EventEnvelope {
  return envelope(
    'test.happened',
    aggregateId,
    { n, nested: { list: [n, `item-${n}`, null], flag: n % 2 === 0 }, text: 'héllo ✓ مرحبا', ...extra },
    {
      correlationId: `job_${n}`,
      causationId: null,
      headers: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` },
    },
  );
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What a group would still be handed from its committed positions: nothing, once it has handled everything. */
export async function leftForGroup(log: EventLog, group: string, topics: string[]): Promise<StoredEvent[]> {
  const left: StoredEvent[] = [];
  const resumed = await log.subscribe({
    group,
    topics,
    from: 'committed',
    handle: async (event) => {
      left.push(event);
    },
  });
  await resumed.caughtUp;
  await resumed.close();
  return left;
}

/** Waits until `condition` holds, looking every few milliseconds; throws after `timeoutMs`. */
export async function eventually(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await tick(5);
  }
}
