import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { batchOf, checkFrame, HEADER_BYTES, MAX_RECORD_BYTES, parseRecord } from './frame.js';

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

  truncate(length: number): void {
    this.count = Math.min(this.count, length);
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
