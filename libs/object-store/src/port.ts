import type { Readable } from 'node:stream';

/** `public` is served by the CDN (generated images); `private` holds uploads and saved assets. */
export type Bucket = 'public' | 'private';

export interface StoredObject {
  body: Buffer;
  contentType: string;
}

export interface ObjectStore {
  put(bucket: Bucket, key: string, body: Buffer, contentType: string): Promise<void>;
  get(bucket: Bucket, key: string): Promise<StoredObject | undefined>;
  stream(
    bucket: Bucket,
    key: string,
  ): Promise<{ stream: Readable; contentType: string; size: number } | undefined>;
  delete(bucket: Bucket, key: string): Promise<void>;
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
