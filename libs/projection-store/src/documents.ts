import { deserialize, serialize } from 'node:v8';
import type { Document } from './port.js';

export function assertId(doc: Document): void {
  if (typeof doc?.id !== 'string' || doc.id === '') {
    throw new TypeError('a document needs a non-empty string id');
  }
}

export function assertFiniteBound(bound: number): void {
  if (!Number.isFinite(bound)) throw new RangeError('a bound must be a finite number');
}

/**
 * Freezes what is not frozen yet. A document made from a stored one (`{ ...current, n }`) shares its
 * frozen parts, so storing it walks only what is new. Typed arrays cannot be frozen and are left as
 * they are.
 */
export function freezeDeep<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) {
    return value;
  }
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeDeep((value as Record<string, unknown>)[key]);
  return value;
}

/** Deeper than this, a document is left to `v8.serialize`, which also takes cycles. */
const MAX_JSON_DEPTH = 64;

/** Whether JSON text gives `value` back exactly, as `v8.deserialize(v8.serialize(value))` would. */
function jsonExact(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (depth === MAX_JSON_DEPTH) return false;
      const proto = Object.getPrototypeOf(value);
      if (Array.isArray(value)) {
        // Holes and properties besides the elements, which JSON drops, show in the count of keys.
        if (proto !== Array.prototype || Object.keys(value).length !== value.length) return false;
        return value.every((item) => jsonExact(item, depth + 1));
      }
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (!jsonExact((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * A document as it is stored: JSON text when JSON holds it exactly (plain objects and arrays of
 * strings, finite numbers, booleans and null), structured-clone bytes otherwise. A snapshot writer
 * puts the text straight into its output: `v8.serialize` keeps about 1.8 KB of native memory per call
 * until V8 collects its wrapper, and saving tens of thousands of documents between two young
 * collections grew glibc's heap for good.
 */
export function storedForm(doc: Document): string | Buffer {
  return jsonExact(doc, 0) ? JSON.stringify(doc) : serialize(doc);
}

/** A document's stored bytes (`storedForm`, its text as UTF-8). */
export function encodeDocument(doc: Document): Buffer {
  return storedBytes(storedForm(doc));
}

/** The bytes of a stored form: text as UTF-8, bytes as they are. */
export function storedBytes(stored: string | Buffer): Buffer {
  return typeof stored === 'string' ? Buffer.from(stored) : stored;
}

const JSON_OBJECT = 0x7b;

/**
 * Decodes `encodeDocument`'s bytes, and those of earlier releases (structured clone only): a document
 * in JSON opens with `{`, structured-clone bytes with their version tag (0xFF).
 */
export function decodeDocument(bytes: Buffer): unknown {
  return bytes[0] === JSON_OBJECT ? JSON.parse(bytes.toString('utf8')) : deserialize(bytes);
}
