import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cutEnvelopeFields,
  cutPayloadFields,
  RangeScanner,
  scanRange,
  unreadFields,
} from '../src/file/frame-scan.js';
import { encodeRecord, HEADER_BYTES, parseRecord, toStoredEvent } from '../src/file/frame.js';
import type { EventEnvelope } from '@thumbforge/contracts';
import { testEvent } from '../src/testing/index.js';
import { tempDir } from './support.js';

/** Records as a segment holds them, one after another, and where each starts. */
function segmentOf(types: string[]): { buf: Buffer; positions: Uint32Array; events: EventEnvelope[] } {
  const events = types.map((type, i) => ({ ...testEvent(i), type }));
  const frames = events.map((event, i) => encodeRecord(event, i, types.length));
  const positions = new Uint32Array(frames.length);
  for (let i = 1; i < frames.length; i++) positions[i] = positions[i - 1] + frames[i - 1].length;
  return { buf: Buffer.concat(frames), positions, events };
}

/** The indexes `kept` lists, and whether each entry's position and length are its record's. */
function keptIndexes(kept: Uint32Array, buf: Buffer, positions: Uint32Array): number[] {
  const indexes = [];
  for (let k = 0; k < kept.length; k += 3) {
    const [index, at, length] = [kept[k], kept[k + 1], kept[k + 2]];
    expect(at).toBe(positions[index]);
    expect(length).toBe(buf.readUInt32BE(at));
    indexes.push(index);
  }
  return indexes;
}

describe('scanRange', () => {
  const types = ['a.kept', 'b.skipped', 'a.kept', 'c"escaped', 'b.skipped'];

  it.each([
    ['every record without a type filter', undefined, [0, 1, 2, 3, 4]],
    ['the wanted type, and one whose type needs the parser', ['a.kept'], [0, 2, 3]],
    ['none of a type no record has', ['z.none'], [3]],
    ['none of a type as long as theirs that differs in its last byte', ['a.kepT'], [3]],
  ])('keeps %s', (_, wanted, expected) => {
    const { buf, positions } = segmentOf(types);
    const scan = scanRange(buf, positions, { types: wanted && new Set(wanted) });
    expect(scan.corrupt).toBeUndefined();
    expect(keptIndexes(scan.kept, buf, positions)).toEqual(expected);
  });

  it('keeps the wanted types only when fields of another are left unread', () => {
    const { buf, positions } = segmentOf(types);
    const unread = unreadFields({ 'a.kept': ['nested'] });
    const scan = scanRange(buf, positions, { types: new Set(['b.skipped']), unread }, true);
    expect(keptIndexes(scan.kept, buf, positions)).toEqual([1, 3, 4]);
  });

  it.each([
    ['a flipped byte in a skipped record', 1, 20, 'checksum mismatch'],
    ['a zero length', 2, 0, 'bad length 0'],
  ])('stops at %s, keeping what came before', (_, index, byte, reason) => {
    const { buf, positions } = segmentOf(types);
    if (byte === 0) buf.writeUInt32BE(0, positions[index]);
    else buf[positions[index] + byte] ^= 0xff;
    const scan = scanRange(buf, positions, { types: new Set(['a.kept']) });
    expect(scan.corrupt).toEqual({ index, reason });
    expect(keptIndexes(scan.kept, buf, positions)).toEqual([0, 2].filter((i) => i < index));
  });

  it('blanks the batch markers out of kept records in a buffer of its own, and only there', () => {
    const { buf, positions, events } = segmentOf(['a.kept', 'b.skipped', 'a.kept']);
    const shared = Buffer.from(buf);
    scanRange(shared, positions, { types: new Set(['a.kept']) });
    expect(shared.equals(buf)).toBe(true);

    const owned = Buffer.from(buf);
    const { kept } = scanRange(owned, positions, { types: new Set(['a.kept']) }, true);
    const parsed = [0, 3].map((k) => parseRecord(owned, kept[k + 1], kept[k + 2]));
    expect(parsed).toStrictEqual([events[0], events[2]]);
    // The skipped record keeps its marker, and with it its checksum.
    expect(parseRecord(owned, positions[1], owned.readUInt32BE(positions[1]))).toHaveProperty(
      '$batch',
      [1, 3],
    );
    expect(scanRange(owned, [positions[1]]).corrupt).toBeUndefined();
    // Finished in place: the parsed record is the stored event.
    expect(toStoredEvent(parsed[0], 't', 7)).toBe(parsed[0]);
    expect(parsed[0]).toStrictEqual({ ...events[0], topic: 't', partition: 0, offset: 7 });
  });

  it('reports a record cut short by the end of the range', () => {
    const { buf, positions } = segmentOf(types);
    const cut = buf.subarray(0, buf.length - 3);
    expect(scanRange(cut, positions).corrupt).toEqual({ index: 4, reason: 'truncated record' });
  });
});

