import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeDocument,
  documentEntries,
  MemoryProjectionStore,
  readSnapshot,
  saveSnapshot,
  writeSnapshot,
  type Document,
  type ProjectionCollection,
  type ProjectionSnapshot,
} from '../src/index.js';

interface Doc extends Document {
  n: number;
}

// Ids whose order differs between UTF-16 code units and code points, beside plain ASCII ones.
const ID = fc
  .array(fc.constantFrom('a', 'b', 'Z', '0', '_', 'é', '\uE000', '😀', '\uFFFD'), {
    minLength: 1,
    maxLength: 3,
  })
  .map((chars) => chars.join(''));

type Operation =
  | { op: 'get' | 'delete'; id: string }
  | { op: 'put' | 'insert'; id: string; n: number }
  | { op: 'update'; id: string; by: number }
  | { op: 'deleteBelow'; bound: number }
  | { op: 'count' | 'find' };

/** Operations on ids of the saved documents (most of them) and on others. */
function operations(saved: string[]): fc.Arbitrary<Operation[]> {
  const id = saved.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...saved), weight: 3 }, ID) : ID;
  const operation: fc.Arbitrary<Operation> = fc.oneof(
    fc.record({ op: fc.constantFrom('get' as const, 'delete' as const), id }),
    fc.record({ op: fc.constantFrom('put' as const, 'insert' as const), id, n: fc.integer() }),
    fc.record({ op: fc.constant('update' as const), id, by: fc.integer({ min: -2, max: 2 }) }),
    fc.record({ op: fc.constantFrom('count' as const, 'find' as const) }),
    fc.record({ op: fc.constant('deleteBelow' as const), bound: fc.integer() }),
  );
  return fc.array(operation, { maxLength: 40 });
}

const SAVED_AND_OPERATIONS = fc
  .uniqueArray(fc.record({ id: ID, n: fc.integer() }), { selector: (d) => d.id, maxLength: 40 })
  .chain((saved) => fc.tuple(fc.constant(saved), operations(saved.map((d) => d.id))));

async function apply(docs: ProjectionCollection<Doc>, operation: Operation): Promise<unknown> {
  switch (operation.op) {
    case 'get':
      return docs.get(operation.id);
    case 'delete':
      return docs.delete(operation.id);
    case 'put':
      return docs.put({ id: operation.id, n: operation.n });
    case 'insert':
      return docs.insert({ id: operation.id, n: operation.n });
    case 'update':
      // 0 leaves the document as it is; a missing one is created only by a positive change.
      return docs.update(operation.id, (current) =>
        operation.by === 0 || (!current && operation.by < 0)
          ? current
          : { id: operation.id, n: (current?.n ?? 0) + operation.by },
      );
    case 'deleteBelow':
      return docs.deleteBelow('n', operation.bound);
    case 'count':
      return docs.count();
    case 'find':
      return (await docs.find({})).sort((a, b) => (a.id < b.id ? -1 : 1));
  }
}

function contents(store: MemoryProjectionStore): Record<string, Record<string, unknown>> {
  const { collections } = store.snapshot();
  return Object.fromEntries(
    [...collections].map(([name, docs]) => [
      name,
      // Decoded, not compared as bytes: V8 may serialize the same number as an integer in one store and
      // a double in the other, depending on how the code that computed it was optimised.
      Object.fromEntries([...documentEntries(docs)].map(([id, bytes]) => [id, decodeDocument(bytes)])),
    ]),
  );
}

const directory = () => mkdtempSync(join(tmpdir(), 'tf-restore-'));

describe('a store restored from a snapshot file', () => {
  it('answers every operation as the store it was saved from', async () => {
    await fc.assert(
      fc.asyncProperty(SAVED_AND_OPERATIONS, async ([seed, operations]) => {
        const live = new MemoryProjectionStore();
        for (const doc of seed) await live.collection<Doc>('docs').put(doc);
        await live.savePositions('p', { 't:0': seed.length });
        const file = join(directory(), 'projections.bin');
        await writeSnapshot(file, live.snapshot());
        const restored = new MemoryProjectionStore();
        restored.restore((await readSnapshot(file))!);
        expect(contents(restored)).toEqual(contents(live));
        for (const operation of operations) {
          const expected = await apply(live.collection<Doc>('docs'), operation);
          expect(await apply(restored.collection<Doc>('docs'), operation)).toEqual(expected);
        }
        expect(contents(restored)).toEqual(contents(live));
        expect(await restored.positions('p')).toEqual({ 't:0': seed.length });
        // Saved again, what is still in the first file and what changed since come out merged in order.
        const second = join(directory(), 'projections.bin');
        await writeSnapshot(second, restored.snapshot());
        const again = new MemoryProjectionStore();
        again.restore((await readSnapshot(second))!);
        expect(contents(again)).toEqual(contents(live));
        const saved = again.snapshot().collections.get('docs');
        const ids = saved ? [...documentEntries(saved)].map(([id]) => id) : [];
        expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
        await again.close();
        await restored.close();
      }),
      { numRuns: 100 },
    );
  });

  it('saves each collection in id order, whatever order it was written in', async () => {
    const store = new MemoryProjectionStore();
    for (const id of ['m', 'b', '😀', 'z', '\uE000', 'a'])
      await store.collection<Doc>('docs').put({ id, n: 1 });
    const file = join(directory(), 'projections.bin');
    await writeSnapshot(file, store.snapshot());
    const docs = (await readSnapshot(file))!.collections.get('docs')!;
    const ids = [...documentEntries(docs)].map(([id]) => id);
    expect(ids).toEqual(['a', 'b', 'm', 'z', '😀', '\uE000']);
  });

  it('reads a snapshot an earlier release saved, documents in no order and no sorted mark', async () => {
    // That release's writer: the same frames, the header without `sorted`, documents as the map held them.
    const frame = (bytes: Buffer) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return [length, bytes];
    };
    const ids = ['job_c', 'job_a', 'job_b'];
    const header = { positions: { p: { 't:0': 3 } }, collections: [{ name: 'docs', documents: ids.length }] };
    const parts = [
      Buffer.from('thumbforge-projections-1\n'),
      ...frame(Buffer.from(JSON.stringify(header))),
      ...ids.flatMap((id, n) => [...frame(Buffer.from(id)), ...frame(serialize({ id, n }))]),
    ];
    const body = Buffer.concat(parts);
    const trailer = Buffer.alloc(4);
    trailer.writeUInt32BE(crc32(body));
    const file = join(directory(), 'projections.bin');
    writeFileSync(file, Buffer.concat([body, trailer]));

    const store = new MemoryProjectionStore();
    store.restore((await readSnapshot(file))!);
    const docs = store.collection<Doc>('docs');
    expect(await docs.get('job_b')).toEqual({ id: 'job_b', n: 2 });
    expect(await docs.get('job_c')).toEqual({ id: 'job_c', n: 0 });
    expect(await docs.get('job_d')).toBeUndefined();
    expect(await docs.insert({ id: 'job_a', n: 9 })).toBe(false);
    expect(await docs.count()).toBe(3);
  });
});

