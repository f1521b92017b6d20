import { crc32 } from 'node:zlib';
import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';

/** Record framing on disk: [u32 BE length][u32 BE crc32 of the JSON][JSON bytes]. */
export const HEADER_BYTES = 8;
/** Events carry object keys, never binaries; anything this large is a bug, on write or on read. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/**
 * A record of a multi-event append carries `$batch: [index, count]` so recovery can drop an append
 * whose write was torn part-way: an append call is all or nothing.
 */
interface RecordBody extends EventEnvelope {
  $batch?: [number, number];
}

/** Copies only the envelope's own fields: a re-appended StoredEvent must not drag its old position along. */
export function cleanEnvelope(event: EventEnvelope): EventEnvelope {
  const clean: EventEnvelope = {
    id: event.id,
    type: event.type,
    version: event.version,
    aggregateId: event.aggregateId,
    occurredAt: event.occurredAt,
    correlationId: event.correlationId,
    causationId: event.causationId,
    payload: event.payload,
  };
  if (event.fence !== undefined) clean.fence = event.fence;
  if (event.headers !== undefined) clean.headers = event.headers;
  return clean;
}

export function encodeRecord(event: EventEnvelope, index: number, count: number): Buffer {
  const body: RecordBody = count > 1 ? { $batch: [index, count], ...event } : event;
  const json = JSON.stringify(body);
  const length = Buffer.byteLength(json);
  if (length > MAX_RECORD_BYTES) {
    throw new RangeError(`event ${event.id} is ${length} bytes; the limit is ${MAX_RECORD_BYTES}`);
  }
  const frame = Buffer.allocUnsafe(HEADER_BYTES + length);
  frame.write(json, HEADER_BYTES, 'utf8');
  frame.writeUInt32BE(length, 0);
  frame.writeUInt32BE(crc32(frame.subarray(HEADER_BYTES)), 4);
  return frame;
}

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

export function parseRecord(buf: Buffer, at: number, length: number): RecordBody {
  return JSON.parse(buf.toString('utf8', at + HEADER_BYTES, at + HEADER_BYTES + length)) as RecordBody;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
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

/**
 * The event type of the record at `at` without parsing it, for reads that skip the types they do not
 * want. `encodeRecord` writes `$batch` (when present), then `id` and `type` first, so the type is the
 * string after the id. Undefined when the record does not open that way or either string has an
 * escape: the caller then parses the record to learn its type.
 */
export function peekRecordType(buf: Buffer, at: number, length: number): string | undefined {
  const end = at + HEADER_BYTES + length;
  let i = at + HEADER_BYTES;
  if (holds(buf, i, end, BATCH_OPENING)) {
    i += BATCH_OPENING.length;
    while (i < end && ((buf[i] >= DIGIT_0 && buf[i] <= DIGIT_9) || buf[i] === COMMA)) i++;
    if (!holds(buf, i, end, BATCH_ID)) return undefined;
    i += BATCH_ID.length;
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

/** Field by field rather than by rest and spread: a replay makes one per event, and this is far cheaper. */
export function toStoredEvent(body: RecordBody, topic: string, offset: number): StoredEvent {
  const event: StoredEvent = {
    id: body.id,
    type: body.type,
    version: body.version,
    aggregateId: body.aggregateId,
    occurredAt: body.occurredAt,
    correlationId: body.correlationId,
    causationId: body.causationId,
    payload: body.payload,
    topic,
    partition: 0,
    offset,
  };
  if (body.headers !== undefined) event.headers = body.headers;
  if (body.fence !== undefined) event.fence = body.fence;
  return event;
}

/** Where a record sits in its append: `[index, count]`, `[0, 1]` for single-event appends. */
export function batchOf(body: RecordBody): [number, number] {
  return body.$batch ?? [0, 1];
}
