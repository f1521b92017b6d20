import { rm } from 'node:fs/promises';
import type { StoredEvent } from '@thumbforge/contracts';
import { MemoryProjectionStore, type Positions, type ProjectionStore } from '@thumbforge/projection-store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  allWritten,
  logPosition,
  positionKey,
  Projection,
  putStamped,
  SAVE_DELAY_MS,
  stampedBefore,
  startProjector,
  type EventLog,
  type FileEventLog,
  type StampedDocument,
} from '../src/index.js';
import { testEvent } from '../src/testing/index.js';
import { openLog, tempDir } from './support.js';

interface TallyDoc {
  id: string;
  offsets: number[];
}

/** Keeps per topic the offsets applied, so double application would show. */
async function tally(event: StoredEvent, store: ProjectionStore): Promise<void> {
  const docs = store.collection<TallyDoc>('tally');
  const doc = (await docs.get(event.topic)) ?? { id: event.topic, offsets: [] };
  await docs.put({ ...doc, offsets: [...doc.offsets, event.offset] });
}

/** `store` with its positions saved through `save` instead, to watch or disturb the saves. */
function savingThrough(
  store: ProjectionStore,
  save: (projection: string, positions: Positions) => Promise<void>,
): ProjectionStore {
  return {
    collection: (name) => store.collection(name),
    positions: (projection) => store.positions(projection),
    savePositions: save,
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

describe('startProjector', () => {
  let dir: string;
  let log: FileEventLog;

  beforeEach(async () => {
    dir = await tempDir();
    log = await openLog(dir);
  });
  afterEach(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  const append = (topic: string, from: number, count: number) =>
    log.append(
      topic,
      Array.from({ length: count }, (_, i) => testEvent(from + i)),
    );

  it('applies every event of its topics and saves the positions after them', async () => {
    await append('a', 0, 4);
    await append('b', 0, 2);
    const store = new MemoryProjectionStore();
    const sub = await startProjector({ log, store, name: 'p', topics: ['a', 'b'], apply: tally });
    await sub.caughtUp;
    await append('a', 4, 1);
    await sub.waitFor('a', 4);
    await sub.close();
    expect(await store.collection<TallyDoc>('tally').get('a')).toEqual({ id: 'a', offsets: [0, 1, 2, 3, 4] });
    expect(await store.collection<TallyDoc>('tally').get('b')).toEqual({ id: 'b', offsets: [0, 1] });
    expect(await store.positions('p')).toEqual({ [positionKey('a')]: 5, [positionKey('b')]: 2 });
  });

  it('resumes from the positions its store kept, applying nothing twice', async () => {
    await append('a', 0, 3);
    const store = new MemoryProjectionStore();
    const first = await startProjector({ log, store, name: 'p', topics: ['a'], apply: tally });
    await first.caughtUp;
    await first.close();
    await append('a', 3, 2);
    const starts: unknown[] = [];
    const spied: EventLog = {
      append: log.append.bind(log),
      read: log.read.bind(log),
      size: log.size.bind(log),
      ends: log.ends.bind(log),
      ping: log.ping.bind(log),
      close: log.close.bind(log),
      subscribe: (options) => {
        starts.push(options.from);
        return log.subscribe(options);
      },
    };
    const second = await startProjector({ log: spied, store, name: 'p', topics: ['a'], apply: tally });
    await second.caughtUp;
    await second.close();
    expect(starts).toEqual([{ positions: { [positionKey('a')]: 3 } }]);
    expect(await store.collection<TallyDoc>('tally').get('a')).toEqual({ id: 'a', offsets: [0, 1, 2, 3, 4] });
  });

  it('replays the whole log into a store that starts empty', async () => {
    await append('a', 0, 3);
    const first = new MemoryProjectionStore();
    await (await startProjector({ log, store: first, name: 'p', topics: ['a'], apply: tally })).close();
    const fresh = new MemoryProjectionStore();
    const sub = await startProjector({ log, store: fresh, name: 'p', topics: ['a'], apply: tally });
    await sub.caughtUp;
    await sub.close();
    expect(await fresh.collection<TallyDoc>('tally').get('a')).toEqual({ id: 'a', offsets: [0, 1, 2] });
  });

  it('carries a failed save into the next one, applying nothing twice', async () => {
    await append('a', 0, 2);
    const store = new MemoryProjectionStore();
    let attempts = 0;
    const flaky = savingThrough(store, async (projection, positions) => {
      if (attempts++ === 0) throw new Error('store unavailable');
      await store.savePositions(projection, positions);
    });
    const sub = await startProjector({ log, store: flaky, name: 'p', topics: ['a'], apply: tally });
    await sub.caughtUp;
    await vi.waitFor(async () => expect(await store.positions('p')).toEqual({ [positionKey('a')]: 2 }));
    expect(attempts).toBe(2);
    await sub.close();
    expect(await store.collection<TallyDoc>('tally').get('a')).toEqual({ id: 'a', offsets: [0, 1] });
    expect(await store.positions('p')).toEqual({ [positionKey('a')]: 2 });
  });

  it('leaves no save behind once closed, even when the one in flight fails', async () => {
    await append('a', 0, 3);
    const store = new MemoryProjectionStore();
    let attempts = 0;
    let fail!: () => void;
    const failed = new Promise<void>((resolve) => (fail = resolve));
    const failingFirst = savingThrough(store, async (projection, positions) => {
      if (attempts++ === 0) {
        await failed;
        throw new Error('store unavailable');
      }
      await store.savePositions(projection, positions);
    });
    // The first save fails once the subscription is closed, while close waits for it.
    const closingLog: EventLog = Object.create(log, {
      subscribe: {
        value: async (options: Parameters<EventLog['subscribe']>[0]) => {
          const subscription = await log.subscribe(options);
          return {
            ...subscription,
            close: async () => {
              await subscription.close();
              setImmediate(fail);
            },
          };
        },
      },
    });
    const sub = await startProjector({
      log: closingLog,
      store: failingFirst,
      name: 'p',
      topics: ['a'],
      apply: tally,
    });
    await sub.caughtUp;
    await vi.waitFor(() => expect(attempts).toBe(1));
    await sub.close();
    expect(attempts).toBe(2);
    expect(await store.positions('p')).toEqual({ [positionKey('a')]: 3 });
    // A retry scheduled by the failure would come SAVE_DELAY_MS later.
    await new Promise((resolve) => setTimeout(resolve, 5 * SAVE_DELAY_MS));
    expect(attempts).toBe(2);
  });

  it('saves a burst of events once, a moment after the first of them', async () => {
    const store = new MemoryProjectionStore();
    const applied: number[] = [];
    const saves: { at: number; offset: number }[] = [];
    const timed = savingThrough(store, async (projection, positions) => {
      saves.push({ at: performance.now(), offset: positions[positionKey('a')] ?? 0 });
      await store.savePositions(projection, positions);
    });
    const sub = await startProjector({
      log,
      store: timed,
      name: 'p',
      topics: ['a'],
      apply: async (event, target) => {
        await tally(event, target);
        applied.push(performance.now());
      },
    });
    await sub.caughtUp;
    await append('a', 0, 10);
    await sub.waitFor('a', 9);
    await vi.waitFor(() => expect(saves.at(-1)?.offset).toBe(10));
    // Timers never fire early: the first save waited for the events behind the first one.
    expect(saves[0]!.at - applied[0]!).toBeGreaterThanOrEqual(SAVE_DELAY_MS - 1);
    expect(saves.length).toBeLessThan(applied.length);
    await sub.close();
    expect(await store.positions('p')).toEqual({ [positionKey('a')]: 10 });
  });

  it('saves between events, one save at a time, and the last positions on close', async () => {
    await append('a', 0, 20);
    const store = new MemoryProjectionStore();
    let applying = false;
    let inFlight = 0;
    const saves: { overlapped: boolean; duringApply: boolean; offset: number }[] = [];
    const slow = savingThrough(store, async (projection, positions) => {
      saves.push({
        overlapped: inFlight > 0,
        duringApply: applying,
        offset: positions[positionKey('a')] ?? 0,
      });
      inFlight++;
      // A database round trip several events long.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.savePositions(projection, positions);
      inFlight--;
    });
    const sub = await startProjector({
      log,
      store: slow,
      name: 'p',
      topics: ['a'],
      apply: async (event, target) => {
        applying = true;
        await new Promise((resolve) => setTimeout(resolve, 2));
        await tally(event, target);
        applying = false;
      },
    });
    await sub.caughtUp;
    await sub.close();
    expect(saves.length).toBeGreaterThan(0);
    expect(saves.length).toBeLessThan(20);
    expect(saves.filter((s) => s.overlapped || s.duringApply)).toEqual([]);
    // Each save is at least as far as the one before, and the documents are never behind it.
    expect(saves.map((s) => s.offset)).toEqual([...saves.map((s) => s.offset)].sort((x, y) => x - y));
    expect(await store.positions('p')).toEqual({ [positionKey('a')]: 20 });
    expect((await store.collection<TallyDoc>('tally').get('a'))!.offsets).toHaveLength(20);
  });
});

describe('Projection.reachedEnds', () => {
  it('resolves once every event its topics held when called is applied, and not before', async () => {
    const dir = await tempDir();
    const log = await openLog(dir);
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const applied: string[] = [];
    class Gated extends Projection {
      constructor() {
        super(log, new MemoryProjectionStore(), 'gated', ['a', 'b']);
      }
      protected async apply(event: StoredEvent): Promise<void> {
        await gate;
        applied.push(`${event.topic}@${event.offset}`);
      }
    }
    const projection = new Gated();
    try {
      await log.append('a', [testEvent(0), testEvent(1)]);
      await log.append('b', [testEvent(0)]);
      await projection.start();
      let reached = false;
      const pending = projection.reachedEnds().then(() => (reached = true));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reached).toBe(false);
      open();
      await pending;
      expect(applied.sort()).toEqual(['a@0', 'a@1', 'b@0']);
    } finally {
      await projection.close();
      await log.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('stamped documents', () => {
  interface Billed extends StampedDocument {
    billing: string;
  }
  const at = (offset: number): StoredEvent => ({
    ...testEvent(1),
    id: 'evt_same',
    topic: 't',
    partition: 0,
    offset,
  });

  it.each([
    ['none yet', undefined, undefined],
    ['written by this fact', { id: 'j', billing: 'reserved', setBy: logPosition(at(4)) }, undefined],
    ['written by an earlier fact', { id: 'j', billing: 'reserved', setBy: logPosition(at(1)) }, 'reserved'],
    [
      'written by the same id at another offset',
      { id: 'j', billing: 'reserved', setBy: logPosition(at(9)) },
      'reserved',
    ],
  ] as const)('as the fact at offset 4 found it: %s', (_case, doc, found) => {
    expect(stampedBefore<Billed>(doc, at(4))?.billing).toBe(found);
  });

  it('is written once per fact, stamped with where the fact sits', async () => {
    const docs = new MemoryProjectionStore().collection<Billed>('billed');
    await putStamped(docs, undefined, at(4), { id: 'j', billing: 'reserved' });
    const written = await docs.get('j');
    expect(written).toEqual({ id: 'j', billing: 'reserved', setBy: 't:0@4' });
    // The same fact again leaves it; a later copy of the fact (another offset) writes again.
    await docs.put({ ...written!, billing: 'captured' });
    await putStamped(docs, await docs.get('j'), at(4), { id: 'j', billing: 'reserved' });
    expect((await docs.get('j'))!.billing).toBe('captured');
    await putStamped(docs, await docs.get('j'), at(9), { id: 'j', billing: 'released' });
    expect(await docs.get('j')).toEqual({ id: 'j', billing: 'released', setBy: 't:0@9' });
  });

  it('is not set back by an earlier fact folded from a stale version', async () => {
    const docs = new MemoryProjectionStore().collection<Billed>('billed');
    await putStamped(docs, undefined, at(2), { id: 'j', billing: 'reserved' });
    const stale = await docs.get('j');
    // Another writer folded the facts at 4 and 9 meanwhile.
    await putStamped(docs, stale, at(4), { id: 'j', billing: 'captured' });
    await putStamped(docs, await docs.get('j'), at(9), { id: 'j', billing: 'refunded' });
    // The writer that still holds the version of offset 2 folds offset 4 late.
    await putStamped(docs, stale, at(4), { id: 'j', billing: 'captured' });
    expect(await docs.get('j')).toEqual({ id: 'j', billing: 'refunded', setBy: 't:0@9' });
    // A fact of another partition cannot be ordered against it, and writes.
    await putStamped(docs, stale, { ...at(4), partition: 1 }, { id: 'j', billing: 'released' });
    expect(await docs.get('j')).toEqual({ id: 'j', billing: 'released', setBy: 't:1@4' });
  });
});

describe('allWritten', () => {
  const later = (ms: number, outcome: () => void) =>
    new Promise<void>((resolve) => setTimeout(resolve, ms)).then(outcome);

  it.each([
    { writes: 'all succeed', failing: [] as number[], error: undefined },
    { writes: 'the first fails at once', failing: [0], error: 'write 0' },
    { writes: 'two fail', failing: [2, 1], error: 'write 1' },
  ])('waits for every write when $writes, then fails with the first failure', async ({ failing, error }) => {
    const settled: number[] = [];
    const writes = [0, 1, 2].map((i) =>
      later(failing.includes(i) ? 0 : 20, () => {
        settled.push(i);
        if (failing.includes(i)) throw new Error(`write ${i}`);
      }),
    );
    const outcome = allWritten([...writes, undefined, false]);
    if (error) await expect(outcome).rejects.toThrow(error);
    else await expect(outcome).resolves.toBeUndefined();
    expect(settled.sort()).toEqual([0, 1, 2]);
  });
});
