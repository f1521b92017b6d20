import { deserialize, serialize } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeDocument, encodeDocument } from '../src/index.js';

const JSON_OPENING = 0x7b;
const STRUCTURED_CLONE_VERSION_TAG = 0xff;

/** What a structured clone gives back: the document `decodeDocument` must return, whichever bytes it reads. */
const cloned = (doc: object) => deserialize(serialize(doc)) as unknown;

const holey = [1, , 3]; // eslint-disable-line no-sparse-arrays
const withExtra = Object.assign([1, 2], { note: 'kept by a clone, dropped by JSON' });
const nested = (depth: number): Record<string, unknown> =>
  depth === 0 ? { leaf: 1 } : { next: nested(depth - 1) };

describe('encodeDocument', () => {
  it.each([
    [
      'strings, finite numbers, booleans and null',
      { id: 'a', s: 'héllo ✓ \ud800', n: 1.5, big: 2 ** 60, t: true, z: null },
    ],
    ['nested objects and arrays', { id: 'a', list: [{ n: 1 }, [2, [3]], 'x'], page: { entries: [] } }],
    ['an object without a prototype', Object.assign(Object.create(null), { id: 'a', n: 1 })],
    ['integer-like keys', { id: 'a', 10: 'ten', 2: 'two', z: 'last' }],
    [
      'a subtree shared by two fields',
      (() => {
        const shared = { n: 1 };
        return { id: 'a', x: shared, y: shared };
      })(),
    ],
  ])('writes %s as JSON text', (_, doc) => {
    const bytes = encodeDocument(doc);
    expect(bytes[0]).toBe(JSON_OPENING);
    expect(decodeDocument(bytes)).toStrictEqual(cloned(doc));
  });

  it.each([
    ['a date', { id: 'a', at: new Date('2026-04-27T14:30:00Z') }],
    ['NaN', { id: 'a', n: Number.NaN }],
    ['Infinity', { id: 'a', n: Number.POSITIVE_INFINITY }],
    ['negative zero', { id: 'a', n: -0 }],
    ['a BigInt', { id: 'a', n: 10n }],
    ['an undefined field', { id: 'a', gone: undefined }],
    ['an array with a hole', { id: 'a', list: holey }],
    ['an array with a property besides its elements', { id: 'a', list: withExtra }],
    ['a typed array', { id: 'a', bytes: new Uint8Array([1, 2]) }],
    ['a Map', { id: 'a', map: new Map([['k', 1]]) }],
    [
      'a cycle',
      (() => {
        const doc: Record<string, unknown> = { id: 'a' };
        doc.self = doc;
        return doc;
      })(),
    ],
    ['nesting deeper than JSON is tried for', { id: 'a', deep: nested(70) }],
  ])('writes a document with %s as structured-clone bytes', (_, doc) => {
    const bytes = encodeDocument(doc as { id: string });
    expect(bytes[0]).toBe(STRUCTURED_CLONE_VERSION_TAG);
    expect(decodeDocument(bytes)).toStrictEqual(cloned(doc));
  });

  it('decodes structured-clone bytes an earlier release stored', () => {
    const doc = { id: 'a', n: 1, list: ['x'] };
    expect(decodeDocument(serialize(doc))).toStrictEqual(doc);
  });

  it('gives back what a structured clone gives back, for any document', () => {
    const values = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.constantFrom(Number.NaN, -0, undefined, new Date(0), 5n),
    );
    const docs = fc.record({ id: fc.string({ minLength: 1 }), rest: fc.dictionary(fc.string(), values) });
    fc.assert(
      fc.property(docs, ({ id, rest }) => {
        const doc = { ...rest, id };
        expect(decodeDocument(encodeDocument(doc))).toStrictEqual(cloned(doc));
      }),
      { numRuns: 500 },
    );
  });
});
