import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { scanRange } from '../src/file/frame-scan.js';
import { encodeRecord, HEADER_BYTES } from '../src/file/frame.js';
import { testEvent } from '../src/testing/index.js';

/** A record as the log writes it, inside a larger buffer as a batch read holds it. */
function framed(event: ReturnType<typeof testEvent>, index = 0, count = 1) {
  const record = encodeRecord(event, index, count);
  const before = Buffer.from('{"id":"x","type":"before"}');
  return { buf: Buffer.concat([before, record, Buffer.from('{"type":"after"}')]), at: before.length };
}

/** Whether a scan for `types` keeps the record at `at`: skipped only when its type is seen to be another. */
function keptFor(types: string[], buf: Buffer, at: number): boolean {
  return scanRange(buf, [at], { types: new Set(types) }).kept.length > 0;
}

describe('a scan for some types, looking at the type where the record holds it', () => {
  it.each([
    ['a single-event append', { type: 'billing.credits-reserved' }, 0, 1, true],
    ['an event of a multi-event append', { type: 'render.succeeded' }, 3, 12, true],
    ['a type beyond ASCII', { type: 'événement.créé' }, 0, 1, true],
    ['an id that needs an escape', { type: 'a.b', id: 'evt_"q"' }, 0, 1, false],
    ['an id with a backslash', { type: 'a.b', id: 'evt_\\' }, 1, 2, false],
    ['a type that needs an escape', { type: 'a"b' }, 0, 1, false],
  ])('%s', (_, fields, index, count, seen) => {
    const { buf, at } = framed({ ...testEvent(1), ...fields }, index, count);
    expect(keptFor([fields.type], buf, at)).toBe(true);
    // A type a scan cannot see without parsing is kept for the parser, wanted or not.
    expect(keptFor(['other.type'], buf, at)).toBe(!seen);
    // A type that differs from the record's in its last character only is another type.
    expect(keptFor([fields.type.slice(0, -1) + '~'], buf, at)).toBe(!seen);
  });

  it.each([
    ['fields in another order', '{"type":"a.b","id":"evt_1"}'],
    ['the type inside the payload only', '{"id":"evt_1","payload":{"type":"a.b"}}'],
    ['a batch marker that is not two numbers', '{"$batch":["x"],"id":"evt_1","type":"a.b"}'],
    ['a record cut inside the type', '{"id":"evt_1","type":"a.b'],
    ['a record cut inside the id', '{"id":"evt_1'],
  ])('leaves the type to the parser for %s', (_, json) => {
    const body = Buffer.from(json);
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32BE(body.length, 0);
    header.writeUInt32BE(crc32(body), 4);
    // The bytes after the record spell a type: the scan must not read past its record.
    const buf = Buffer.concat([header, body, Buffer.from('","type":"a.b"}')]);
    expect(keptFor(['x.y'], buf, 0)).toBe(true);
  });
});
