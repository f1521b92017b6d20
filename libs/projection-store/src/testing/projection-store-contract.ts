import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProjectionStore } from '../port.js';

export interface ProjectionStoreContext {
  store: ProjectionStore;
  /** Closes the store and removes the test's data. */
  cleanup: () => Promise<void>;
}

interface JobDoc {
  id: string;
  accountId: string;
  status: string;
  credits: number;
  createdAt: string;
  result?: { url: string | null; dimensions: { width: number; height: number } } | null;
  tags?: string[];
}

function job(id: string, overrides: Partial<JobDoc> = {}): JobDoc {
  return {
    id,
    accountId: 'acc_1',
    status: 'processing',
    credits: 10,
    createdAt: '2026-04-27T14:30:00Z',
    ...overrides,
  };
}

/**
 * The behaviour every ProjectionStore adapter must have. Collection and projection names are unique per
 * test, so adapters backed by a shared database can run it too.
 */
export function describeProjectionStoreContract(
  name: string,
  makeStore: () => Promise<ProjectionStoreContext>,
): void {
  describe(`ProjectionStore contract: ${name}`, () => {
    let ctx: ProjectionStoreContext;
    let store: ProjectionStore;
    const unique = (prefix: string) => `${prefix}_${randomUUID().slice(0, 8)}`;
    const jobs = () => store.collection<JobDoc>(unique('jobs'));

    beforeEach(async () => {
      ctx = await makeStore();
      store = ctx.store;
    });
    afterEach(async () => {
      await ctx.cleanup();
    });

    describe('documents', () => {
      it('stores and returns a document by id, and nothing for an unknown id', async () => {
        const docs = jobs();
        const doc = job('job_1', {
          result: { url: null, dimensions: { width: 1280, height: 720 } },
          tags: ['a', 'b'],
        });
        await docs.put(doc);
        expect(await docs.get('job_1')).toEqual(doc);
        expect(await docs.get('job_2')).toBeUndefined();
      });

      it('replaces the whole document on put', async () => {
        const docs = jobs();
        await docs.put(job('job_1', { tags: ['x'] }));
        await docs.put(job('job_1', { status: 'completed' }));
        expect(await docs.get('job_1')).toEqual(job('job_1', { status: 'completed' }));
        expect(await docs.count()).toBe(1);
      });

      it('keeps its own copy of a stored object and hands out documents that later writes leave alone', async () => {
        const docs = jobs();
        const doc = job('job_1', { tags: ['a'] });
        await docs.put(doc);
        doc.status = 'changed';
        doc.tags!.push('b');
        const read = (await docs.get('job_1'))!;
        const [found] = await docs.find({ id: 'job_1' });
        await docs.update('job_1', (current) => ({ ...current!, status: 'completed', tags: ['z'] }));
        expect(read).toEqual(job('job_1', { tags: ['a'] }));
        expect(found).toEqual(job('job_1', { tags: ['a'] }));
        expect(await docs.get('job_1')).toEqual(job('job_1', { status: 'completed', tags: ['z'] }));
      });

      it('deletes a document; deleting an unknown id is a no-op', async () => {
        const docs = jobs();
        await docs.put(job('job_1'));
        await docs.put(job('job_2'));
        await docs.delete('job_1');
        await docs.delete('job_404');
        expect(await docs.get('job_1')).toBeUndefined();
        expect(await docs.get('job_2')).toEqual(job('job_2'));
        expect(await docs.count()).toBe(1);
      });

      it('counts and clears one collection without touching another', async () => {
        const a = jobs();
        const b = jobs();
        await a.put(job('job_1'));
        await a.put(job('job_2'));
        await b.put(job('job_1'));
        expect(await a.count()).toBe(2);
        await a.clear();
        expect(await a.count()).toBe(0);
        expect(await a.get('job_1')).toBeUndefined();
        expect(await b.get('job_1')).toEqual(job('job_1'));
      });

      it('updates a document from its current version, creating it when missing', async () => {
        const docs = jobs();
        const created = await docs.update('job_1', (current) => current ?? job('job_1'));
        expect(created).toEqual(job('job_1'));
        const changed = await docs.update('job_1', (current) => ({
          ...current!,
          credits: current!.credits + 5,
        }));
        expect(changed?.credits).toBe(15);
        expect(await docs.get('job_1')).toEqual(job('job_1', { credits: 15 }));
      });

      it('leaves the document as it is when the change returns it unchanged or nothing', async () => {
        const docs = jobs();
        await docs.put(job('job_1'));
        expect(await docs.update('job_1', (current) => current)).toEqual(job('job_1'));
        expect(await docs.update('job_1', () => undefined)).toEqual(job('job_1'));
        expect(await docs.update('job_2', () => undefined)).toBeUndefined();
        expect(await docs.count()).toBe(1);
      });

      it('inserts a document only once: of many concurrent inserts of one id exactly one succeeds', async () => {
        const docs = jobs();
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) => docs.insert(job('job_1', { credits: i }))),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect(await docs.get('job_1')).toEqual(job('job_1', { credits: winner }));
        expect(await docs.insert(job('job_2'))).toBe(true);
        expect(await docs.count()).toBe(2);
      });

      it('refuses to change the id of a document', async () => {
        const docs = jobs();
        await docs.put(job('job_1'));
        await expect(docs.update('job_1', (current) => ({ ...current!, id: 'job_2' }))).rejects.toThrow(/id/);
        expect(await docs.get('job_2')).toBeUndefined();
      });

      it('gives the same data to every handle of a collection name', async () => {
        const name = unique('jobs');
        await store.collection<JobDoc>(name).put(job('job_1'));
        expect(await store.collection<JobDoc>(name).get('job_1')).toEqual(job('job_1'));
      });
    });

    describe('find', () => {
      async function seeded() {
        const docs = jobs();
        await docs.put(
          job('job_a', {
            accountId: 'acc_1',
            status: 'completed',
            credits: 12,
            createdAt: '2026-01-03T00:00:00Z',
          }),
        );
        await docs.put(
          job('job_b', {
            accountId: 'acc_2',
            status: 'completed',
            credits: 10,
            createdAt: '2026-01-01T00:00:00Z',
          }),
        );
        await docs.put(
          job('job_c', {
            accountId: 'acc_1',
            status: 'failed',
            credits: 26,
            createdAt: '2026-01-02T00:00:00Z',
          }),
        );
        await docs.put(
          job('job_d', {
            accountId: 'acc_1',
            status: 'completed',
            credits: 20,
            createdAt: '2026-01-04T00:00:00Z',
          }),
        );
        return docs;
      }
      const ids = (docs: JobDoc[]) => docs.map((d) => d.id);

      it('returns the documents whose fields equal every field of the filter', async () => {
        const docs = await seeded();
        expect(ids(await docs.find({ accountId: 'acc_1' })).sort()).toEqual(['job_a', 'job_c', 'job_d']);
        expect(ids(await docs.find({ accountId: 'acc_1', status: 'completed' })).sort()).toEqual([
          'job_a',
          'job_d',
        ]);
        expect(ids(await docs.find({ credits: 26 }))).toEqual(['job_c']);
        expect(await docs.find({ accountId: 'acc_3' })).toEqual([]);
      });

      it('returns everything for an empty filter', async () => {
        const docs = await seeded();
        expect(ids(await docs.find({})).sort()).toEqual(['job_a', 'job_b', 'job_c', 'job_d']);
      });

      it('sorts by a number or string field in either direction', async () => {
        const docs = await seeded();
        expect(ids(await docs.find({}, { sort: { field: 'credits', direction: 'asc' } }))).toEqual([
          'job_b',
          'job_a',
          'job_d',
          'job_c',
        ]);
        expect(ids(await docs.find({}, { sort: { field: 'createdAt', direction: 'desc' } }))).toEqual([
          'job_d',
          'job_a',
          'job_c',
          'job_b',
        ]);
      });

      it('deletes the documents whose number is below a bound, answers how many, and leaves the rest', async () => {
        const docs = await seeded();
        const other = jobs();
        await other.put(job('job_a', { credits: 1 }));
        expect(await docs.deleteBelow('credits', 20)).toBe(2);
        expect(ids(await docs.find({})).sort()).toEqual(['job_c', 'job_d']);
        expect(await docs.get('job_a')).toBeUndefined();
        expect(await docs.deleteBelow('credits', 20)).toBe(0);
        // Another collection keeps its documents.
        expect(await other.get('job_a')).toEqual(job('job_a', { credits: 1 }));
        await expect(docs.deleteBelow('credits', Number.NaN)).rejects.toThrow(RangeError);
      });

      it('limits the result after filtering and sorting', async () => {
        const docs = await seeded();
        const newest = await docs.find(
          { accountId: 'acc_1' },
          { sort: { field: 'createdAt', direction: 'desc' }, limit: 2 },
        );
        expect(ids(newest)).toEqual(['job_d', 'job_a']);
        expect(await docs.find({ accountId: 'acc_1' }, { limit: 1 })).toHaveLength(1);
      });
    });

    describe('positions', () => {
      it('has none for a projection that never saved any', async () => {
        expect(await store.positions(unique('projection'))).toEqual({});
      });

      it('returns what was saved last, per projection', async () => {
        const a = unique('projection');
        const b = unique('projection');
        await store.savePositions(a, { 'thumbforge.billing:0': 4, 'thumbforge.jobs:0': 9 });
        await store.savePositions(a, { 'thumbforge.billing:0': 5, 'thumbforge.jobs:0': 9 });
        await store.savePositions(b, { 'thumbforge.billing:0': 1 });
        expect(await store.positions(a)).toEqual({ 'thumbforge.billing:0': 5, 'thumbforge.jobs:0': 9 });
        expect(await store.positions(b)).toEqual({ 'thumbforge.billing:0': 1 });
      });

      it('hands out copies of positions', async () => {
        const p = unique('projection');
        const saved = { 'thumbforge.jobs:0': 3 };
        await store.savePositions(p, saved);
        saved['thumbforge.jobs:0'] = 100;
        (await store.positions(p))['thumbforge.jobs:0'] = 200;
        expect(await store.positions(p)).toEqual({ 'thumbforge.jobs:0': 3 });
      });
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
