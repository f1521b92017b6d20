import { once } from 'node:events';
import { closeSync, openSync, readSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { crc32 } from 'node:zlib';

/**
 * Checking the records of a segment's byte range, and a worker thread that reads and checks ranges for
 * long reads. A replay spends about a third of its time on what is done here (the disk read, each
 * record's CRC, the look at its type) and the rest parsing and folding what it keeps; in the worker,
 * the first part runs on another core while the caller parses and folds.
 *
 * The worker loads this very file, so it imports nothing but Node's own modules: from the sources
 * (tests) Node runs it with its types stripped, from `dist` as it was built.
 */

/** Record framing on disk: [u32 BE length][u32 BE crc32 of the JSON][JSON bytes]. */
export const HEADER_BYTES = 8;
/** Events carry object keys, never binaries; anything this large is a bug, on write or on read. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export type FrameCheck = { ok: true; length: number } | { ok: false; reason: string };

/** Validates the frame starting at `at` in `buf`, which must hold at least the header. */
export function checkFrame(buf: Buffer, at: number, available: number): FrameCheck {
  if (available < HEADER_BYTES) return { ok: false, reason: 'truncated header' };
  const length = buf.readUInt32BE(at);
  if (length === 0 || length > MAX_RECORD_BYTES) return { ok: false, reason: `bad length ${length}` };
  if (available < HEADER_BYTES + length) return { ok: false, reason: 'truncated record' };
  const crc = buf.readUInt32BE(at + 4);
  if (crc32(buf.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length)) !== crc) {
    return { ok: false, reason: 'checksum mismatch' };
  }
  return { ok: true, length };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const SPACE = 0x20;
const OPENING_BRACE = 0x7b;
const BATCH_OPENING = Buffer.from('{"$batch":[');
const BATCH_ID = Buffer.from('],"id":"');
const ID_OPENING = Buffer.from('{"id":"');
const TYPE_FIELD = Buffer.from(',"type":"');

/** Whether `buf` holds `bytes` at `at`, within `end`. */
function holds(buf: Buffer, at: number, end: number, bytes: Buffer): boolean {
  if (at + bytes.length > end) return false;
  // A loop: for a few bytes it is cheaper than a call into Buffer.compare.
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}

/** Where the JSON string whose content starts at `at` closes; -1 when it has an escape or runs past `end`. */
function plainStringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const byte = buf[i];
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) return -1;
  }
  return -1;
}

/** `batchMarkerEnd`: the JSON does not open with a batch marker. */
const NO_MARKER = -1;
/** `batchMarkerEnd`: it opens like one, but not as `encodeRecord` writes it. */
const MALFORMED_MARKER = -2;

/**
 * Where the batch marker `encodeRecord` writes first (`{"$batch":[3,8],"id":"…`) ends, for the JSON
 * at `open`: the position of its `]`, followed by `,"id":"`. `NO_MARKER` or `MALFORMED_MARKER`
 * otherwise.
 */
function batchMarkerEnd(buf: Buffer, open: number, end: number): number {
  if (!holds(buf, open, end, BATCH_OPENING)) return NO_MARKER;
  let i = open + BATCH_OPENING.length;
  while (i < end && ((buf[i] >= DIGIT_0 && buf[i] <= DIGIT_9) || buf[i] === COMMA)) i++;
  return holds(buf, i, end, BATCH_ID) ? i : MALFORMED_MARKER;
}

/**
 * The event type of the record at `at` without parsing it, for reads that skip the types they do not
 * want. `encodeRecord` writes `$batch` (when present), then `id` and `type` first, so the type is the
 * string after the id. Undefined when the record does not open that way or either string has an
 * escape: the caller then parses the record to learn its type.
 */
export function peekRecordType(buf: Buffer, at: number, length: number): string | undefined {
  const end = at + HEADER_BYTES + length;
  let i = at + HEADER_BYTES;
  const marker = batchMarkerEnd(buf, i, end);
  if (marker >= 0) {
    i = marker + BATCH_ID.length;
  } else if (marker === MALFORMED_MARKER) {
    return undefined;
  } else if (holds(buf, i, end, ID_OPENING)) {
    i += ID_OPENING.length;
  } else {
    return undefined;
  }
  const idEnd = plainStringEnd(buf, i, end);
  if (idEnd < 0 || !holds(buf, idEnd + 1, end, TYPE_FIELD)) return undefined;
  const typeStart = idEnd + 1 + TYPE_FIELD.length;
  const typeEnd = plainStringEnd(buf, typeStart, end);
  return typeEnd < 0 ? undefined : buf.toString('utf8', typeStart, typeEnd);
}

/**
 * Blanks a record's batch marker out of its JSON (`{"$batch":[3,8],"id":…` becomes spaces, which JSON
 * allows, then `{"id":…`), so that it parses into the envelope alone and is finished in place rather
 * than copied (`toStoredEvent`). Only in a buffer of the reader's own: its CRC no longer matches.
 */
function dropBatchMarker(buf: Buffer, at: number, length: number): void {
  const open = at + HEADER_BYTES;
  const marker = batchMarkerEnd(buf, open, at + HEADER_BYTES + length);
  if (marker < 0) return;
  buf.fill(SPACE, open, marker + 1);
  buf[marker + 1] = OPENING_BRACE;
}

