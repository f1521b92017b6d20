import { randomUUID } from 'node:crypto';
import { startInfrastructure, type RunningInfrastructure } from '@thumbforge/infra';
import mongoose from 'mongoose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Document, ProjectionCollection } from '../../src/index.js';
import { MongoProjectionStore, type MongoProjectionStoreOptions } from '../../src/mongo/index.js';
import { describeProjectionStoreContract } from '../../src/testing/index.js';

/** The first run builds FerretDB from the Go module proxy; later runs start the cached binary at once. */
const PROVISIONING_TIMEOUT_MS = 20 * 60_000;

let infra: RunningInfrastructure<'mongo'>;

beforeAll(async () => {
  infra = await startInfrastructure({ services: ['mongo'] });
}, PROVISIONING_TIMEOUT_MS);

afterAll(async () => {
  await infra?.stop();
});

async function openStore(options: Partial<MongoProjectionStoreOptions> = {}): Promise<MongoProjectionStore> {
  const store = new MongoProjectionStore({ uri: infra.mongo.uri, database: 'thumbforge_test', ...options });
  await store.open();
  return store;
}

describeProjectionStoreContract('MongoProjectionStore on FerretDB', async () => {
  const store = await openStore();
  return { store, cleanup: () => store.close() };
});

interface Doc extends Document {
  [field: string]: unknown;
}

