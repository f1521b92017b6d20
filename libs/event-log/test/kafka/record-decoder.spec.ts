import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  leanRecordDecoder,
  RECORD_DECODER_MODULE,
  type RecordBatchContext,
  type RecordBytes,
} from '../../src/kafka/record-decoder.js';

const require = createRequire(import.meta.url);

interface Encoder {
  buffer: Buffer;
  writeInt8(value: number): Encoder;
  writeVarInt(value: number): Encoder;
  writeVarLong(value: unknown): Encoder;
  writeVarIntBytes(value: Buffer | null): Encoder;
  writeVarIntString(value: string | null): Encoder;
  writeVarIntArray(values: Encoder[]): Encoder;
}
const Encoder = require('kafkajs/src/protocol/encoder.js') as new () => Encoder;
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => RecordBytes;
const Long = require('kafkajs/src/utils/long.js') as { fromValue(value: string | bigint): unknown };
type StockDecoder = (decoder: RecordBytes, context?: RecordBatchContext) => unknown;
// kafkajs' own: `useLeanRecordDecoder` runs only in fresh threads here, never in this one.
const stock = require(RECORD_DECODER_MODULE) as StockDecoder;
// One for every case, as a fetch worker has one for every batch: it must follow each batch it is given.
const leanDecoder = leanRecordDecoder(Long as never);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

interface RecordFields {
  attributes: number;
  timestampDelta: bigint;
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: [string | null, Buffer | null][];
}

/** A record's body as a producer writes it (what the record decoder reads, its length prefix gone). */
function encodeRecord(record: RecordFields): Buffer {
  return new Encoder()
    .writeInt8(record.attributes)
    .writeVarLong(Long.fromValue(record.timestampDelta))
    .writeVarInt(record.offsetDelta)
    .writeVarIntBytes(record.key)
    .writeVarIntBytes(record.value)
    .writeVarIntArray(
      record.headers.map(([key, value]) => new Encoder().writeVarIntString(key).writeVarIntBytes(value)),
    ).buffer;
}

/**
 * Past its bytes kafkajs' decoder reads zeros, so a count read from random bytes gives that many empty headers,
 * which kafkajs folds in time quadratic in the count: a count in the millions runs for hours.
 */
const MAX_RANDOM_HEADER_COUNT = 1_000;

/** The header count a record's bytes give, read as kafkajs reads it; -1 where the bytes end in error before it. */
function headerCountOf(bytes: Buffer): number {
  const decoder = new Decoder(bytes);
  try {
    decoder.readInt8();
    decoder.readVarLong();
    decoder.readVarInt();
    decoder.readVarIntBytes();
    decoder.readVarIntBytes();
    return decoder.readVarInt();
  } catch {
    return -1;
  }
}

/** Both decoders over the same bytes: each one's result (or error) and where it left its decoder. */
function decodeBoth(bytes: Buffer, context: RecordBatchContext) {
  const run = (decode: StockDecoder) => {
    const decoder = new Decoder(bytes);
    try {
      return { result: decode(decoder, context), at: decoder.offset };
    } catch (error) {
      return { error: (error as Error).constructor.name, at: decoder.offset };
    }
  };
  return { lean: run(leanDecoder), stock: run(stock) };
}

/** What a deep comparison does not see of the headers: their key order. */
function headerKeys(decoded: { result?: unknown }) {
  const headers = (decoded.result as { headers?: object } | undefined)?.headers;
  return headers && Object.keys(headers);
}

/**
 * Node's deep strict equality (prototypes, own properties, buffers' bytes) and the headers' key order.
 * Not `toStrictEqual`: it compares the `constructor` properties, and a header named `constructor` is one.
 */
function expectSameDecode(lean: object, expected: object): void {
  if (!isDeepStrictEqual(lean, expected)) expect(lean).toEqual(expected);
  expect(isDeepStrictEqual(lean, expected)).toBe(true);
  expect(headerKeys(lean)).toEqual(headerKeys(expected));
}

const int64 = (min = INT64_MIN) =>
  fc.oneof(
    fc.bigInt({ min, max: INT64_MAX }),
    fc.bigInt({ min: min > -1000n ? min : -1000n, max: 2n ** 54n }),
  );
