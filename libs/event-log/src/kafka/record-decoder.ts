import { createRequire } from 'node:module';

/**
 * A leaner decode of one record of a record batch than kafkajs' own, with the same result. kafkajs
 * 2.2.4 works out each record's offset and timestamp by parsing its batch's first offset and timestamp
 * from decimal strings into 64-bit `Long`s, adding, and printing them back, and builds the headers by
 * spreading a new object per header: about half of its time per record. This one adds plain numbers
 * while they are exact and falls back to `Long` arithmetic when they are not.
 *
 * Loaded only in a long read's fetch worker (`partition-fetch.ts`), before that thread's kafkajs
 * loads its record batch decoder; so it imports only Node's own modules.
 */

/** kafkajs' decoder of one record (magic 2), which its record batch decoder requires on first use. */
export const RECORD_DECODER_MODULE = 'kafkajs/src/protocol/recordBatch/record/v0/decoder.js';
const RECORD_BATCH_DECODER_MODULE = 'kafkajs/src/protocol/recordBatch/v0/decoder.js';
const LONG_MODULE = 'kafkajs/src/utils/long.js';
/** The kafkajs release whose record decoder this one was checked against. */
const PATCHED_KAFKAJS_VERSION = '2.2.4';
/** kafkajs' `TimestampTypes.LOG_APPEND_TIME`. */
const LOG_APPEND_TIME = 1;

/** What the decoder uses of kafkajs' `Decoder`. */
export interface RecordBytes {
  buffer: Buffer;
  offset: number;
  readInt8(): number;
  readVarInt(): number;
  readVarLong(): unknown;
  readVarIntBytes(): Buffer | null;
  readVarIntString(): string | null;
}

/** What kafkajs' record batch decoder hands each record's decoder. */
export interface RecordBatchContext {
  firstOffset: string;
  firstTimestamp: string;
  maxTimestamp: string;
  timestampType: number;
  magicByte: number;
  isControlBatch?: boolean;
}

interface Long {
  add(other: unknown): Long;
  toString(): string;
}
interface LongStatic {
  fromValue(value: string): Long;
}

export type RecordDecoder = (decoder: RecordBytes, batchContext?: RecordBatchContext) => unknown;

/** The number a decimal string names exactly, or NaN (a string `Long` alone reads, or reads differently). */
function exactNumber(decimal: string): number {
  const value = Number(decimal);
  return Number.isSafeInteger(value) && String(value) === decimal ? value : NaN;
}

/** `base + delta` printed as kafkajs prints it, from numbers while both and the sum are exact. */
function sum(Long: LongStatic, base: string, baseValue: number, delta: number | unknown): string {
  if (typeof delta === 'number') {
    const total = baseValue + delta;
    if (Number.isSafeInteger(total)) return String(total);
  }
  return Long.fromValue(base).add(delta).toString();
}

/**
 * A zig-zag varint of up to three bytes (below 2^21) read from where the decoder is, or undefined,
 * leaving the decoder where it was, for kafkajs' own 64-bit read.
 */
function shortVarLong(decoder: RecordBytes): number | undefined {
  const { buffer, offset } = decoder;
  const b0 = buffer[offset];
  let raw: number;
  if (b0 < 0x80) {
    raw = b0;
    decoder.offset = offset + 1;
  } else if (buffer[offset + 1] < 0x80) {
    raw = (b0 & 0x7f) | (buffer[offset + 1] << 7);
    decoder.offset = offset + 2;
  } else if (buffer[offset + 2] < 0x80) {
    raw = (b0 & 0x7f) | ((buffer[offset + 1] & 0x7f) << 7) | (buffer[offset + 2] << 14);
    decoder.offset = offset + 3;
  } else {
    return undefined;
  }
  return (raw >>> 1) ^ -(raw & 1);
}

/** Header keys remembered: a topic's records repeat a few short keys. */
const MAX_HEADER_KEYS = 16;

/**
 * The header keys a decoder has read, by their bytes: a key seen before is matched where it lies and
 * its string reused, rather than decoded into a new string per record (two per record of ours: the
 * strings a replay's fetch worker made per record took a fifth of its time). The same bytes always
 * decode to the same string, so the result is kafkajs' own.
 */
class HeaderKeys {
  private readonly known: { bytes: Buffer; key: string }[] = [];