describe('a store that hands its documents to the snapshots it writes while it runs', () => {
  type Step = Operation | { op: 'cut' | 'adopt' | 'clear' };
  const STEPS = fc
    .uniqueArray(fc.record({ id: ID, n: fc.integer() }), { selector: (d) => d.id, maxLength: 30 })
    .chain((saved) =>
      fc.tuple(
        fc.constant(saved),
        fc.array(
          fc.oneof(
            {
              arbitrary: operations(saved.map((d) => d.id)).map((ops) => ops[0] ?? { op: 'count' as const }),
              weight: 10,
            },
            { arbitrary: fc.constantFrom({ op: 'cut' as const }, { op: 'adopt' as const }), weight: 8 },
            { arbitrary: fc.constant({ op: 'clear' as const }), weight: 1 },
          ) as fc.Arbitrary<Step>,
          { maxLength: 80 },
        ),
      ),
    );

  it('answers every operation as a store that never wrote one, before and after a restart', async () => {
    await fc.assert(
      fc.asyncProperty(STEPS, async ([seed, steps]) => {
        const model = new MemoryProjectionStore();
        const store = new MemoryProjectionStore();
        for (const doc of seed) {
          await model.collection<Doc>('docs').put(doc);
          await store.collection<Doc>('docs').put(doc);
        }
        const dir = directory();
        let written = 0;
        const pending: {
          cut: ReturnType<MemoryProjectionStore['snapshot']>;
          saved: Promise<ProjectionSnapshot>;
        }[] = [];
        for (const step of steps) {
          if (step.op === 'cut') {
            const cut = store.snapshot();
            // Not awaited: the operations after it run while it is written.
            pending.push({ cut, saved: saveSnapshot(join(dir, `cut-${written++}.bin`), cut) });
          } else if (step.op === 'adopt') {
            const next = pending.shift();
            if (!next) continue;
            store.adopt(next.cut, await next.saved);
          } else if (step.op === 'clear') {
            await model.collection<Doc>('docs').clear();
            await store.collection<Doc>('docs').clear();
          } else {
            const expected = await apply(model.collection<Doc>('docs'), step as Operation);
            expect(await apply(store.collection<Doc>('docs'), step as Operation)).toEqual(expected);
          }
          expect(contents(store)).toEqual(contents(model));
        }
        for (const saved of await Promise.all(pending.map((p) => p.saved))) saved.release?.();
        const file = join(dir, 'at-stop.bin');
        await writeSnapshot(file, store.snapshot());
        const restarted = new MemoryProjectionStore();
        restarted.restore((await readSnapshot(file))!);
        expect(contents(restarted)).toEqual(contents(model));
        await restarted.close();
        await store.close();
      }),
      { numRuns: 200 },
    );
  });

  it('lets go of the documents unchanged since the cut, and keeps the ones changed since', async () => {
    const store = new MemoryProjectionStore();
    const docs = store.collection<Doc>('docs');
    for (const id of ['a', 'b', 'c', 'd']) await docs.put({ id, n: 1 });
    const cut = store.snapshot();
    const file = join(directory(), 'projections.bin');
    await writeSnapshot(file, cut);
    await docs.update('b', (doc) => ({ ...doc!, n: 2 }));
    await docs.delete('c');
    await docs.put({ id: 'e', n: 1 });
    expect(store.residentDocuments()).toBe(4);

    expect(store.adopt(cut, (await readSnapshot(file))!)).toBe(true);
    expect(store.residentDocuments()).toBe(2);
    expect(await docs.get('a')).toEqual({ id: 'a', n: 1 });
    expect(await docs.get('b')).toEqual({ id: 'b', n: 2 });
    expect(await docs.get('c')).toBeUndefined();
    expect(await docs.count()).toBe(4);
    // Taken once: a second adoption of the same cut changes nothing.
    expect(store.adopt(cut, (await readSnapshot(file))!)).toBe(false);
    expect(await docs.get('d')).toEqual({ id: 'd', n: 1 });
    await store.close();
  });
});