const context = fc.record({
  firstOffset: int64(0n).map(String),
  firstTimestamp: int64(-1n).map(String),
  maxTimestamp: int64(-1n).map(String),
  timestampType: fc.constantFrom(0, 1),
  magicByte: fc.constant(2),
  isControlBatch: fc.option(fc.boolean(), { nil: undefined }),
});
const bytes = fc.option(
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
  { nil: null },
);
const headerKey = fc.oneof(
  fc.constantFrom('event-type', 'event-id', 'traceparent', '__proto__', 'toString', 'constructor', '1', '0'),
  fc.string({ maxLength: 8 }),
  fc.constant(null),
);
const record: fc.Arbitrary<RecordFields> = fc.record({
  attributes: fc.integer({ min: -128, max: 127 }),
  timestampDelta: fc.oneof(
    fc.bigInt({ min: -(2n ** 22n), max: 2n ** 22n }),
    fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  ),
  offsetDelta: fc.oneof(
    fc.integer({ min: 0, max: 20_000 }),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  ),
  key: bytes,
  value: bytes,
  headers: fc.array(fc.tuple(headerKey, bytes), { maxLength: 6 }),
});

describe("the lean record decoder against kafkajs' own", () => {
  it('decodes any record a producer writes to what kafkajs decodes, headers and all', () => {
    fc.assert(
      fc.property(record, context, (fields, batch) => {
        const { lean, stock: expected } = decodeBoth(encodeRecord(fields), batch);
        expectSameDecode(lean, expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads any bytes as kafkajs reads them: the same result, or an error where it fails', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), context, (body, batch) => {
        const bytes = Buffer.from(body);
        fc.pre(headerCountOf(bytes) <= MAX_RANDOM_HEADER_COUNT);
        const { lean, stock: expected } = decodeBoth(bytes, batch);
        expectSameDecode(lean, expected);
      }),
      { numRuns: 1_000 },
    );
  });

  it('reads a header count past the bytes it has as kafkajs does: empty headers under one key', () => {
    const count = MAX_RANDOM_HEADER_COUNT;
    const fields: RecordFields = {
      attributes: 0,
      timestampDelta: 0n,
      offsetDelta: 0,
      key: null,
      value: null,
      headers: [],
    };
    // The record as written with no headers, its last byte (the count, 0) replaced by a count of headers never written.
    const written = encodeRecord(fields);
    const bytes = Buffer.concat([written.subarray(0, -1), new Encoder().writeVarInt(count).buffer]);
    expect(headerCountOf(bytes)).toBe(count);
    const { lean, stock: expected } = decodeBoth(bytes, {
      firstOffset: '0',
      firstTimestamp: '0',
      maxTimestamp: '0',
      timestampType: 0,
      magicByte: 2,
    });
    expect((expected as { result: { headers: Record<string, unknown[]> } }).result.headers['']).toHaveLength(
      count,
    );
    expectSameDecode(lean, expected);
  });

  it.each([
    { case: 'offsets past 2^53 (Long arithmetic)', firstOffset: '9007199254740990', offsetDelta: 5 },
    { case: 'the largest offset', firstOffset: String(INT64_MAX - 3n), offsetDelta: 3 },
    { case: 'a first timestamp of -1 (none)', firstTimestamp: '-1', timestampDelta: 0n },
    { case: 'a timestamp delta of three varint bytes', timestampDelta: -(2n ** 20n) },
    { case: 'a timestamp delta of four varint bytes', timestampDelta: 2n ** 21n },
    { case: 'a timestamp delta past 2^53', timestampDelta: 2n ** 60n },
    { case: 'a record without key, value or headers', bare: true },
  ])('$case', (row) => {
    const batch: RecordBatchContext = {
      firstOffset: row.firstOffset ?? '1000',
      firstTimestamp: row.firstTimestamp ?? '1795936975671',
      maxTimestamp: '1795936975999',
      timestampType: 0,
      magicByte: 2,
    };
    const fields: RecordFields = {
      attributes: 0,
      timestampDelta: row.timestampDelta ?? 7n,
      offsetDelta: row.offsetDelta ?? 1,
      key: row.bare ? null : Buffer.from('acc_1'),
      value: row.bare ? null : Buffer.from('{"id":"evt_1"}'),
      headers: row.bare ? [] : [['event-type', Buffer.from('billing.credits-reserved')]],
    };
    const { lean, stock: expected } = decodeBoth(encodeRecord(fields), batch);
    expect(expected).not.toHaveProperty('error');
    expectSameDecode(lean, expected);
  });
});

describe('header keys read again', () => {
  const batch: RecordBatchContext = {
    firstOffset: '0',
    firstTimestamp: '0',
    maxTimestamp: '0',
    timestampType: 0,
    magicByte: 2,
  };
  const recordWith = (keys: (string | null)[]): Buffer =>
    encodeRecord({
      attributes: 0,
      timestampDelta: 0n,
      offsetDelta: 0,
      key: null,
      value: Buffer.from('{}'),
      headers: keys.map((key, i) => [key, Buffer.from([i])]),
    });
  /** Decodes with `lean`, counting the keys it decoded into new strings rather than matched. */
  const decodeCounting = (lean: StockDecoder, bytes: Buffer) => {
    const decoder = new Decoder(bytes);
    let decoded = 0;
    const readVarIntString = decoder.readVarIntString.bind(decoder);
    decoder.readVarIntString = () => {
      decoded++;
      return readVarIntString();
    };
    return { result: lean(decoder, batch), at: decoder.offset, decoded };
  };
  const known = ['event-type', 'event-id', '', 'ëvent ✓', 'k'.repeat(63)];

  it('matches a key it has read before where it lies, and decodes it to what kafkajs does', () => {
    const lean = leanRecordDecoder(Long as never);
    const bytes = recordWith(known);
    expect(decodeCounting(lean, bytes).decoded).toBe(known.length);
    const again = decodeCounting(lean, bytes);
    expect(again.decoded).toBe(0);
    const expected = decodeBoth(bytes, batch).stock;
    expectSameDecode({ result: again.result, at: again.at }, expected);
  });

  it.each([
    ['a key that starts like a known one', ['event-typ', 'event-type-2']],
    ['a key of the same length differing in its last byte', ['event-typf']],
    ['a key of 64 bytes (two varint bytes)', ['k'.repeat(64)]],
    ['a null key', [null]],
  ])('decodes %s as kafkajs does', (_, keys) => {
    const lean = leanRecordDecoder(Long as never);
    decodeCounting(lean, recordWith(known));
    const bytes = recordWith([...keys, ...known]);
    const { result, at } = decodeCounting(lean, bytes);
    expectSameDecode({ result, at }, decodeBoth(bytes, batch).stock);
  });

  it('decodes a known key cut short by the end of the bytes as kafkajs does', () => {
    const lean = leanRecordDecoder(Long as never);
    decodeCounting(lean, recordWith(known));
    const whole = recordWith(['event-type']);
    // Cut inside the key: one byte of the header count, one of the key's length, then four of its ten.
    const bytes = whole.subarray(0, whole.indexOf('event-type') + 4);
    const run = (decode: StockDecoder) => {
      try {
        return { result: decode(new Decoder(bytes), batch) };
      } catch (error) {
        return { error: (error as Error).constructor.name };
      }
    };
    expectSameDecode(run(lean), run(stock));
  });
});

describe('useLeanRecordDecoder', () => {
  /** In a fresh thread, as the fetch worker does: what kafkajs' record batch decoder then uses. */
  async function inFreshThread(
    loadBatchDecoderFirst: boolean,
  ): Promise<{ applied: boolean; decoder: string }> {
    const module = new URL('../../src/kafka/record-decoder.ts', import.meta.url).href;
    const code = `
      const { createRequire } = require('node:module');
      const { parentPort } = require('node:worker_threads');
      const req = createRequire(${JSON.stringify(new URL(import.meta.url).pathname)});
      if (${loadBatchDecoderFirst}) req('kafkajs/src/protocol/recordBatch/v0/decoder.js');
      import(${JSON.stringify(module)}).then((m) => {
        const applied = m.useLeanRecordDecoder();
        req('kafkajs');
        req('kafkajs/src/protocol/recordBatch/v0/decoder.js');
        parentPort.postMessage({ applied, decoder: req(m.RECORD_DECODER_MODULE).name });
      });`;
    const worker = new Worker(code, { eval: true });
    try {
      return await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    } finally {
      await worker.terminate();
    }
  }

  it('puts the lean decoder in place before kafkajs loads its record batch decoder', async () => {
    await expect(inFreshThread(false)).resolves.toEqual({ applied: true, decoder: 'decodeRecordLeanly' });
  });

  it('changes nothing once the record batch decoder has taken kafkajs’ own', async () => {
    const { applied, decoder } = await inFreshThread(true);
    expect(applied).toBe(false);
    expect(decoder).not.toBe('decodeRecordLeanly');
  });
});
