import { describe, expect, it } from 'vitest';
import { MemoryProjectionStore, type Document } from '../src/index.js';
import { describeProjectionStoreContract } from '../src/testing/index.js';

describeProjectionStoreContract('MemoryProjectionStore', async () => {
  const store = new MemoryProjectionStore();
  return { store, cleanup: () => store.close() };
});

interface Doc extends Document {
  rank?: number | null;
  at?: Date;
  group?: string;
}

describe('MemoryProjectionStore', () => {
  it('sorts missing and null values first, ascending', async () => {
    const docs = new MemoryProjectionStore().collection<Doc>('docs');
    await docs.put({ id: 'a', rank: 2 });
    await docs.put({ id: 'b' });
    await docs.put({ id: 'c', rank: null });
    await docs.put({ id: 'd', rank: 1 });
    const sorted = await docs.find({}, { sort: { field: 'rank', direction: 'asc' } });
    expect(sorted.map((d) => d.id)).toEqual(['b', 'c', 'd', 'a']);
  });

  it('hands out its documents frozen, nested parts included, and stores a change as a new document', async () => {
    const docs = new MemoryProjectionStore().collection<Doc & { tags: string[] }>('docs');
    await docs.put({ id: 'a', rank: 1, tags: ['x'] });
    const read = (await docs.get('a'))!;
    expect(() => {
      read.rank = 2;
    }).toThrow(TypeError);
    expect(() => read.tags.push('y')).toThrow(TypeError);
    const [found] = await docs.find({ id: 'a' });
    expect(found).toBe(read);
    const next = await docs.update('a', (current) => ({ ...current!, tags: [...current!.tags, 'y'] }));
    expect(Object.isFrozen(next!.tags)).toBe(true);
    expect(read.tags).toEqual(['x']);
    expect((await docs.get('a'))!.tags).toEqual(['x', 'y']);
  });

  it('keeps dates as dates', async () => {
    const docs = new MemoryProjectionStore().collection<Doc>('docs');
    const at = new Date('2026-04-27T14:30:00Z');
    await docs.put({ id: 'a', at });
    expect((await docs.get('a'))!.at).toEqual(at);
  });

  it('ignores filter fields that are undefined', async () => {
    const docs = new MemoryProjectionStore().collection<Doc>('docs');
    await docs.put({ id: 'a', group: 'x' });
    await docs.put({ id: 'b', group: 'y' });
    expect(await docs.find({ group: undefined })).toHaveLength(2);
  });

  it('treats a limit of 0 as no limit and refuses a negative one', async () => {
    const docs = new MemoryProjectionStore().collection<Doc>('docs');
    await docs.put({ id: 'a' });
    await docs.put({ id: 'b' });
    expect(await docs.find({}, { limit: 0 })).toHaveLength(2);
    await expect(docs.find({}, { limit: -1 })).rejects.toThrow(RangeError);
  });

  it('refuses documents without an id and invalid positions', async () => {
    const store = new MemoryProjectionStore();
    await expect(store.collection<Doc>('docs').put({ id: '' })).rejects.toThrow(TypeError);
    await expect(store.savePositions('p', { 't:0': -1 })).rejects.toThrow(RangeError);
    await expect(store.savePositions('p', { 't:0': 1.5 })).rejects.toThrow(RangeError);
  });

  it('refuses work once closed', async () => {
    const store = new MemoryProjectionStore();
    const docs = store.collection<Doc>('docs');
    await store.close();
    await expect(docs.get('a')).rejects.toThrow(/closed/);
    await expect(store.ping()).rejects.toThrow(/closed/);
  });
});