/** The event with the named payload fields deleted: what a cut must leave. */
function without(event: EventEnvelope, fields: readonly string[]): EventEnvelope {
  const payload = { ...(event.payload as Record<string, unknown>) };
  for (const field of fields) delete payload[field];
  return { ...event, payload };
}

/** Cuts `fields` out of a record's own copy; the JSON left, and the length answered. */
function cutOf(frame: Buffer, fields: readonly string[]): { json: string; length: number } {
  const buf = Buffer.from(frame);
  const names = unreadFields({ t: fields }).get('t')!;
  const length = cutPayloadFields(buf, 0, frame.length - HEADER_BYTES, names);
  return { json: buf.toString('utf8', HEADER_BYTES, HEADER_BYTES + length), length };
}

/** Any payload, and any of its fields to cut. */
const payloadAndFields = fc
  .tuple(
    fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), {
      minKeys: 1,
      maxKeys: 6,
    }),
    fc.array(fc.nat()),
  )
  .map(([payload, picks]) => {
    const keys = Object.keys(payload);
    return { payload, fields: [...new Set(picks.map((i) => keys[i % keys.length]))] };
  });

/** That a cut's JSON is `whole` without `fields` in its payload, members in order, and as long as the cut answered. */
function expectCut(cut: { json: string; length: number }, whole: object, fields: readonly string[]): void {
  const expected = JSON.parse(JSON.stringify(whole));
  for (const field of fields) delete expected.payload[field];
  expect(cut.length).toBe(Buffer.byteLength(cut.json));
  expect(JSON.stringify(JSON.parse(cut.json))).toBe(JSON.stringify(expected));
}