  /** The key (`readVarIntString`) at where the decoder is. */
  read(decoder: RecordBytes): string | null {
    const { buffer, offset } = decoder;
    const first = buffer[offset];
    // Keys of up to 63 bytes, whose length is a one-byte varint (zig-zag: odd bytes are negative, -1 a null key).
    const length = first < 0x80 && (first & 1) === 0 ? first >>> 1 : -1;
    const start = offset + 1;
    const whole = length >= 0 && start + length <= buffer.length;
    if (whole) {
      for (const { bytes, key } of this.known) {
        if (bytes.length === length && sameBytes(buffer, start, bytes)) {
          decoder.offset = start + length;
          return key;
        }
      }
    }
    const key = decoder.readVarIntString();
    if (whole && key !== null && this.known.length < MAX_HEADER_KEYS) {
      this.known.push({ bytes: Buffer.from(buffer.subarray(start, start + length)), key });
    }
    return key;
  }
}

/** Whether `buffer` holds `bytes` at `at`. */
function sameBytes(buffer: Buffer, at: number, bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (buffer[at + i] !== bytes[i]) return false;
  return true;
}

/** The record decoder, given kafkajs' `Long` for the sums that numbers cannot hold exactly. */
export function leanRecordDecoder(Long: LongStatic): RecordDecoder {
  // A batch's records share its context: its first offset and timestamp are parsed once per batch.
  let parsedFor: RecordBatchContext | undefined;
  let firstOffset = NaN;
  let firstTimestamp = NaN;
  const headerKeys = new HeaderKeys();
  return function decodeRecordLeanly(decoder, batchContext = {} as RecordBatchContext) {
    if (parsedFor !== batchContext) {
      parsedFor = batchContext;
      firstOffset = exactNumber(batchContext.firstOffset);
      firstTimestamp = exactNumber(batchContext.firstTimestamp);
    }
    const { magicByte, isControlBatch = false, timestampType, maxTimestamp } = batchContext;
    const attributes = decoder.readInt8();
    const timestampDelta = shortVarLong(decoder) ?? decoder.readVarLong();
    const timestamp =
      timestampType === LOG_APPEND_TIME && maxTimestamp
        ? maxTimestamp
        : sum(Long, batchContext.firstTimestamp, firstTimestamp, timestampDelta);
    const offset = sum(Long, batchContext.firstOffset, firstOffset, decoder.readVarInt());
    const key = decoder.readVarIntBytes();
    const value = decoder.readVarIntBytes();
    const count = decoder.readVarInt();
    if (count < -1) throw new RangeError('Invalid array length');
    // Built as kafkajs builds it: a repeated key collects its values in an array, and a key is looked
    // up through the object's prototype, so `__proto__` is defined as an own property like a spread does.
    const headers: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const headerKey = headerKeys.read(decoder) as string;
      const headerValue = decoder.readVarIntBytes();
      const previous = headers[headerKey];
      const next =
        previous === undefined
          ? headerValue
          : Array.isArray(previous)
            ? previous.concat([headerValue])
            : [previous, headerValue];
      if (headerKey === '__proto__') {
        Object.defineProperty(headers, headerKey, {
          value: next,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        headers[headerKey] = next;
      }
    }
    return {
      magicByte,
      attributes,
      timestamp,
      offset,
      key,
      value,
      headers,
      isControlRecord: isControlBatch,
      batchContext,
    };
  };
}

/**
 * Puts `leanRecordDecoder` in place of kafkajs' record decoder for this thread's kafkajs. Only before
 * kafkajs has loaded its record batch decoder, which takes the record decoder then, and only for the
 * release it was checked against (`test/kafka/record-decoder.spec.ts`); otherwise it changes nothing
 * and answers false.
 */
export function useLeanRecordDecoder(): boolean {
  const require = createRequire(import.meta.url);
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== PATCHED_KAFKAJS_VERSION) return false;
  if (require.cache[require.resolve(RECORD_BATCH_DECODER_MODULE)]) return false;
  require(RECORD_DECODER_MODULE);
  const loaded = require.cache[require.resolve(RECORD_DECODER_MODULE)];
  if (!loaded) return false;
  loaded.exports = leanRecordDecoder(require(LONG_MODULE) as LongStatic);
  return true;
}
