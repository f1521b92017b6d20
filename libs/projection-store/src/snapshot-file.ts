import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import type { ProjectionSnapshot, SnapshotDocuments } from './memory-projection-store.js';
import type { Positions } from './port.js';

/**
 * A projection snapshot on disk:
 * `MAGIC`, then frames of [u32 BE length][bytes]: a JSON header (positions per projection, document
 * count per collection), then per document its id (UTF-8) and its structured-clone bytes, collection
 * after collection; last, the u32 BE CRC-32 of everything before it.
 */
const MAGIC = Buffer.from('thumbforge-projections-1\n');

interface Header {
  positions: Record<string, Positions>;
  collections: { name: string; documents: number }[];
}

export class SnapshotFormatError extends Error {
  constructor(file: string, reason: string) {
    super(`${file}: not a usable projection snapshot (${reason})`);
    this.name = 'SnapshotFormatError';
  }
}

function frame(bytes: Buffer): Buffer[] {
  const length = Buffer.allocUnsafe(4);
  length.writeUInt32BE(bytes.length, 0);
  return [length, bytes];
}

/**
 * Writes `snapshot` to `file` atomically: a temporary file, fsynced, renamed over the old one, and the
 * directory fsynced, so a crash leaves either the previous snapshot or this one, never a torn file.
 */
export async function writeSnapshot(file: string, snapshot: ProjectionSnapshot): Promise<void> {
  const header: Header = {
    positions: Object.fromEntries(snapshot.positions),
    collections: [...snapshot.collections].map(([name, docs]) => ({ name, documents: docs.length })),
  };
  const parts: Buffer[] = [MAGIC, ...frame(Buffer.from(JSON.stringify(header)))];
  for (const documents of snapshot.collections.values()) {
    for (const [id, bytes] of documents) parts.push(...frame(Buffer.from(id)), ...frame(bytes));
  }
  let crc = 0;
  for (const part of parts) crc = crc32(part, crc);
  const trailer = Buffer.allocUnsafe(4);
  trailer.writeUInt32BE(crc, 0);
  parts.push(trailer);

  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    // writev takes at most IOV_MAX buffers per call.
    for (let i = 0; i < parts.length; i += 1024) await handle.writev(parts.slice(i, i + 1024));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  const dir = await open(dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/**
 * Reads a snapshot written by `writeSnapshot`; undefined when there is none. Documents stay as slices
 * of the file's bytes until read. A damaged or foreign file throws `SnapshotFormatError`.
 */
export async function readSnapshot(file: string): Promise<ProjectionSnapshot | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (bytes.length < MAGIC.length + 8 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new SnapshotFormatError(file, 'unknown format');
  }
  const body = bytes.subarray(0, bytes.length - 4);
  if (crc32(body) !== bytes.readUInt32BE(bytes.length - 4)) throw new SnapshotFormatError(file, 'checksum');
  let at = MAGIC.length;
  const next = (): Buffer => {
    if (at + 4 > body.length) throw new SnapshotFormatError(file, 'truncated');
    const length = body.readUInt32BE(at);
    const end = at + 4 + length;
    if (end > body.length) throw new SnapshotFormatError(file, 'truncated');
    const slice = body.subarray(at + 4, end);
    at = end;
    return slice;
  };
  const header = JSON.parse(next().toString('utf8')) as Header;
  const collections = new Map<string, SnapshotDocuments>();
  for (const { name, documents } of header.collections) {
    const docs: SnapshotDocuments = new Array(documents);
    for (let i = 0; i < documents; i++) docs[i] = [next().toString('utf8'), next()];
    collections.set(name, docs);
  }
  if (at !== body.length) throw new SnapshotFormatError(file, 'trailing bytes');
  return { collections, positions: new Map(Object.entries(header.positions)) };
}

export async function removeSnapshot(file: string): Promise<void> {
  await rm(file, { force: true });
}