describe('cutPayloadFields', () => {
  const event = testEvent(3, 'agg_1', { last: { quote: 'a "}" and a \\', list: [{}, [], '{'] } });

  it.each([
    ['the first field', ['n']],
    ['a nested object with an array', ['nested']],
    ['the last field, its strings holding braces, quotes and escapes', ['last']],
    ['every field', ['n', 'nested', 'text', 'last']],
    ['the fields asked for that it has', ['text', 'missing']],
  ])('cuts %s and leaves the rest of the record as it was', (_, fields) => {
    const { json, length } = cutOf(encodeRecord(event, 0, 1), fields);
    expect(length).toBe(Buffer.byteLength(json));
    expect(JSON.parse(json)).toStrictEqual(without(event, fields));
  });

  it('answers the length it was given, and changes nothing, when no field is cut', () => {
    const frame = encodeRecord(event, 0, 1);
    const buf = Buffer.from(frame);
    expect(cutPayloadFields(buf, 0, frame.length - HEADER_BYTES, [Buffer.from('absent')])).toBe(
      frame.length - HEADER_BYTES,
    );
    expect(buf.equals(frame)).toBe(true);
  });

  it.each([
    ['an envelope without a payload', '{"id":"e","type":"t"}'],
    ['a payload that is not an object', '{"id":"e","type":"t","payload":[{"n":1}]}'],
    ['JSON cut short', '{"id":"e","type":"t","payload":{"n":1,"text":"ab'],
    ['a string left open', '{"id":"e","type":"t","payload":{"n":"1}}'],
    ['an envelope that does not open as encodeRecord writes it', '{"type":"t","id":"e","payload":{"n":1}}'],
  ])('leaves %s as it is', (_, json) => {
    const frame = Buffer.concat([Buffer.alloc(HEADER_BYTES), Buffer.from(json)]);
    const buf = Buffer.from(frame);
    expect(cutPayloadFields(buf, 0, json.length, [Buffer.from('n')])).toBe(json.length);
    expect(buf.equals(frame)).toBe(true);
  });

  it('cuts any set of fields out of any payload, with or without a batch marker, leaving the rest equal', () => {
    fc.assert(
      fc.property(payloadAndFields, fc.nat({ max: 3 }), ({ payload, fields }, batch) => {
        const event = { ...testEvent(1), payload };
        const cut = cutOf(encodeRecord(event, 0, batch + 1), fields);
        expectCut(cut, batch > 0 ? { $batch: [0, batch + 1], ...event } : event, fields);
      }),
      { numRuns: 500 },
    );
  });

  it('cuts fields out of the kept records of a range in a buffer of its own, batch markers and all', () => {
    const { buf, positions, events } = segmentOf(['a.kept', 'b.other', 'a.kept']);
    const unread = unreadFields({ 'a.kept': ['nested', 'text'] });
    const shared = Buffer.from(buf);
    const left = scanRange(shared, positions, { unread });
    expect(shared.equals(buf)).toBe(true);
    expect(keptIndexes(left.kept, buf, positions)).toEqual([0, 1, 2]);

    const { kept } = scanRange(buf, positions, { unread }, true);
    const parsed = [0, 3, 6].map((k) => parseRecord(buf, kept[k + 1], kept[k + 2]));
    expect(parsed).toStrictEqual([
      without(events[0], ['nested', 'text']),
      events[1],
      without(events[2], ['nested', 'text']),
    ]);
  });
});

/** Cuts `fields` out of an envelope's JSON set between other bytes; the JSON left, the length answered, what followed it. */
function cutEnvelopeOf(
  json: string,
  fields: readonly string[],
): { json: string; length: number; after: string } {
  const bytes = Buffer.from(json);
  const buf = Buffer.concat([Buffer.from('[['), bytes, Buffer.from(']]')]);
  const length = cutEnvelopeFields(buf, 2, bytes.length, unreadFields({ t: fields }).get('t')!);
  return {
    json: buf.toString('utf8', 2, 2 + length),
    length,
    after: buf.toString('utf8', 2 + bytes.length),
  };
}

/** The envelope's members in another order (`order` ranks them; ties keep theirs), as any producer may write them. */
function reordered(event: EventEnvelope, order: readonly number[]): Record<string, unknown> {
  const ranked = Object.entries(event).map((entry, i) => ({ entry, rank: order[i] ?? i }));
  return Object.fromEntries(ranked.sort((a, b) => a.rank - b.rank).map(({ entry }) => entry));
}