describe('MongoProjectionStore on FerretDB', () => {
  let store: MongoProjectionStore;
  const unique = (prefix: string) => `${prefix}_${randomUUID().slice(0, 8)}`;

  beforeEach(async () => {
    store = await openStore();
  });
  afterEach(async () => {
    await store.close();
  });

  it('round-trips what the wire protocol forbids: dotted and $ names, nested arrays, NaN, infinities', async () => {
    const docs = store.collection<Doc>(unique('awkward'));
    const doc: Doc = {
      id: 'doc.1',
      positions: { 'thumbforge.jobs:0': 3, $where: 'x', '50%': 1, '%2E': 2, '': 0 },
      grid: [
        [1, 2],
        [[3], []],
      ],
      numbers: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1.5],
      big: 12345678901234567890n,
      when: new Date('2026-04-27T14:30:00Z'),
      bytes: Buffer.from([0, 1, 255]),
      text: 'héllo ✓ مرحبا',
      nothing: null,
    };
    await docs.put(doc);
    expect(await docs.get('doc.1')).toEqual(doc);
    expect((await docs.get('doc.1'))!.bytes).toBeInstanceOf(Buffer);
  });

  it('leaves undefined fields out and stores undefined array items as null', async () => {
    const docs = store.collection<Doc>(unique('undefined'));
    await docs.put({ id: 'a', gone: undefined, list: [1, undefined] });
    expect(await docs.get('a')).toStrictEqual({ id: 'a', list: [1, null] });
  });

  it('filters and sorts on escaped field names and on id', async () => {
    const docs = store.collection<Doc>(unique('escaped'));
    await docs.put({ id: 'a', 'meta.rank': 2, group: 'x' });
    await docs.put({ id: 'b', 'meta.rank': 1, group: 'x' });
    await docs.put({ id: 'c', 'meta.rank': 3, group: 'y' });
    const sorted = await docs.find({ group: 'x' }, { sort: { field: 'meta.rank', direction: 'asc' } });
    expect(sorted.map((d) => d.id)).toEqual(['b', 'a']);
    expect((await docs.find({ 'meta.rank': 3 })).map((d) => d.id)).toEqual(['c']);
    expect((await docs.find({ id: 'b' })).map((d) => d.id)).toEqual(['b']);
    expect(await docs.find({ group: undefined })).toHaveLength(3);
  });

  it('sorts missing and null values first, ascending, and breaks ties by id', async () => {
    const docs = store.collection<Doc>(unique('sort'));
    await docs.put({ id: 'd', rank: 1 });
    await docs.put({ id: 'a', rank: 2 });
    await docs.put({ id: 'c', rank: null });
    await docs.put({ id: 'b' });
    await docs.put({ id: 'e', rank: 1 });
    const sorted = await docs.find({}, { sort: { field: 'rank', direction: 'asc' } });
    expect(sorted.map((d) => d.id)).toEqual(['b', 'c', 'd', 'e', 'a']);
  });

  it('keeps documents and positions across a reopen, so a restarted projection resumes', async () => {
    const name = unique('durable');
    await store.collection<Doc>(name).put({ id: 'job_1', status: 'completed' });
    await store.savePositions(name, { 'thumbforge.jobs:0': 42 });
    await store.close();
    store = await openStore();
    expect(await store.collection<Doc>(name).get('job_1')).toEqual({ id: 'job_1', status: 'completed' });
    expect(await store.positions(name)).toEqual({ 'thumbforge.jobs:0': 42 });
  });

  it('accepts collection names with dots and dashes, and keeps prefixed stores apart', async () => {
    const other = await openStore({ collectionPrefix: `${unique('tenant')}.` });
    try {
      await store.collection<Doc>('rendering.render-outcomes').put({ id: 'x', v: 1 });
      await other.collection<Doc>('rendering.render-outcomes').put({ id: 'x', v: 2 });
      expect(await store.collection<Doc>('rendering.render-outcomes').get('x')).toEqual({ id: 'x', v: 1 });
      expect(await other.collection<Doc>('rendering.render-outcomes').get('x')).toEqual({ id: 'x', v: 2 });
    } finally {
      await other.collection<Doc>('rendering.render-outcomes').clear();
      await store.collection<Doc>('rendering.render-outcomes').clear();
      await other.close();
    }
  });

  it('indexes the equality and sort fields of a query shape on first use', async () => {
    const name = unique('indexed');
    const docs = store.collection<Doc>(name);
    await docs.put({ id: 'a', accountId: 'acc_1', createdAt: '2026-01-01T00:00:00Z' });
    await docs.find({ accountId: 'acc_1' }, { sort: { field: 'createdAt', direction: 'desc' } });
    const connection = await mongoose
      .createConnection(infra.mongo.uri, { dbName: 'thumbforge_test' })
      .asPromise();
    try {
      const indexes = await connection.db!.collection(name).indexes();
      expect(indexes.map((i) => i.key)).toContainEqual({ accountId: 1, createdAt: -1 });
    } finally {
      await connection.close();
    }
  });

  /** One collection as this process (`mine`) and as another writer's process (`theirs`) see it. */
  async function withAnotherWriter(
    prefix: string,
    test: (mine: ProjectionCollection<Doc>, theirs: ProjectionCollection<Doc>) => Promise<void>,
  ): Promise<void> {
    const name = unique(prefix);
    const other = await openStore();
    try {
      await test(store.collection<Doc>(name), other.collection<Doc>(name));
    } finally {
      await other.close();
    }
  }

  it("updates its own last write without reading it again, and reads it when another writer's came between", async () => {
    await withAnotherWriter('writer', async (mine, theirs) => {
      const bump = (by: number) => (doc: Doc | undefined) => ({ id: 'n', n: ((doc?.n as number) ?? 0) + by });
      await mine.update('n', bump(1));
      const reads = vi.spyOn(mongoose.mongo.Collection.prototype, 'findOne');
      try {
        expect(await mine.update('n', bump(1))).toEqual({ id: 'n', n: 2 });
        expect(reads).not.toHaveBeenCalled();
        expect(await theirs.update('n', bump(10))).toEqual({ id: 'n', n: 12 });
        reads.mockClear();
        // The version it wrote is stale: its conditional replace misses, and it reads and retries.
        expect(await mine.update('n', bump(1))).toEqual({ id: 'n', n: 13 });
        expect(reads).toHaveBeenCalledTimes(1);
        await theirs.update('n', bump(10));
        // No change to its own last version says nothing about the stored one: that is read.
        expect(await mine.update('n', (doc) => doc)).toEqual({ id: 'n', n: 23 });
      } finally {
        reads.mockRestore();
      }
      expect(await theirs.get('n')).toEqual({ id: 'n', n: 23 });
    });
  });

  it('answers reads from what it wrote or read only while it is the only writer', async () => {
    await withAnotherWriter('owned', async (mine, theirs) => {
      await theirs.put({ id: 'a', n: 1 });
      mine.cacheOwnWrites?.(true);
      await mine.update('b', () => ({ id: 'b', n: 1 }));
      expect(await mine.get('a')).toEqual({ id: 'a', n: 1 });
      expect(await mine.get('absent')).toBeUndefined();
      const reads = vi.spyOn(mongoose.mongo.Collection.prototype, 'findOne');
      const replaces = vi.spyOn(mongoose.mongo.Collection.prototype, 'replaceOne');
      try {
        expect(await mine.get('a')).toEqual({ id: 'a', n: 1 });
        expect(await mine.get('b')).toEqual({ id: 'b', n: 1 });
        expect(await mine.get('absent')).toBeUndefined();
        await mine.put({ id: 'c', n: 3 });
        expect(await mine.update('c', (doc) => ({ ...doc!, n: 4 }))).toEqual({ id: 'c', n: 4 });
        // Still conditional on the revision it wrote (see the next test).
        expect(replaces.mock.calls.at(-1)![0]).toEqual({ _id: 'c', _rev: expect.any(String) });
        await mine.delete('b');
        expect(await mine.get('c')).toEqual({ id: 'c', n: 4 });
        expect(await mine.get('b')).toBeUndefined();
        expect(reads).not.toHaveBeenCalled();
      } finally {
        reads.mockRestore();
        replaces.mockRestore();
      }
      // Another writer is exactly what the promise rules out: its change is not seen...
      await theirs.put({ id: 'a', n: 2 });
      await theirs.put({ id: 'absent', n: 9 });
      expect(await mine.get('a')).toEqual({ id: 'a', n: 1 });
      expect(await mine.get('absent')).toBeUndefined();
      // ...until the lease moves: turned off, every read asks the server again.
      mine.cacheOwnWrites?.(false);
      expect(await mine.get('a')).toEqual({ id: 'a', n: 2 });
      expect(await mine.get('absent')).toEqual({ id: 'absent', n: 9 });
      // Turned on again, what it knew before is forgotten.
      await theirs.put({ id: 'c', n: 5 });
      mine.cacheOwnWrites?.(true);
      expect(await mine.get('c')).toEqual({ id: 'c', n: 5 });
    });
  });

  it('keeps a write that ends while a read of the same document is on its way, not the read', async () => {
    await withAnotherWriter('read-race', async (mine) => {
      mine.cacheOwnWrites?.(true);
      const findOne = mongoose.mongo.Collection.prototype.findOne;
      let answer = () => {};
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const reads = vi
        .spyOn(mongoose.mongo.Collection.prototype, 'findOne')
        .mockImplementationOnce(async function (this: unknown, ...args: unknown[]) {
          const found = await (findOne as (...a: unknown[]) => Promise<unknown>).apply(this, args);
          await answered;
          return found;
        } as never);
      try {
        const reading = mine.get('job');
        await vi.waitFor(() => expect(reads).toHaveBeenCalled());
        await new Promise((resolve) => setTimeout(resolve, 50));
        await mine.put({ id: 'job', n: 1 });
        answer();
        // The read answers what it found; what it found is not what this process knows now.
        expect(await reading).toBeUndefined();
      } finally {
        reads.mockRestore();
      }
      expect(await mine.get('job')).toEqual({ id: 'job', n: 1 });
    });
  });

  it('forgets one document on request: its next read asks the server, the others still do not', async () => {
    await withAnotherWriter('forget', async (mine, theirs) => {
      mine.cacheOwnWrites?.(true);
      expect(await mine.get('job')).toBeUndefined();
      expect(await mine.get('other')).toBeUndefined();
      // A writer frozen past its lease finds the next holder wrote the document meanwhile.
      await theirs.put({ id: 'job', n: 1 });
      await theirs.put({ id: 'other', n: 1 });
      expect(await mine.get('job')).toBeUndefined();
      mine.forget?.('job');
      expect(await mine.get('job')).toEqual({ id: 'job', n: 1 });
      expect(await mine.get('other')).toBeUndefined();
    });
  });

  it.each([
    { caching: true, reads: 0 },
    { caching: false, reads: 1 },
  ])(
    'creates a document expected new without reading it first only while caching its writes (caching: $caching)',
    async ({ caching, reads: expectedReads }) => {
      await withAnotherWriter('fresh', async (mine, theirs) => {
        mine.cacheOwnWrites?.(caching);
        mine.expectNew?.('job_new');
        const reads = vi.spyOn(mongoose.mongo.Collection.prototype, 'findOne');
        try {
          expect(await mine.update('job_new', () => ({ id: 'job_new', n: 1 }))).toEqual({
            id: 'job_new',
            n: 1,
          });
          expect(reads).toHaveBeenCalledTimes(expectedReads);
        } finally {
          reads.mockRestore();
        }
        expect(await theirs.get('job_new')).toEqual({ id: 'job_new', n: 1 });
        // Wrongly expected new (another writer made it): the insert fails and the update folds onto it.
        await theirs.put({ id: 'job_taken', n: 5 });
        mine.expectNew?.('job_taken');
        expect(
          await mine.update('job_taken', (doc) => ({ id: 'job_taken', n: ((doc?.n as number) ?? 0) + 1 })),
        ).toEqual({
          id: 'job_taken',
          n: 6,
        });
      });
    },
  );

  it('never overwrites a newer writer with a cached version, even while it believes it is the only writer', async () => {
    await withAnotherWriter('zombie', async (mine, theirs) => {
      // A lease holder frozen past its lease: it still caches its own writes when it wakes up.
      mine.cacheOwnWrites?.(true);
      const append = (entry: string) => (doc: Doc | undefined) => ({
        id: 'ledger',
        entries: [...((doc?.entries as string[]) ?? []), entry],
      });
      await mine.update('ledger', append('a'));
      // Meanwhile the next holder folded two more events.
      await theirs.update('ledger', append('b'));
      await theirs.update('ledger', append('c'));
      // Its cached version misses the stored revision: it reads the new one and folds onto it.
      expect(await mine.update('ledger', append('d'))).toEqual({
        id: 'ledger',
        entries: ['a', 'b', 'c', 'd'],
      });
      expect(await theirs.get('ledger')).toEqual({ id: 'ledger', entries: ['a', 'b', 'c', 'd'] });
    });
  });

  it('ends concurrent puts of one id with one whole version', async () => {
    const docs = store.collection<Doc>(unique('race'));
    const versions = Array.from({ length: 12 }, (_, i) => ({
      id: 'same',
      version: i,
      body: 'x'.repeat(i * 100),
    }));
    await Promise.all(versions.map((v) => docs.put(v)));
    const stored = await docs.get('same');
    expect(versions).toContainEqual(stored);
    expect(await docs.count()).toBe(1);
  });

  it('refuses documents without an id, unstorable values, bad positions and limits', async () => {
    const docs = store.collection<Doc>(unique('refuse'));
    await expect(docs.put({ id: '' })).rejects.toThrow(TypeError);
    await expect(docs.put({ id: 'a', map: new Map() })).rejects.toThrow(/cannot store a Map at .*map/);
    await expect(docs.put({ id: 'a', fn: () => 1 })).rejects.toThrow(TypeError);
    await expect(store.savePositions('p', { 't:0': -1 })).rejects.toThrow(RangeError);
    await expect(store.savePositions('p', { 't:0': 1.5 })).rejects.toThrow(RangeError);
    await expect(docs.find({}, { limit: -1 })).rejects.toThrow(RangeError);
    expect(await docs.count()).toBe(0);
  });

  it('treats a limit of 0 as no limit', async () => {
    const docs = store.collection<Doc>(unique('limit'));
    await docs.put({ id: 'a' });
    await docs.put({ id: 'b' });
    expect(await docs.find({}, { limit: 0 })).toHaveLength(2);
  });

  it('refuses work once closed', async () => {
    const docs = store.collection<Doc>(unique('closed'));
    await store.close();
    await expect(docs.get('a')).rejects.toThrow(/closed/);
    await expect(store.positions('p')).rejects.toThrow(/closed/);
    await expect(store.ping()).rejects.toThrow(/closed/);
  });

  it('fails instead of hanging when no server answers', async () => {
    const unreachable = new MongoProjectionStore({
      uri: 'mongodb://127.0.0.1:1/',
      serverSelectionTimeoutMs: 300,
    });
    await expect(unreachable.open()).rejects.toThrow();
    await unreachable.close();
  });
});