/** What checking a range found: the records to parse, and the first corrupt one, if any. */
export interface RangeScan {
  /** `[index, position, length]` per record to parse: its index in the range, where it is, its JSON's length. */
  kept: Uint32Array;
  /** The range's first record that failed its check; the records after it were not looked at. */
  corrupt?: { index: number; reason: string };
}

/**
 * Checks every record of a range (`positions`: where each starts in `buf`) and keeps those that may
 * be of `types` (all without it): a record whose type cannot be seen without parsing is kept for the
 * caller to parse and decide. In a buffer of the caller's own (`owned`), kept records lose their
 * batch markers (`dropBatchMarker`) once checked.
 */
export function scanRange(
  buf: Buffer,
  positions: ArrayLike<number>,
  types: ReadonlySet<string> | undefined,
  owned = false,
): RangeScan {
  const kept = new Uint32Array(positions.length * 3);
  let n = 0;
  for (let i = 0; i < positions.length; i++) {
    const at = positions[i];
    const check = checkFrame(buf, at, buf.length - at);
    if (!check.ok) return { kept: kept.subarray(0, n), corrupt: { index: i, reason: check.reason } };
    if (types) {
      const type = peekRecordType(buf, at, check.length);
      if (type !== undefined && !types.has(type)) continue;
    }
    if (owned) dropBatchMarker(buf, at, check.length);
    kept[n++] = i;
    kept[n++] = at;
    kept[n++] = check.length;
  }
  return { kept: kept.subarray(0, n) };
}

/**
 * A range of a segment file for the worker: `[start, stop)`, its records' positions relative to
 * `start`. The positions are handed over to the worker, not copied: the caller cannot use them again.
 */
export interface RangeRequest {
  path: string;
  start: number;
  stop: number;
  positions: Uint32Array;
  types?: readonly string[];
}

/** A range read and checked: its bytes (`buf[0]` is `start`) and what `scanRange` found in them. */
export interface ScannedRange extends RangeScan {
  buf: Buffer;
}

const WORKER_ROLE = 'thumbforge.event-log.range-scanner';

type Reply =
  | { id: number; buf: ArrayBuffer; kept: Uint32Array; corrupt?: RangeScan['corrupt'] }
  | { id: number; error: string };

/**
 * Reads and checks segment ranges in a worker thread, one after another, in the order asked. One per
 * long read, closed when the read ends; it keeps the process alive only while it owes an answer.
 */
export class RangeScanner {
  private readonly worker = new Worker(new URL(import.meta.url), { workerData: WORKER_ROLE });
  private readonly pending = new Map<
    number,
    { resolve(range: ScannedRange): void; reject(error: Error): void }
  >();
  private nextId = 0;
  private failure?: Error;
  private exited = false;
  private closing?: Promise<void>;

  constructor() {
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      if (!waiting) return;
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve({ buf: Buffer.from(reply.buf), kept: reply.kept, corrupt: reply.corrupt });
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => {
      this.exited = true;
      this.fail(new Error('the range scanner stopped'));
    });
  }

  scan(request: RangeRequest): Promise<ScannedRange> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<ScannedRange>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Held only while it owes an answer: a read its caller dropped unfinished keeps no process alive.
      this.worker.ref();
      this.worker.postMessage({ id, ...request }, [request.positions.buffer as ArrayBuffer]);
    });
  }

  /** Lets the worker answer what it was asked, close its files and end; it takes no more. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.failure ??= new Error('the range scanner is closed');
    if (this.exited) return;
    const exited = once(this.worker, 'exit');
    this.worker.ref();
    this.worker.postMessage('close');
    await exited;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}

/** The worker's side: the file stays open between ranges, a read is synchronous on its own thread. */
function serveRanges(port: NonNullable<typeof parentPort>): void {
  const files = new Map<string, number>();
  port.on('message', (message: (RangeRequest & { id: number }) | 'close') => {
    if (message === 'close') {
      files.forEach((fd) => closeSync(fd));
      port.close();
      return;
    }
    const { id, path, start, stop, positions, types } = message;
    try {
      let fd = files.get(path);
      if (fd === undefined) files.set(path, (fd = openSync(path, 'r')));
      // Its own ArrayBuffer, not a slice of Node's pool: it is handed over whole.
      const buf = Buffer.allocUnsafeSlow(stop - start);
      let done = 0;
      while (done < buf.length) {
        const read = readSync(fd, buf, done, buf.length - done, start + done);
        if (read === 0) break;
        done += read;
      }
      // A file shorter than its index says is a corrupt log, as on the caller's thread.
      const { kept, corrupt } =
        done < buf.length
          ? {
              kept: new Uint32Array(0),
              corrupt: { index: 0, reason: `segment ended ${buf.length - done} bytes early` },
            }
          : scanRange(buf, positions, types ? new Set(types) : undefined, true);
      const reply: Reply = { id, buf: buf.buffer as ArrayBuffer, kept, corrupt };
      port.postMessage(reply, [reply.buf, kept.buffer as ArrayBuffer]);
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies Reply);
    }
  });
}

if (!isMainThread && workerData === WORKER_ROLE && parentPort) serveRanges(parentPort);
