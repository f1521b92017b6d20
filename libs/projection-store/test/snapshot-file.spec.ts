import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MemoryProjectionStore,
  readSnapshot,
  SnapshotFormatError,
  writeSnapshot,
  type Document,
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
