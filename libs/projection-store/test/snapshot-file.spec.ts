import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeDocument,
  documentEntries,
  MemoryProjectionStore,
  readSnapshot,
  saveSnapshot,
  SnapshotFormatError,
  writeSnapshot,
  type Document,
  type ProjectionSnapshot,
} from '../src/index.js';

interface Doc extends Document {
  n?: number;
  at?: Date;
  tags?: string[][];
}

async function filled(): Promise<MemoryProjectionStore> {
  const store = new MemoryProjectionStore();
  const docs = store.collection<Doc>('docs');
  await docs.put({ id: 'a', n: 1, at: new Date('2026-04-27T14:30:00Z'), tags: [['x', 'y']] });
  await docs.put({ id: 'b', n: Number.NaN });
  await store.collection<Doc>('other').put({ id: 'c' });
  await store.savePositions('p', { 't:0': 3, 'u:1': 7 });
  return store;
}

describe('projection snapshots on disk', () => {
  it('restores every document and position as saved, and keeps working after', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tf-snap-')), 'nested', 'projections.bin');
    await writeSnapshot(file, (await filled()).snapshot());

    const restored = new MemoryProjectionStore();
    restored.restore((await readSnapshot(file))!);
    const docs = restored.collection<Doc>('docs');
    expect(await docs.get('a')).toEqual({
      id: 'a',
      n: 1,
      at: new Date('2026-04-27T14:30:00Z'),
      tags: [['x', 'y']],
    });
    expect((await docs.get('b'))!.n).toBeNaN();
    expect(await docs.find({ n: 1 })).toHaveLength(1);
    expect(await restored.collection<Doc>('other').count()).toBe(1);
    expect(await restored.positions('p')).toEqual({ 't:0': 3, 'u:1': 7 });

    // A restored document is read-only, as every stored one is.
    const restoredDoc = (await docs.get('a'))!;
    expect(() => {
      restoredDoc.n = 99;
    }).toThrow(TypeError);
    expect((await docs.get('a'))!.n).toBe(1);
    expect(await docs.update('a', (d) => ({ ...d!, n: 2 }))).toMatchObject({ n: 2 });
    expect((await docs.get('a'))!.n).toBe(2);
    // Saved again, a restored document that was never read goes out as it came in.
    const again = new MemoryProjectionStore();
    again.restore(restored.snapshot());
    expect(await again.collection<Doc>('other').get('c')).toEqual({ id: 'c' });
  });

  it('reads past a damaged document, and refuses that document when it is read', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tf-snap-')), 'projections.bin');
    await writeSnapshot(file, (await filled()).snapshot());
    const bytes = readFileSync(file);
    // Documents follow the magic line in id order: 'a' (of 'docs') comes first.
    bytes['thumbforge-projections-2\n'.length + 10] ^= 0xff;
    writeFileSync(file, bytes);

    const restored = new MemoryProjectionStore();
    restored.restore((await readSnapshot(file))!);
    const docs = restored.collection<Doc>('docs');
    await expect(docs.get('a')).rejects.toThrow(SnapshotFormatError);
    await expect(docs.get('a')).rejects.toThrow(/checksum of docs\/a/);
    expect((await docs.get('b'))!.n).toBeNaN();
    await restored.close();
    // Released with the store: nothing is read from the file after.
    await expect(restored.collection<Doc>('other').get('c')).rejects.toThrow(/closed/);
  });

  it('reads documents in order a window at a time, and saves them again with the changes since', async () => {
    // About 3 MB of documents: more than one read-ahead window (1 MiB).
    const ids = Array.from({ length: 600 }, (_, i) => `d${String(i).padStart(4, '0')}`);
    const saved = new MemoryProjectionStore();
    for (const id of ids) await saved.collection<Doc>('big').put({ id, tags: [[id, 'x'.repeat(5_000)]] });
    const dir = mkdtempSync(join(tmpdir(), 'tf-snap-'));
    await writeSnapshot(join(dir, 'first.bin'), saved.snapshot());

    const restored = new MemoryProjectionStore();
    restored.restore((await readSnapshot(join(dir, 'first.bin')))!);
    const big = restored.collection<Doc>('big');
    expect((await big.get('d0450'))!.tags![0]![0]).toBe('d0450');
    for (const id of ids.slice(0, 200)) expect((await big.get(id))!.tags![0]![0]).toBe(id);
    await big.put({ id: 'd0150x', n: 1 });
    await big.update('d0010', (doc) => ({ ...doc!, n: 2 }));
    await big.delete('d0020');
    await big.put({ id: 'a', n: 3 });
    await big.put({ id: 'z', n: 4 });

    await writeSnapshot(join(dir, 'second.bin'), restored.snapshot());
    const again = (await readSnapshot(join(dir, 'second.bin')))!;
    const entries = [...documentEntries(again.collections.get('big')!)];
    const expected = ['a', ...ids.slice(0, 151), 'd0150x', ...ids.slice(151), 'z'].filter(
      (id) => id !== 'd0020',
    );
    expect(entries.map(([id]) => id)).toEqual(expected);
    const decoded = new Map(entries.map(([id, bytes]) => [id, decodeDocument(bytes) as Doc]));
    expect(decoded.get('d0010')).toMatchObject({ n: 2, tags: [['d0010', 'x'.repeat(5_000)]] });
    expect(decoded.get('d0599')).toEqual({ id: 'd0599', tags: [['d0599', 'x'.repeat(5_000)]] });
    expect(decoded.get('d0150x')).toEqual({ id: 'd0150x', n: 1 });
    again.release?.();
    await restored.close();
  });

  it('returns from a save what reading the saved file gives, without reading its index back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-snap-'));
    const store = new MemoryProjectionStore();
    // Ids of several lengths (UTF-8 of one to four bytes a character) and documents around the buffer's size.
    const ids = Array.from({ length: 400 }, (_, i) => `${'é'.repeat(i % 3)}${i}${'😀'.repeat(i % 2)}`);
    for (const [i, id] of ids.entries()) {
      await store.collection<Doc>('docs').put({ id, n: i, tags: [['x'.repeat(i === 7 ? 1_200_000 : i)]] });
    }
    await store.collection<Doc>('other').put({ id: 'c' });
    await store.collection<Doc>('empty').put({ id: 'gone' });
    await store.collection<Doc>('empty').delete('gone');
    await store.savePositions('p', { 't:0': 3 });
    await writeSnapshot(join(dir, 'first.bin'), store.snapshot());
    // Saved again from a restored store with changes, so restored and in-memory documents both go out.
    const restored = new MemoryProjectionStore();
    restored.restore((await readSnapshot(join(dir, 'first.bin')))!);
    await restored.collection<Doc>('docs').update(ids[10]!, (doc) => ({ ...doc!, n: -1 }));
    await restored.collection<Doc>('docs').put({ id: 'new', n: 0 });
    await restored.collection<Doc>('docs').delete(ids[20]!);
    await restored.savePositions('p', { 't:0': 9, 'u:1': 1 });

    const file = join(dir, 'second.bin');
    const saved = await saveSnapshot(file, restored.snapshot());
    const read = (await readSnapshot(file))!;
    const contents = (snapshot: ProjectionSnapshot) => ({
      positions: Object.fromEntries(snapshot.positions),
      collections: Object.fromEntries(
        [...snapshot.collections].map(([name, docs]) => [
          name,
          [...documentEntries(docs)].map(([id, bytes]) => [id, bytes.toString('hex')]),
        ]),
      ),
    });
    const expected = contents(read);
    expect(expected.collections.docs).toHaveLength(400);
    expect(expected.collections.empty).toEqual([]);
    expect(expected.positions).toEqual({ p: { 't:0': 9, 'u:1': 1 } });
    expect(contents(saved)).toEqual(expected);
    // Found by id as a reader finds them, and its positions are its own.
    const docs = saved.collections.get('docs')!;
    expect(decodeDocument(docs.bytes(docs.indexOf(ids[10]!)))).toMatchObject({ id: ids[10], n: -1 });
    expect(docs.indexOf(ids[20]!)).toBe(-1);
    await restored.savePositions('p', { 't:0': 10 });
    expect(saved.positions.get('p')).toEqual({ 't:0': 9, 'u:1': 1 });
    saved.release?.();
    read.release?.();
    await Promise.all([store, restored].map((s) => s.close()));
  });

  it('saves and reads documents larger than its 1 MiB buffers, also when copied from a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-snap-'));
    const store = new MemoryProjectionStore();
    const docs = store.collection<Doc>('docs');
    const sizes = { a: 1, b: 1_500_000, c: 700_000, d: 1 };
    for (const [id, size] of Object.entries(sizes)) await docs.put({ id, tags: [[id.repeat(size)]] });
    await writeSnapshot(join(dir, 'first.bin'), store.snapshot());
    const restored = new MemoryProjectionStore();
    restored.restore((await readSnapshot(join(dir, 'first.bin')))!);
    await writeSnapshot(join(dir, 'second.bin'), restored.snapshot());

    const again = new MemoryProjectionStore();
    again.restore((await readSnapshot(join(dir, 'second.bin')))!);
    const found = await again.collection<Doc>('docs').find({});
    expect(Object.fromEntries(found.map((doc) => [doc.id, doc.tags![0]![0]!.length]))).toEqual(sizes);
    expect(found.every((doc) => doc.tags![0]![0] === doc.id.repeat(doc.tags![0]![0]!.length))).toBe(true);
    await Promise.all([store, restored, again].map((s) => s.close()));
  });

  it('copies a damaged document into the next save as it is stored, where its read still fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-snap-'));
    const ids = Array.from({ length: 50 }, (_, i) => `d${String(i).padStart(2, '0')}`);
    const saved = new MemoryProjectionStore();
    for (const id of ids) await saved.collection<Doc>('docs').put({ id, tags: [[`mark-${id}`]] });
    await writeSnapshot(join(dir, 'first.bin'), saved.snapshot());
    const bytes = readFileSync(join(dir, 'first.bin'));
    bytes[bytes.indexOf('mark-d20')] ^= 0xff;
    writeFileSync(join(dir, 'first.bin'), bytes);

    const restored = new MemoryProjectionStore();
    restored.restore((await readSnapshot(join(dir, 'first.bin')))!);
    await restored.collection<Doc>('docs').put({ id: 'd10', n: 1 });
    // Nothing else read: the runs on both sides of d10 are copied as they are stored.
    await writeSnapshot(join(dir, 'second.bin'), restored.snapshot());
    const again = new MemoryProjectionStore();
    again.restore((await readSnapshot(join(dir, 'second.bin')))!);
    const docs = again.collection<Doc>('docs');
    await expect(docs.get('d20')).rejects.toThrow(/checksum of docs\/d20/);
    expect(await docs.get('d10')).toEqual({ id: 'd10', n: 1 });
    for (const id of ids.filter((id) => id !== 'd10' && id !== 'd20')) {
      expect((await docs.get(id))!.tags![0]![0]).toBe(`mark-${id}`);
    }
    await Promise.all([saved, restored, again].map((s) => s.close()));
  });

  it('fails a save whose source file is let go of meanwhile, and leaves the last snapshot in place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-snap-'));
    await writeSnapshot(join(dir, 'first.bin'), (await filled()).snapshot());
    const store = new MemoryProjectionStore();
    store.restore((await readSnapshot(join(dir, 'first.bin')))!);
    const file = join(dir, 'second.bin');
    await writeSnapshot(file, store.snapshot());
    const before = readFileSync(file);

    await store.collection<Doc>('docs').put({ id: 'z', n: 1 });
    const saving = saveSnapshot(file, store.snapshot());
    // Against the cut's contract: the file its restored documents are copied from closes before they are.
    store.restore((await readSnapshot(join(dir, 'first.bin')))!);
    await expect(saving).rejects.toThrow(/released/);
    expect(readFileSync(file).equals(before)).toBe(true);
    await store.close();
  });

  it('refuses only the damaged document of those read in order', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `d${String(i).padStart(4, '0')}`);
    const saved = new MemoryProjectionStore();
    for (const id of ids)
      await saved.collection<Doc>('big').put({ id, tags: [[`mark-${id}`, 'x'.repeat(5_000)]] });
    const file = join(mkdtempSync(join(tmpdir(), 'tf-snap-')), 'projections.bin');
    await writeSnapshot(file, saved.snapshot());
    const bytes = readFileSync(file);
    bytes[bytes.indexOf('mark-d0150')] ^= 0xff;
    writeFileSync(file, bytes);

    const restored = new MemoryProjectionStore();
    restored.restore((await readSnapshot(file))!);
    const big = restored.collection<Doc>('big');
    for (const id of ids) {
      if (id === 'd0150') await expect(big.get(id)).rejects.toThrow(/checksum of big\/d0150/);
      else expect((await big.get(id))!.tags![0]![0]).toBe(`mark-${id}`);
    }
    await restored.close();
  });

  it('saves the documents JSON gives back as JSON text, the others as structured-clone bytes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tf-snap-')), 'projections.bin');
    await writeSnapshot(file, (await filled()).snapshot());
    const bytes = readFileSync(file);
    expect(bytes.includes('{"id":"c"}')).toBe(true);
    // `a` holds a date and `b` NaN, which JSON would not give back.
    expect(bytes.includes('"id":"a"')).toBe(false);
    expect(bytes.includes('"id":"b"')).toBe(false);
  });

  it('reads a version 2 snapshot, whose documents are all structured-clone bytes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tf-snap-')), 'projections.bin');
    const store = new MemoryProjectionStore();
    const at = new Date('2026-04-27T14:30:00Z');
    for (const id of ['a', 'b']) await store.collection<Doc>('docs').put({ id, at, tags: [[id]] });
    await writeSnapshot(file, store.snapshot());
    const bytes = readFileSync(file);
    const magic = Buffer.from('thumbforge-projections-3\n');
    expect(bytes.subarray(0, magic.length)).toEqual(magic);
    bytes.write('thumbforge-projections-2\n', 0);
    writeFileSync(file, bytes);

    const restored = new MemoryProjectionStore();
    restored.restore((await readSnapshot(file))!);
    expect(await restored.collection<Doc>('docs').find({})).toEqual([
      { id: 'a', at, tags: [['a']] },
      { id: 'b', at, tags: [['b']] },
    ]);
  });

  it('reads no snapshot where there is none', async () => {
    expect(await readSnapshot(join(mkdtempSync(join(tmpdir(), 'tf-snap-')), 'none.bin'))).toBeUndefined();
  });

  it.each([
    ['a flipped byte in the index', (bytes: Buffer) => (bytes[bytes.length - 20] ^= 0xff), /checksum/],
    [
      'a flipped byte where the index starts',
      (bytes: Buffer) => (bytes[bytes.length - 10] ^= 0xff),
      /truncated/,
    ],
    ['a cut-off file', (bytes: Buffer) => bytes.subarray(0, bytes.length - 20), /checksum|truncated/],
    ['another format', (bytes: Buffer) => bytes.fill(0x41, 0, 8), /unknown format/],
  ])('refuses %s', async (_name, damage, reason) => {
    const file = join(mkdtempSync(join(tmpdir(), 'tf-snap-')), 'projections.bin');
    await writeSnapshot(file, (await filled()).snapshot());
    const bytes = readFileSync(file);
    const damaged = damage(bytes);
    writeFileSync(file, Buffer.isBuffer(damaged) ? damaged : bytes);
    const read = readSnapshot(file);
    await expect(read).rejects.toThrow(SnapshotFormatError);
    await expect(read).rejects.toThrow(reason);
  });
});
