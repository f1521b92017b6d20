import { open, readFile, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { batchOf, checkFrame, HEADER_BYTES, MAX_RECORD_BYTES, parseRecord } from './frame.js';
import { writeFileAtomic } from './fs-util.js';

/** Start positions of a segment's records: 4 bytes per record instead of a parsed event. */
export class RecordIndex {
  private data = new Uint32Array(1024);
  private count = 0;

  get length(): number {
    return this.count;
  }

  at(index: number): number {
    return this.data[index];
  }

  push(position: number): void {
    if (position > 0xffffffff) throw new RangeError('segment too large to index');
    if (this.count === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.count++] = position;
  }

  /** Positions of records `[first, last)` less `origin`: where each starts in a buffer read from there. */
  relative(first: number, last: number, origin: number): Uint32Array {
    const positions = this.data.slice(first, last);
    for (let i = 0; i < positions.length; i++) positions[i] -= origin;
    return positions;
  }

  truncate(length: number): void {
    this.count = Math.min(this.count, length);
  }

  /** The positions as little-endian u32, as a sealed segment's index file holds them. */
  toBytes(): Buffer {
    const bytes = Buffer.allocUnsafe(this.count * 4);
    for (let i = 0; i < this.count; i++) bytes.writeUInt32LE(this.data[i], i * 4);
    return bytes;
  }

  static fromBytes(bytes: Buffer): RecordIndex {
    const index = new RecordIndex();
    const count = bytes.length / 4;
    index.data = new Uint32Array(Math.max(count, 1));
    for (let i = 0; i < count; i++) index.data[i] = bytes.readUInt32LE(i * 4);
    index.count = count;
    return index;
  }
}

export interface Segment {
  /** Offset of the segment's first record; also its file name. */
  base: number;
  path: string;
  /** Bytes of complete, published records. */
  size: number;
  records: RecordIndex;
  handle?: Promise<FileHandle>;
}

const SEGMENT_NAME = /^(\d{20})\.seg$/;

export function segmentFileName(base: number): string {
  return `${String(base).padStart(20, '0')}.seg`;
}

/**
 * A sealed segment's index file (`<base>.idx`): written when the log rolls past the segment, so that
 * opening the log reads 4 bytes per record of it instead of every record. Layout: magic, record
 * count, the segment's size and the CRC-32 of the positions (u32 little-endian each), the segment's
 * base offset (f64), then the positions. The last segment has none and is always scanned; records of a sealed segment are still
 * checked (length and CRC) when they are read.
 */
export function indexPath(segment: Segment): string {
  return segment.path.replace(/\.seg$/, '.idx');
}

const INDEX_MAGIC = 0x58494654; // "TFIX" read as little-endian
const INDEX_HEADER_BYTES = 24;

export async function writeSegmentIndex(segment: Segment, durable: boolean): Promise<void> {
  const positions = segment.records.toBytes();
  const header = Buffer.allocUnsafe(INDEX_HEADER_BYTES);
  header.writeUInt32LE(INDEX_MAGIC, 0);
  header.writeUInt32LE(segment.records.length, 4);
  header.writeUInt32LE(segment.size, 8);
  header.writeUInt32LE(crc32(positions), 12);
  header.writeDoubleLE(segment.base, 16);
  await writeFileAtomic(indexPath(segment), Buffer.concat([header, positions]), durable);
}

/** Loads a sealed segment's index when it is whole and matches the file; false means scan instead. */
export async function loadSegmentIndex(segment: Segment): Promise<boolean> {
  let bytes: Buffer;
  try {
    bytes = await readFile(indexPath(segment));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (bytes.length < INDEX_HEADER_BYTES || bytes.readUInt32LE(0) !== INDEX_MAGIC) return false;
  const count = bytes.readUInt32LE(4);
  const size = bytes.readUInt32LE(8);
  const positions = bytes.subarray(INDEX_HEADER_BYTES);
  if (positions.length !== count * 4 || crc32(positions) !== bytes.readUInt32LE(12)) return false;
  if (bytes.readDoubleLE(16) !== segment.base || (await stat(segment.path)).size !== size) return false;
  if (count > 0 && positions.readUInt32LE(0) !== 0) return false;
  segment.records = RecordIndex.fromBytes(positions);
  segment.size = size;
  return true;
}

/** Removes a segment's index: the segment is the last one again (or gone), and is scanned on open. */
export async function dropSegmentIndex(segment: Segment): Promise<void> {
  await unlink(indexPath(segment)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

export function segmentBase(fileName: string): number | undefined {
  const match = SEGMENT_NAME.exec(fileName);
  return match ? Number(match[1]) : undefined;
}

export function newSegment(dir: string, base: number): Segment {
  return { base, path: join(dir, segmentFileName(base)), size: 0, records: new RecordIndex() };
}

export interface ScanResult {
  /** Byte length of the valid prefix. */
  validBytes: number;
  fileBytes: number;
  /** Why the bytes after `validBytes` were rejected, when there are any. */
  tornReason?: string;
}

const SCAN_CHUNK_BYTES = 4 * 1024 * 1024;

/** Indexes every valid record of a segment file, stopping at the first torn or corrupt one. */
export async function scanSegment(segment: Segment): Promise<ScanResult> {
  const handle = await open(segment.path, 'r');
  try {
    const fileBytes = (await handle.stat()).size;
    let buf = Buffer.alloc(0);
    let bufStart = 0;
    // Makes `[at, at + bytes)` (clipped to the file) available in `buf`, reading big sequential chunks.
    const ensure = async (at: number, bytes: number): Promise<void> => {
      const wanted = Math.min(bytes, fileBytes - at);
      if (at - bufStart + wanted <= buf.length) return;
      const size = Math.min(fileBytes - at, Math.max(SCAN_CHUNK_BYTES, wanted));
      buf = Buffer.allocUnsafe(size);
      const { bytesRead } = await handle.read(buf, 0, size, at);
      buf = buf.subarray(0, bytesRead);
      bufStart = at;
    };
    let position = 0;
    while (position < fileBytes) {
      await ensure(position, HEADER_BYTES);
      if (buf.length - (position - bufStart) >= HEADER_BYTES) {
        const length = buf.readUInt32BE(position - bufStart);
        if (length <= MAX_RECORD_BYTES) await ensure(position, HEADER_BYTES + length);
      }
      const check = checkFrame(buf, position - bufStart, buf.length - (position - bufStart));
      if (!check.ok) {
        segment.size = position;
        return { validBytes: position, fileBytes, tornReason: check.reason };
      }
      segment.records.push(position);
      position += HEADER_BYTES + check.length;
    }
    segment.size = position;
    return { validBytes: position, fileBytes };
  } finally {
    await handle.close();
  }
}

/**
 * How many trailing records belong to an append whose write did not complete (its last record is
 * missing): those are dropped with the torn bytes so an append is all or nothing.
 */
export async function incompleteTail(segment: Segment): Promise<number> {
  const count = segment.records.length;
  if (count === 0) return 0;
  const start = segment.records.at(count - 1);
  const length = segment.size - start - HEADER_BYTES;
  const handle = await open(segment.path, 'r');
  try {
    const buf = Buffer.allocUnsafe(HEADER_BYTES + length);
    await handle.read(buf, 0, buf.length, start);
    const [index, total] = batchOf(parseRecord(buf, 0, length));
    return index === total - 1 ? 0 : index + 1;
  } finally {
    await handle.close();
  }
}