describe('cutEnvelopeFields', () => {
  const event = testEvent(3, 'agg_1', {
    last: { quote: 'a "}" and a \\', list: [{}, [], '{'], payload: { n: 1 } },
  });
  const { payload, ...rest } = event;

  it.each([
    ['the first field', ['n']],
    ['a nested object with an array', ['nested']],
    ['the last field, holding a member named payload', ['last']],
    ['every field', ['n', 'nested', 'text', 'last']],
    ['the fields asked for that it has', ['text', 'missing']],
  ])('cuts %s out of the payload and leaves the rest as it was', (_, fields) => {
    const { json, length, after } = cutEnvelopeOf(JSON.stringify(event), fields);
    expect(length).toBe(Buffer.byteLength(json));
    expect(JSON.parse(json)).toStrictEqual(without(event, fields));
    // The bytes past the JSON are where they were: the cut moves nothing beyond the length it is given.
    expect(after.endsWith(']]')).toBe(true);
  });

  it.each([
    ['first', { payload, ...rest }],
    ['last', { ...rest, payload }],
    ['after an object holding a member named payload', { headers: { payload: { n: 2 } }, payload, ...rest }],
  ])('finds the payload wherever it lies among the members: %s', (_, envelope) => {
    const { json } = cutEnvelopeOf(JSON.stringify(envelope), ['n']);
    expect(JSON.parse(json)).toStrictEqual({ ...envelope, payload: without(event, ['n']).payload });
  });

  it.each([
    ['an envelope without a payload', '{"id":"e","type":"t","headers":{"payload":{"n":1}}}'],
    ['a payload that is not an object', '{"id":"e","payload":[{"n":1}]}'],
    ['JSON cut short', '{"id":"e","type":"t","payload":{"n":1,"text":"ab'],
    ['a string left open', '{"id":"e","payload":{"n":"1}}'],
    ['something other than an object', '["payload",{"n":1}]'],
    ['a member without its colon', '{"id" "e","payload":{"n":1}}'],
  ])('leaves %s as it is', (_, json) => {
    const { json: left, length } = cutEnvelopeOf(json, ['n']);
    expect(length).toBe(Buffer.byteLength(json));
    expect(left).toBe(json);
  });

  it('cuts any set of fields out of any payload of an envelope in any member order, leaving the rest equal', () => {
    fc.assert(
      fc.property(payloadAndFields, fc.array(fc.nat({ max: 9 })), ({ payload, fields }, order) => {
        const envelope = reordered({ ...testEvent(1), payload }, order);
        expectCut(cutEnvelopeOf(JSON.stringify(envelope), fields), envelope, fields);
      }),
      { numRuns: 500 },
    );
  });
});

describe('RangeScanner', () => {
  let scanner: RangeScanner | undefined;
  afterEach(async () => {
    await scanner?.close();
    scanner = undefined;
  });

  it('reads a range of a file on its thread and finds what scanRange finds there', async () => {
    const { buf, positions, events } = segmentOf(['a.kept', 'b.skipped', 'a.kept', 'b.skipped']);
    const path = join(await tempDir(), 'segment');
    // Bytes before and after the range: only [start, stop) is read.
    await writeFile(path, Buffer.concat([Buffer.from('junk'), buf, Buffer.from('more')]));
    scanner = new RangeScanner();
    const unread = { 'a.kept': ['nested'] };
    const ranges = await Promise.all(
      [{}, { types: ['a.kept'] }, { unread }].map((filter) =>
        scanner!.scan({ path, start: 4, stop: 4 + buf.length, positions: positions.slice(), ...filter }),
      ),
    );
    expect(keptIndexes(ranges[0].kept, buf, positions)).toEqual([0, 1, 2, 3]);
    expect(keptIndexes(ranges[1].kept, buf, positions)).toEqual([0, 2]);
    // The range's own bytes, kept records without their batch markers (a buffer of its own).
    const parsedOf = ({ buf: bytes, kept }: { buf: Buffer; kept: Uint32Array }) =>
      [...Array(kept.length / 3).keys()].map((k) => parseRecord(bytes, kept[3 * k + 1], kept[3 * k + 2]));
    expect(parsedOf(ranges[0])).toStrictEqual(events);
    expect(parsedOf(ranges[1])).toStrictEqual([events[0], events[2]]);
    expect(parsedOf(ranges[2])).toStrictEqual(
      events.map((event) => (event.type === 'a.kept' ? without(event, ['nested']) : event)),
    );
    expect(ranges.map((range) => range.corrupt)).toEqual([undefined, undefined, undefined]);
  });

  it('answers a missing file with an error, a short one as corrupt, a closed scanner with an error', async () => {
    const dir = await tempDir();
    scanner = new RangeScanner();
    // A request hands its positions over to the worker: each gets its own.
    const request = (name: string) => ({
      path: join(dir, name),
      start: 0,
      stop: 10,
      positions: new Uint32Array([0]),
    });
    await expect(scanner.scan(request('missing'))).rejects.toThrow(/ENOENT/);
    await writeFile(join(dir, 'short'), 'abc');
    await expect(scanner.scan(request('short'))).resolves.toMatchObject({
      kept: new Uint32Array(0),
      corrupt: { index: 0, reason: 'segment ended 7 bytes early' },
    });
    await scanner.close();
    await expect(scanner.scan(request('short'))).rejects.toThrow(/closed/);
  });
});
