import type { Readable } from 'node:stream';

/** `public` is served by the CDN (generated images); `private` holds uploads and saved assets. */
export type Bucket = 'public' | 'private';

export interface StoredObject {
  body: Buffer;
  contentType: string;
}

export interface ListedObject {
  key: string;
  modifiedAt: Date;
}

export interface ObjectStore {
  put(bucket: Bucket, key: string, body: Buffer, contentType: string): Promise<void>;
  get(bucket: Bucket, key: string): Promise<StoredObject | undefined>;
  stream(
    bucket: Bucket,
    key: string,
  ): Promise<{ stream: Readable; contentType: string; size: number } | undefined>;
  delete(bucket: Bucket, key: string): Promise<void>;
  /** Every object whose key starts with `prefix` (a whole segment path ending in `/`), in no set order. */
  list(bucket: Bucket, prefix: string): Promise<ListedObject[]>;
  /** The CDN link of a public object: `{cdn_url}/{key}`. */
  publicUrl(key: string): string;
  ping(): Promise<void>;
}

export const OBJECT_STORE = Symbol.for('thumbforge.ObjectStore');

/** Keys are relative paths of safe segments; anything else is refused before it reaches storage. */
export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]*(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/.test(key) || key.includes('..')) {
    throw new Error(`unsafe object key: ${JSON.stringify(key)}`);
  }
}

/** A listing prefix: one or more safe key segments, each followed by `/`. */
export function assertSafePrefix(prefix: string): void {
  if (typeof prefix !== 'string' || !prefix.endsWith('/')) {
    throw new Error(`unsafe object prefix: ${JSON.stringify(prefix)}`);
  }
  assertSafeKey(prefix.slice(0, -1));
}
