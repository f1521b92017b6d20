/**
 * Documents as every MongoDB-wire-compatible server stores them. FerretDB (and older MongoDB) refuse
 * field names containing `.` or starting with `$`, arrays nested directly in arrays, and NaN or
 * infinite numbers, while read models may legitimately hold any of them (e.g. positions keyed by
 * `thumbforge.jobs:0`). So field names are escaped (`%` → `%25`, `.` → `%2E`, `$` → `%24`) and those
 * values are wrapped in one-field objects whose `%`-names no escaped name can produce. Plain field
 * names (letters, digits, `_`, `-`) and ordinary values are stored as they are, so they stay queryable.
 */

const ARRAY = '%array';
const NUMBER = '%number';
const BIGINT = '%bigint';

export function escapeKey(key: string): string {
  return key.replace(/[%.$]/g, (c) => (c === '%' ? '%25' : c === '.' ? '%2E' : '%24'));
}

export function unescapeKey(key: string): string {
  return key.replace(/%(25|2E|24)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function encodeValue(value: unknown, path: string, inArray = false): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : { [NUMBER]: String(value) };
    case 'bigint':
      return { [BIGINT]: value.toString() };
    case 'undefined':
      return null;
    case 'object':
      break;
    default:
      throw new TypeError(`cannot store a ${typeof value} at ${path}`);
  }
  if (value === null || value instanceof Date) return value;
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (Array.isArray(value)) {
    const items = value.map((item, i) => encodeValue(item, `${path}[${i}]`, true));
    return inArray ? { [ARRAY]: items } : items;
  }
  if (isPlainObject(value)) return encodeFields(value, path);
  throw new TypeError(`cannot store a ${value.constructor?.name ?? 'object'} at ${path}`);
}

/** Encodes an object's fields; undefined fields are left out, as JSON and BSON drivers do. */
export function encodeFields(value: Record<string, unknown>, path: string): Record<string, unknown> {
  const encoded: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== undefined) encoded[escapeKey(key)] = encodeValue(field, `${path}.${key}`);
  }
  return encoded;
}

export function decodeValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Date || Buffer.isBuffer(value)) {
    return value;
  }
  if (Array.isArray(value)) return value.map(decodeValue);
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length === 1) {
    const [key] = keys;
    if (key === ARRAY) return (fields[ARRAY] as unknown[]).map(decodeValue);
    if (key === NUMBER) return Number(fields[NUMBER]);
    if (key === BIGINT) return BigInt(fields[BIGINT] as string);
  }
  return decodeFields(fields);
}

export function decodeFields(fields: Record<string, unknown>): Record<string, unknown> {
  const decoded: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) decoded[unescapeKey(key)] = decodeValue(field);
  return decoded;
}
