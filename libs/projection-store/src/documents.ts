import type { Document } from './port.js';

export function assertId(doc: Document): void {
  if (typeof doc?.id !== 'string' || doc.id === '') {
    throw new TypeError('a document needs a non-empty string id');
  }
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
