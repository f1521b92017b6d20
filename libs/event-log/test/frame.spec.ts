import { describe, expect, it } from 'vitest';
import { encodeRecord, HEADER_BYTES, peekRecordType } from '../src/file/frame.js';
import { testEvent } from '../src/testing/index.js';

/** A record as the log writes it, inside a larger buffer as a batch read holds it. */
function framed(event: ReturnType<typeof testEvent>, index = 0, count = 1) {
  const record = encodeRecord(event, index, count);
  const before = Buffer.from('{"id":"x","type":"before"}');
  return { buf: Buffer.concat([before, record, Buffer.from('{"type":"after"}')]), at: before.length };
}

describe('peekRecordType', () => {
  it.each([
    ['a single-event append', { type: 'billing.credits-reserved' }, 0, 1, 'billing.credits-reserved'],
    ['an event of a multi-event append', { type: 'render.succeeded' }, 3, 12, 'render.succeeded'],
    ['a type beyond ASCII', { type: 'événement.créé' }, 0, 1, 'événement.créé'],
    ['an id that needs an escape', { type: 'a.b', id: 'evt_"q"' }, 0, 1, undefined],
    ['an id with a backslash', { type: 'a.b', id: 'evt_\\' }, 1, 2, undefined],
    ['a type that needs an escape', { type: 'a"b' }, 0, 1, undefined],
  ])('%s', (_, fields, index, count, expected) => {
    const { buf, at } = framed({ ...testEvent(1), ...fields }, index, count);
    expect(peekRecordType(buf, at, buf.readUInt32BE(at))).toBe(expected);
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
    // The bytes after the record spell a type: the peek must not read past its record.
    const buf = Buffer.concat([header, body, Buffer.from('","type":"a.b"}')]);
    expect(peekRecordType(buf, 0, body.length)).toBeUndefined();
  });
});
