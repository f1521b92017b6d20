import { crc32 } from 'node:zlib';
import type { EventEnvelope, StoredEvent } from '@thumbforge/contracts';
import { HEADER_BYTES, MAX_RECORD_BYTES } from './frame-scan.js';

export { checkFrame, HEADER_BYTES, MAX_RECORD_BYTES, type FrameCheck } from './frame-scan.js';

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

export function parseRecord(buf: Buffer, at: number, length: number): RecordBody {
  return JSON.parse(buf.toString('utf8', at + HEADER_BYTES, at + HEADER_BYTES + length)) as RecordBody;
}

/**
 * The stored event a parsed record is. A replay makes one per event, so a record without a batch
 * marker (a single-event append, or one whose marker the reader blanked out: `scanRange`) becomes it
 * in place; one with the marker is copied field by field, far cheaper than by rest and spread.
 */
export function toStoredEvent(body: RecordBody, topic: string, offset: number): StoredEvent {
  if (body.$batch === undefined) {
    const event = body as StoredEvent;
    event.topic = topic;
    event.partition = 0;
    event.offset = offset;
    return event;
  }
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
